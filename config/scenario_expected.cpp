#include "config/scenario_expected.h"

#include <array>
#include <string_view>

namespace gpuplan::config {
namespace {

enum class MetricKind { kThroughput, kTokens, kBytes, kBool, kSeconds, kFraction };

struct Metric {
  std::string_view name;
  MetricKind kind;
};

constexpr std::array kMetrics = {
    Metric{"throughput", MetricKind::kThroughput}, Metric{"tokens_per_s", MetricKind::kTokens},
    Metric{"peak_memory", MetricKind::kBytes},     Metric{"fits", MetricKind::kBool},
    Metric{"step_time", MetricKind::kSeconds},     Metric{"time_to_train", MetricKind::kSeconds},
    Metric{"mfu", MetricKind::kFraction},          Metric{"gpu_utilization", MetricKind::kFraction},
    Metric{"peak_memory_allocated", MetricKind::kBytes},
};

std::optional<double> read_metric(MapReader& e, const std::string& key, MetricKind kind) {
  switch (kind) {
    case MetricKind::kThroughput:
    case MetricKind::kTokens: {
      const auto value = e.quantity(key, core::Dimension::kSamplesPerSecond);
      if (!value) {
        return std::nullopt;
      }
      const bool tokens = e.raw(key).Scalar().find("token") != std::string::npos;
      if (kind == MetricKind::kThroughput && tokens) {
        e.error(key, "throughput counts samples, found '" + e.raw(key).Scalar() + "'",
                "; write tokens/s under tokens_per_s");
        return std::nullopt;
      }
      if (kind == MetricKind::kTokens && !tokens) {
        e.error(key, "tokens_per_s counts tokens, found '" + e.raw(key).Scalar() + "'",
                "; write it as \"3100 tokens/s\", or samples/s under throughput");
        return std::nullopt;
      }
      return value;
    }
    case MetricKind::kBytes:
      return e.quantity(key, core::Dimension::kBytes);
    case MetricKind::kSeconds:
      return e.quantity(key, core::Dimension::kSeconds);
    case MetricKind::kBool: {
      const auto value = e.boolean(key);
      if (!value) {
        return std::nullopt;
      }
      return *value ? 1.0 : 0.0;
    }
    case MetricKind::kFraction:
      return e.number(key, 0.0, 1.0);
  }
  return std::nullopt;
}

}  // namespace

std::optional<Expected> read_expected(MapReader& root) {
  if (!root.has("expected")) {
    root.declare({"expected"});
    return std::nullopt;
  }
  ErrorSink& sink = root.sink();
  const std::size_t errors_before = sink.messages().size();
  const YAML::Node node = root.raw("expected");
  auto e = root.map("expected");
  if (!e) {
    return std::nullopt;
  }
  Expected expected;
  expected.source = e->string("source", Requirement::kRequired).value_or("");
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string();
    for (const Metric& metric : kMetrics) {
      if (metric.name != key) {
        continue;
      }
      if (const auto value = read_metric(*e, key, metric.kind)) {
        expected.values.push_back({key, *value, e->raw(key).Scalar(), sink.to_source_mark(e->mark_of(key))});
      }
    }
  }
  std::vector<std::string> names;
  for (const Metric& metric : kMetrics) {
    names.emplace_back(metric.name);
  }
  e->declare(names);
  e->finish();
  if (expected.values.empty() && sink.messages().size() == errors_before) {
    sink.add("expected lists no measurement", e->mark(), "expected",
             "; add one, e.g. throughput: \"2650 samples/s\"");
  }
  if (sink.messages().size() != errors_before) {
    return std::nullopt;
  }
  return expected;
}

}  // namespace gpuplan::config

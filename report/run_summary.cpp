#include "report/run_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <optional>

#include "models/run/advice.h"
#include "report/display_width.h"
#include "report/human_units.h"

namespace gpuplan::report {

namespace {

using models::VariantResult;

double share(double part_s, double step_s) { return step_s > 0.0 ? part_s / step_s : 0.0; }

/// " on premises" after the dollars of a row priced on premises (models::run_cost_usd), else "".
std::string premises_mark(const VariantResult& v) {
  return !v.cost_on_demand_usd && v.market != "spot" && v.cost_on_premises_usd ? " on premises" : "";
}

std::string quoted(const VariantResult& v) { return one_line(v.strategy); }

/// A row's throughput in its unit: tokens/s for a language model, else samples/s.
std::string throughput_text(const VariantResult& v) {
  return v.throughput_tokens_per_s ? human_rate(*v.throughput_tokens_per_s) + " tokens/s"
                                   : human_rate(v.throughput_samples_per_s) + " samples/s";
}

/// A run's wall time (models/run/advice.h): its p50 where preemptions or hardware failures
/// interrupt it, else the time to train; absent when the job does not finish or no time is known.
std::optional<double> wall_time_s(const VariantResult& v) {
  const double t = models::run_time_s(v);
  return std::isfinite(t) && t > 0.0 ? std::optional<double>(t) : std::nullopt;
}

}  // namespace

std::string limiter_in_words(const VariantResult& v) {
  const auto& s = v.step;
  if (!v.fits) return "it does not fit in GPU memory";
  if (v.bottleneck == "data_loading_cpu") {
    return "the GPU waits for the CPU decode workers " + human_percent(share(s.data_wait_s, s.step_time_s)) + " of the time";
  }
  if (v.bottleneck == "storage_io") {
    return "the GPU waits for storage " + human_percent(share(s.data_wait_s, s.step_time_s)) + " of the time";
  }
  if (v.bottleneck == "h2d_copy") {
    return "the GPU waits for host-to-device copies " + human_percent(share(s.h2d_s, s.step_time_s)) + " of the time";
  }
  if (v.bottleneck == "host_dispatch") {
    return "the GPU waits for the host to launch kernels " + human_percent(share(s.host_dispatch_wait_s, s.step_time_s)) +
           " of the time";
  }
  if (v.bottleneck == "communication") {
    return "the GPU waits for gradient communication " + human_percent(share(s.communication_exposed_s, s.step_time_s)) +
           " of the time";
  }
  if (v.bottleneck == "pipeline_bubble") {
    return "the GPU waits for the other pipeline stages " + human_percent(share(s.pipeline_bubble_s, s.step_time_s)) +
           " of the time";
  }
  if (v.bottleneck == "host_optimizer") {
    return "the GPU waits for the offloaded optimizer step on the host " +
           human_percent(share(s.host_optimizer_s, s.step_time_s)) + " of the time";
  }
  if (v.bottleneck == "gpu_compute") return "the GPU computes " + human_percent(v.gpu_utilization) + " of the time";
  return "limited by " + v.bottleneck;
}

/// After a run's dollars: on the spot market they are the p50 of the trials, and the p90
/// beside them shows the tail a median hides (or why there is none); "" on demand.
std::string spot_spread(const VariantResult& v) {
  if (v.market != "spot") return "";
  return v.cost_p90_usd ? " (spot: p50; p90 " + human_usd(*v.cost_p90_usd) + ")"
                        : " (spot: p50; no p90, under 90 % of the trials finish)";
}

std::string run_summary(const models::ScenarioResult& result) {
  if (result.variants.empty()) return "";
  const VariantResult& first = result.variants.front();
  const VariantResult* fastest = nullptr;
  const VariantResult* cheapest = nullptr;
  const VariantResult* soonest = nullptr;  // the shortest wall time: preemptions can make it another row
  std::vector<std::string> oom;
  for (const auto& v : result.variants) {
    if (!v.fits) {
      oom.push_back(one_line(v.strategy));
      continue;
    }
    if (fastest == nullptr || v.throughput_samples_per_s > fastest->throughput_samples_per_s) fastest = &v;
    const auto cost = models::run_cost_usd(v);
    if (cost && (cheapest == nullptr || *cost < *models::run_cost_usd(*cheapest))) cheapest = &v;
    const auto time = wall_time_s(v);
    if (time && (soonest == nullptr || *time < *wall_time_s(*soonest))) soonest = &v;
  }
  std::string out;
  if (fastest != nullptr && result.variants.size() > 1) {
    out += fmt::format("Fastest: {} at {}", quoted(*fastest), throughput_text(*fastest));
    if (fastest != &first && first.fits && first.throughput_samples_per_s > 0.0) {
      // Two decimals below 10x, so that 5 % faster does not read "1.0x".
      const double ratio = fastest->throughput_samples_per_s / first.throughput_samples_per_s;
      out += ratio < 10.0 ? fmt::format(", {:.2f}x {}", ratio, quoted(first)) : fmt::format(", {:.1f}x {}", ratio, quoted(first));
      // Rows that train on other global batches are not the same training: said where it differs.
      if (fastest->global_batch_samples != first.global_batch_samples) {
        out += fmt::format(" (global batch {} against {} {})", fastest->global_batch_samples,
                           first.global_batch_samples, first.samples_are_sequences ? "sequences" : "samples");
      }
    }
    out += ".";
    if (soonest != nullptr && soonest != fastest && (!wall_time_s(*fastest) || *wall_time_s(*soonest) < *wall_time_s(*fastest))) {
      // On spot the fastest step is not the shortest run when preemptions cost the large
      // rows more than their speed gains.
      out += fmt::format(" Done soonest: {}, in {}{}.", quoted(*soonest), human_duration(*wall_time_s(*soonest)),
                         soonest->market == "spot" ? " (spot: p50)" : "");
    }
    if (cheapest != nullptr) {
      out += fmt::format(" Cheapest: {}, {} per run{}{}.", quoted(*cheapest), human_usd(*models::run_cost_usd(*cheapest)),
                         premises_mark(*cheapest), spot_spread(*cheapest));
    }
    out += "\n";
  } else if (fastest != nullptr) {
    out += fmt::format("{}: {}", quoted(*fastest), throughput_text(*fastest));
    if (cheapest != nullptr) {
      out += ", " + human_usd(*models::run_cost_usd(*cheapest)) + " per run" + premises_mark(*cheapest) + spot_spread(*cheapest);
    }
    out += ".\n";
  }
  // A first row out of memory is named in the out-of-memory line below, not twice.
  if (first.fits) {
    out += fmt::format("In {}, {}", quoted(first), limiter_in_words(first));
    if (!first.suggestion.empty()) out += "; next: " + first.suggestion;
    out += ".\n";
  }
  if (fastest != nullptr && fastest != &first) {
    out += fmt::format("In {}, {}", quoted(*fastest), limiter_in_words(*fastest));
    if (!fastest->suggestion.empty()) out += "; next: " + fastest->suggestion;
    out += ".\n";
  }
  if (!oom.empty()) out += fmt::format("Out of GPU memory: {}.\n", fmt::join(oom, ", "));
  return out;
}

}  // namespace gpuplan::report

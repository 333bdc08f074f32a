#include "report/run_html.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/units.h"
#include "report/html_page.h"
#include "report/human_units.h"
#include "report/run_summary.h"

namespace gpuplan::report {

namespace {

using nlohmann::json;

/// Colours of successive datasets (Chart.js draws every dataset grey without them).
const std::vector<std::string> kColours = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                           "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
std::string colour(std::size_t i) { return kColours[i % kColours.size()]; }

json axis(const std::string& title, bool stacked = false) {
  return {{"stacked", stacked}, {"title", {{"display", true}, {"text", title}}}};
}

json bar_chart(const std::vector<std::string>& labels, json datasets, const std::string& y_title, bool stacked) {
  return {{"type", "bar"},
          {"data", {{"labels", labels}, {"datasets", std::move(datasets)}}},
          {"options", {{"scales", {{"x", {{"stacked", stacked}}}, {"y", axis(y_title, stacked)}}}}}};
}

json dataset(const std::string& label, const std::vector<double>& values, std::size_t i) {
  return {{"label", label}, {"data", values}, {"backgroundColor", colour(i)}, {"borderColor", colour(i)}};
}

}  // namespace

std::string utilization_chart_json(const std::vector<UtilizationTimeline>& timelines, const std::string& y_title) {
  json datasets = json::array();
  for (std::size_t i = 0; i < timelines.size(); ++i) {
    json points = json::array();
    for (std::size_t k = 0; k < timelines[i].time_s.size(); ++k) {
      points.push_back({{"x", timelines[i].time_s[k]}, {"y", timelines[i].busy[k] * 100.0}});
    }
    datasets.push_back({{"label", timelines[i].name}, {"data", points}, {"borderColor", colour(i)},
                        {"backgroundColor", colour(i)}, {"pointRadius", 0}, {"stepped", true}, {"borderWidth", 1.5}});
  }
  const json config = {{"type", "line"},
                       {"data", {{"datasets", datasets}}},
                       {"options",
                        {{"parsing", true},
                         {"scales", {{"x", {{"type", "linear"}, {"title", {{"display", true}, {"text", "time (s)"}}}}},
                                     {"y", {{"min", 0}, {"max", 100}, {"title", {{"display", true}, {"text", y_title}}}}}}}}}};
  return config.dump();
}

std::string render_run_html(const models::ScenarioResult& result, const std::vector<UtilizationTimeline>& timelines) {
  std::vector<std::string> labels;
  std::vector<const models::VariantResult*> fitting;
  for (const auto& v : result.variants) {
    if (!v.fits) continue;
    labels.push_back(v.strategy);
    fitting.push_back(&v);
  }
  std::vector<HtmlChart> charts;

  // Step time by part, milliseconds, stacked: the parts add up to the step (results.h).
  const std::vector<std::pair<std::string, double models::StepBreakdown::*>> parts = {
      {"GPU compute", &models::StepBreakdown::gpu_compute_s},
      {"optimizer", &models::StepBreakdown::optimizer_s},
      {"data wait", &models::StepBreakdown::data_wait_s},
      {"H2D copy", &models::StepBreakdown::h2d_s},
      {"host dispatch", &models::StepBreakdown::host_dispatch_wait_s},
      {"communication (exposed)", &models::StepBreakdown::communication_exposed_s}};
  json step = json::array();
  for (std::size_t p = 0; p < parts.size(); ++p) {
    std::vector<double> values;
    for (const auto* v : fitting) values.push_back(core::to_milliseconds(v->step.*parts[p].second));
    step.push_back(dataset(parts[p].first, values, p));
  }
  charts.push_back({"Simulated step time by part", bar_chart(labels, step, "ms per optimizer step", true).dump()});

  // A language model's throughput in tokens/s, as the text table heads it (every row has them).
  const bool tokens = !result.variants.empty() && std::all_of(result.variants.begin(), result.variants.end(),
                                                              [](const auto& v) { return v.throughput_tokens_per_s.has_value() || !v.fits; });
  const std::string rate_unit = tokens ? "tokens/s" : "samples/s";
  std::vector<double> throughput;
  for (const auto* v : fitting) throughput.push_back(tokens ? v->throughput_tokens_per_s.value_or(0.0) : v->throughput_samples_per_s);
  charts.push_back({"Throughput", bar_chart(labels, json::array({dataset(rate_unit, throughput, 0)}), rate_unit, false).dump()});

  std::vector<double> dollars;
  bool any_cost = false;
  for (const auto* v : fitting) {
    // A run that does not finish has no p50 dollars: no bar (NaN is a JSON null).
    const bool unfinished = !v->market.empty() && !v->cost_p50_usd;
    const auto cost = !v->market.empty() ? v->cost_p50_usd : v->cost_on_demand_usd;
    any_cost |= cost.has_value();
    dollars.push_back(unfinished ? std::numeric_limits<double>::quiet_NaN() : cost.value_or(0.0));
  }
  if (any_cost) {
    charts.push_back({"Dollars per run (p50 on the market)",
                      bar_chart(labels, json::array({dataset("USD", dollars, 1)}), "USD per run", false).dump()});
  }

  // Peak memory by part (every strategy, OOM ones too: that is where memory matters) and capacity.
  std::vector<std::string> all_labels;
  for (const auto& v : result.variants) all_labels.push_back(v.strategy + (v.fits ? "" : " (OOM)"));
  const std::vector<std::pair<std::string, double models::MemoryBreakdown::*>> memory_parts = {
      {"weights", &models::MemoryBreakdown::weights_bytes},
      {"gradients", &models::MemoryBreakdown::gradients_bytes},
      {"optimizer state", &models::MemoryBreakdown::optimizer_state_bytes},
      {"activations", &models::MemoryBreakdown::activations_bytes},
      {"workspace", &models::MemoryBreakdown::workspace_bytes},
      {"CUDA context", &models::MemoryBreakdown::cuda_context_bytes},
      {"allocator slack", &models::MemoryBreakdown::allocator_slack_bytes},
      {"data parallel", &models::MemoryBreakdown::data_parallel_bytes},
      {"gathered", &models::MemoryBreakdown::gathered_bytes}};
  json memory = json::array();
  std::vector<double> capacity;
  for (const auto& v : result.variants) capacity.push_back(core::to_gigabytes(v.memory_capacity_bytes));
  memory.push_back({{"type", "line"}, {"label", "capacity"}, {"data", capacity}, {"borderColor", "#000"},
                    {"backgroundColor", "#000"}, {"stack", "capacity"}});
  for (std::size_t p = 0; p < memory_parts.size(); ++p) {
    std::vector<double> values;
    for (const auto& v : result.variants) values.push_back(core::to_gigabytes(v.memory.*memory_parts[p].second));
    json d = dataset(memory_parts[p].first, values, p);
    d["stack"] = "memory";
    memory.push_back(d);
  }
  charts.push_back({"Peak GPU memory by part against capacity (GB = 10^9 B)",
                    bar_chart(all_labels, memory, "GB", true).dump()});

  if (!timelines.empty()) {
    charts.push_back({"Simulated GPU utilization over the first steps", utilization_chart_json(timelines, "GPU busy (%)")});
  }

  std::vector<std::vector<std::string>> rows;
  for (const auto& v : result.variants) {
    rows.push_back({v.strategy,
                    v.fits ? human_rate(tokens ? v.throughput_tokens_per_s.value_or(0.0) : v.throughput_samples_per_s)
                           : "OOM",
                    v.fits ? human_duration(v.step.step_time_s) : "-", v.fits ? human_percent(v.gpu_utilization) : "-",
                    human_bytes(v.peak_memory_bytes) + " / " + human_bytes(v.memory_capacity_bytes),
                    v.fits ? human_duration(v.time_to_train_s) : "-",
                    v.cost_on_demand_usd && v.fits ? human_usd(*v.cost_on_demand_usd) : "-", v.bottleneck, v.suggestion});
  }
  const std::string table = "<h2>Strategies</h2>\n" +
                            html_table({"strategy", rate_unit, "step", "GPU util", "peak mem", "time to train",
                                        "on-demand", "bottleneck", "next step"},
                                       rows) +
                            "<p>Times are simulated. GPU util = share of time a kernel runs (nvidia-smi). GB = 10^9 B.</p>\n";
  // The notes of the text formats (report_format.cpp), each once with the strategies it is on.
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;
  for (const auto& v : result.variants) {
    for (const std::string& n : v.notes) {
      auto at = std::find_if(notes.begin(), notes.end(), [&n](const auto& e) { return e.first == n; });
      if (at == notes.end()) {
        notes.push_back({n, {}});
        at = notes.end() - 1;
      }
      at->second.push_back(v.strategy);
    }
  }
  std::string notes_html;
  if (!notes.empty()) {
    notes_html = "<h2>Notes</h2>\n<ul>\n";
    for (const auto& [text, strategies] : notes) {
      const std::string on = strategies.size() == result.variants.size()
                                 ? std::string("every strategy")
                                 : fmt::format("{}", fmt::join(strategies, ", "));
      notes_html += "<li>" + html_escape(text) + " <em>(" + html_escape(on) + ")</em></li>\n";
    }
    notes_html += "</ul>\n";
  }
  return html_page(result.scenario_name, run_summary(result), charts, table + notes_html);
}

}  // namespace gpuplan::report

#include "report/diagnosis_html.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/units.h"
#include "report/diagnosis_report.h"
#include "report/html_page.h"
#include "report/run_html.h"

namespace gpuplan::report {

namespace {

using nlohmann::json;

/// One line per GPU of `value(reading)` over time: seconds from the log's first reading
/// (its times, else reading x interval, else the reading's number).
json series_chart(const models::DiagnoseResult& r, double (*value)(const models::GpuReading&), const std::string& y_title) {
  json datasets = json::array();
  const std::vector<std::string> colours = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7"};
  double t0 = std::numeric_limits<double>::quiet_NaN();
  for (const auto& g : r.measured) {
    if (!g.readings.empty() && !std::isnan(g.readings.front().time_s)) t0 = std::isnan(t0) ? g.readings.front().time_s : std::min(t0, g.readings.front().time_s);
  }
  for (std::size_t i = 0; i < r.measured.size(); ++i) {
    const auto& g = r.measured[i];
    json points = json::array();
    for (std::size_t k = 0; k < g.readings.size(); ++k) {
      const double v = value(g.readings[k]);
      if (std::isnan(v)) continue;
      double x = static_cast<double>(k);
      if (!std::isnan(g.readings[k].time_s) && !std::isnan(t0)) x = g.readings[k].time_s - t0;
      else if (!std::isnan(g.interval_s)) x = static_cast<double>(k) * g.interval_s;
      points.push_back({{"x", x}, {"y", v}});
    }
    const std::string c = colours[i % colours.size()];
    datasets.push_back({{"label", "GPU " + std::to_string(g.index) + " (" + g.source + ")"}, {"data", points},
                        {"borderColor", c}, {"backgroundColor", c}, {"pointRadius", 0}, {"borderWidth", 1.5}});
  }
  return {{"type", "line"},
          {"data", {{"datasets", datasets}}},
          {"options",
           {{"scales", {{"x", {{"type", "linear"}, {"title", {{"display", true}, {"text", "time (s; readings without times: reading number)"}}}}},
                        {"y", {{"min", 0}, {"title", {{"display", true}, {"text", y_title}}}}}}}}}};
}

}  // namespace

std::string render_diagnosis_html(const models::DiagnoseResult& r) {
  std::vector<HtmlChart> charts;
  if (!r.measured.empty()) {
    charts.push_back({"Measured GPU utilization", series_chart(r, [](const models::GpuReading& g) { return g.utilization * 100.0; }, "GPU busy (%)").dump()});
    charts.push_back({"Measured GPU memory used (GB = 10^9 B)",
                      series_chart(r, [](const models::GpuReading& g) { return core::to_gigabytes(g.memory_used_bytes); }, "GB").dump()});
    charts.push_back({"Measured GPU power", series_chart(r, [](const models::GpuReading& g) { return g.power_w; }, "W").dump()});
  }
  if (r.simulated && !r.simulated->timeline_time_s.empty()) {
    UtilizationTimeline t{r.simulated->strategy + " (simulated)", r.simulated->timeline_time_s, r.simulated->timeline_busy};
    charts.push_back({"Simulated GPU utilization over the first steps of " + r.simulated->strategy,
                      utilization_chart_json({t}, "GPU busy (%)")});
  }
  if (r.simulated && !r.remedies.empty()) {
    std::vector<std::string> labels;
    std::vector<double> gains;
    for (const auto& m : r.remedies) {
      labels.push_back(m.strategy);
      gains.push_back(m.gain * 100.0);
    }
    const json config = {{"type", "bar"},
                         {"data", {{"labels", labels}, {"datasets", json::array({{{"label", "simulated gain (%)"}, {"data", gains}, {"backgroundColor", "#59a14f"}}})}}},
                         {"options", {{"indexAxis", "y"}, {"scales", {{"x", {{"title", {{"display", true}, {"text", "samples/s over " + r.baseline + " (%)"}}}}}}}}}};
    charts.push_back({"Remedies ranked by simulated gain", config.dump()});
  }
  std::string body;
  for (const auto& f : r.diagnosis.findings) {
    body += "<h2>" + html_escape((f.gpu_index >= 0 ? "GPU " + std::to_string(f.gpu_index) : std::string("The job")) + ": " + f.bottleneck +
                                 (f.supported ? "" : " (likely)")) +
            "</h2>\n<ul>\n";
    for (const auto& e : f.evidence) body += "<li>" + html_escape(e) + "</li>\n";
    body += "</ul>\n<p>Remedy: " + html_escape(f.remedy) + "</p>\n";
  }
  if (!r.diagnosis.notes.empty()) {
    body += "<h2>Notes</h2>\n<ul>\n";
    for (const auto& n : r.diagnosis.notes) body += "<li>" + html_escape(n) + "</li>\n";
    body += "</ul>\n";
  }
  body += "<p>GPU utilization is nvidia-smi's: the share of time a kernel runs, not MFU.</p>\n";
  return html_page("gpuplan diagnose" + (r.scenario_name.empty() ? std::string() : ": " + r.scenario_name), diagnosis_summary(r),
                   charts, body);
}

}  // namespace gpuplan::report

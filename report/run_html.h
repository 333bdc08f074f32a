#pragma once
/// \file run_html.h
/// `gpuplan run --format html`: the answer in words, then charts of every strategy: the
/// step-time breakdown (stacked), throughput, dollars per run, peak memory by part against
/// the capacity, and the simulated GPU utilization over the first steps.

#include <string>
#include <vector>

#include "models/results.h"

namespace gpuplan::report {

/// Share of time the GPU is busy, binned over a simulated window (from the trace's "gpu"
/// spans; cli/ computes it, report/ never sees the engine).
struct UtilizationTimeline {
  std::string name;              ///< strategy row name
  std::vector<double> time_s;    ///< bin start, seconds from the start of the simulation
  std::vector<double> busy;      ///< busy share of each bin, [0, 1]
};

/// The page (html_page.h). `timelines` may be empty (the chart is then left out).
std::string render_run_html(const models::ScenarioResult& result, const std::vector<UtilizationTimeline>& timelines);

/// The Chart.js configuration of a line chart of `timelines` (x: seconds, y: busy %).
std::string utilization_chart_json(const std::vector<UtilizationTimeline>& timelines, const std::string& y_title);

}  // namespace gpuplan::report

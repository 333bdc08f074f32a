#pragma once
/// \file utilization_timeline.h
/// The simulated GPU utilization over time, from a variant's trace spans, for the HTML
/// reports' timeline chart.

#include <cstddef>
#include <string>
#include <vector>

#include "models/step/step_simulation.h"
#include "report/run_html.h"

namespace gpuplan::cli {

/// The busy share of the "gpu" track in `bins` equal bins from 0 to the last span's end
/// (overlapping spans count once per bin at most: the share is capped at 1). Empty when the
/// trace has no GPU span.
report::UtilizationTimeline gpu_busy_timeline(const std::string& name, const std::vector<models::TraceSpan>& spans,
                                              std::size_t bins);

}  // namespace gpuplan::cli

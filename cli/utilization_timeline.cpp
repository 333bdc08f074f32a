#include "cli/utilization_timeline.h"

#include <algorithm>

namespace gpuplan::cli {

report::UtilizationTimeline gpu_busy_timeline(const std::string& name, const std::vector<models::TraceSpan>& spans,
                                              std::size_t bins) {
  report::UtilizationTimeline t;
  t.name = name;
  double end_s = 0.0;
  for (const auto& s : spans) {
    if (s.track == "gpu") end_s = std::max(end_s, s.end_s);
  }
  if (end_s <= 0.0 || bins == 0) return t;
  const double width_s = end_s / static_cast<double>(bins);
  std::vector<double> busy_s(bins, 0.0);
  for (const auto& s : spans) {
    if (s.track != "gpu" || s.end_s <= s.start_s) continue;
    const auto first = static_cast<std::size_t>(s.start_s / width_s);
    for (std::size_t b = first; b < bins && static_cast<double>(b) * width_s < s.end_s; ++b) {
      const double lo = std::max(s.start_s, static_cast<double>(b) * width_s);
      const double hi = std::min(s.end_s, static_cast<double>(b + 1) * width_s);
      if (hi > lo) busy_s[b] += hi - lo;
    }
  }
  for (std::size_t b = 0; b < bins; ++b) {
    t.time_s.push_back(static_cast<double>(b) * width_s);
    t.busy.push_back(std::min(1.0, busy_s[b] / width_s));
  }
  return t;
}

}  // namespace gpuplan::cli

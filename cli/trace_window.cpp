#include "cli/trace_window.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "cli/scenario_runner.h"
#include "models/job/job_time.h"

namespace gpuplan::cli {
namespace {

bool read_whole(const std::string& part, long& value) {
  const char* end = part.data() + part.size();
  const auto result = std::from_chars(part.data(), end, value);
  return !part.empty() && result.ec == std::errc() && result.ptr == end;
}

}  // namespace

TraceWindow parse_trace_window(const std::string& text) {
  const auto colon = text.find(':');
  long from = -1;
  long to = -1;
  if (colon == std::string::npos || !read_whole(text.substr(0, colon), from) ||
      !read_whole(text.substr(colon + 1), to) || from < 0 || to <= from) {
    throw std::invalid_argument(fmt::format(
        "--trace-steps '{}': expected FROM:TO, whole optimizer steps counted from 0 with FROM < TO "
        "(e.g. 100:103 traces steps 100, 101 and 102)",
        text));
  }
  if (to > kMaxTraceEndStep) {
    throw std::invalid_argument(fmt::format(
        "--trace-steps '{}': TO is at most {} (every step before TO is simulated with its timeline kept); "
        "trace steps before {}",
        text, kMaxTraceEndStep, kMaxTraceEndStep));
  }
  if (to - from > kMaxTracedSteps) {
    throw std::invalid_argument(fmt::format(
        "--trace-steps '{}' traces {} steps, more than the {} one trace holds; trace at most {} steps, e.g. {}:{}",
        text, to - from, kMaxTracedSteps, kMaxTracedSteps, from, from + kMaxTracedSteps));
  }
  return {static_cast<int>(from), static_cast<int>(to)};
}

ShortestJob shortest_job(const config::Scenario& scenario) {
  ShortestJob shortest;
  for (const config::Variant& variant : scenario.variants) {
    const models::JobTimes shape = models::job_times(variant.job, 1.0, 0.0);
    const auto steps = static_cast<long>(std::ceil(shape.steps_per_epoch * shape.epochs));
    if (shortest.strategy.empty() || steps < shortest.steps) shortest = {steps, row_name(variant)};
  }
  return shortest;
}

TraceWindow fit_trace_window(const TraceWindow& window, bool given, const std::string& text,
                             const config::Scenario& scenario) {
  const ShortestJob job = shortest_job(scenario);
  if (job.strategy.empty() || window.end_step <= job.steps) return window;
  if (!given) return {0, static_cast<int>(std::max(1L, job.steps))};
  const long width = window.end_step - window.first_step;
  throw std::invalid_argument(fmt::format(
      "--trace-steps '{}': the job of {} has {} optimizer steps (0 to {}); trace steps inside it, e.g. {}:{}", text,
      job.strategy, job.steps, job.steps - 1, std::max(0L, job.steps - width), job.steps));
}

}  // namespace gpuplan::cli

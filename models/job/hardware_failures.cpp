#include "models/job/hardware_failures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace gpuplan::models {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Above this mean the Poisson quantile is taken from the normal approximation.
constexpr double kPoissonNormalAboveMean = 100.0;

/// Segments of one kind: `count` alike, each `params` (its interval the work between checkpoints).
struct Segments {
  double count = 0.0;
  SpotJobParams params;
};

}  // namespace

double poisson_quantile(double mean, double quantile) {
  if (!(mean > 0.0)) return 0.0;
  if (!std::isfinite(mean)) return kInf;
  if (mean > kPoissonNormalAboveMean) {
    // z of the standard normal at `quantile` by bisection on erfc (no inverse in <cmath>).
    double lo = -10.0;
    double hi = 10.0;
    for (int i = 0; i < 100; ++i) {
      const double mid = 0.5 * (lo + hi);
      (0.5 * std::erfc(-mid / std::sqrt(2.0)) < quantile ? lo : hi) = mid;
    }
    return std::max(0.0, std::ceil(mean + hi * std::sqrt(mean)));
  }
  double pmf = std::exp(-mean);
  double cdf = pmf;
  double k = 0.0;
  while (cdf < quantile) {
    k += 1.0;
    pmf *= mean / k;
    cdf += pmf;
  }
  return k;
}

FailureTimes failure_time_added(const SpotJobParams& params) {
  FailureTimes out;
  const double lambda = params.nodes * params.preemption_rate_per_s;  // failures of the job per second up
  if (!(lambda > 0.0) || !(params.work_s > 0.0)) return out;
  SpotJobParams base = params;
  base.trace = nullptr;
  base.checkpoint_background_s = 0.0;
  base.checkpoints_survive_preemption = true;
  std::vector<Segments> parts;
  const double interval = params.checkpoint_interval_s;
  if (interval > 0.0 && interval < params.work_s && params.checkpoints_survive_preemption) {
    const double full = std::floor(params.work_s / interval);
    parts.push_back({full, base});
    const double rest = params.work_s - full * interval;
    if (rest > 0.0) {
      SpotJobParams last = base;  // the job ends after it: no checkpoint
      last.checkpoint_interval_s = rest;
      last.checkpoint_blocking_s = 0.0;
      parts.push_back({1.0, last});
    }
  } else {
    // One segment: a failure restarts from the start, with nothing to restore; the
    // checkpoints written (lost with the node, or none) stay in the window.
    SpotJobParams whole = base;
    const double writes = interval > 0.0 ? std::floor(params.work_s / interval) : 0.0;
    whole.checkpoint_interval_s = params.work_s + writes * params.checkpoint_blocking_s;
    whole.checkpoint_blocking_s = 0.0;
    whole.restore_s = 0.0;
    parts.push_back({1.0, whole});
  }
  for (const Segments& s : parts) {
    const std::optional<SpotSegmentMoments> m = spot_segment_moments(s.params);
    const double window = s.params.checkpoint_interval_s + s.params.checkpoint_blocking_s;
    const double restart = s.params.startup_s + s.params.restore_s + s.params.warmup_s;
    const double failures = std::exp(lambda * restart) * std::expm1(lambda * window);
    out.expected_failures += s.count * failures;
    out.mean_added_s += m ? s.count * (m->mean_s - window) : kInf;
  }
  if (!std::isfinite(out.expected_failures) || !std::isfinite(out.mean_added_s)) {
    out.expected_failures = out.mean_added_s = out.p50_added_s = out.p90_added_s = kInf;
    return out;
  }
  const double per_failure_s = out.expected_failures > 0.0 ? out.mean_added_s / out.expected_failures : 0.0;
  out.p50_added_s = poisson_quantile(out.expected_failures, 0.5) * per_failure_s;
  out.p90_added_s = poisson_quantile(out.expected_failures, 0.9) * per_failure_s;
  return out;
}

}  // namespace gpuplan::models

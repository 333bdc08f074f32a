#pragma once
/// \file hardware_failures.h
/// Hardware failures: the GPU, host and network faults that stop a synchronous training job
/// on any market (one failed GPU stops all ranks). They arrive as a Poisson process per GPU
/// while the job runs; each one loses the work since the last completed checkpoint and costs
/// a restart (start-up of a replacement node, restore, warm-up): the process of a spot
/// preemption (spot_job.h). On spot they add to the preemption rate of the Monte Carlo
/// trials; on the on-demand market the time they add follows in closed form
/// (failure_time_added).

#include "models/job/spot_job.h"

namespace gpuplan::models {

/// Unexpected job interruptions per GPU per second, the default of hardware.gpu_failure_rate.
/// Llama 3 pre-training saw 419 unexpected interruptions in a 54-day snapshot on 16,384 H100
/// GPUs, about 78 % of them confirmed or suspected hardware (GPU 58.7 %, host, network), the
/// rest software (Dubey et al., "The Llama 3 Herd of Models", arXiv:2407.21783, 2024,
/// section 3.3.4, table 5): 419 / (54 d x 16,384) = 1.97e-5 per GPU-hour, one interruption
/// every 3.1 h at 16,384 GPUs, every 99 h at 512. Measured on one fleet of 8-GPU H100 nodes;
/// a stated default, not a fit.
inline constexpr double kGpuFailureRatePerS = 419.0 / (54.0 * 86400.0 * 16384.0);

/// Where kGpuFailureRatePerS comes from, in words (notes).
inline constexpr const char* kGpuFailureRateSource =
    "Llama 3's 419 unexpected interruptions in 54 days on 16,384 H100s (Dubey et al. 2024)";

/// What hardware failures add to a job's wall time.
struct FailureTimes {
  double expected_failures = 0.0;  ///< mean failures over the job
  double mean_added_s = 0.0;       ///< mean wall time added (+infinity when a try never succeeds)
  double p50_added_s = 0.0;        ///< added at the median (see failure_time_added)
  double p90_added_s = 0.0;        ///< added at the 90th percentile
};

/// The wall time hardware failures add to the job `params` (work, checkpoints, restart
/// costs), its Poisson rate `params.preemption_rate_per_s` the failures per node per second
/// (trace ignored). Work resumes from the last checkpoint when periodic checkpoints survive
/// the failure, else from the start (one segment of all the work). Each segment's mean and
/// variance are spot_segment_moments' (exact for this process, background writes counted
/// as blocking ones); the mean failures per segment are e^(lambda R) (e^(lambda L) - 1)
/// (first try L = interval + blocking write, later tries R + L). The quantiles count failures
/// as Poisson with that mean (its exact quantile, each failure costing the mean loss), so a
/// job that most likely meets none has p50 and p90 of 0 added. All zero for a zero rate.
FailureTimes failure_time_added(const SpotJobParams& params);

/// Smallest k with P(K <= k) >= `quantile` for K ~ Poisson(`mean`) (normal approximation,
/// rounded up, above a mean of 100). `quantile` in (0, 1); `mean` >= 0 (+infinity stays so).
double poisson_quantile(double mean, double quantile);

}  // namespace gpuplan::models

#pragma once
/// \file preemption.h
/// Tier-1 formulas of spot preemption and checkpointing (no engine): checkpoint write and
/// restore times, the Young/Daly checkpoint interval, the closed-form expected completion
/// time under exponential failures, and quantiles of Monte Carlo samples.

#include <string>
#include <vector>

#include "models/job_spec.h"

namespace gpuplan::models {

/// Host-memory copy bandwidth of an async checkpoint's blocking part (GPU -> pinned host
/// memory over PCIe), bytes/s: 12 GB/s, the pinned D2H rate of PCIe 3.0 x16 measured in
/// practitioner report R12 (pytorch issue 16901, ~11-12 GB/s). A deliberate lower bound:
/// PCIe 4/5 hosts copy faster, which only shortens the blocking part further.
inline constexpr double kCheckpointHostCopyBytesPerS = 12e9;

/// Wall-time cap of one Monte Carlo trial, as a multiple of the job's time without
/// preemptions: a trial still running at `kTrialCapFactor x time_to_train` stops there and
/// counts as "not finished within the cap" (reported, never hidden).
inline constexpr double kTrialCapFactor = 20.0;

/// The blocking and background parts of one checkpoint, seconds.
struct CheckpointTimes {
  double bytes = 0.0;         ///< weights + optimizer state (checkpoint_bytes())
  double blocking_s = 0.0;    ///< training stops this long (the whole write when blocking)
  double background_s = 0.0;  ///< async only: write to storage after the host copy
};

/// Checkpoint times of `job`: blocking = bytes / storage write bandwidth; async = the host
/// copy (bytes / kCheckpointHostCopyBytesPerS) blocks and the storage write runs in the
/// background (the checkpoint counts as completed only when it ends). Zero when the storage
/// has no write bandwidth.
CheckpointTimes checkpoint_times(const JobSpec& job);

/// Restore time after a preemption, seconds: checkpoint bytes / storage read bandwidth
/// (0 when the storage has none).
double restore_time_s(const JobSpec& job);

/// The Young/Daly interval sqrt(2 delta M), seconds of work between checkpoints (Young,
/// "A first order approximation to the optimum checkpoint interval", CACM 17(9), 1974;
/// Daly, FGCS 22(3), 2006, first-order term). `delta_s` = checkpoint cost, `mtbf_s` = mean
/// time between preemptions of the job. Returns 0 (no periodic checkpoint) when mtbf_s is
/// not finite or not positive. Throws std::invalid_argument for a negative delta.
double young_daly_interval_s(double delta_s, double mtbf_s);

/// Closed-form expected wall time to finish `work_s` of work cut into segments of
/// `interval_s` of work, each followed by a blocking checkpoint of `checkpoint_s` (none after
/// the last), under failures arriving as a Poisson process of `rate_per_s` while the job runs
/// (not during `downtime_s`, which each failure adds). Every segment (length a) takes
/// E = (1/rate + downtime) (e^{rate a} - 1) (the exponential-failure renewal argument,
/// e.g. Daly 2006 eq. 4 with the restart cost outside the failure window). `interval_s` 0 =
/// one segment. Throws std::invalid_argument for a non-positive rate or work.
double expected_time_exponential_s(double work_s, double interval_s, double checkpoint_s, double rate_per_s,
                                   double downtime_s);

/// The q-quantile (q in (0, 1]) of `samples` by the nearest-rank rule: the ceil(q n)-th
/// smallest value. `samples` is sorted in place. Throws std::invalid_argument when empty.
double nearest_rank_quantile(std::vector<double>& samples, double q);

}  // namespace gpuplan::models

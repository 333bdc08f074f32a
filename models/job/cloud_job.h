#pragma once
/// \file cloud_job.h
/// The job level of a variant: picks the checkpoint interval (as written, or Young/Daly for
/// `interval: auto`), computes the job times without preemptions (job_times) and, on the
/// spot market, runs the Monte Carlo trials of the spot process (spot_job.h), hardware
/// failures among its interruptions. On demand, hardware failures alone add to the time in
/// closed form (hardware_failures.h); without them its p50 and p90 are the time without
/// interruptions.

#include <optional>
#include <string>

#include "models/job/hardware_failures.h"
#include "models/job/job_time.h"
#include "models/job/spot_job.h"
#include "models/job_spec.h"

namespace gpuplan::models {

/// Warm-up of the data pipeline after a restart, in steps of the steady step time, on top of
/// loading the first batch: an assumption (cuDNN autotuning, allocator growth and the first
/// prefetches of every worker all happen in the first steps), not a measurement.
inline constexpr double kRestartWarmupSteps = 10.0;

/// Spot plans whose trials finish by the cap with at most this share
/// (spot_finish_share_bound) have neither a p50 nor a p90: a search may skip their Monte
/// Carlo (run_job_level's `skip_out_of_reach`). A bound on effort, with room below the p50's
/// half for the trials' sampling spread; not a model parameter.
inline constexpr double kSpotOutOfReachShare = 0.05;

/// On-demand and own-hardware runs get a hardware-failure note (and the remedy
/// checkpointing.interval: auto is checked) from this many expected failures on: below it
/// the failures change the time by less than about 1 % of one restart's loss. A bound on
/// clutter, not a model parameter.
inline constexpr double kFailureNoteShare = 0.01;

struct JobOutcome {
  JobTimes times;                      ///< without preemptions, at the chosen interval
  double checkpoint_interval_s = 0.0;  ///< work seconds between checkpoints; 0 = none
  std::string checkpoint_interval_reason;  ///< which interval and why (for the report)
  double time_p50_s = 0.0;             ///< on-demand / no cloud: time_to_train_s
  double time_p90_s = 0.0;
  std::optional<SpotSummary> spot;     ///< spot market only (empty when out of reach)
  /// On-demand with a hardware failure rate: what failures add (time_p50_s and time_p90_s
  /// include it; +infinity there when the job does not finish within kTrialCapFactor).
  std::optional<FailureTimes> failures;
  /// Spot, with `skip_out_of_reach`: at most kSpotOutOfReachShare of the trials would finish
  /// (spot_finish_share_bound), so no trial was run; times are those without preemptions.
  bool spot_out_of_reach = false;
  double preemption_rate_per_s = 0.0;  ///< per node (spot, Poisson)
  std::string preemption_source;       ///< where the rate or trace comes from
  std::vector<std::string> notes;
};

/// The job level of `job` at `step_time_s` (see file comment). `eval_batch_s` is one
/// evaluation batch; `first_batch_s` the loader's time for one batch (warm-up). With
/// `skip_out_of_reach` (gpuplan plan) a spot job whose trials cannot reach a p50 is not
/// simulated (JobOutcome::spot_out_of_reach). Throws std::invalid_argument for a
/// non-positive step time.
JobOutcome run_job_level(const JobSpec& job, double step_time_s, double eval_batch_s, double first_batch_s,
                         bool skip_out_of_reach = false);

/// Spot process parameters of `job` for work `work_s` at `interval_s` (exposed for the
/// planner and tests).
SpotJobParams spot_params(const JobSpec& job, double work_s, double interval_s, double warmup_s,
                          double no_preemption_s);

}  // namespace gpuplan::models

#pragma once
/// \file spot_job.h
/// Tier-2 job level on spot instances: one trial is a discrete-event process (on simulated
/// nanoseconds, ordered as sim::Engine orders events) in which work
/// advances between checkpoints and preemptions arrive per node as Poisson processes, or
/// replayed from an availability trace. A preemption of any node stops the job; it then
/// loses the work since the last *completed* checkpoint, waits for a replacement
/// (replacement_wait, or the trace's return of capacity), starts up, restores the checkpoint,
/// warms up the data pipeline and continues (DESIGN.md "Job"). Monte Carlo over trials gives
/// the p50/p90 of wall time and dollars.
///
/// A trace describes the job's whole fleet (whatever its node count): every drop in its
/// alive count preempts the job, also during a restart or a replacement wait; a drop to zero
/// waits for the first probe with capacity; a drop to a non-zero count waits
/// replacement_wait. The trace repeats after its end. Poisson preemptions arrive only while
/// the nodes run (start-up, restore, warm-up, work, checkpoints), not during the wait.
///
/// Billing: while the job is up every node is billed; during a replacement wait the N-1
/// surviving nodes stay billed (they are held, idle); while a trace says no capacity at all,
/// nothing is billed. Each such period is rounded up to the instance's billing granularity.

#include <cstdint>
#include <optional>
#include <vector>

#include "models/job_spec.h"

namespace gpuplan::models {

/// Everything one spot trial needs, in seconds of simulated time.
struct SpotJobParams {
  double work_s = 0.0;                 ///< training + evaluation without checkpoints or preemptions
  double checkpoint_interval_s = 0.0;  ///< seconds of work between checkpoints; 0 = none
  double checkpoint_blocking_s = 0.0;  ///< training stops this long per checkpoint
  double checkpoint_background_s = 0.0;  ///< async write after the blocking copy
  double restore_s = 0.0;              ///< read the checkpoint back (0 when none was written)
  /// False when checkpoints live on the nodes' own disks (local_nvme): a preemption loses
  /// them and the job restarts from the start.
  bool checkpoints_survive_preemption = true;
  double startup_s = 0.0;              ///< instance boot + container start after a replacement
  double warmup_s = 0.0;               ///< data pipeline warm-up after a restart
  double replacement_wait_s = 0.0;     ///< Poisson mode, or a trace drop that leaves capacity
  int nodes = 1;
  double preemption_rate_per_s = 0.0;  ///< per node (Poisson mode)
  const AvailabilityTrace* trace = nullptr;  ///< replay mode when set
  double cap_s = 0.0;                  ///< a trial stops here, unfinished (> 0)
  double price_usd_per_s = 0.0;        ///< per node (spot price of the zone)
  double billing_granularity_s = 1.0;
};

/// A trial stops, not finished, at its cap or at this many preemptions, whichever comes first:
/// a bound on effort for absurd rates ("1e9 /s" with no replacement wait would run 10^13
/// events before the cap), not a model parameter. A job that meets 100,000 preemptions spends
/// its time restarting; the shipped spot scenario's trials that never finish meet about 330.
inline constexpr int kMaxPreemptionsPerTrial = 100000;

/// One trial.
struct SpotTrial {
  double wall_s = 0.0;        ///< finish time, or cap_s when not finished
  bool finished = false;
  int preemptions = 0;
  double lost_work_s = 0.0;   ///< work redone after preemptions
  double billed_node_s = 0.0; ///< node-seconds billed (after rounding)
  double cost_usd = 0.0;
  std::uint64_t events = 0;
};

/// Runs trial `trial` of a job seeded `seed`, until it finishes, reaches its cap or meets
/// kMaxPreemptionsPerTrial preemptions (the last two leave it not finished, wall_s = cap_s,
/// billed to the cap). Node i draws from
/// sim::RandomStream(seed + trial, "spot/node/<i>"), so trials are independent and the
/// same (seed, trial) gives the same bytes. Throws std::invalid_argument for a non-positive
/// work or cap, or a trace with no samples or a non-positive gap.
SpotTrial simulate_spot_trial(const SpotJobParams& params, std::uint64_t seed, std::uint64_t trial);

/// Monte Carlo summary over trials.
struct SpotSummary {
  int trials = 0;
  int finished = 0;                 ///< trials that finished within the cap
  double wall_mean_s = 0.0;         ///< mean over all trials (capped ones count as cap_s)
  double wall_p50_s = 0.0;
  double wall_p90_s = 0.0;
  double cost_p50_usd = 0.0;
  double cost_p90_usd = 0.0;
  double preemptions_mean = 0.0;
  /// Share of wall time lost to preemptions: 1 - (time without preemptions / wall), on the
  /// sums over trials.
  double lost_time_share = 0.0;
  std::uint64_t events = 0;

  /// True when the `quantile` (0.5, 0.9) trial finished, i.e. at least that share of the
  /// trials did: only then does the run have a time and dollars at that quantile (a capped
  /// trial's dollars are those of work left undone, often less than a finished run's). The
  /// one rule of gpuplan run's and gpuplan plan's quantiles.
  bool finishes_at(double quantile) const {
    return trials > 0 && static_cast<double>(finished) >= quantile * static_cast<double>(trials);
  }
};

/// Runs `trials` trials (0..trials-1) and summarizes them; `no_preemption_s` is the time the
/// job takes without preemptions (for lost_time_share). Deterministic in (params, seed).
SpotSummary run_spot_monte_carlo(const SpotJobParams& params, int trials, std::uint64_t seed,
                                 double no_preemption_s);

/// Mean and variance of the time one checkpoint interval takes under Poisson preemptions,
/// seconds and seconds squared.
struct SpotSegmentMoments {
  double mean_s = 0.0;
  double variance_s2 = 0.0;
};

/// The time of one checkpoint interval after a committed checkpoint (a segment) of `params`,
/// in Poisson mode with blocking checkpoints that survive preemption; nullopt otherwise (a
/// trace, no periodic checkpoints, background writes, checkpoints lost with the node, no
/// preemptions). The segment needs an uninterrupted window L = interval + blocking write; a
/// preemption in it costs the time into the window, the replacement wait D and a restart
/// R = start-up + restore + warm-up before the window is tried again (R + L at once). The
/// mean is Daly's (1/lambda + D) e^(lambda R) (e^(lambda L) - 1) for lambda = nodes x rate
/// (J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart
/// dumps", FGCS 22(3), 2006, with exponential failures: exact for this process); the
/// variance follows from the geometric count of failed tries and the truncated exponential
/// time lost in each.
std::optional<SpotSegmentMoments> spot_segment_moments(const SpotJobParams& params);

/// Upper bound on the share of `params`' trials that finish within its cap, without running
/// one; 1 where spot_segment_moments does not apply or the expected time is within the cap.
/// A trial takes at least its floor(work / interval) - 1 whole segments after the first,
/// independent and alike, so Cantelli's one-sided inequality bounds the share finishing by
/// the cap: var / (var + (mean - cap)^2) for the sum's mean and variance. 0 when a try
/// cannot succeed within double range.
double spot_finish_share_bound(const SpotJobParams& params);

/// Mean time between preemptions of a job on `nodes` nodes: 1 / (nodes x rate), or for a
/// trace its time with capacity divided by its drops; +infinity when there are none.
double mean_time_between_preemptions_s(int nodes, double rate_per_s, const AvailabilityTrace* trace);

/// Drops in the alive count of a trace (a probe below the previous one), the preemptions
/// it causes in one pass.
int trace_drops(const AvailabilityTrace& trace);

}  // namespace gpuplan::models

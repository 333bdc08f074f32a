#include "models/job/cloud_job.h"

#include <cmath>
#include <limits>
#include <optional>
#include <fmt/format.h>

#include "models/spot/preemption.h"

namespace gpuplan::models {
namespace {

std::string hours(double s) { return fmt::format("{:.3g} h", s / 3600.0); }
std::string minutes_or_seconds(double s) {
  return s >= 120.0 ? fmt::format("{:.3g} min", s / 60.0) : fmt::format("{:.3g} s", s);
}

}  // namespace

SpotJobParams spot_params(const JobSpec& job, double work_s, double interval_s, double warmup_s,
                          double no_preemption_s) {
  SpotJobParams p;
  const CheckpointTimes ck = checkpoint_times(job);
  const bool checkpoints = job.checkpointing.enabled && interval_s > 0.0;
  p.work_s = work_s;
  p.checkpoint_interval_s = checkpoints ? interval_s : 0.0;
  p.checkpoint_blocking_s = checkpoints ? ck.blocking_s : 0.0;
  p.checkpoint_background_s = checkpoints ? ck.background_s : 0.0;
  p.restore_s = checkpoints ? restore_time_s(job) : 0.0;
  p.checkpoints_survive_preemption = job.checkpointing.survives_preemption;
  p.warmup_s = warmup_s;
  p.nodes = job.hardware.nodes;
  p.cap_s = kTrialCapFactor * no_preemption_s;
  if (job.cloud) {
    p.startup_s = job.cloud->startup_s;
    p.replacement_wait_s = job.cloud->replacement_wait_s;
    p.preemption_rate_per_s = job.cloud->preemption_rate_per_s;
    p.trace = job.cloud->trace ? &*job.cloud->trace : nullptr;
    const bool spot = job.cloud->market == Market::kSpot;
    p.price_usd_per_s = spot ? job.cloud->instance.spot_price_usd_per_s : job.cloud->instance.price_usd_per_s;
    p.billing_granularity_s = job.cloud->instance.billing_granularity_s;
  }
  return p;
}

JobOutcome run_job_level(const JobSpec& job, double step_time_s, double eval_batch_s, double first_batch_s,
                         bool skip_out_of_reach) {
  JobOutcome out;
  const bool spot = job.cloud && job.cloud->market == Market::kSpot;
  const AvailabilityTrace* trace = spot && job.cloud->trace ? &*job.cloud->trace : nullptr;
  const double rate = spot ? job.cloud->preemption_rate_per_s : 0.0;
  const double mtbf = spot ? mean_time_between_preemptions_s(job.hardware.nodes, rate, trace)
                           : std::numeric_limits<double>::infinity();
  const CheckpointTimes ck = checkpoint_times(job);
  // A copy of the job only where the interval is chosen here (the op table is large).
  std::optional<JobSpec> automatic;
  if (job.checkpointing.enabled && job.checkpointing.automatic) automatic.emplace(job);
  if (automatic) {
    const double delta = ck.blocking_s;
    double interval = young_daly_interval_s(delta, mtbf);
    if (interval > 0.0 && interval < ck.background_s) {
      interval = ck.background_s;  // an async write must end before the next one starts
    }
    automatic->checkpointing.interval_s = interval;
    if (interval > 0.0) {
      out.checkpoint_interval_reason = fmt::format(
          "interval auto: {} = sqrt(2 x {} x {}) (Young/Daly; delta = blocking checkpoint write of {:.3g} GB, "
          "M = mean time between preemptions of {} node(s){})",
          minutes_or_seconds(interval), minutes_or_seconds(delta), hours(mtbf), ck.bytes / 1e9, job.hardware.nodes,
          trace != nullptr ? " in the trace" : fmt::format(" at {:.3g} /h each", rate * 3600.0));
    } else {
      out.checkpoint_interval_reason = spot ? "interval auto: no preemptions expected, so no periodic checkpoint"
                                            : "interval auto: no preemptions on this market, so no periodic checkpoint";
    }
  } else if (job.checkpointing.enabled && job.checkpointing.interval_s > 0.0) {
    out.checkpoint_interval_reason = "interval " + minutes_or_seconds(job.checkpointing.interval_s) + " as written";
    if (std::isfinite(mtbf) && ck.blocking_s > 0.0) {
      out.checkpoint_interval_reason +=
          " (Young/Daly would pick " + minutes_or_seconds(young_daly_interval_s(ck.blocking_s, mtbf)) + ")";
    }
  }
  const JobSpec& chosen = automatic ? *automatic : job;
  out.checkpoint_interval_s = chosen.checkpointing.interval_s;
  out.times = job_times(chosen, step_time_s, eval_batch_s);
  out.time_p50_s = out.times.time_to_train_s;
  out.time_p90_s = out.times.time_to_train_s;
  if (!spot) {
    return out;
  }
  out.preemption_rate_per_s = rate;
  out.preemption_source = job.cloud->preemption_rate_source;
  const double work_s = out.times.epochs * (out.times.epoch_train_s + out.times.epoch_eval_s);
  const double warmup_s = first_batch_s + kRestartWarmupSteps * step_time_s;
  const SpotJobParams p = spot_params(chosen, work_s, out.checkpoint_interval_s, warmup_s, out.times.time_to_train_s);
  if (skip_out_of_reach && spot_finish_share_bound(p) <= kSpotOutOfReachShare) {
    out.spot_out_of_reach = true;
    return out;
  }
  out.spot = run_spot_monte_carlo(p, job.trials, job.seed, out.times.time_to_train_s);
  out.time_p50_s = out.spot->wall_p50_s;
  out.time_p90_s = out.spot->wall_p90_s;
  if (out.spot->finished < out.spot->trials) {
    out.notes.push_back(fmt::format(
        "spot: {} of {} trials did not finish within the cap of {:.0f}x the time without preemptions ({}); "
        "a p50 or p90 that falls on them is not reported (models/run/run_variant.cpp)",
        out.spot->trials - out.spot->finished, out.spot->trials, kTrialCapFactor, hours(p.cap_s)));
  }
  if (job.checkpointing.enabled && !job.checkpointing.survives_preemption) {
    out.notes.push_back("checkpoints on " + job.checkpointing.destination +
                        " are lost with a preempted node: each preemption restarts the job from the start; "
                        "use checkpointing.destination: object_store or network_fs to resume instead");
  }
  if (job.trials < 2) {
    out.notes.push_back("spot: one Monte Carlo trial only; set simulation.trials (e.g. 200) for p50/p90");
  }
  return out;
}

}  // namespace gpuplan::models

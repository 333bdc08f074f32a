#include "models/job/cloud_job.h"

#include <cmath>
#include <limits>
#include <optional>
#include <fmt/format.h>

#include "models/job/hardware_failures.h"
#include "models/spot/preemption.h"

namespace gpuplan::models {
namespace {

std::string hours(double s) {
  return s < 3600.0 * 999.5 ? fmt::format("{:.3g} h", s / 3600.0) : fmt::format("{:.0f} h", s / 3600.0);
}
std::string minutes_or_seconds(double s) {
  return s >= 120.0 ? fmt::format("{:.3g} min", s / 60.0) : fmt::format("{:.3g} s", s);
}
std::string duration(double s) { return s >= 7200.0 ? hours(s) : minutes_or_seconds(s); }

/// A checkpoint destination in words: its name, or for a mapping "the destination written".
std::string destination_words(const CheckpointSpec& c) {
  return c.destination == "custom" ? std::string("the checkpointing.destination written") : c.destination;
}

/// Hardware failures of one node of `job` per second: GPUs per node x the per-GPU rate.
double failures_per_node_s(const JobSpec& job) {
  return job.hardware.gpus_per_node * job.hardware.gpu_failure_rate_per_s;
}

/// "M = ..." of the Young/Daly reason: what interrupts the job and how often.
std::string interruptions_text(const JobSpec& job, double mtbf_s, double preemption_rate_per_s,
                               const AvailabilityTrace* trace, bool spot) {
  const double failures = failures_per_node_s(job);
  const std::string failure_part =
      fmt::format("hardware failures at {:.3g} /h each ({} GPUs x {:.3g} /h)", failures * 3600.0,
                  job.hardware.gpus_per_node, job.hardware.gpu_failure_rate_per_s * 3600.0);
  const std::string preemption_part =
      trace != nullptr ? std::string("preemptions in the trace")
                       : fmt::format("preemptions at {:.3g} /h each", preemption_rate_per_s * 3600.0);
  if (!spot) {
    return fmt::format("M = mean time between hardware failures of {} node(s), {}: {}", job.hardware.nodes,
                       hours(mtbf_s), failure_part);
  }
  if (failures <= 0.0) {
    return fmt::format("M = mean time between preemptions of {} node(s){}", job.hardware.nodes,
                       trace != nullptr ? " in the trace"
                                        : fmt::format(" at {:.3g} /h each", preemption_rate_per_s * 3600.0));
  }
  return fmt::format("M = mean time between interruptions of {} node(s), {}: {} and {}", job.hardware.nodes,
                     hours(mtbf_s), preemption_part, trace != nullptr ? failure_part + " (the trials replay the "
                     "trace alone)" : failure_part);
}

/// On demand or on own hardware: the time hardware failures add (failure_time_added) to
/// `out`'s times at the chosen interval, a replacement node starting at once (no replacement
/// wait, which is the spot market's; own hardware has no start-up either); a quantile past
/// the trial cap (kTrialCapFactor) is +infinity (the job does not finish). Notes where at
/// least kFailureNoteShare failures are expected.
void add_hardware_failures(const JobSpec& chosen, double warmup_s, JobOutcome& out) {
  const double work_s = out.times.epochs * (out.times.epoch_train_s + out.times.epoch_eval_s);
  const double base_s = out.times.time_to_train_s;
  SpotJobParams p = spot_params(chosen, work_s, out.checkpoint_interval_s, warmup_s, base_s);
  p.replacement_wait_s = 0.0;  // on demand a replacement node starts at once (its start-up counts)
  const FailureTimes f = failure_time_added(p);
  out.failures = f;
  const double cap_s = kTrialCapFactor * base_s;
  const auto at = [&](double added_s) {
    const double t = base_s + added_s;
    return t <= cap_s ? t : std::numeric_limits<double>::infinity();
  };
  out.time_p50_s = at(f.p50_added_s);
  out.time_p90_s = at(f.p90_added_s);
  if (!(f.expected_failures >= kFailureNoteShare)) return;
  const bool resumes = out.checkpoint_interval_s > 0.0 && chosen.checkpointing.survives_preemption;
  const std::string restart =
      resumes ? std::string("each resumes from the last checkpoint")
              : std::string(chosen.checkpointing.enabled && out.checkpoint_interval_s > 0.0
                                ? "each restarts the job from the start (checkpoints on " +
                                      destination_words(chosen.checkpointing) + " are lost with the node)"
                                : "each restarts the job from the start (no periodic checkpoint)");
  std::string note;
  if (!std::isfinite(out.time_p50_s)) {
    note = fmt::format(
        "hardware failures: the job does not finish within {:g}x its time without them: {} failures expected "
        "({} GPUs x {:.3g} /h per GPU, {}), and {}",
        kTrialCapFactor,
        std::isfinite(f.expected_failures) ? fmt::format("{:.3g}", f.expected_failures) : std::string("endless"),
        chosen.hardware.nodes * chosen.hardware.gpus_per_node,
        chosen.hardware.gpu_failure_rate_per_s * 3600.0, chosen.hardware.gpu_failure_rate_source, restart);
  } else {
    note = fmt::format(
        "hardware failures: {:.3g} expected over the run ({} GPUs x {:.3g} /h per GPU, {}); {}, adding {} on "
        "average (p50 +{}, p90 {})",
        f.expected_failures, chosen.hardware.nodes * chosen.hardware.gpus_per_node,
        chosen.hardware.gpu_failure_rate_per_s * 3600.0, chosen.hardware.gpu_failure_rate_source, restart,
        duration(f.mean_added_s), duration(f.p50_added_s),
        std::isfinite(out.time_p90_s) ? "+" + duration(f.p90_added_s) : std::string("past the cap"));
  }
  if (!resumes) {
    note += chosen.checkpointing.enabled && out.checkpoint_interval_s > 0.0
                ? "; use checkpointing.destination: object_store or network_fs to resume instead"
                : "; add checkpointing: {interval: auto} to resume from the last checkpoint instead";
  }
  out.notes.push_back(note);
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
  // Poisson interruptions: the hardware failures, and on a cloud market its spot preemptions
  // (0 on demand). Own hardware has no start-up or wait: the job restarts at once.
  p.preemption_rate_per_s = failures_per_node_s(job);
  if (job.cloud) {
    p.startup_s = job.cloud->startup_s;
    p.replacement_wait_s = job.cloud->replacement_wait_s;
    p.preemption_rate_per_s += job.cloud->preemption_rate_per_s;
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
  const double preemption_mtbf = spot ? mean_time_between_preemptions_s(job.hardware.nodes, rate, trace)
                                      : std::numeric_limits<double>::infinity();
  // Preemptions and hardware failures are independent: their rates add.
  const double mtbf = 1.0 / (1.0 / preemption_mtbf + job.hardware.nodes * failures_per_node_s(job));
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
          "interval auto: {} = sqrt(2 x {} x {}) (Young/Daly; delta = blocking checkpoint write of {:.3g} GB, {})",
          minutes_or_seconds(interval), minutes_or_seconds(delta), hours(mtbf), ck.bytes / 1e9,
          interruptions_text(job, mtbf, rate, trace, spot));
    } else {
      out.checkpoint_interval_reason =
          spot ? "interval auto: no preemptions expected, so no periodic checkpoint"
               : job.cloud ? "interval auto: no preemptions on this market and no hardware failures, so no periodic checkpoint"
                           : "interval auto: no hardware failures on own hardware (gpu_failure_rate 0), so no periodic "
                             "checkpoint";
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
  const double warmup_s = first_batch_s + kRestartWarmupSteps * step_time_s;
  if (!spot) {
    if (failures_per_node_s(job) > 0.0) add_hardware_failures(chosen, warmup_s, out);
    return out;
  }
  out.preemption_rate_per_s = rate;
  out.preemption_source = job.cloud->preemption_rate_source;
  if (failures_per_node_s(job) > 0.0) {
    out.preemption_source += trace != nullptr
                                 ? fmt::format("; hardware failures ({:.3g} /h per node) are not replayed with the "
                                               "trace", failures_per_node_s(job) * 3600.0)
                                 : fmt::format("; hardware failures add {:.3g} /h per node ({} GPUs x {:.3g} /h, {})",
                                               failures_per_node_s(job) * 3600.0, job.hardware.gpus_per_node,
                                               job.hardware.gpu_failure_rate_per_s * 3600.0,
                                               job.hardware.gpu_failure_rate_source);
  }
  const double work_s = out.times.epochs * (out.times.epoch_train_s + out.times.epoch_eval_s);
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
        "spot: {} of {} trials did not finish within the cap of {:.0f}x the time without preemptions ({}) or "
        "{} preemptions; a p50 or p90 that falls on them is not reported (models/run/run_variant.cpp)",
        out.spot->trials - out.spot->finished, out.spot->trials, kTrialCapFactor, hours(p.cap_s),
        kMaxPreemptionsPerTrial));
  }
  if (job.checkpointing.enabled && !job.checkpointing.survives_preemption) {
    out.notes.push_back("checkpoints on " + destination_words(job.checkpointing) +
                        " are lost with a preempted node: each preemption restarts the job from the start; "
                        "use checkpointing.destination: object_store or network_fs to resume instead");
  } else if (job.checkpointing.enabled && job.checkpointing.destination == "hardware_storage") {
    out.notes.push_back(
        "checkpoints on hardware_storage (" + job.hardware.storage.name +
        ") are counted as outliving a preempted node, as on a persistent volume; an instance's local disk goes with "
        "the node: set checkpointing.destination: local_nvme to count that loss, or object_store or network_fs to "
        "name durable storage");
  }
  if (job.trials < 2) {
    out.notes.push_back("spot: one Monte Carlo trial only; set simulation.trials (e.g. 200) for p50/p90");
  }
  return out;
}

}  // namespace gpuplan::models

#include "models/step/job_steps.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <vector>

#include "models/host/host_cpu.h"
#include "models/storage/storage_model.h"

namespace gpuplan::models {

StepPlan slowest_stage_plan(const JobSpec& job, const GpuEfficiency& efficiency, const StepSimOptions& options,
                            std::optional<StepStats>* stats) {
  const bool labels = options.trace_steps > 0;  // only a trace reads the units' labels
  std::vector<StepPlan> roles = plan_step_roles(job, efficiency, labels);  // stage 0's first
  StepPlan slowest = std::move(roles.front());
  if (slowest.pipeline.stages <= 1) return slowest;
  StepSimOptions quiet = options;
  quiet.trace_steps = 0;
  quiet.exact = false;
  StepStats slowest_stats = simulate_steps(slowest, quiet);
  for (std::size_t k = 1; k < roles.size(); ++k) {
    StepStats step = simulate_steps(roles[k], quiet);
    if (step.breakdown.step_time_s > slowest_stats.breakdown.step_time_s) {
      slowest_stats = std::move(step);
      slowest = std::move(roles[k]);
    }
  }
  if (stats != nullptr) *stats = std::move(slowest_stats);
  return slowest;
}

bool later_epochs_from_page_cache(const JobSpec& job, const StepPlan& cold, double epochs) {
  return !cold.loader.synthetic && epochs > 1.0 && dataset_fits_page_cache(job.dataset, job.hardware.host_memory_bytes);
}

JobSteps simulate_job_steps(const JobSpec& job, const GpuEfficiency& efficiency, const StepSimOptions& options,
                            double steps_per_epoch, double epochs) {
  if (!(steps_per_epoch >= 1.0) || !(epochs > 0.0)) {
    throw std::invalid_argument("simulate_job_steps: the job needs at least one step and a positive epoch count");
  }
  JobSteps out;
  std::optional<StepStats> cold_stats;  // the slowest stage's, simulated without trace
  StepPlan cold = slowest_stage_plan(job, efficiency, options, &cold_stats);
  out.page_cache = later_epochs_from_page_cache(job, cold, epochs);
  out.startup_s = cold.loader.synthetic ? 0.0 : job.data_loader.num_workers * kWorkerStartupS;
  const double later_startup_s = job.data_loader.persistent_workers ? 0.0 : out.startup_s;
  const double later_epochs = std::max(0.0, epochs - 1.0);
  const double first_share = std::min(1.0, epochs);  // a fractional single epoch

  if (options.exact) {
    // The later epochs' plan: the cold one reading the page cache when the dataset fits there
    // (the cold one itself otherwise, so no copy of its unit tables is needed).
    std::optional<StepPlan> page_cache_plan;
    if (out.page_cache) {
      page_cache_plan.emplace(cold);
      page_cache_plan->loader.page_cache_hit = true;
    }
    const StepPlan& warm = page_cache_plan ? *page_cache_plan : cold;
    const long steps = static_cast<long>(steps_per_epoch);
    StepSimOptions quiet = options;
    quiet.trace_steps = 0;
    const EpochRun first = simulate_epoch(cold, steps, quiet);
    out.first_epoch_train_s = out.startup_s + first.elapsed_s;
    out.events += first.events;
    out.later_epoch_train_s = out.first_epoch_train_s;
    // Every later epoch is simulated on its own (they differ only in their random draws).
    double later_total_s = 0.0;
    const int whole_later = static_cast<int>(std::ceil(later_epochs));
    std::vector<EpochRun> later_runs;
    for (int e = 0; e < whole_later; ++e) {
      StepPlan plan = warm;
      plan.loader.seed = warm.loader.seed + static_cast<std::uint64_t>(e) + 1;
      const EpochRun run = simulate_epoch(plan, steps, quiet);
      const double share = std::min(1.0, later_epochs - e);
      later_total_s += share * (later_startup_s + run.elapsed_s);
      later_runs.push_back(run);
      out.events += run.events;
    }
    if (whole_later > 0) out.later_epoch_train_s = later_total_s / later_epochs;
    // Weighted like the job: the first epoch's share, then each later one's.
    // Quoted like the steady state: the epochs that dominate, the later ones when there are
    // any (they may read the page cache), else the first.
    double filled_s = whole_later > 0 ? 0.0 : first.filled_s;
    double filled_steps = whole_later > 0 ? 0.0 : static_cast<double>(first.filled_steps);
    for (int e = 0; e < whole_later; ++e) {
      const double share = std::min(1.0, later_epochs - e);
      filled_s += share * later_runs[static_cast<std::size_t>(e)].filled_s;
      filled_steps += share * static_cast<double>(later_runs[static_cast<std::size_t>(e)].filled_steps);
    }
    out.throughput_step_s = filled_s / filled_steps;
    out.plan = out.page_cache ? warm : cold;
    out.steady = simulate_steps(out.plan, options);
    out.events += out.steady.events;
    out.job_mean_step_s =
        (first_share * out.first_epoch_train_s + later_total_s) / (epochs * steps_per_epoch);
    return out;
  }

  // The slowest stage's simulation is this one when nothing is traced (the same options).
  StepStats first = cold_stats && options.trace_steps == 0 ? std::move(*cold_stats) : simulate_steps(cold, options);
  out.events += first.events;
  out.first_epoch_train_s = out.startup_s + first.fill_s + steps_per_epoch * first.breakdown.step_time_s;
  if (out.page_cache) {
    StepSimOptions quiet = options;
    quiet.trace_steps = 0;
    // The later epochs read the page cache: the cold plan is done with, so it becomes theirs.
    cold.loader.page_cache_hit = true;
    out.steady = simulate_steps(cold, quiet);
    out.events += out.steady.events;
    out.steady.trace = std::move(first.trace);  // the trace shows the first steps of the job
    out.plan = std::move(cold);
  } else {
    out.steady = std::move(first);
    out.plan = std::move(cold);
  }
  out.later_epoch_train_s = later_startup_s + out.steady.fill_s + steps_per_epoch * out.steady.breakdown.step_time_s;
  out.throughput_step_s = out.steady.breakdown.step_time_s;
  out.job_mean_step_s = (first_share * out.first_epoch_train_s + later_epochs * out.later_epoch_train_s) /
                        (epochs * steps_per_epoch);
  return out;
}

}  // namespace gpuplan::models

#pragma once
/// \file job_steps.h
/// From the step simulation to the training time of a whole job ("epoch-level reuse"): an
/// epoch is start-up + pipeline fill + steps x steady step time, simulated once per epoch kind
/// (the first epoch reads storage; later ones read the page cache when the dataset fits in
/// it, models/storage/storage_model.h), instead of simulating every batch. With
/// StepSimOptions::exact every batch of every epoch is simulated instead (simulate_epoch).
/// Start-up: kWorkerStartupS per worker (models/host/host_cpu.h), every epoch unless
/// persistent_workers, once otherwise.

#include <cstdint>
#include <optional>

#include "models/gpu/gpu_efficiency.h"
#include "models/job_spec.h"
#include "models/step/step_plan.h"
#include "models/step/step_simulation.h"

namespace gpuplan::models {

/// The step simulation of a job over its epochs. Seconds.
struct JobSteps {
  StepStats steady;              ///< the steady state of the epochs that dominate (later epochs when they differ)
  StepPlan plan;                 ///< the plan of those epochs
  double first_epoch_train_s = 0.0;  ///< training part of the first epoch (start-up, fill and steps)
  double later_epoch_train_s = 0.0;  ///< training part of each later epoch
  double job_mean_step_s = 0.0;  ///< training time of the job / steps of the job (start-up, fill, cache included)
  /// The optimizer step the throughput is quoted at: the steady state's step time, or with
  /// StepSimOptions::exact the simulated epochs' time per step once the pipeline is filled
  /// (EpochRun::filled_s) over the same epochs as `steady` (the later ones when there are
  /// any), so that a table's throughput never contradicts its epoch times.
  double throughput_step_s = 0.0;
  bool page_cache = false;       ///< later epochs read from the page cache
  double startup_s = 0.0;        ///< worker start-up at an epoch that starts workers
  std::uint64_t events = 0;      ///< engine events over all simulations
};

/// The plan of the rank whose steady step is slowest: plan_step's; with pipeline
/// parallelism each distinct stage (PipelineStagePlan::roles) simulated once to steady state
/// (no trace) and the slowest kept, since the step ends when every stage has. With
/// `stats`, it receives the slowest stage's simulation when one was run (several stages;
/// `options` without trace and exact), so that a caller need not simulate it again. Its units
/// carry labels only when `options` traces (plan_step's `labels`).
StepPlan slowest_stage_plan(const JobSpec& job, const GpuEfficiency& efficiency, const StepSimOptions& options,
                            std::optional<StepStats>* stats = nullptr);

/// True when the epochs after the first read the dataset from the page cache: real data, more
/// than one epoch, and the dataset fits in the host's memory (dataset_fits_page_cache). Those
/// epochs then dominate the quoted throughput (JobSteps::plan, JobSteps::throughput_step_s).
bool later_epochs_from_page_cache(const JobSpec& job, const StepPlan& cold, double epochs);

/// Training steps of the job: `steps_per_epoch` optimizer steps per epoch, `epochs` epochs
/// (fractional for a token budget); the slowest pipeline stage's (slowest_stage_plan). Throws std::invalid_argument for an empty plan, no
/// steps, or a job that cannot run (plan_step).
JobSteps simulate_job_steps(const JobSpec& job, const GpuEfficiency& efficiency, const StepSimOptions& options,
                            double steps_per_epoch, double epochs);

}  // namespace gpuplan::models

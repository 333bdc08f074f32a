#pragma once
/// \file bottleneck.h
/// Names the resource that limits the step from what the simulation measured (the largest
/// share of the step breakdown), and the change that relieves it.

#include <string>

#include "models/job_spec.h"
#include "models/results.h"
#include "models/step/step_plan.h"

namespace gpuplan::models {

struct Bottleneck {
  std::string name;        ///< gpu_compute | data_loading_cpu | storage_io | h2d_copy | host_dispatch
  std::string suggestion;  ///< a change in scenario terms, e.g. "data_loader.num_workers: 4"
};

/// The bottleneck of a fitting variant. Data waits are split between CPU decode and storage by
/// the loader's own time shares.
Bottleneck find_bottleneck(const JobSpec& job, const StepPlan& plan, const StepBreakdown& step);

/// Suggestion for a variant that does not fit in GPU memory.
std::string oom_suggestion(const JobSpec& job);

}  // namespace gpuplan::models

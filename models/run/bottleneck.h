#pragma once
/// \file bottleneck.h
/// Names the resource that limits the step from what the simulation measured, and the change
/// that relieves it: the largest share of the step breakdown (GPU busy, waiting for data, H2D
/// not overlapped, waiting for host dispatch, communication not hidden behind compute); a data wait is split between storage_io and
/// data_loading_cpu by where the loader's readers spent their time (LoaderStats: storage
/// requests and bandwidth, queueing included, vs decode on contended cores).

#include <string>

#include "models/job_spec.h"
#include "models/results.h"
#include "models/step/step_plan.h"
#include "models/step/step_simulation.h"

namespace gpuplan::models {

/// Share of the step that exposed communication must reach to be named the bottleneck even
/// when another part is larger: at 25 % the GPUs scale at most 75 % (a judgement, not a fit).
inline constexpr double kCommunicationBottleneckShare = 0.25;

struct Bottleneck {
  std::string name;        ///< gpu_compute | data_loading_cpu | storage_io | h2d_copy | host_dispatch | communication
  std::string suggestion;  ///< a change in scenario terms, e.g. "data_loader.num_workers: 4"
};

/// The bottleneck of a fitting variant from its simulated step breakdown `step` and the
/// readers' time `loader`; `plan` gives the loader's unloaded shares when no batch was
/// measured. Throws nothing.
Bottleneck find_bottleneck(const JobSpec& job, const StepPlan& plan, const StepBreakdown& step,
                           const LoaderStats& loader);

/// What relieves a communication bottleneck, in scenario terms: DDP instead of DataParallel,
/// gradient accumulation (no_sync), a faster network or NVLink, bigger buckets, fewer GPUs.
std::string communication_suggestion(const JobSpec& job, const StepPlan& plan);

/// Suggestion for a variant that does not fit in GPU memory.
std::string oom_suggestion(const JobSpec& job);

}  // namespace gpuplan::models

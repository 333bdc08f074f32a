#pragma once
/// \file critical_path.h
/// The critical path of a simulated step, by resource. The step simulation keeps the GPU
/// stream busy or charges each idle gap to what the GPU waited on (StepBreakdown: kernels,
/// optimizer, data, H2D not overlapped, host dispatch, communication not hidden), so the GPU
/// timeline is the step's critical path and each part is a resource's share of it. The data
/// wait is split between storage_io and data_loading_cpu in proportion to where the loader's
/// readers spent their time (LoaderStats: storage requests vs decode and pinning), or to the
/// plan's unloaded batch times when no batch was measured.

#include <string>
#include <vector>

#include "models/results.h"
#include "models/step/step_plan.h"
#include "models/step/step_simulation.h"

namespace gpuplan::models {

/// The parts of `step` in a fixed order (gpu_compute, data_loading_cpu, storage_io,
/// h2d_copy, host_dispatch, communication, pipeline_bubble under pipeline parallelism, and
/// host_optimizer, the offloaded optimizer step off the GPU, when there is one), seconds and
/// shares of step_time_s (all shares 0 for an empty step). gpu_compute is the kernels and
/// the optimizer's GPU part. Throws nothing.
std::vector<CriticalPathPart> critical_path(const StepPlan& plan, const StepBreakdown& step,
                                            const LoaderStats& loader);

/// Share of the step the GPU must wait for its input before the loader, not the largest part,
/// is named the limiter (binding_part): 2 %. Below it a wait is warm-up or the jitter of seeded
/// storage latencies, and removing it would gain less than the smallest remedy the advice
/// checks (models::kMinimumRemedyGain, remedies.h).
inline constexpr double kLoaderBindingShare = 0.02;

/// True for the loader's parts of a critical path: data_loading_cpu and storage_io.
bool is_loader_part(const std::string& resource);

/// The resource that limits the step. The input pipeline runs ahead of the GPU through its
/// prefetch queue, so a GPU that still waits for data (data_loading_cpu + storage_io at least
/// kLoaderBindingShare of the step) waits because the loader's rate sets the step: a faster GPU
/// would only wait longer. Then the larger of the loader's two parts; otherwise the largest
/// part of `path` (the first of equal ones); "gpu_compute" for an empty path.
std::string binding_part(const std::vector<CriticalPathPart>& path);

}  // namespace gpuplan::models

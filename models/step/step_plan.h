#pragma once
/// \file step_plan.h
/// What one training step asks of each resource, from the job and the tier-1 formulas
/// (pure; no sim/ includes). The step simulation (step_simulation.h) plays this plan on the
/// engine. Units: seconds, bytes.

#include <string>
#include <vector>

#include "models/gpu/gpu_efficiency.h"
#include "models/job_spec.h"

namespace gpuplan::models {

/// One dispatch unit: the host launches `kernels` kernels of one op phase (costing
/// `dispatch_s` of host CPU time in all), then the GPU runs them for `gpu_s`.
struct DispatchUnit {
  std::string label;     ///< op name and phase, e.g. "layer1.0.conv1 fwd"
  double dispatch_s = 0.0;
  double gpu_s = 0.0;
  double flop = 0.0;
};

/// How batches reach the training process (placeholder data loader until the input-pipeline
/// issue): W workers each prepare whole batches; the main process loads itself when W = 0.
struct LoaderPlan {
  bool synthetic = false;          ///< no loading and no H2D at all
  int workers = 0;                 ///< DataLoader num_workers
  int prefetch_batches = 0;        ///< batches in flight: workers x prefetch_factor
  double batch_load_s = 0.0;       ///< one worker's time for one batch (CPU decode + storage)
  double batch_cpu_s = 0.0;        ///< CPU part of batch_load_s (decode + augment)
  double batch_storage_s = 0.0;    ///< storage part of batch_load_s
  double gpu_preprocess_s = 0.0;   ///< GPU time for decode when preprocess_on: gpu
};

/// The whole plan of one optimizer step.
struct StepPlan {
  std::vector<DispatchUnit> forward;    ///< one micro-step's forward units
  std::vector<DispatchUnit> backward;   ///< backward units (recompute included when checkpointing)
  std::vector<DispatchUnit> optimizer;  ///< optimizer units, last micro-step only
  int gradient_accumulation = 1;
  double micro_batch = 0.0;             ///< samples per micro-step
  LoaderPlan loader;
  double h2d_bytes = 0.0;               ///< bytes copied host-to-device per micro-step
  double h2d_bytes_per_s = 0.0;
  bool pinned = false;
  double model_flop_per_step = 0.0;     ///< model FLOP of one optimizer step (MFU numerator)
  double peak_flop_per_s = 0.0;         ///< dense peak of the precision's matmul path (MFU denominator)
};

/// Builds the plan of `job` on one GPU. Throws std::invalid_argument when the job cannot run
/// (zero batch, no CPU core for a loader that needs one).
StepPlan plan_step(const JobSpec& job, const GpuEfficiency& efficiency);

}  // namespace gpuplan::models

#pragma once
/// \file run_variant.h
/// Runs one resolved job through the models: memory (an OOM variant is reported, not
/// simulated), step simulation to steady state, job level, cost, energy and bottleneck.

#include <string>

#include "models/gpu/gpu_efficiency.h"
#include "models/job_spec.h"
#include "models/memory/footprint.h"
#include "models/results.h"
#include "models/step/step_simulation.h"

namespace gpuplan::models {

/// The one set of model parameters used for every scenario (no per-case tuning).
struct ModelParams {
  GpuEfficiency gpu = GpuEfficiency::defaults();
  MemoryModelParams memory = MemoryModelParams::defaults();
  StepSimOptions step;
  /// Simulate one GPU alone for the scaling efficiency of a multi-GPU row. The remedies the
  /// advisor checks (cli/advisor.h) turn it off: their gain needs time and dollars only.
  bool scaling_reference = true;
};

/// Everything one variant produced: the result row and, when asked, the step trace.
struct VariantRun {
  VariantResult result;
  std::vector<TraceSpan> trace;
  std::uint64_t events = 0;
};

/// Above this share of the GPU's memory a fitting row (or plan) is called tight: the modelled
/// allocator slack is a mean, and the peak-memory validation rows scatter by about 5 %
/// (tests/validation/README.md). Read by run_variant's note and `gpuplan plan`'s summary.
inline constexpr double kTightMemoryShare = 0.95;

/// Simulates `job` and fills the result row named `strategy`. Throws std::invalid_argument
/// when the job cannot run at all, and sim::TimeRangeError when its time to train is past
/// simulated time's range (2^63 ns, about 292 years; sim/sim_time.h): the message gives the
/// product (epochs x steps per epoch x step time) and the bound.
VariantRun run_variant(const JobSpec& job, const std::string& strategy, const ModelParams& params);

}  // namespace gpuplan::models

#pragma once
/// \file step_simulation.h
/// Tier-2 process model of training steps on one GPU (STYLE.md E3): the host process takes a
/// batch from the data loader, copies it to the GPU, dispatches the forward, backward and
/// (on the last micro-step) optimizer kernels, and synchronises at the end of the step (the
/// loss is read every step, as training loops do). The GPU stream, the copy engine and the
/// loader workers are sim/ FIFO servers; contention is decided by the engine.
///
/// Steady state: `warmup_steps` optimizer steps are discarded, then steps are simulated until
/// the 95 % confidence half-width of the mean step time is below `relative_precision` of
/// the mean (at least `min_steps`, at most `max_steps`). Gradient accumulation: with GA > 3
/// only two non-final micro-steps per step are simulated, and the step time is
/// (GA - 1) x mean non-final micro-step + final micro-step.

#include <cstdint>
#include <string>
#include <vector>

#include "models/results.h"
#include "models/step/step_plan.h"
#include "models/trace_span.h"

namespace gpuplan::models {

struct StepSimOptions {
  int warmup_steps = 3;
  int min_steps = 10;
  int max_steps = 200;
  double relative_precision = 0.005;
  int trace_steps = 0;  ///< record the timeline of the first `trace_steps` steps (0 = none)
  /// Job level: simulate every batch of every epoch (simulate_epoch) instead of a steady-state
  /// window per epoch kind (`gpuplan run --exact`). Slow for real datasets; for checking.
  bool exact = false;
};

/// Where the data loader's readers spent their time, mean per batch over the measured
/// window, seconds. Each phase includes its queueing: storage waits for a device slot and
/// bandwidth, decode waits for a core when threads outnumber cores.
struct LoaderStats {
  double storage_s = 0.0;   ///< from the first request to the last byte (0 from the page cache)
  double cpu_s = 0.0;       ///< decode + augment, contention included
  double pin_s = 0.0;       ///< from decoded to in the main process (pin-memory queue and copy)
  int batches_measured = 0;
};

/// What the simulation measured, per optimizer step (means over the measured steps).
struct StepStats {
  StepBreakdown breakdown;
  double gpu_busy_s = 0.0;        ///< time at least one kernel runs (nvidia-smi utilization numerator)
  int steps_measured = 0;
  std::uint64_t events = 0;       ///< engine events processed
  std::vector<TraceSpan> trace;   ///< first `trace_steps` steps, if asked
  LoaderStats loader;             ///< the readers' time per batch (zeros for synthetic data)
  double fill_s = 0.0;            ///< pipeline fill: time from the start until steps run at the steady pace, s
};

/// One epoch simulated batch by batch from an empty pipeline (the exact mode).
struct EpochRun {
  double elapsed_s = 0.0;         ///< from the first request to the end of the last step
  std::uint64_t events = 0;
};

/// Simulates `plan` to steady state. Throws std::invalid_argument for an empty plan.
StepStats simulate_steps(const StepPlan& plan, const StepSimOptions& options = {});

/// Simulates one epoch of `steps` optimizer steps from an empty pipeline, every batch (no
/// steady-state shortcut, the full gradient accumulation). Throws std::invalid_argument for an
/// empty plan or `steps < 1`.
EpochRun simulate_epoch(const StepPlan& plan, long steps, const StepSimOptions& options = {});

}  // namespace gpuplan::models

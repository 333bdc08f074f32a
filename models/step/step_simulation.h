#pragma once
/// \file step_simulation.h
/// Tier-2 process model of training steps on one GPU (STYLE.md E3): the host process takes a
/// batch from the data loader, copies it to the GPU, dispatches the forward, backward and
/// (on the last micro-step) optimizer kernels, and synchronises at the end of the step (the
/// loss is read every step, as training loops do). The step is a graph of activities built
/// in one place (StepGraph, step_graph.h) and measured by an observer (StepMeasurement,
/// step_measurement.h); contention is decided by the engine's max-min resources.
///
/// Steady state: `warmup_steps` optimizer steps are discarded, then steps are simulated in
/// whole loader cycles (W / gcd(W, simulated micro-steps per step) steps for W workers: batch i
/// comes from worker i mod W) until the 95 % confidence half-width of the mean of the cycle
/// means is below `relative_precision` of the mean (at least `min_steps` and four cycles, at
/// most max(`max_steps`, `max_cycles` cycles) rounded down to whole cycles), and the window's
/// two halves agree (otherwise the first half joins the warm-up; step_simulation.cpp). Gradient accumulation: with GA > 3
/// three micro-steps per step are simulated, and the step time is first micro-step + (GA - 2)
/// x middle micro-step + final micro-step: the first one also waits for what the previous
/// optimizer step updates (a parameter all-gather), which a mean over the first and a middle
/// one would count (GA - 1) / 2 times.

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
  /// With W > 1 loader workers the window may grow to this many loader cycles when it
  /// exceeds max_steps: workers that start together take tens of cycles to lose their common
  /// phase (an object-store mount with 16 workers: about 20). A bound on effort, not a model
  /// parameter.
  int max_cycles = 64;
  double relative_precision = 0.005;
  /// Record the timeline of `trace_steps` optimizer steps from step `trace_first_step`
  /// (counted from 0, warm-up included): every span of the loader's workers, the main
  /// process, pinning, copies, kernels and all-reduces at work during those steps. 0 = none.
  int trace_steps = 0;
  int trace_first_step = 0;  ///< the first traced optimizer step (see trace_steps)
  /// Job level: simulate every batch of every epoch (simulate_epoch) instead of a steady-state
  /// window per epoch kind (`gpuplan run --exact`). Slow for real datasets; for checking.
  bool exact = false;
  /// With W > 1 loader workers, first try a short window: `warmup_steps` + `min_steps` steps
  /// (no whole loader cycles), kept when the loader cannot have shaped it (the step is then
  /// the same every step, as with synthetic data): no data wait in the window, every
  /// measured step equally long (within kPeriodicTolerance), the CPU cores not shared
  /// (threads <= cores), and the loader at most half busy: every batch so far was made
  /// ready within W / 2 shortest micro-steps of its reader starting it, and pinned within
  /// half of one. Otherwise the window grows by the rules above, from the steps already
  /// simulated. A bound on effort for searches (`gpuplan plan`), off by default; its
  /// result equals the long window's within kPeriodicTolerance (tests/models/step_simulation_test.cpp).
  /// With synthetic data one step after the warm-up is measured: nothing is drawn at random,
  /// and each micro-step starts at the host's sync on the previous one's last kernel, so the
  /// steps after the first (which starts with nothing in flight) are alike.
  bool stop_when_periodic = false;
};

/// How equal the measured steps must be for StepSimOptions::stop_when_periodic, relative to
/// the longest: 1e-6, i.e. equal but for the engine's nanosecond rounding of shared flows.
inline constexpr double kPeriodicTolerance = 1e-6;

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
  std::vector<TraceSpan> trace;   ///< the traced steps' spans, if asked (StepSimOptions::trace_steps)
  LoaderStats loader;             ///< the readers' time per batch (zeros for synthetic data)
  double fill_s = 0.0;            ///< pipeline fill: time from the start until steps run at the steady pace, s
};

/// One epoch simulated batch by batch from an empty pipeline (the exact mode).
struct EpochRun {
  double elapsed_s = 0.0;         ///< from the first request to the end of the last step
  /// The second half of the epoch (from the start of optimizer step steps / 2 to the end of the
  /// last one) and its steps: the epoch's throughput past the pipeline fill and any start-up
  /// transient, as the steady state quotes it. The whole epoch when it has fewer than 2 steps.
  double filled_s = 0.0;
  long filled_steps = 0;
  std::uint64_t events = 0;
};

/// Simulates `plan` to steady state. Throws std::invalid_argument for an empty plan.
StepStats simulate_steps(const StepPlan& plan, const StepSimOptions& options = {});

/// Simulates one epoch of `steps` optimizer steps from an empty pipeline, every batch (no
/// steady-state shortcut, the full gradient accumulation). Throws std::invalid_argument for an
/// empty plan or `steps < 1`.
EpochRun simulate_epoch(const StepPlan& plan, long steps, const StepSimOptions& options = {});

}  // namespace gpuplan::models

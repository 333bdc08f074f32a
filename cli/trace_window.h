#pragma once
/// \file trace_window.h
/// The optimizer steps `gpuplan run --trace FILE [--trace-steps FROM:TO]` records, and the
/// bounds on them: inside the job, and small enough that the trace stays cheap. The step
/// simulation keeps every span from step 0 to TO (models/step/step_simulation.h), about
/// 48 kB of memory per step for GPT-2 124M on one GPU (10,000 steps: 476 MB resident,
/// measured with /usr/bin/time -v), and the trace file holds about 48 kB per traced step.

#include <string>

#include "config/scenario.h"

namespace gpuplan::cli {

/// Optimizer steps traced without --trace-steps (0:3).
inline constexpr int kDefaultTracedSteps = 3;
/// The largest TO: every step before it is simulated with its timeline kept.
inline constexpr long kMaxTraceEndStep = 10000;
/// Most steps one trace holds (TO - FROM): about 48 MB of trace file for GPT-2 124M.
inline constexpr long kMaxTracedSteps = 1000;

/// The optimizer steps [first_step, end_step), counted from 0 (warm-up included).
struct TraceWindow {
  int first_step = 0;
  int end_step = kDefaultTracedSteps;
};

/// Reads `FROM:TO`. Throws std::invalid_argument, the whole message (without a --help hint),
/// for anything but two whole numbers with 0 <= FROM < TO <= kMaxTraceEndStep and
/// TO - FROM <= kMaxTracedSteps.
TraceWindow parse_trace_window(const std::string& text);

/// Optimizer steps of the shortest variant's job: ceil(steps per epoch x epochs)
/// (models/job/job_time.h); `strategy` is that variant's row name. 0 steps for no variants.
struct ShortestJob {
  long steps = 0;
  std::string strategy;
};
ShortestJob shortest_job(const config::Scenario& scenario);

/// The window to trace in `scenario`. A window given with --trace-steps (`given`, its text
/// `text`) that ends past the shortest job's last step is refused: throws
/// std::invalid_argument naming the job's step count and a window inside it. The default
/// window is clipped to the job's steps instead (a job of 2 steps traces steps 0 and 1).
TraceWindow fit_trace_window(const TraceWindow& window, bool given, const std::string& text,
                             const config::Scenario& scenario);

}  // namespace gpuplan::cli

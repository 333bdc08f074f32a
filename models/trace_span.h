#pragma once
/// \file trace_span.h
/// A span of simulated work, the plain record the step simulation hands the trace writer
/// (report/trace_json.h turns these into Perfetto JSON). Plain data: report/ reads it
/// without seeing the step simulation or the engine (STYLE.md L1).

#include <string>

namespace gpuplan::models {

/// One span on one track, seconds from the start of the simulation.
struct TraceSpan {
  std::string track;  ///< "worker N", "main process", "storage", "pin_memory", "h2d", "gpu"
  std::string label;
  double start_s = 0.0;
  double end_s = 0.0;
};

}  // namespace gpuplan::models

#pragma once
/// \file trace_json.h
/// The simulated timeline of the first steps as Chrome trace event JSON (the "JSON Object
/// Format" of the Trace Event Format, https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU),
/// which Perfetto (ui.perfetto.dev) and chrome://tracing load. Each variant is a process
/// (pid from 1, named after the strategy); each track a thread, in pipeline order: storage,
/// worker 0..N-1 / main process, pin_memory, h2d, gpu, then any other track by name. Spans
/// are complete events ("ph": "X") with microsecond "ts" and "dur". Plain spans in, text out:
/// report/ never sees the engine (STYLE.md L1).

#include <string>
#include <vector>

#include "models/trace_span.h"

namespace gpuplan::report {

/// The spans of one variant's trace.
struct TraceProcess {
  std::string name;                           ///< the variant's row name
  std::vector<models::TraceSpan> spans;       ///< seconds from the start of the simulation
};

/// The whole trace as one JSON document (deterministic: same spans, same bytes). Throws
/// nothing.
std::string render_chrome_trace(const std::vector<TraceProcess>& processes);

/// The position of `track` in pipeline order (storage 0, workers and the main process 1,
/// pin_memory 2, h2d 3, gpu 4, others 5); used to sort threads.
int track_rank(const std::string& track);

}  // namespace gpuplan::report

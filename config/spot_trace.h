#pragma once
/// \file spot_trace.h
/// Reader of SkyPilot spot-traces JSON (skypilot-org/spot-traces, the data of "Can't Be
/// Late", NSDI 2024): `{"metadata": {"gap_seconds": N}, "data": [count, ...]}`, the count of
/// instances available or alive at each probe, N seconds apart. Other keys ("prices") are
/// ignored. The result is replayed by models/job/spot_job.h: a drop in the count preempts
/// the job, a zero means no capacity until it returns.

#include <string>

#include "models/job_spec.h"

namespace gpuplan::config {

/// Shortest probe interval accepted, seconds. SkyPilot's published traces probe every 32
/// to 600 s; an interval of 0.001 s made `run` replay millions of preemptions (issue 15).
inline constexpr double kMinSpotTraceGapS = 1.0;
/// Longest probe interval accepted, seconds (about 116 days).
inline constexpr double kMaxSpotTraceGapS = 1e7;
/// Largest count of instances in one probe.
inline constexpr long long kMaxSpotTraceCount = 1'000'000;

/// Reads the trace at `path`. Throws ConfigError "<path>: <problem>; <fix>" when the file
/// cannot be read, is not JSON (parse_json_text's errors, with line:column), lacks
/// metadata.gap_seconds (kMinSpotTraceGapS to kMaxSpotTraceGapS) or data (a non-empty
/// array of counts from 0 to kMaxSpotTraceCount; the index of the first bad entry is
/// named).
models::AvailabilityTrace read_spot_trace(const std::string& path);

/// As read_spot_trace(), from JSON text; `file_name` is used in messages and as the source.
models::AvailabilityTrace parse_spot_trace(const std::string& json_text, const std::string& file_name);

}  // namespace gpuplan::config

#pragma once
/// \file probe_results.h
/// Reads cuda_probe's JSON (format "gpuplan-probe/v1", cuda_probe/README.md) into
/// models::ProbeResults. Each point needs its size ("flop" for GEMM, "bytes" otherwise) and
/// "median_s"; "min_s"/"max_s" default to the median. Derived keys the probe also writes for
/// people ("flop_per_s", "bytes_per_s", m/n/k, the "summary" block) are accepted and ignored.

#include <string>

#include "models/calibration/probe_results.h"

namespace gpuplan::config {

/// Parses probe JSON `text` read from `file`. Throws ConfigError listing every problem
/// (`<problem> at <file> (<key.path>)`; syntax errors with line:column), including a series
/// with fewer than two distinct sizes, which no line can be fitted to.
models::ProbeResults parse_probe_results(const std::string& text, const std::string& file);

/// Reads and parses `path`; ConfigError "cannot read probe output '<path>': <reason>".
models::ProbeResults load_probe_results(const std::string& path);

}  // namespace gpuplan::config

#pragma once
/// \file probe_provenance.h
/// The `provenance` object that cuda_probe writes and a calibration profile keeps: which GPU,
/// driver, CUDA, clocks and date the measurements come from. Read the same way in both files.

#include "config/json_reader.h"
#include "models/calibration/probe_results.h"

namespace gpuplan::config {

/// Reads the provenance fields from `r` (an object reader on the `provenance` object) and
/// finishes it; gpu_name and date are required, the rest optional. Errors go to r's JsonErrors.
models::ProbeProvenance read_probe_provenance(JsonObjectReader& r);

}  // namespace gpuplan::config

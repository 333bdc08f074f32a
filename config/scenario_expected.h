#pragma once
/// \file scenario_expected.h
/// Reads the `expected:` block of a validation case: the published measurements a
/// prediction is compared with (DESIGN.md "Validation"). Internal to config/.

#include <optional>

#include "config/scenario.h"
#include "config/yaml_reader.h"

namespace gpuplan::config {

/// Reads `root.expected`; nullopt when absent or invalid (errors go to the sink).
/// Metrics: throughput ("2650 samples/s"), tokens_per_s ("3100 tokens/s"), peak_memory
/// (a size), peak_memory_allocated (a size: what torch.cuda.max_memory_allocated() reports,
/// tensors without the CUDA context and the allocator's slack), fits (true/false), step_time
/// and time_to_train (durations), mfu and gpu_utilization (fractions in [0, 1]). At least
/// one metric is required.
std::optional<Expected> read_expected(MapReader& root);

}  // namespace gpuplan::config

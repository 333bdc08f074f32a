#pragma once
/// \file resolved_printer.h
/// `gpuplan run --print-resolved` (STYLE.md C7): the final configuration of every variant
/// after catalog expansion, strategy overrides and sweeps, as YAML with SI units (B, s, B/s,
/// FLOP, FLOP/s, W, USD), so that "why did changing X do nothing?" can be answered by
/// reading what the models get.

#include <string>

#include "config/scenario.h"

namespace gpuplan::config {

/// YAML text: the file-level facts (format, name, file, seed), then `variants:`, one
/// mapping per variant in order, each with strategy, sweep_point and the resolved
/// sections (workload with the model's size, the GPU's catalog figures, storage,
/// instance), then `expected:` when present. Deterministic: same scenario, same bytes.
std::string print_resolved(const Scenario& scenario);

}  // namespace gpuplan::config

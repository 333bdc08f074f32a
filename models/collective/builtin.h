#pragma once
/// \file builtin.h
/// The registry of collective algorithms (STYLE.md P1) and its built-in entries.

#include "core/registry.h"
#include "models/collective/collective_algorithm.h"

namespace gpuplan::models {

/// Collective algorithms by name (STYLE.md P1).
using CollectiveRegistry = core::Registry<ICollectiveAlgorithm>;

/// Adds "hierarchical", "nvls", "pairwise", "ring" and "tree" to `registry`. Throws std::logic_error when
/// one of the names is already registered.
void register_builtin_collectives(CollectiveRegistry& registry);

/// A registry holding the built-in algorithms, built once (thread-safe static
/// initialisation) and shared read-only by every step plan.
const CollectiveRegistry& builtin_collective_registry();

}  // namespace gpuplan::models

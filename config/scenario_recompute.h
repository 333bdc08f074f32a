#pragma once
/// \file scenario_recompute.h
/// `training.activation_checkpointing: false | true | full | selective | {every: N}`
/// (docs/language-models.md; models/workload/activation_recompute.h). Internal to config/.

#include <optional>

#include "config/yaml_reader.h"
#include "models/precision.h"
#include "models/workload/activation_recompute.h"
#include "models/workload/workload.h"

namespace gpuplan::config {

/// The mode and N of `training.activation_checkpointing`.
struct RecomputeChoice {
  models::ActivationRecompute mode = models::ActivationRecompute::kNone;
  int every = 0;  ///< N of {every: N}
};

/// Reads the key from `training` (absent: false). true and full are the same; {every: N}
/// needs N from 1 to 10^6. nullopt after an error (recorded at the key).
std::optional<RecomputeChoice> read_activation_checkpointing(MapReader& training);

/// Checks `choice` against the model whose attention runs as `attention` (resolved, not
/// sdpa): selective needs an unfused attention chain (eager), every N at most the model's
/// repeated blocks (models::checkpoint_blocks). Errors at the key with a fix.
void check_activation_checkpointing(MapReader& training, const RecomputeChoice& choice,
                                    const models::Workload& workload, models::AttentionKernel attention);

}  // namespace gpuplan::config

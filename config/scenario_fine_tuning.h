#pragma once
/// \file scenario_fine_tuning.h
/// `training.fine_tuning` (scenario-format: docs/language-models.md): the method, the
/// adapters' rank, alpha and targets, and the base weights' precision. Internal to config/.

#include <optional>

#include "config/yaml_reader.h"
#include "models/workload/fine_tuning.h"
#include "models/workload/workload.h"

namespace gpuplan::config {

/// Reads `training.fine_tuning` from `training` (absent: full training) and checks it
/// against the model and the training precision, each error at its key with a fix:
/// `method` required; `rank` 1 or more and at most the targeted matrices' width
/// (models::lora_max_rank), only with lora/qlora; `targets` all_linear or a list of
/// projections that the model has, without repeats; `base_precision` quantized (int8, nf4)
/// exactly for qlora; lora/qlora need a 16-bit compute precision (bf16, bf16_amp,
/// fp16_amp) and a model with transformer projections. `workload` may be null when the
/// model could not be read (the model checks are then skipped), and `precision` nullopt when
/// training.precision was refused (the precision check is then skipped, so that a refused
/// value never adds a second error about the default). nullopt after an error.
std::optional<models::FineTuningSpec> read_fine_tuning(MapReader& training, const models::Workload* workload,
                                                       std::optional<models::Precision> precision);

}  // namespace gpuplan::config

#pragma once
/// \file scenario_model_parallel.h
/// `parallelism.tensor_parallel: N` and `parallelism.sequence_parallel: true|false`
/// (models/workload/tensor_parallel_shard.h, models/step/tensor_parallel_plan.h). Internal to
/// config/.

#include "config/yaml_reader.h"
#include "models/job_spec.h"
#include "models/workload/workload.h"

namespace gpuplan::config {

/// Reads the keys from `parallelism` into `spec` (absent: tensor_parallel 1, no sequence
/// parallelism), before the section's finish(). Errors at the key.
void read_model_parallel(MapReader& parallelism, models::ParallelismSpec& spec);

/// Refuses what cannot run, at the key, with a fix: tensor_parallel with a strategy other
/// than ddp, not dividing gpus_per_node (a group stays inside a node) or the model's query
/// and key/value heads, or on a model that is not a transformer decoder (only decoder blocks
/// are split); sequence_parallel with tensor_parallel 1.
void check_model_parallel(MapReader& parallelism, const models::ParallelismSpec& spec,
                          const models::HardwareSpec& hardware, const models::Workload& workload);

}  // namespace gpuplan::config

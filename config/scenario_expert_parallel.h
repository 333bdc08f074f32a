#pragma once
/// \file scenario_expert_parallel.h
/// `parallelism.expert_parallel: N` and `parallelism.expert_load_imbalance: x`
/// (models/workload/moe_expert_shard.h, models/step/expert_parallel_plan.h). Internal to
/// config/.
///
/// Supported: expert parallelism within the data-parallel groups of strategy ddp (with
/// pipeline parallelism too); a mixture-of-experts model without tensor parallelism (the
/// experts are not split by it).

#include "config/yaml_reader.h"
#include "models/job_spec.h"
#include "models/workload/workload.h"

namespace gpuplan::config {

/// Reads the keys from `parallelism` into `spec` (absent: expert_parallel 1, imbalance 1),
/// before the section's finish().
void read_expert_parallel(MapReader& parallelism, models::ParallelismSpec& spec);

/// Refuses what cannot run, at the key, with a fix: expert_load_imbalance without
/// expert_parallel > 1 or above expert_parallel (the busiest rank gets at most every token);
/// expert_parallel on a model without experts, with a strategy other than ddp, not dividing
/// the experts or the data-parallel ranks, or neither dividing nor a multiple of
/// gpus_per_node (groups of whole nodes or inside one); tensor_parallel on a model with
/// experts.
void check_expert_parallel(MapReader& parallelism, const models::ParallelismSpec& spec,
                           const models::HardwareSpec& hardware, const models::Workload& workload);

}  // namespace gpuplan::config

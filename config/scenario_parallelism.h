#pragma once
/// \file scenario_parallelism.h
/// The `parallelism:` section of a scenario (strategy, bucket_size, FSDP's sharding, ZeRO's
/// stage, offload) and the combinations with the hardware it refuses, each with a fix. Internal to
/// config/.

#include <optional>
#include <string>

#include "config/scenario_hardware.h"
#include "config/yaml_reader.h"
#include "models/job_spec.h"

namespace gpuplan::config {

/// What `parallelism:` resolved to; `spec` holds the documented defaults where a key is absent.
struct ParallelismSection {
  std::optional<MapReader> reader;  ///< absent when the scenario has no `parallelism:` mapping
  models::ParallelismSpec spec;
  bool strategy_written = false;  ///< `parallelism.strategy` is in the file (and valid)
  std::optional<MapReader> offload;  ///< `parallelism.offload`, when written as a mapping
};

/// Reads `root.parallelism`: strategy (default none), bucket_size (25 MiB), sharding (fsdp
/// only, default full_shard), zero_stage (zero only, required there, 1 to 3), fp8_all_gather
/// (default false). Records at the key: sharding without fsdp, zero_stage without zero
/// (zero_stage 3 with data_parallel says so), zero without zero_stage, fp8_all_gather without
/// per-layer gathers (fsdp other than no_shard, or zero_stage 3); its precision (fp8) is
/// checked with the training section (scenario_validator.cpp). offload: {optimizer,
/// parameters} (none | cpu | nvme, default none) with fsdp or zero only; parameters other than
/// none needs sharded parameters at rest between units (fsdp full_shard / hybrid_shard, or
/// zero_stage 3). distributed_optimizer (default false) with strategy ddp only, and not with
/// expert_parallel > 1; its optimizer is checked with the training section.
ParallelismSection read_parallelism_section(MapReader& root);

/// The strategy against the hardware: several GPUs without a strategy (at the hardware key
/// that made them several), strategy none on several GPUs, data_parallel on several nodes,
/// fsdp or zero on one GPU, an nvme offload on a node whose storage is not the catalog's NVMe
/// class (nvme_ssd). Errors at the key with a fix.
void check_parallelism(const ParallelismSection& parallelism, const HardwareSection& hardware,
                       const CloudSection& cloud);

}  // namespace gpuplan::config

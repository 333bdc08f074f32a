#pragma once
/// \file scenario_model_parallel.h
/// `parallelism.tensor_parallel: N`, `parallelism.sequence_parallel: true|false`,
/// `async_tensor_parallel: true|false`
/// (models/workload/tensor_parallel_shard.h, models/step/tensor_parallel_plan.h),
/// `parallelism.pipeline_parallel: N`, `pipeline_schedule: gpipe | 1f1b | interleaved_1f1b`
/// and `virtual_stages: V` (models/step/pipeline_parallel_plan.h), `context_parallel: N`
/// (models/step/context_parallel_plan.h). Internal to config/.
///
/// Supported combinations: tensor x pipeline x DDP data parallelism (strategy ddp), tensor x
/// FSDP / ZeRO (sharded over the data-parallel ranks), and tensor x pipeline x FSDP
/// (full_shard, shard_grad_op) or ZeRO-1, run as the distributed optimizer's layout
/// (models/memory/distributed_optimizer.h runs_distributed_optimizer); GPUs = tensor_parallel x
/// pipeline_parallel x data-parallel ranks = nodes x gpus_per_node.

#include "config/yaml_reader.h"
#include "models/job_spec.h"
#include "models/workload/workload.h"

namespace gpuplan::config {

/// Reads the keys from `parallelism` into `spec` (absent: tensor_parallel 1, no sequence
/// parallelism, pipeline_parallel 1 with 1f1b and one virtual stage, context_parallel 1), before the section's
/// finish(). Errors at the key (a misspelt schedule with did-you-mean).
void read_model_parallel(MapReader& parallelism, models::ParallelismSpec& spec);

/// Refuses what cannot run, at the key, with a fix: tensor_parallel with a strategy other
/// than ddp, fsdp or zero, with fsdp or zero leaving fewer than 2 data-parallel ranks (or,
/// for hybrid_shard, fewer than 2 in a node), neither dividing gpus_per_node nor spanning
/// whole nodes (a multiple of it, the nodes a multiple of the span, no pipeline stages),
/// not dividing the model's query
/// and key/value heads, or on a model that is not a transformer decoder (only decoder blocks
/// are split); sequence_parallel with tensor_parallel 1; async_tensor_parallel without
/// sequence_parallel; pipeline_schedule or virtual_stages
/// without pipeline_parallel > 1, virtual_stages > 1 without interleaved_1f1b,
/// pipeline_parallel with a strategy other than ddp, fsdp or zero, with fsdp sharding
/// hybrid_shard or no_shard, zero_stage 2 or 3 (DeepSpeed's pipeline engine runs stage 1),
/// offload, fp8_all_gather or expert_parallel under fsdp or zero, or on a model that is not a
/// transformer decoder, layers not a multiple of pipeline_parallel x virtual_stages, GPUs not a multiple
/// of tensor_parallel x pipeline_parallel, stages that cannot be spread evenly over the nodes
/// (pipeline_parallel neither divides nor is a multiple of them), and with interleaved_1f1b
/// `gradient_accumulation` (the micro-batches; from `training` when it was read) not a
/// multiple of pipeline_parallel; context_parallel on a model that is not a transformer
/// decoder, with a strategy other than ddp, fsdp or zero, with pipeline_parallel, with eager
/// attention (ring attention runs a fused kernel per key/value block), with a sequence_length
/// not a multiple of 2 x context_parallel (two chunks per rank for the causal balance), or
/// with tensor_parallel x context_parallel not dividing the GPUs or neither dividing nor
/// filling whole nodes.
void check_model_parallel(MapReader& parallelism, const models::ParallelismSpec& spec,
                          const models::HardwareSpec& hardware, const models::Workload& workload,
                          const models::TrainingSpec* training);

}  // namespace gpuplan::config

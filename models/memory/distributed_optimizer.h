#pragma once
/// \file distributed_optimizer.h
/// Megatron-LM's distributed optimizer (`--use-distributed-optimizer`;
/// `parallelism.distributed_optimizer: true` with strategy ddp; also the layout FSDP and ZeRO-1
/// run under a pipeline, runs_distributed_optimizer): the one rule for its bytes per
/// parameter, read by the memory model (parallel_memory.h) and the step plan
/// (models/step/step_plan.cpp: gradient width of the buckets, shard the optimizer updates,
/// all-gather of the updated parameters). Pure (STYLE.md E2).
///
/// Megatron keeps the model's parameters at their training dtype in a contiguous buffer, the
/// gradients in a contiguous "main grad" buffer, and its optimizer (Adam or SGD) on fp32 main
/// parameters. The distributed optimizer splits the fp32 main parameters, the fp32 moments and
/// (for 16-bit gradients) an fp32 copy of the gradients evenly over the d data-parallel ranks
/// (data x context parallel ranks: ParallelismSpec::gradient_ranks), keeps the parameters and
/// main grads whole, reduce-scatters the main grads instead of all-reducing them and
/// all-gathers the updated parameters after the step (the same bus volume). Bytes per parameter
/// with Adam, from the Megatron Core developer guide, "Distributed Optimizer"
/// (docs.nvidia.com/megatron-core/developer-guide/latest/distrib_optimizer.html; Megatron-LM
/// docs/source/api-guide/dist_optimizer.md):
///   fp16 params, fp16 grads   20 B non-distributed, 4 + 16/d distributed
///   fp16 params, fp32 grads   18 B,                 6 + 12/d
///   fp32 params, fp32 grads   16 B,                 8 +  8/d
/// gpuplan's precisions map onto those rows as Megatron's flags do: fp16_amp is `--fp16`
/// (16-bit grads: accumulate_allreduce_grads_in_fp32 is off by default), bf16, bf16_amp and fp8
/// are `--bf16` (Transformer Engine's fp8 GEMMs on bf16 parameters; Megatron turns on fp32 grad
/// accumulation for bf16), fp32 and tf32 are fp32. `parallelism.grad_reduce_in_fp32` overrides
/// that default for 16-bit parameters, as Megatron Core's DistributedDataParallelConfig
/// grad_reduce_in_fp32 and NeMo's `optim.grad_sync_dtype` do (NeMo-Framework-Launcher's
/// nemotron_340b.yaml trains with bf16 main grads). The moments are fp32 unless
/// training.optimizer_state_precision says bf16 (Megatron's precision-aware optimizer,
/// `--exp-avg-dtype bf16`).
///
/// The table counts the fp32 copy of 16-bit gradients as resident. It is not at the peak of
/// the step: the optimizer creates it (_copy_model_grads_to_main_grads: `shard_main_param.grad =
/// shard_model_grad.float()`) after backward has freed the activations, and drops it at the
/// next step's zero_grad(set_to_none=True) before the forward (megatron/core/optimizer/
/// distrib_optimizer.py, megatron/training/training.py train_step). gpuplan adds only what it
/// exceeds the freed activations by.

#include <optional>

#include "models/job_spec.h"
#include "models/results.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

/// Bytes per trained parameter under the distributed optimizer.
struct DistributedOptimizerBytes {
  double parameter_bytes = 0.0;  ///< the model's parameter: 2 (fp16 / bf16 / fp8 recipes) or 4 (fp32, tf32)
  double gradient_bytes = 0.0;   ///< the main grad, reduced at this width: 2 under fp16_amp, else 4
  /// Split over the data-parallel ranks and resident: fp32 main parameter (4, when the
  /// parameter is 16-bit) and the moments (Adam 2, SGD with momentum 1, SGD 0 of 4 B each; 2 B
  /// each with optimizer_state_precision bf16).
  double sharded_bytes = 0.0;
  /// Split over the data-parallel ranks, during the optimizer step only: the fp32 copy of the
  /// gradient shard (4 when the gradient is 16-bit, else 0: `.float()` of fp32 is the tensor).
  double gradient_copy_bytes = 0.0;
  /// Per GPU with `shard_ranks` data-parallel ranks, as Megatron's table counts it:
  /// parameter + gradient + (sharded + gradient copy) / ranks.
  double per_gpu_bytes(int shard_ranks) const {
    return parameter_bytes + gradient_bytes + (sharded_bytes + gradient_copy_bytes) / shard_ranks;
  }
};

/// The bytes of `training`'s precision and optimizer under the distributed optimizer, by the
/// table above (bf16 + Adam: 2, 4, 12, copy 0; fp16 + Adam: 2, 2, 12, copy 4).
/// `grad_reduce_in_fp32` (ParallelismSpec, unset: the precision's default) chooses 4- or
/// 2-byte main grads for 16-bit parameters; fp32 parameters keep fp32 grads. Throws
/// std::invalid_argument for an optimizer Megatron's optimizer does not run (8-bit AdamW,
/// Adafactor; config/ refuses them first).
DistributedOptimizerBytes distributed_optimizer_bytes_per_parameter(const TrainingSpec& training,
                                                                    std::optional<bool> grad_reduce_in_fp32 = {});

/// Whether `p` runs the distributed optimizer's step. Megatron's: strategy ddp with
/// `distributed_optimizer`. And a sharded strategy under a pipeline (pipeline_parallel > 1
/// with fsdp full_shard or shard_grad_op, or zero stage 1; config/ refuses the others), which
/// runs the same state layout and collectives:
/// - FSDP as torchtitan runs it with PP (torchtitan parallelize_llama's apply_fsdp: no
///   reshard after forward when pipeline parallelism is on; torch.distributed.pipelining's
///   stage runs the backward of every micro-batch but the last without gradient sync): the
///   stage's bf16 parameters are gathered once and kept across its micro-batches, the
///   gradients accumulate unsharded in the reduce dtype (fp32: torchtitan's
///   mixed_precision_reduce) and are reduce-scattered once, in the last micro-batch's
///   backward, and each rank keeps and updates its fp32 shard of the parameters and moments:
///   2 + 4 + 12/d B per parameter with Adam, the table's bf16 row.
/// - DeepSpeed's pipeline engine, which runs ZeRO stage 1 only (deepspeed/runtime/pipe:
///   "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"): 16-bit parameters, whole
///   gradients accumulated across micro-batches, the optimizer state partitioned.
/// The parameter all-gather of FSDP's first micro-batch is prefetched under its forward, as
/// Megatron's `overlap_param_gather` is (overlaps_parameter_gather).
bool runs_distributed_optimizer(const ParallelismSpec& p);

/// Whether the all-gather of the updated parameters overlaps the next forward: Megatron's
/// `overlap_param_gather`, and always for FSDP under a pipeline (its prefetch). False without
/// the distributed optimizer.
bool overlaps_parameter_gather(const ParallelismSpec& p);

/// The ranks `job`'s distributed optimizer splits its state over: gradient_ranks of its GPUs
/// where runs_distributed_optimizer, else 1 (no distributed optimizer).
int distributed_optimizer_shard_ranks(const JobSpec& job);

/// Parameters of `rank` (one GPU's model shard or pipeline stage) held by ops with routed
/// experts (Op::experts > 0): the expert-parallel rank's experts.
double expert_parameters(const Workload& rank);

/// The ranks that hold the same experts and split their distributed-optimizer state: the
/// shard ranks / expert_parallel, at least 1 (Megatron-Core's expert-data-parallel group,
/// world / (expert_parallel x pipeline_parallel) without tensor or context parallelism).
int expert_data_parallel_shard_ranks(const JobSpec& job);

/// The parameters of `rank` whose fp32 main copy and moments one GPU keeps and updates: the
/// dense ones / distributed_optimizer_shard_ranks(job), the experts' (expert_parameters) /
/// expert_data_parallel_shard_ranks(job). rank.parameters without the distributed optimizer.
double distributed_optimizer_local_parameters(const JobSpec& job, const Workload& rank);

/// Replaces the weights, gradients, optimizer state and DDP buckets of `m`, the footprint of
/// one GPU holding `rank` (its tensor-parallel shard, or one pipeline stage of it), by the
/// distributed optimizer's: weights = rank.parameters x parameter_bytes + the frozen base
/// (LoRA), gradients = parameters x gradient_bytes, optimizer state =
/// distributed_optimizer_local_parameters x sharded_bytes plus what the step's gradient copy
/// exceeds m's activations and their allocator slack by (freed before it exists), no bucket
/// copy (Megatron's reduce-scatter reads the main-grad buffer itself). Call it after m's
/// activations are final. Unchanged where !runs_distributed_optimizer(job.parallelism).
void apply_distributed_optimizer(const JobSpec& job, const Workload& rank, MemoryBreakdown& m);

}  // namespace gpuplan::models

#pragma once
/// \file sharding.h
/// What a sharded data-parallel strategy (FSDP, ZeRO) splits over the GPUs, and the units it
/// gathers and reduces (pure). The memory model (parallel_memory.h) and the step plan
/// (models/step/sharded_data_parallel_plan.h) both read it.
///
/// ZeRO (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion
/// Parameter Models", Fig. 1): stage 1 partitions the optimizer state, stage 2 also the
/// gradients, stage 3 also the parameters. PyTorch FSDP (torch.distributed.fsdp.
/// ShardingStrategy docs): FULL_SHARD = ZeRO-3 (parameters resharded after each unit's
/// forward and gathered again for its backward), SHARD_GRAD_OP = ZeRO-2 with the parameters
/// sharded at rest but kept gathered from forward through backward, HYBRID_SHARD =
/// FULL_SHARD within a node and replicated across nodes, NO_SHARD = DDP.

#include <cstddef>
#include <string>
#include <vector>

#include "models/job_spec.h"

namespace gpuplan::models {

/// What is sharded, over how many GPUs.
struct ShardingLayout {
  bool optimizer_state = false;  ///< each GPU keeps 1/shard_ranks of the optimizer state (and updates only it)
  bool gradients = false;        ///< each GPU keeps 1/shard_ranks of the gradients (reduce-scatter)
  bool parameters = false;       ///< parameters sharded at rest, gathered per unit (FSDP, ZeRO-3)
  /// Full_shard / ZeRO-3 / hybrid: a unit is freed after its forward and gathered again
  /// before its backward (FSDP reshard_after_forward=True).
  bool reshard_after_forward = false;
  int shard_ranks = 1;  ///< data-parallel ranks a sharded state is split over (hybrid: those of a node)
  int replicas = 1;     ///< copies of each shard (hybrid: the nodes; no_shard: every GPU)
  /// True for FSDP and ZeRO: the step plan uses sharded_data_parallel_plan.h, not DDP's.
  bool sharded_strategy = false;
  /// `parallelism.offload.optimizer`: the optimizer state and fp32 master weights of the
  /// rank's shard live on the host (or its NVMe), where the optimizer step runs (ZeRO-Offload,
  /// Ren et al. 2021, "ZeRO-Offload: Democratizing Billion-Scale Model Training", sec. 4).
  OffloadTarget optimizer_offload = OffloadTarget::kNone;
  /// `parallelism.offload.parameters` (only with `parameters`): the rank's parameter shard
  /// lives on the host (or its NVMe) and is copied to the GPU before each of its unit's
  /// all-gathers (ZeRO-Infinity, Rajbhandari et al. 2021, sec. 5; FSDP CPUOffload).
  OffloadTarget parameter_offload = OffloadTarget::kNone;
};

/// The layout of `job`'s strategy over its gradient ranks (ParallelismSpec::gradient_ranks:
/// GPUs / tensor_parallel, context-parallel ranks included; with
/// tensor parallelism each TP rank's shard of the model is sharded over the ranks holding the
/// same shard, hybrid_shard over those of one node: gpus_per_node / tensor_parallel): nothing
/// sharded (shard_ranks 1) for none, data_parallel and ddp, for FSDP and ZeRO-1 under a
/// pipeline (the distributed optimizer's layout: distributed_optimizer.h
/// runs_distributed_optimizer), and with fewer than 2 gradient
/// ranks; there an FSDP or ZeRO job that offloads keeps its strategy's layout over one rank
/// (ZeRO-Offload on one GPU, Ren et al. 2021 sec. 6), else nothing is offloaded either.
ShardingLayout sharding_layout(const JobSpec& job);

/// Bytes a host optimizer step moves through host memory per trained parameter: it reads
/// the fp32 master weight (parameter_element_bytes()), the optimizer state
/// (optimizer_state_bytes() / parameters, models/memory/optimizer_state.h) and the gradient
/// (at the parameter width), writes the weight and the state back, and, under mixed
/// precision, writes the 2 B compute copy that goes back to the GPU. Adam(W) under AMP:
/// reads 4 + 8 + 4, writes 4 + 8 + 2 = 30 B. 0 for a workload without trained parameters.
double host_optimizer_bytes_per_parameter(const Workload& workload, const TrainingSpec& training);

/// One FSDP wrapping unit: a repeated block (one transformer block, as FSDP's
/// transformer_auto_wrap_policy and llm-foundry's per-block wrapping do), or a run of the
/// ops outside blocks (embedding; final norm, head and loss), each its own unit.
struct ShardUnit {
  std::string name;          ///< the block ("layers.3"), or the first op of a run outside blocks
  std::size_t first_op = 0;  ///< index into Workload::ops
  std::size_t end_op = 0;    ///< one past its last op
  double parameters = 0.0;   ///< trainable parameters of the unit
  /// Bytes of the unit's frozen weights as stored (Op::frozen_parameters x
  /// Op::frozen_element_bytes: a LoRA/QLoRA base). FSDP shards them with the trained ones and
  /// gathers them before each use like any parameter, at their stored width (bf16, or NF4
  /// packed as FSDP-QLoRA runs it); they have no gradient to reduce.
  double frozen_bytes = 0.0;
};

/// The units of `workload`, in forward order: each maximal run of consecutive ops with the
/// same block_of() (workload.h). Every op belongs to exactly one unit.
std::vector<ShardUnit> shard_units(const Workload& workload);

/// Bytes of one parameter element as FSDP gathers it: the compute dtype
/// (MixedPrecision.param_dtype, the autocast width: 2 B under AMP, bf16 and fp8; 4 B in
/// fp32/tf32), the same as activation_element_bytes().
double gathered_parameter_element_bytes(Precision precision);

/// Bytes of `unit`'s parameters as FSDP all-gathers them: gathered_parameter_element_bytes()
/// each, plus its frozen weights as stored (ShardUnit::frozen_bytes), except that with `fp8_all_gather` (precision fp8: torchao float8 training with FSDP2,
/// Float8LinearConfig.enable_fsdp_float8_all_gather) the weights of the float8 linears are
/// gathered as 1-byte float8 (torchao docs, "float8 all-gather with FSDP2"): every linear
/// with a weight except `lm_head`, which torchtitan's float8 converter leaves in bf16 (its
/// module filter skips the output layer); their biases, embeddings and norms stay 2 B.
double gathered_unit_bytes(const Workload& workload, const ShardUnit& unit, Precision precision,
                           bool fp8_all_gather);

}  // namespace gpuplan::models

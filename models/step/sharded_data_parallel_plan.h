#pragma once
/// \file sharded_data_parallel_plan.h
/// What FSDP and ZeRO add to one rank's step (pure; the step graph plays it, step_graph.h
/// `emit_unit_gathers` / `emit_unit_reduces`). Units: bytes, seconds.
///
/// FSDP and ZeRO-3 (PyTorch FSDP docs: FullyShardedDataParallel, forward_prefetch and
/// BackwardPrefetch.BACKWARD_PRE; Zhao et al. 2023, sec. 3.3-3.4): per unit
/// (models/memory/sharding.h ShardUnit), an all-gather of its parameters before its
/// forward, issued when the previous unit's forward starts (one unit ahead); for
/// full_shard and hybrid_shard again before its backward, issued when the unit after it
/// in forward order starts its backward; a reduce-scatter of its gradients once its
/// backward has run (no_shard: an all-reduce; hybrid_shard: then an all-reduce of the shard
/// across nodes). All on the communication stream, one at a time in the order issued,
/// overlapping compute; reduces run on every micro-step (FSDP without no_sync). The
/// optimizer updates the local shard only (step_plan.cpp).
///
/// ZeRO-1/2 (Rajbhandari et al. 2020, sec. 5 and 7.2.1; DeepSpeed stage_1_and_2.py): gradient
/// buckets as DDP's (comm_plan.h) reduce-scattered to the shards' owners (stage 1 keeps the
/// whole gradient and accumulates locally, so on the last micro-step; stage 2 keeps only its
/// shard, so on every micro-step), then, after the optimizer has updated the shard, one
/// all-gather of the updated parameters before the next forward: the volume of DDP's
/// all-reduce, as the paper states for both stages.

#include <cstddef>
#include <vector>

#include "models/job_spec.h"
#include "models/memory/sharding.h"
#include "models/step/step_plan.h"

namespace gpuplan::models {

/// Where each op of a rank's op table has its units in StepPlan::forward and ::backward
/// (tensor parallelism puts its collectives beside the op's kernels, recomputation a replay):
/// op i's forward units are [forward_begin[i], forward_end[i]), its backward units
/// [backward_begin[i], backward_end[i]) in backward order. One entry per op.
struct OpUnitSpans {
  std::vector<std::size_t> forward_begin;
  std::vector<std::size_t> forward_end;
  std::vector<std::size_t> backward_begin;
  std::vector<std::size_t> backward_end;
};

/// Fills plan.comm for `job` whose strategy shards (`layout.sharded_strategy`) over its
/// data-parallel group, the units being those of the rank's op table (rank_workload,
/// models/memory/parallel_memory.h: with tensor parallelism each TP rank's shard of every
/// unit is gathered and reduced over the ranks holding the same shard, torchtitan's FSDP2 +
/// TP), with collective times from the fastest built-in collectives (models/collective/) on
/// the shard group's topology (data_parallel_topology, tensor_parallel_plan.h; hybrid_shard:
/// its ranks in one node) and, for hybrid_shard's replicas, on the nodes' network. `spans`
/// says where each op's units are (one entry per op of the rank's op table). The FSDP
/// collectives run on the communication stream beside the tensor-parallel ones on the
/// compute stream; a link they share is not slowed down (a simplification). Throws
/// std::invalid_argument when `spans` does not fit the plan or the op table. A group of one
/// rank (an offloading job on one GPU: sharding_layout) gathers and reduces nothing: its FSDP
/// and ZeRO-3 units are kept, with no collective time, for the parameter offload's copies.
void plan_sharded_communication(const JobSpec& job, const ShardingLayout& layout, const OpUnitSpans& spans,
                                StepPlan& plan);

/// plan_sharded_communication for a plan with one forward unit per op of `job.workload` and
/// one or two backward units per op (the replay first), in reverse: plan_step's units
/// without tensor parallelism. Throws std::invalid_argument when the plan is not so.
void plan_sharded_communication(const JobSpec& job, const ShardingLayout& layout, StepPlan& plan);

/// The host DRAM bandwidth per CPU core, B/s (reads plus writes), that bounds an offloaded
/// optimizer step: DeepSpeed's CPU-Adam streams each parameter's fp32 weight, gradient and
/// moments once per step, a memory-bound loop (Ren et al. 2021, ZeRO-Offload, sec. 5.1), so a
/// rank's step is its host bytes over its cores' share of the node's DRAM. The figure is the
/// DGX H100 / H200 host's: 2 Xeon Platinum 8480C, 8 channels of DDR5-4800 each (Intel ARK:
/// 16 x 38.4 GB/s = 614.4 GB/s) over 112 cores (NVIDIA DGX H100 user guide, "System
/// specifications"): 5.49 GB/s per core. Other DGX hosts: B200 (2 x Xeon 8570, DDR5-5600)
/// 6.4 GB/s, A100 (2 x EPYC 7742, DDR4-3200) 3.2 GB/s per core. A datasheet
/// peak, reached in part (kCpuAdamHostMemoryShare).
inline constexpr double kHostMemoryBytesPerCorePerS = 614.4e9 / 112.0;

/// The share of kHostMemoryBytesPerCorePerS that DeepSpeed's CPU-Adam reaches on a DGX host,
/// fitted on two validation cases: O001 and O002 (stas00/ml-engineering, when-to-upgrade-gpus
/// @744d01e1: Llama 3.1 8B, DeepSpeed 0.19.2 ZeRO-3 with CPU AdamW offload on 8 H200 and 8
/// B200, 8K tokens, where the host step is 65-80 % of the step). Each rank steps 1.0037e9
/// parameters at this model's 48 B of host traffic (offload_costs), 8 ranks at once: 385.4 GB
/// per step. The measured steps less the model's GPU side leave 1.920 s (H200) and 1.971 s
/// (B200) for the host step, mean 1.9455 s: 198 GB/s, 0.322 of the host's 614.4 GB/s.
/// X148-X151 (the same runs at 32K and 128K) are the check. The value it replaced, 0.199, came
/// from one 2021 measurement on a DGX-2 (DeepSpeed PR #735: 11.6 B parameters in 8.2 s).
inline constexpr double kCpuAdamHostMemoryShare = 8.0 * 1.0037e9 * 48.0 / 1.9455 / 614.4e9;

/// What one rank's offload costs per optimizer step (Units: bytes, seconds).
struct OffloadCosts {
  double d2h_bytes = 0.0;          ///< the gradient shard, at the gradient width, to the host
  double h2d_bytes = 0.0;          ///< the updated parameter shard, at the compute width, back
  double nvme_bytes = 0.0;         ///< optimizer offload to nvme: state + master weights read, and written back
  double host_optimizer_bytes = 0.0;  ///< host memory traffic of the optimizer step and its copies
  double d2h_s = 0.0;              ///< d2h_bytes over the rank's share of the host link
  double h2d_s = 0.0;              ///< h2d_bytes over the rank's share of the host link
  /// The gradient copy runs during backward (DeepSpeed ZeRO-3, FSDP CPUOffload): not in step_s().
  bool d2h_overlaps_backward = false;
  double nvme_s = 0.0;             ///< nvme_bytes at the rank's share of the NVMe read, then write bandwidth
  double host_optimizer_s = 0.0;   ///< host_optimizer_bytes over the rank's cores' DRAM share
  /// The exposed chain after backward: the gradient copy unless it overlaps backward, the
  /// host step, the NVMe traffic and the parameter copy back.
  double step_s() const { return (d2h_overlaps_backward ? 0.0 : d2h_s) + h2d_s + nvme_s + host_optimizer_s; }
};

/// The optimizer offload of `job`'s rank: its shard of the parameters (all of them when the
/// optimizer state is not sharded) has its gradient copied D2H at the gradient width and its
/// update copied H2D at the compute width over `host_link_bytes_per_s` (the rank's share of the
/// PCIe uplink, as the input copy's). The host memory traffic per parameter is
/// host_optimizer_bytes_per_parameter() (sharding.h: the optimizer's reads and writes and the
/// compute copy it writes) plus the gradient's DMA write into host memory, the compute copy's
/// DMA read and the conversion's read of the updated fp32 weight (PyTorch converts on the CPU
/// for a blocking copy: aten/src/ATen/native/cuda/Copy.cu, copy_kernel_cuda), plus, for ZeRO-3,
/// DeepSpeed's unscale pass over the fp32 gradient (stage3.py unscale_and_clip_grads: a `mul_`
/// every step, read and written), all at kHostMemoryBytesPerCorePerS x kCpuAdamHostMemoryShare on cpu_cores /
/// gpus_per_node cores. ZeRO-3 and FSDP copy each unit's gradient as soon as it is reduced
/// (DeepSpeed's stage-3 default overlap_comm; FSDP's post-backward hook), so the D2H overlaps
/// backward; ZeRO-1/2 copy after it. The step waits for every gradient (the global gradient
/// norm and the inf/nan check: Lian et al. 2026, SuperOffload, sec. "Speculation-then-
/// Validation"), and the next forward for every updated parameter (no delayed parameter
/// update). For nvme the state and fp32 weights (optimizer_state_bytes + 4 B per parameter)
/// are read and written at storage bandwidth / gpus_per_node. All zeros without an optimizer
/// offload. Throws std::invalid_argument for a host link of 0 B/s.
OffloadCosts offload_costs(const JobSpec& job, const ShardingLayout& layout, double host_link_bytes_per_s);

/// Applies `layout`'s offload to `plan` (filled by plan_step and plan_sharded_communication):
/// an optimizer offload replaces the GPU optimizer units by one unit of
/// offload_costs().step_s() that runs after the gradients are reduced: ZeRO-Offload's copy
/// (unless it overlapped backward), CPU step and copy back in sequence with the GPU waiting
/// (Ren et al. 2021 sec. 5.2 without the one-step delayed update, which DeepSpeed does not
/// run by default), reported as optimizer time with the GPU idle
/// (DispatchUnit::off_gpu). A parameter offload adds to each
/// unit's all-gathers the H2D copy of its shard (gathered bytes / shard_ranks over the host
/// link; for nvme first read at the storage's read bandwidth / gpus_per_node).
void apply_offload(const JobSpec& job, const ShardingLayout& layout, double host_link_bytes_per_s, StepPlan& plan);

}  // namespace gpuplan::models

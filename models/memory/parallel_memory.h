#pragma once
/// \file parallel_memory.h
/// Device memory that data parallelism adds to a GPU (pure). Bytes.
///
/// DDP: the reducer keeps its gradient buckets as a second copy of the gradients unless
/// gradient_as_bucket_view=True (PyTorch DistributedDataParallel docs: "gradient_as_bucket_view
/// ... the saved memory size will be equal to the total gradients size"); the default is False.
/// DataParallel: GPU 0 receives the other replicas' outputs (gathered before the loss) and
/// reduces their gradients through buffers of 10 MiB each (torch.cuda.comm.
/// reduce_add_coalesced, buffer_size=10485760).
/// FSDP / ZeRO (sharding.h for what each shards): the sharded states divided by the shard
/// group, plus what is gathered while a unit runs (below).

#include <vector>

#include "models/job_spec.h"
#include "models/memory/footprint.h"
#include "models/results.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

/// DataParallel's reduction buffer per other replica, bytes (torch.cuda.comm.reduce_add_coalesced).
inline constexpr double kDataParallelReduceBufferBytes = 10485760.0;

/// Elements of the model's output per sample: what its loss ops read (the logits). Ops whose
/// name ends in "loss" are the loss (models/workload/layer_ops.h cross_entropy_op).
double model_output_elements_per_sample(const Workload& workload);

/// The op table one GPU of `job` holds and runs: the model, or with tensor parallelism one
/// rank's shard of it (tensor_parallel_rank_workload, models/workload/tensor_parallel_shard.h);
/// with context parallelism the rank's s / c tokens of every sequence
/// (context_parallel_rank_workload, models/workload/context_parallel_shard.h);
/// with expert parallelism the busiest rank's share of the experts
/// (expert_parallel_rank_workload, models/workload/moe_expert_shard.h);
/// with pipeline parallelism a tied LM head holds its own copy of the embedding's weights
/// (it runs on the last stage, the embedding on the first; Megatron-LM does the same).
Workload rank_workload(const JobSpec& job);

/// Host bytes one node holds for the states `job` offloads to CPU memory
/// (parallelism.offload ... cpu), a lower bound: per GPU its shard of the trained parameters
/// times, for offload.optimizer cpu, the fp32 master weight, the optimizer state and the
/// fp32 gradient the host step reads (parameter_element_bytes, optimizer_state_bytes), and
/// for offload.parameters cpu the shard at the compute width with the frozen base's shard;
/// times gpus_per_node. DeepSpeed's estimate_zero3_model_states_mem_needs counts the same 16
/// (optimizer) and 18 (with parameters) bytes per AdamW parameter under AMP, before its 1.5
/// buffer factor. NVMe targets hold their states on the drive: 0 here. 0 without offload.
double offloaded_host_bytes_per_node(const JobSpec& job);

/// Gradient buckets ZeRO-1/2 keeps in flight: the one being reduced and the one being
/// filled, bucket_size each (DeepSpeed's double-buffered reduce bucket,
/// `overlap_comm`; an estimate: its default reduce_bucket_size is 5e8 elements, gpuplan uses
/// parallelism.bucket_size).
inline constexpr int kZeroBucketsInFlight = 2;

/// FSDP units gathered at once: the one computing and the one prefetched (forward_prefetch /
/// BACKWARD_PRE issue the next unit's all-gather when the current one starts; PyTorch FSDP
/// docs, limit_all_gathers keeps it at one ahead).
inline constexpr int kFsdpUnitsInFlight = 2;

/// Extra bytes on the busiest GPU of `job`: DDP's gradient buckets (fp32, one per parameter),
/// or DataParallel's gathered outputs and reduction buffers on GPU 0; 0 on one GPU, with
/// strategy none, or with one data-parallel rank. With tensor parallelism DDP buckets the
/// rank's shard. FSDP / ZeRO-3 (parameters sharded): the gathered units in flight at the
/// compute width (kFsdpUnitsInFlight x the largest unit; shard_grad_op keeps every unit
/// gathered from forward to backward: all parameters) plus the largest unit's unsharded
/// gradient before its reduce-scatter (with tensor parallelism the rank's shards of the
/// units); ZeRO-1/2: kZeroBucketsInFlight buckets; FSDP
/// no_shard: 0 (each unit's flat gradient is all-reduced in place).
double data_parallel_memory_bytes(const JobSpec& job);

/// The memory of one GPU of `job` from `one_gpu`, the unsharded footprint (footprint.h) of
/// its rank's op table (rank_workload: with tensor parallelism the rank's shard, which FSDP /
/// ZeRO then shard over the data-parallel ranks):
/// parameters, gradients and optimizer state divided by the shard group where the strategy
/// shards them (sharding.h); AMP's 16-bit weight copies give way to the gathered units where
/// the parameters are sharded; data_parallel_bytes from data_parallel_memory_bytes(). Under
/// zero_keeps_master_in_optimizer() the weights are the module at the compute width (sharded
/// at stage 3) and the optimizer state adds the fp32 master weights' shard. With an optimizer
/// offload the GPU keeps no optimizer state and its (sharded) parameters at the compute width
/// only; with a parameter offload no parameters at rest (the gathered units stay). Without
/// sharding only data_parallel_bytes changes.
MemoryBreakdown per_gpu_memory(const JobSpec& job, const MemoryBreakdown& one_gpu);

/// True for `strategy: zero` (stage 1 to 3) under a mixed precision (bf16_amp, fp16_amp, fp8):
/// DeepSpeed's mixed precision keeps the module's parameters at 16 bit and the fp32 master
/// weights in the optimizer, partitioned with the moments from stage 1 on
/// (Rajbhandari et al. 2020, ZeRO, SC20, sec. 3.1 and 5.1: 2 + 2 + K/N_d bytes per parameter with
/// K = 12 for mixed-precision Adam, the fp32 parameter included; DeepSpeed's ZeRO tutorial,
/// deepspeed.ai/tutorials/zero: "Stage 1: The optimizer states (e.g., for Adam optimizer,
/// 32-bit weights, and the first, and second moment estimates) are partitioned"). The
/// gradients keep the footprint's fp32 width (DeepSpeed's BF16_Optimizer accumulates fp32
/// gradients; stage 2 partitions them). No autocast copy: the module is cast, not autocast.
bool zero_keeps_master_in_optimizer(const JobSpec& job);

/// The `layers.N.` blocks of `workload` (N + 1 of the last), 0 without any.
int decoder_layers(const Workload& workload);

/// Pipeline parallelism: the model chunk (0 .. p x v - 1, in model order; p =
/// parallelism.pipeline_parallel, v = virtual_stages) of each op of a transformer decoder's op
/// table (same order as workload.ops). The `layers.N.` blocks, with the embedding before them
/// and the loss after them where parallelism counts them as layers
/// (ParallelismSpec::pipeline_split_layers), are cut into p x v runs of equal length; the ops
/// before the first block (the embedding) go with chunk 0, those after the last (final norm,
/// LM head, loss) with the last chunk. Throws std::invalid_argument when those layers are not
/// a multiple of the chunks (config/ refuses that first).
std::vector<int> pipeline_chunk_of_ops(const Workload& workload, const ParallelismSpec& parallelism);

/// The chunks stage `stage` runs with `p` stages of `v` chunks each: chunk c runs on stage
/// c mod p (Megatron-LM's interleaved assignment; v = 1: chunk `stage`).
bool pipeline_stage_runs_chunk(int chunk, int stage, int p);

/// The ops of `workload` (one tensor-parallel rank's op table) that pipeline stage `stage`
/// of `parallelism` holds and runs, in model order, with `parameters` and
/// `frozen_parameters` summed over them. The workload itself with one stage.
Workload pipeline_stage_workload(const Workload& workload, const ParallelismSpec& parallelism, int stage);

/// Micro-batches' worth of its layers' activations that stage `stage` holds at its peak
/// under `parallelism`'s schedule with `micro_batches` micro-batches: GPipe m; 1F1B
/// min(p - s, m) (Narayanan et al. 2021, sec. 2.2.1); interleaved 1F1B the chunks of its
/// warm-up plus one, min((p - s - 1)·2 + (v - 1)·p + 1, m·v), over v, which is
/// p·(1 + (p - 1)/(p·v)) on the first stage as Narayanan et al. 2021 sec. 2.2.2 and
/// Korthikanti et al. 2022 sec. 4.2.3 give. The schedule simulation (models/step/
/// pipeline_schedule.h, PipelineResult::peak_in_flight) reproduces these counts.
double pipeline_activation_micro_batches(const ParallelismSpec& parallelism, int micro_batches, int stage);

/// Peak memory of the busiest GPU of `job`: per_gpu_memory of its rank's op table; with
/// pipeline parallelism the worst stage's, each stage holding the weights, gradients and
/// optimizer state of its own layers (DDP's buckets of its own parameters) and
/// pipeline_activation_micro_batches() micro-batches of its activations (the allocator's
/// slack with them; with checkpointing the block being recomputed is one micro-batch's); with
/// Megatron's distributed optimizer the weights, gradients and optimizer state of
/// distributed_optimizer.h. `stage` (if not null) gets the worst stage's index (0 without a
/// pipeline).
MemoryBreakdown rank_memory(const JobSpec& job, const MemoryModelParams& params, int* stage = nullptr);

}  // namespace gpuplan::models

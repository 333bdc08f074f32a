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

#include "models/job_spec.h"
#include "models/results.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

/// DataParallel's reduction buffer per other replica, bytes (torch.cuda.comm.reduce_add_coalesced).
inline constexpr double kDataParallelReduceBufferBytes = 10485760.0;

/// Elements of the model's output per sample: what its loss ops read (the logits). Ops whose
/// name ends in "loss" are the loss (models/workload/layer_ops.h cross_entropy_op).
double model_output_elements_per_sample(const Workload& workload);

/// The op table one GPU of `job` holds and runs: the model, or with tensor parallelism one
/// rank's shard of it (tensor_parallel_rank_workload, models/workload/tensor_parallel_shard.h).
Workload rank_workload(const JobSpec& job);

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
/// gradient before its reduce-scatter; ZeRO-1/2: kZeroBucketsInFlight buckets; FSDP
/// no_shard: 0 (each unit's flat gradient is all-reduced in place).
double data_parallel_memory_bytes(const JobSpec& job);

/// The memory of one GPU of `job` from `one_gpu`, the unsharded footprint (footprint.h):
/// parameters, gradients and optimizer state divided by the shard group where the strategy
/// shards them (sharding.h); AMP's 16-bit weight copies give way to the gathered units where
/// the parameters are sharded; data_parallel_bytes from data_parallel_memory_bytes(). Without
/// sharding only data_parallel_bytes changes.
MemoryBreakdown per_gpu_memory(const JobSpec& job, const MemoryBreakdown& one_gpu);

}  // namespace gpuplan::models

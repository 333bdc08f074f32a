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

#include "models/job_spec.h"
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

/// Extra bytes on the busiest GPU of `job`: DDP's gradient buckets (fp32, one per parameter),
/// or DataParallel's gathered outputs and reduction buffers on GPU 0; 0 on one GPU, with
/// strategy none, or with one data-parallel rank. With tensor parallelism DDP buckets the
/// rank's shard.
double data_parallel_memory_bytes(const JobSpec& job);

}  // namespace gpuplan::models

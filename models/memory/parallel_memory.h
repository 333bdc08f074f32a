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

namespace gpuplan::models {

/// DataParallel's reduction buffer per other replica, bytes (torch.cuda.comm.reduce_add_coalesced).
inline constexpr double kDataParallelReduceBufferBytes = 10485760.0;

/// Elements of the model's output per sample: what its loss ops read (the logits). Ops whose
/// name ends in "loss" are the loss (models/workload/layer_ops.h cross_entropy_op).
double model_output_elements_per_sample(const Workload& workload);

/// Extra bytes on the busiest GPU of `job`: DDP's gradient buckets (fp32, one per parameter),
/// or DataParallel's gathered outputs and reduction buffers on GPU 0; 0 on one GPU or with
/// strategy none.
double data_parallel_memory_bytes(const JobSpec& job);

}  // namespace gpuplan::models

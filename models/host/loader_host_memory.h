#pragma once
/// \file loader_host_memory.h
/// Host memory the input pipeline of one node holds at least: the decoded batches in flight.

#include "models/job_spec.h"

namespace gpuplan::models {

/// The data loaders' batches in host memory on one node, a lower bound of what the job needs.
/// Every GPU's loader (DDP: one per GPU; DataParallel: one loader of gpus_per_node x
/// batch_size samples, the same total) holds max(1, num_workers x prefetch_factor) decoded
/// batches in flight (torch.utils.data.DataLoader: each worker keeps prefetch_factor batches
/// in shared memory; the main process loads one itself with num_workers 0), plus the batch the
/// training loop is using, plus with pin_memory its page-locked copy (the pin-memory thread
/// copies each batch once). A batch is batch_size x WorkloadSpec::input_bytes_per_sample.
/// Synthetic data needs none. Separately, the page cache is a fixed share of host memory
/// (models/storage/storage_model.h page_cache_bytes); the CUDA context, Python and the
/// dataset's index are not counted here.
struct LoaderHostMemory {
  int batches_per_gpu = 0;     ///< batches held per GPU (in flight + in use + pinned copy)
  double batch_bytes = 0.0;    ///< one GPU's batch, B
  double bytes = 0.0;          ///< per node: gpus_per_node x batches_per_gpu x batch_bytes, B
};
LoaderHostMemory loader_host_memory(const JobSpec& job);

}  // namespace gpuplan::models

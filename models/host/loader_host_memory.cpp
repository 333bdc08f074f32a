#include "models/host/loader_host_memory.h"

#include <algorithm>

namespace gpuplan::models {

LoaderHostMemory loader_host_memory(const JobSpec& job) {
  LoaderHostMemory m;
  if (job.dataset.synthetic) return m;
  const DataLoaderSpec& dl = job.data_loader;
  m.batches_per_gpu = std::max(1, dl.num_workers * dl.prefetch_factor) + 1 + (dl.pin_memory ? 1 : 0);
  m.batch_bytes = static_cast<double>(job.training.batch_size) * job.workload.input_bytes_per_sample;
  m.bytes = static_cast<double>(job.hardware.gpus_per_node) * m.batches_per_gpu * m.batch_bytes;
  return m;
}

}  // namespace gpuplan::models

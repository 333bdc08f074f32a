#include "models/storage/storage_model.h"

#include <cmath>
#include <stdexcept>

namespace gpuplan::models {

BatchReads batch_reads(const StorageSpec& storage, const DatasetSpec& dataset, int samples) {
  if (samples < 1) {
    throw std::invalid_argument("batch_reads: a batch needs at least one sample");
  }
  if (!(storage.read_bytes_per_s > 0.0)) {
    throw std::invalid_argument("storage '" + storage.name + "' has no read bandwidth");
  }
  BatchReads r;
  r.bytes = dataset.sample_bytes * samples;
  if (dataset.layout == DatasetLayout::kFiles) {
    r.requests = samples;
    r.bandwidth_bytes_per_s =
        storage.random_read_bytes_per_s > 0.0 ? storage.random_read_bytes_per_s : storage.read_bytes_per_s;
  } else {
    r.requests = std::max(1, static_cast<int>(std::ceil(r.bytes / kShardReadBytes)));
    r.bandwidth_bytes_per_s = storage.read_bytes_per_s;
  }
  r.latency_s = r.requests * storage.latency_s;
  return r;
}

double page_cache_bytes(double host_memory_bytes) { return kPageCacheShare * std::max(0.0, host_memory_bytes); }

bool dataset_fits_page_cache(const DatasetSpec& dataset, double host_memory_bytes) {
  return dataset.samples * dataset.sample_bytes <= page_cache_bytes(host_memory_bytes);
}

}  // namespace gpuplan::models

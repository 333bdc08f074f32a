#pragma once
/// \file storage_model.h
/// How the data loader's reads use a storage class (catalogs/storage.yaml), pure (no sim/):
/// per-request latency held in one of `queue_depth` device slots, then the bytes over the
/// device's shared read bandwidth, and the OS page cache. The step graph
/// (models/step/step_graph_loader.cpp) plays these costs as activities: a slot chain in
/// arrival order for the latency, then a flow on the device's bandwidth. Units: seconds,
/// bytes, B/s.

#include "models/job_spec.h"

namespace gpuplan::models {

/// Bytes of one large sequential read from a shard (`layout: shards`): WebDataset and
/// TFRecord readers stream shards with multi-MiB reads; 64 MiB is an assumption, not a
/// measurement; only the request count (latency paid once per request) depends on it.
inline constexpr double kShardReadBytes = 64.0 * 1024 * 1024;

/// Share of host memory the page cache may hold for the dataset: the OS, the training process
/// and its workers keep the rest. 0.75 is an assumption (Linux keeps the page cache in the
/// memory nobody else uses; a training process with its workers typically needs 10-25 %).
inline constexpr double kPageCacheShare = 0.75;

/// The reads of one batch of `samples` samples from one reader (a worker or the main
/// process), which issues them one after another.
struct BatchReads {
  int requests = 0;             ///< read requests (files: one per sample; shards: bytes / kShardReadBytes)
  double latency_s = 0.0;       ///< latency of all requests together: requests x storage latency
  double bytes = 0.0;           ///< bytes read
  double bandwidth_bytes_per_s = 0.0;  ///< device bandwidth the bytes share: random (files) or sequential (shards)
};

/// The reads of one batch. `files`: one request per sample at the random-read bandwidth
/// (sequential when the class gives none); `shards`: ceil(bytes / kShardReadBytes) requests
/// at the sequential bandwidth. Throws std::invalid_argument when the storage has no read
/// bandwidth or the batch is empty.
BatchReads batch_reads(const StorageSpec& storage, const DatasetSpec& dataset, int samples);

/// Bytes of page cache available to the dataset on a node with `host_memory_bytes`:
/// kPageCacheShare x host memory.
double page_cache_bytes(double host_memory_bytes);

/// True when the whole training set (samples x sample_bytes) fits in the page cache, so
/// epochs after the first read from RAM.
bool dataset_fits_page_cache(const DatasetSpec& dataset, double host_memory_bytes);

}  // namespace gpuplan::models

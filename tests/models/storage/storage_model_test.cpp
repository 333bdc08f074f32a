#include "models/storage/storage_model.h"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace gpuplan::models;

namespace {
StorageSpec hdd() {
  StorageSpec s;
  s.name = "hdd";
  s.read_bytes_per_s = 270e6;
  s.random_read_bytes_per_s = 20e6;
  s.latency_s = 8.5e-3;
  s.queue_depth = 1;
  return s;
}
DatasetSpec imagenet(DatasetLayout layout) {
  DatasetSpec d;
  d.samples = 1281167;
  d.sample_bytes = 110.0 * 1024;
  d.layout = layout;
  return d;
}
}  // namespace

TEST_SUITE("models.storage") {
  TEST_CASE("files: one request per sample at the random-read bandwidth") {
    const BatchReads r = batch_reads(hdd(), imagenet(DatasetLayout::kFiles), 32);
    CHECK(r.requests == 32);
    CHECK(r.latency_s == doctest::Approx(32 * 8.5e-3));  // 272 ms of seeks
    CHECK(r.bytes == doctest::Approx(32 * 112640.0));
    CHECK(r.bandwidth_bytes_per_s == doctest::Approx(20e6));
  }

  TEST_CASE("shards: large sequential reads, the latency paid per 64 MiB") {
    const BatchReads r = batch_reads(hdd(), imagenet(DatasetLayout::kShards), 32);
    // 32 x 110 KiB = 3.4 MiB < 64 MiB: one request.
    CHECK(r.requests == 1);
    CHECK(r.latency_s == doctest::Approx(8.5e-3));
    CHECK(r.bandwidth_bytes_per_s == doctest::Approx(270e6));
    StorageSpec none = hdd();
    none.read_bytes_per_s = 0.0;
    CHECK_THROWS_AS(batch_reads(none, imagenet(DatasetLayout::kFiles), 32), std::invalid_argument);
    CHECK_THROWS_AS(batch_reads(hdd(), imagenet(DatasetLayout::kFiles), 0), std::invalid_argument);
  }

  TEST_CASE("page cache: 75 % of host memory holds the dataset or not") {
    // ImageNet: 1,281,167 x 112,640 B = 144.3 GB. 64 GiB x 0.75 = 51.5 GB: no; 1 TiB: yes.
    CHECK_FALSE(dataset_fits_page_cache(imagenet(DatasetLayout::kFiles), 64.0 * (1ULL << 30)));
    CHECK(dataset_fits_page_cache(imagenet(DatasetLayout::kFiles), 1024.0 * (1ULL << 30)));
    CHECK(page_cache_bytes(100.0) == doctest::Approx(75.0));
  }
}

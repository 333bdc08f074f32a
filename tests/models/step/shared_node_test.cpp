// One rank's share of its node, and the parallel memory of DDP and DataParallel, by hand.
#include <doctest/doctest.h>

#include "../test_gpus.h"
#include "../workload/catalog_models.h"
#include "models/interconnect/interconnect_table.h"
#include "models/memory/parallel_memory.h"
#include "models/step/step_plan.h"

using namespace gpuplan::models;

namespace {

JobSpec resnet_on_node(int gpus, ParallelStrategy strategy) {
  JobSpec job;
  const auto m = testing::catalog_model("resnet50");
  job.workload = testing::build(m.family, m.values);
  job.dataset.samples = 1281167;
  job.dataset.sample_bytes = 110.0 * 1024;
  job.dataset.decode_time_s = 2e-3;
  job.training.batch_size = 256;
  job.data_loader.num_workers = 4;
  job.data_loader.pin_memory = true;
  job.hardware.gpu = testing::ampere_like();
  job.hardware.gpus_per_node = gpus;
  job.hardware.cpu_cores = 64;
  job.hardware.storage.name = "inline";
  job.hardware.storage.read_bytes_per_s = 8e9;
  job.hardware.storage.queue_depth = 64;
  job.hardware.gpus_per_pcie_switch = gpus > 1 ? 2 : 1;
  job.hardware.topology.gpus_per_node = gpus;
  if (gpus > 1) job.hardware.topology.intra_node = intra_node_link("nvlink3_nvswitch");
  job.parallelism.strategy = strategy;
  return job;
}

}  // namespace

TEST_SUITE("models.step.shared_node") {
  TEST_CASE("DDP on 8 GPUs: each rank's loader gets 1/8 of the cores, storage and queue depth; two GPUs share an uplink") {
    const StepPlan one = plan_step(resnet_on_node(1, ParallelStrategy::kNone), GpuEfficiency::defaults());
    const StepPlan eight = plan_step(resnet_on_node(8, ParallelStrategy::kDdp), GpuEfficiency::defaults());
    CHECK(one.loader.cpu_cores == 64);
    CHECK(eight.loader.cpu_cores == 8);
    CHECK(eight.loader.storage_bytes_per_s == doctest::Approx(one.loader.storage_bytes_per_s / 8));
    CHECK(one.loader.storage_queue_depth == 64);
    CHECK(eight.loader.storage_queue_depth == 8);
    CHECK(eight.h2d_bytes_per_s == doctest::Approx(one.h2d_bytes_per_s / 2));
    CHECK(eight.h2d_bytes == doctest::Approx(one.h2d_bytes));  // the per-GPU batch
    // ResNet-50's 25.56 M fp32 gradients (102.2 MB) in DDP buckets: 1 MiB first, then 25 MiB.
    REQUIRE(eight.comm.buckets.size() >= 4);
    double bytes = 0.0;
    for (const GradientBucket& b : eight.comm.buckets) bytes += b.bytes;
    CHECK(bytes == doctest::Approx(25557032.0 * 4));
    CHECK(eight.comm.buckets.front().bytes >= kDdpFirstBucketBytes);
    CHECK(eight.comm.buckets.front().bytes < 25.0 * 1024 * 1024);
    CHECK(one.comm.buckets.empty());
  }

  TEST_CASE("DataParallel on 4 GPUs: one loader of 4 x the batch with every core, the whole batch to GPU 0") {
    const StepPlan one = plan_step(resnet_on_node(1, ParallelStrategy::kNone), GpuEfficiency::defaults());
    const StepPlan dp = plan_step(resnet_on_node(4, ParallelStrategy::kDataParallel), GpuEfficiency::defaults());
    CHECK(dp.loader.cpu_cores == 64);
    CHECK(dp.loader.samples_per_batch == 4 * 256);
    CHECK(dp.loader.storage_bytes_per_s == doctest::Approx(one.loader.storage_bytes_per_s));
    CHECK(dp.h2d_bytes == doctest::Approx(4 * one.h2d_bytes));
    CHECK(dp.h2d_bytes_per_s == doctest::Approx(one.h2d_bytes_per_s));  // GPU 0 alone copies
    CHECK(dp.forward.size() == one.forward.size() + 3);  // replicate, scatter, gather
    CHECK(dp.backward.size() == one.backward.size() + 1);  // reduce into GPU 0
    CHECK(dp.comm.strategy == ParallelStrategy::kDataParallel);
  }

  TEST_CASE("parallel memory: DDP keeps a second fp32 copy of the gradients; DataParallel gathers outputs on GPU 0") {
    JobSpec ddp = resnet_on_node(8, ParallelStrategy::kDdp);
    CHECK(data_parallel_memory_bytes(ddp) == doctest::Approx(25557032.0 * 4));
    JobSpec dp = resnet_on_node(4, ParallelStrategy::kDataParallel);
    // The loss reads 1000 logits per sample: 3 other replicas x 256 x 1000 x 4 B, plus a
    // 10 MiB reduction buffer per other replica.
    CHECK(model_output_elements_per_sample(dp.workload) == doctest::Approx(1000.0));
    CHECK(data_parallel_memory_bytes(dp) == doctest::Approx(3 * (256 * 1000 * 4.0 + 10485760.0)));
    CHECK(data_parallel_memory_bytes(resnet_on_node(1, ParallelStrategy::kNone)) == 0.0);
  }
}

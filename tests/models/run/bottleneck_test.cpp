// The communication bottleneck and its suggestions, by hand.
#include "models/run/bottleneck.h"

#include <doctest/doctest.h>

#include "../test_gpus.h"
#include "models/interconnect/interconnect_table.h"

using namespace gpuplan::models;

namespace {

JobSpec ddp_job(const std::string& link, int nodes, int accumulation) {
  JobSpec job;
  job.hardware.gpu = testing::ampere_like();
  job.hardware.gpus_per_node = 8;
  job.hardware.nodes = nodes;
  job.hardware.topology.gpus_per_node = 8;
  job.hardware.topology.nodes = nodes;
  job.hardware.topology.intra_node = intra_node_link(link);
  job.parallelism.strategy = ParallelStrategy::kDdp;
  job.training.gradient_accumulation = accumulation;
  job.training.precision = Precision::kBf16Amp;
  job.training.framework_overhead = FrameworkOverhead::kCompiled;
  return job;
}

StepBreakdown step(double compute_s, double comm_s) {
  StepBreakdown s;
  s.gpu_compute_s = compute_s;
  s.communication_exposed_s = comm_s;
  s.step_time_s = compute_s + comm_s;
  return s;
}

}  // namespace

TEST_SUITE("models.run.bottleneck") {
  TEST_CASE("exposed communication of a quarter of the step is the bottleneck, even under compute") {
    const StepPlan plan;
    const JobSpec job = ddp_job("nvlink3_nvswitch", 2, 1);
    // 120 ms compute + 50 ms exposed: 29 % of the step.
    const Bottleneck b = find_bottleneck(job, plan, step(0.120, 0.050), {});
    CHECK(b.name == "communication");
    CHECK(b.suggestion == "training.gradient_accumulation: 4 (DDP all-reduces once per optimizer step, under no_sync)");
    // 120 ms + 30 ms: 20 %, below the share: compute stays the bottleneck.
    CHECK(find_bottleneck(job, plan, step(0.120, 0.030), {}).name == "gpu_compute");
  }

  TEST_CASE("suggestions follow what is left to change") {
    const StepPlan plan;
    const StepBreakdown s = step(0.1, 0.2);
    CHECK(find_bottleneck(ddp_job("nvlink3_nvswitch", 2, 8), plan, s, {}).suggestion ==
          "a faster network between nodes (InfiniBand/EFA class), or fewer nodes");
    CHECK(find_bottleneck(ddp_job("pcie4_host_bridge", 1, 8), plan, s, {}).suggestion ==
          "an instance with NVLink between its GPUs, or fewer GPUs");
    CHECK(find_bottleneck(ddp_job("nvlink3_nvswitch", 1, 8), plan, s, {}).suggestion ==
          "fewer GPUs, or a larger training.batch_size per GPU");
    JobSpec dp = ddp_job("nvlink3_nvswitch", 1, 1);
    dp.parallelism.strategy = ParallelStrategy::kDataParallel;
    CHECK(find_bottleneck(dp, plan, s, {}).suggestion ==
          "parallelism.strategy: ddp (one process per GPU: no replication, scatter and gather every step)");
  }
}

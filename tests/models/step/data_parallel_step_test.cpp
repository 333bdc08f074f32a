// DDP buckets and DataParallel on the step simulation: timelines worked out by hand.
#include <doctest/doctest.h>

#include <stdexcept>

#include "models/collective/builtin.h"
#include "models/collective/fastest_collective.h"
#include "models/interconnect/interconnect_table.h"
#include "dispatch_unit.h"
#include "models/step/comm_plan.h"
#include "models/step/data_parallel_plan.h"
#include "models/step/step_simulation.h"

using namespace gpuplan::models;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

/// A unit without host cost.
DispatchUnit unit(const std::string& label, double gpu_s, double grad_bytes = 0.0) {
  return testing::unit(label, 0.0, gpu_s, grad_bytes);
}

// No host cost: forward 5 ms; backward four units of 2.5 ms; buckets complete after
// backward units 1 and 3, each all-reduce 3 ms; optimizer 2 ms.
StepPlan ddp_plan(double slowdown) {
  StepPlan p;
  p.forward = {unit("fwd", 5e-3)};
  p.backward = {unit("bwd0", 2.5e-3), unit("bwd1", 2.5e-3), unit("bwd2", 2.5e-3), unit("bwd3", 2.5e-3)};
  p.optimizer = {unit("optimizer.step", 2e-3)};
  p.micro_batch = 32;
  p.loader.synthetic = true;
  p.comm.strategy = ParallelStrategy::kDdp;
  p.comm.ranks = 8;
  p.comm.buckets = {{1, 25 * kMiB, 3e-3}, {3, 25 * kMiB, 3e-3}};
  p.comm.overlap_compute_slowdown = slowdown;
  return p;
}

Topology nvswitch_node(int gpus) {
  Topology t;
  t.gpus_per_node = gpus;
  t.intra_node = intra_node_link("nvlink3_nvswitch");
  return t;
}

}  // namespace

TEST_SUITE("models.step.data_parallel") {
  TEST_CASE("DDP: the first bucket's all-reduce hides behind backward, the last one is exposed") {
    const StepStats s = simulate_steps(ddp_plan(0.0));
    // GPU: fwd 0-5, bwd0 5-7.5, bwd1 7.5-10 -> bucket 0 on NCCL 10-13 (under bwd2, bwd3);
    // bwd3 ends at 15 -> bucket 1 runs 15-18 with the GPU idle; optimizer waits, runs 18-20.
    CHECK(s.breakdown.step_time_s == doctest::Approx(20e-3));
    CHECK(s.breakdown.gpu_compute_s == doctest::Approx(15e-3));
    CHECK(s.breakdown.optimizer_s == doctest::Approx(2e-3));
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(3e-3));
    CHECK(s.breakdown.host_dispatch_wait_s == doctest::Approx(0.0));
  }

  TEST_CASE("DDP: compute beside an all-reduce runs slower by the overlap slowdown") {
    const StepStats s = simulate_steps(ddp_plan(0.1));
    // Bucket 0's all-reduce (10-13 ms) takes 0.1 / 1.1 of the SMs, so bwd2 and bwd3 (5 ms of
    // work left at 10 ms) run at 1 / 1.1 meanwhile: 3 / 1.1 = 2.7273 ms done by 13 ms, the
    // remaining 2.2727 ms alone: backward ends at 15.2727 ms. Bucket 1 runs 15.2727-18.2727
    // with the GPU idle, the optimizer 18.2727-20.2727. Exposed communication: bucket 1's
    // 3 ms plus the stretch 3 ms x 0.1 / 1.1 = 0.2727 ms.
    CHECK(s.breakdown.step_time_s == doctest::Approx(20e-3 + 3e-3 * 0.1 / 1.1));
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(3e-3 + 3e-3 * 0.1 / 1.1));
    CHECK(s.breakdown.gpu_compute_s == doctest::Approx(15e-3));
  }

  TEST_CASE("DDP with gradient accumulation all-reduces on the last micro-step only (no_sync)") {
    StepPlan p = ddp_plan(0.0);
    p.gradient_accumulation = 4;
    const StepStats s = simulate_steps(p);
    // three micro-steps of fwd + bwd (15 ms each) without communication, then 20 ms.
    CHECK(s.breakdown.step_time_s == doctest::Approx(3 * 15e-3 + 20e-3));
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(3e-3));
  }

  TEST_CASE("DDP with a pinned copy in flight: the optimizer's hold does not hold back backward") {
    // The host dispatches the whole step while the batch's pinned H2D (1 ms) is in flight;
    // the kernels behind the copy must still run, then the optimizer behind the all-reduces.
    StepPlan p = ddp_plan(0.0);
    p.loader.synthetic = false;
    p.loader.workers = 2;
    p.loader.prefetch_batches = 4;
    p.loader.batch_load_s = 1e-3;
    p.loader.batch_cpu_s = 1e-3;
    p.pinned = true;
    p.h2d_bytes = 1e9;
    p.h2d_bytes_per_s = 1e12;  // 1 ms
    const StepStats s = simulate_steps(p);
    // Each step: copy 1 ms (GPU idle), then the 20 ms DDP timeline of the synthetic case.
    CHECK(s.breakdown.step_time_s == doctest::Approx(21e-3).epsilon(0.01));
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(3e-3).epsilon(0.01));
  }

  TEST_CASE("fp16 GradScaler: the host dispatches the optimizer only after backward and the all-reduces") {
    StepPlan p = ddp_plan(0.0);
    p.optimizer[0].dispatch_s = 1e-3;
    const StepStats overlapped = simulate_steps(p);
    // Without the sync the optimizer is dispatched at 0 ms and waits on the GPU: 20 ms.
    CHECK(overlapped.breakdown.step_time_s == doctest::Approx(20e-3));
    p.host_sync_before_optimizer = true;
    const StepStats synced = simulate_steps(p);
    // With it the host waits until the last all-reduce ends (18 ms), dispatches 1 ms, then the
    // optimizer runs 19-21 ms.
    CHECK(synced.breakdown.step_time_s == doctest::Approx(21e-3));
    CHECK(synced.breakdown.host_dispatch_wait_s == doctest::Approx(1e-3));
    CHECK(synced.breakdown.communication_exposed_s == doctest::Approx(3e-3));
  }

  TEST_CASE("DDP: all-reduces that finish during backward cost nothing") {
    StepPlan p = ddp_plan(0.0);
    p.comm.buckets = {{0, kMiB, 1e-3}, {1, 25 * kMiB, 1e-3}};
    const StepStats s = simulate_steps(p);
    CHECK(s.breakdown.step_time_s == doctest::Approx(17e-3));
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(0.0));
  }

  TEST_CASE("DDP buckets: 1 MiB first, then bucket_size, closed by the tensor that crosses the cap") {
    std::vector<DispatchUnit> bwd = {unit("a", 1e-3, 0.5 * kMiB), unit("b", 1e-3, 0.6 * kMiB),
                                     unit("c", 1e-3, 10 * kMiB),  unit("d", 1e-3, 20 * kMiB),
                                     unit("e", 1e-3, 0.0),        unit("f", 1e-3, 5 * kMiB),
                                     unit("g", 1e-3, 0.0)};
    const Topology t = nvswitch_node(8);
    const CommPlan c = plan_ddp_communication(bwd, 25 * kMiB, t);
    REQUIRE(c.buckets.size() == 3);
    CHECK(c.buckets[0].ready_after_unit == 1);
    CHECK(c.buckets[0].bytes == doctest::Approx(1.1 * kMiB));
    CHECK(c.buckets[1].ready_after_unit == 3);
    CHECK(c.buckets[1].bytes == doctest::Approx(30 * kMiB));
    CHECK(c.buckets[2].ready_after_unit == 5);
    CHECK(c.buckets[2].bytes == doctest::Approx(5 * kMiB));
    const CollectiveChoice big =
        fastest_collective(builtin_collective_registry(), Collective::kAllReduce, 30 * kMiB, t);
    CHECK(c.buckets[1].all_reduce_s == doctest::Approx(big.time_s));
    CHECK(c.algorithm == big.algorithm + "/" + protocol_name(big.protocol));
    CHECK(c.overlap_compute_slowdown == doctest::Approx(kCommOverlapComputeSlowdown));
    CHECK(c.all_reduce_s() == doctest::Approx(c.buckets[0].all_reduce_s + c.buckets[1].all_reduce_s +
                                              c.buckets[2].all_reduce_s));
  }

  TEST_CASE("DDP buckets: bad input") {
    const std::vector<DispatchUnit> bwd = {unit("a", 1e-3, kMiB)};
    CHECK_THROWS_AS(plan_ddp_communication(bwd, 0.0, nvswitch_node(8)), std::invalid_argument);
    CHECK_THROWS_AS(plan_ddp_communication(bwd, kMiB, nvswitch_node(1)), std::invalid_argument);
  }

  TEST_CASE("DataParallel on 2 GPUs over PCIe 4 through the host bridge, by hand") {
    JobSpec job;
    job.parallelism.strategy = ParallelStrategy::kDataParallel;
    job.hardware.gpus_per_node = 2;
    job.hardware.topology.gpus_per_node = 2;
    job.hardware.topology.intra_node = intra_node_link("pcie4_host_bridge");
    job.workload.parameters = 100e6;
    job.workload.input_bytes_per_sample = 1e6;
    job.training.batch_size = 8;
    const double link = effective_bytes_per_s(job.hardware.topology.intra_node, Protocol::kSimple);
    CHECK(link == doctest::Approx(16 * 16e9 * 128.0 / 130.0 / 8 * 0.60));  // x16 Gen4, 128b/130b
    const double hop = job.hardware.topology.intra_node.simple.hop_latency_s;
    const DataParallelCosts c = data_parallel_costs(job, 200, 4000.0, 1.6e12);
    CHECK(c.dispatch_ranks == 2);
    CHECK(c.replicate_s == doctest::Approx(hop + 400e6 / link));
    CHECK(c.replicate_host_s == doctest::Approx(10e-6 * 200 * 2));
    CHECK(c.scatter_s == doctest::Approx(hop + 8e6 / link));
    CHECK(c.gather_s == doctest::Approx(hop + 8 * 4000.0 / link));
    CHECK(c.reduce_grads_s == doctest::Approx(hop + 400e6 / link + 3 * 400e6 / 1.6e12));

    StepPlan p;
    p.forward = {unit("fwd", 5e-3)};
    p.forward[0].dispatch_s = 1e-3;
    p.backward = {unit("bwd", 10e-3)};
    p.optimizer = {unit("optimizer.step", 2e-3)};
    p.loader.synthetic = true;
    apply_data_parallel(c, p);
    REQUIRE(p.forward.size() == 4);
    CHECK(p.forward[0].label == "data_parallel.replicate");
    CHECK(c.dispatch_factor == doctest::Approx(1.5));
    CHECK(p.forward[2].dispatch_s == doctest::Approx(1.5e-3));  // one host, two replicas, half under the GIL
    CHECK(p.backward.back().label == "data_parallel.reduce_grads");
    const StepStats s = simulate_steps(p);
    const double transfers = c.replicate_s + c.scatter_s + c.gather_s + c.reduce_grads_s;
    // host: replicate 4 ms, then fwd dispatch 1.5 ms; the GPU waits 4 ms for replicate()'s
    // host work, then runs everything back to back.
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(transfers));
    CHECK(s.breakdown.step_time_s == doctest::Approx(c.replicate_host_s + transfers + 17e-3).epsilon(1e-3));
  }

  TEST_CASE("DataParallel needs one node of two GPUs or more") {
    JobSpec job;
    job.parallelism.strategy = ParallelStrategy::kDdp;
    job.hardware.gpus_per_node = 2;
    CHECK_THROWS_AS(data_parallel_costs(job, 10, 0.0, 1e12), std::invalid_argument);
  }
}

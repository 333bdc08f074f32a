// The step graph (StepGraph) and its observer (StepMeasurement): steps worked out by hand.
#include <doctest/doctest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "dispatch_unit.h"
#include "models/step/step_graph.h"
#include "models/step/step_measurement.h"
#include "models/step/step_simulation.h"
#include "sim/sim_time.h"

using namespace gpuplan::models;
using gpuplan::sim::ActivityFinished;
using testing::unit;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// Two ops, synthetic data. Host: dispatch 1 ms per unit. GPU: f0 2 ms, f1 2 ms, backward
// b1 4 ms then b0 4 ms, optimizer 1 ms. One DDP bucket, all-reduce 3 ms, filled after
// backward unit `bucket_after` (0 = b1's gradients, early; 1 = b0, the last).
StepPlan two_op_plan(std::size_t bucket_after) {
  StepPlan p;
  p.forward = {unit("f0", 1e-3, 2e-3), unit("f1", 1e-3, 2e-3)};
  p.backward = {unit("b1", 1e-3, 4e-3), unit("b0", 1e-3, 4e-3)};
  p.optimizer = {unit("optimizer.step", 1e-3, 1e-3)};
  p.micro_batch = 8;
  p.loader.synthetic = true;
  p.comm.strategy = ParallelStrategy::kDdp;
  p.comm.ranks = 2;
  p.comm.buckets = {{bucket_after, 10 * kMiB, 3e-3}};
  return p;
}

/// Counts the finished activities of each kind, and the micro-steps of the all-reduces.
struct Counter {
  std::map<StepActivity, int> by_kind;
  std::vector<long> all_reduce_micro_steps;
  explicit Counter(StepGraph& g) {
    g.graph().activity_finished().subscribe([this](const ActivityFinished& e) {
      ++by_kind[static_cast<StepActivity>(e.kind)];
      if (static_cast<StepActivity>(e.kind) == StepActivity::kAllReduce) {
        all_reduce_micro_steps.push_back(static_cast<long>(e.tag & kTagIndexMask));
      }
    });
  }
};

}  // namespace

TEST_SUITE("models.step.step_graph") {
  TEST_CASE("a phase's middle dispatches are coalesced: kernels begin as the dispatch chain would start them") {
    // Synthetic data, one GPU. Forward dispatches 1, 1, 1, 5, 1, 1 ms (host ends them at 1, 2,
    // 3, 8, 9, 10 ms), kernels 2, 2, 2, 1, 1, 4 ms; backward dispatches 1 ms each (11, 12, 13),
    // kernels 1 ms each. Kernel k begins at max(previous kernel's end, its dispatch's end):
    // f0 1-3, f1 3-5, f2 5-7, f3 8-9 (the host limits), f4 9-10 (both at 9), f5 10-14, b0
    // 14-15, b1 15-16, b2 16-17. Step 17 ms, 15 of it kernels, 2 of it dispatch wait (0-1,
    // 7-8; every later step 17-18 and 24-25 after its boundary). Only each phase's first
    // and last dispatch are activities: 4 per micro-step.
    StepPlan p;
    p.forward = {unit("f0", 1e-3, 2e-3), unit("f1", 1e-3, 2e-3), unit("f2", 1e-3, 2e-3),
                 unit("f3", 5e-3, 1e-3), unit("f4", 1e-3, 1e-3), unit("f5", 1e-3, 4e-3)};
    p.backward = {unit("b0", 1e-3, 1e-3), unit("b1", 1e-3, 1e-3), unit("b2", 1e-3, 1e-3)};
    p.micro_batch = 8;
    p.loader.synthetic = true;
    StepGraph g(p, 1, true, 2);
    Counter c(g);
    std::map<std::string, std::pair<double, double>> kernel_s;  // label -> (start, end)
    g.graph().activity_finished().subscribe([&kernel_s](const ActivityFinished& e) {
      if (static_cast<StepActivity>(e.kind) == StepActivity::kKernel && (e.tag & kTagIndexMask) == 0) {
        kernel_s[std::string(e.label)] = {gpuplan::sim::to_seconds(e.start), gpuplan::sim::to_seconds(e.end)};
      }
    });
    g.run_until_started(2);
    const std::map<std::string, std::pair<double, double>> expected = {
        {"f0", {1e-3, 3e-3}}, {"f1", {3e-3, 5e-3}},   {"f2", {5e-3, 7e-3}},   {"f3", {8e-3, 9e-3}},  {"f4", {9e-3, 10e-3}},
        {"f5", {10e-3, 14e-3}}, {"b0", {14e-3, 15e-3}}, {"b1", {15e-3, 16e-3}}, {"b2", {16e-3, 17e-3}}};
    REQUIRE(kernel_s.size() == expected.size());
    for (const auto& entry : expected) {
      INFO(entry.first);
      CHECK(kernel_s.at(entry.first).first == doctest::Approx(entry.second.first).epsilon(1e-12));
      CHECK(kernel_s.at(entry.first).second == doctest::Approx(entry.second.second).epsilon(1e-12));
    }
    CHECK(c.by_kind[StepActivity::kDispatch] == 2 * 4);
    CHECK(c.by_kind[StepActivity::kKernel] == 2 * 9);
    const StepStats s = simulate_steps(p);
    CHECK(s.breakdown.step_time_s == doctest::Approx(17e-3).epsilon(1e-12));
    CHECK(s.breakdown.gpu_compute_s == doctest::Approx(15e-3).epsilon(1e-12));
    CHECK(s.breakdown.host_dispatch_wait_s == doctest::Approx(2e-3).epsilon(1e-12));
  }

  TEST_CASE("two ops, one bucket: the step by hand, with and without overlap") {
    // Host dispatches f0 0-1, f1 1-2, b1 2-3, b0 3-4, optimizer 4-5 ms; GPU f0 1-3, f1 3-5,
    // b1 5-9, b0 9-13 ms.
    // Overlap: the bucket fills after b1 (9 ms), all-reduces 9-12 under b0; the optimizer
    // waits for b0 and the all-reduce, runs 13-14; the loss read returns at 14 ms; the next
    // step's first dispatch leaves the GPU idle 1 ms. Step 14 ms, nothing exposed.
    const StepStats overlapped = simulate_steps(two_op_plan(0));
    CHECK(overlapped.breakdown.step_time_s == doctest::Approx(14e-3));
    CHECK(overlapped.breakdown.gpu_compute_s == doctest::Approx(12e-3));
    CHECK(overlapped.breakdown.optimizer_s == doctest::Approx(1e-3));
    CHECK(overlapped.breakdown.host_dispatch_wait_s == doctest::Approx(1e-3));
    CHECK(overlapped.breakdown.communication_exposed_s == doctest::Approx(0.0));
    // Without overlap: the bucket fills after b0 (13 ms), all-reduces 13-16 with the GPU idle,
    // the optimizer runs 16-17. Step 17 ms, 3 ms of it exposed communication.
    const StepStats serial = simulate_steps(two_op_plan(1));
    CHECK(serial.breakdown.step_time_s == doctest::Approx(17e-3));
    CHECK(serial.breakdown.communication_exposed_s == doctest::Approx(3e-3));
    CHECK(serial.breakdown.gpu_compute_s == doctest::Approx(12e-3));
  }

  TEST_CASE("the graph plays micro-steps in order: one per kernel chain, starts at the loss reads") {
    const StepPlan plan = two_op_plan(0);
    StepGraph g(plan, 1, false, 3);
    StepMeasurement m(g, plan, true, false);
    Counter c(g);
    g.run_until_started(3);
    const auto& starts = m.micro_steps();
    REQUIRE(starts.size() == 4);  // 0, 1, 2 and the end of the limited graph
    CHECK(gpuplan::sim::to_seconds(starts[1].start) == doctest::Approx(14e-3));
    CHECK(gpuplan::sim::to_seconds(starts[3].start) == doctest::Approx(42e-3));
    CHECK(c.by_kind[StepActivity::kDispatch] == 3 * 5);
    CHECK(c.by_kind[StepActivity::kKernel] == 3 * 4);
    CHECK(c.by_kind[StepActivity::kOptimizerKernel] == 3);
    CHECK(c.by_kind[StepActivity::kAllReduce] == 3);
    CHECK_THROWS_AS(g.run_until_started(4), std::logic_error);  // past the limit
  }

  TEST_CASE("no_sync under gradient accumulation: one all-reduce set per optimizer step") {
    StepPlan p = two_op_plan(0);
    p.comm.buckets = {{0, 10 * kMiB, 3e-3}, {1, 10 * kMiB, 3e-3}};
    StepGraph g(p, 4, false, 12);  // three optimizer steps of four micro-steps
    Counter c(g);
    g.run_until_started(12);
    REQUIRE(c.all_reduce_micro_steps.size() == 3 * 2);
    for (const long micro : c.all_reduce_micro_steps) CHECK(micro % 4 == 3);  // the last micro-step only
    CHECK(c.by_kind[StepActivity::kOptimizerKernel] == 3);
  }

  TEST_CASE("loader-bound: batches arrive at W / (read + decode)") {
    StepPlan p;
    p.forward = {unit("fwd", 1e-3, 5e-3)};
    p.backward = {unit("bwd", 1e-3, 10e-3)};
    p.optimizer = {unit("optimizer.step", 1e-3, 2e-3)};  // 18 ms from the take
    p.micro_batch = 32;
    p.loader.workers = 2;
    p.loader.prefetch_batches = 4;
    p.loader.batch_load_s = 50e-3;     // per batch: 20 ms storage + 30 ms decode
    p.loader.batch_storage_s = 20e-3;
    p.h2d_bytes = 0;
    p.h2d_bytes_per_s = 1e9;
    const StepStats s = simulate_steps(p);
    // Two workers deliver 2 / 50 ms = one batch per 25 ms > the 18 ms step: 7 ms of data wait.
    CHECK(s.breakdown.step_time_s == doctest::Approx(25e-3));
    CHECK(s.breakdown.data_wait_s == doctest::Approx(7e-3));
    CHECK(s.loader.storage_s == doctest::Approx(20e-3));
    CHECK(s.loader.cpu_s == doctest::Approx(30e-3));
  }

  TEST_CASE("emitted incrementally: a long run keeps a bounded graph (slots reused)") {
    StepPlan p = two_op_plan(0);
    p.loader.synthetic = false;
    p.loader.workers = 4;
    p.loader.prefetch_batches = 8;
    p.loader.batch_load_s = 2e-3;
    p.h2d_bytes = 1e6;
    p.h2d_bytes_per_s = 1e9;
    p.pinned = true;
    p.loader.pin_copy_s = 0.5e-3;
    StepGraph g(p, 1, false);
    g.run_until_started(2000);
    // Two micro-steps (5 dispatches, 5 kernels, 1 all-reduce, 1 copy each) and the prefetched
    // batches (decode + pin each) at most.
    CHECK(g.graph().unfinished() <= 2 * 12 + 8 * 2);
    CHECK(g.started() == 2001);
  }

  TEST_CASE("a graph needs a micro-step per optimizer step") {
    const StepPlan plan = two_op_plan(0);
    CHECK_THROWS_AS(StepGraph(plan, 0, false), std::invalid_argument);
  }
}

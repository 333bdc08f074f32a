// Activation offloading in the step (models/step/activation_offload_plan.h and the step
// graph's copies): the plan's copies of a hand-made op table, and steps worked out by hand
// where the link is the bottleneck and where compute hides it.
#include "models/step/activation_offload_plan.h"

#include <doctest/doctest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "../memory/parameter_op.h"
#include "../workload/catalog_models.h"
#include "dispatch_unit.h"
#include "nvswitch_node_job.h"
#include "models/step/sharded_data_parallel_plan.h"
#include "models/step/step_plan.h"
#include "models/step/step_graph.h"
#include "models/step/step_simulation.h"

using namespace gpuplan::models;
using gpuplan::sim::ActivityFinished;
using testing::unit;

namespace {

// parameter_op.h's four blocks, fp32: block k offloads (1400 + 100 k) x 4 B per sample
// (5600, 6000, 6400, 6800 B).
JobSpec four_block_job() {
  JobSpec job;
  job.workload = gpuplan::models::testing::four_block_workload();
  job.training.batch_size = 8;
  job.training.optimizer = Optimizer::kSgd;
  job.training.activation_offloading = true;
  return job;
}

/// One unit per op: forward in op order, backward in reverse.
OpUnitSpans one_unit_per_op(std::size_t ops) {
  OpUnitSpans s;
  for (std::size_t i = 0; i < ops; ++i) {
    s.forward_begin.push_back(i);
    s.forward_end.push_back(i + 1);
    s.backward_begin.push_back(ops - 1 - i);
    s.backward_end.push_back(ops - i);
  }
  return s;
}

/// Four blocks of one forward unit (`forward_s`) and one backward unit (`backward_s`) each,
/// 1 ms of dispatch per unit, synthetic data; blocks 0-2 copied out and in at `copy_s` each
/// way (block 3, the last, stays). Backward runs blocks 3, 2, 1, 0.
StepPlan four_block_plan(double forward_s, double backward_s, double copy_s) {
  StepPlan p;
  for (int k = 0; k < 4; ++k) p.forward.push_back(unit("f" + std::to_string(k), 1e-3, forward_s));
  for (int k = 3; k >= 0; --k) p.backward.push_back(unit("b" + std::to_string(k), 1e-3, backward_s));
  p.micro_batch = 8;
  p.loader.synthetic = true;
  for (std::size_t k = 0; k < 3; ++k) {
    ActivationCopy c;
    c.forward_last = k;
    c.backward_first = 3 - k;
    c.prefetch_at = 2 - k;  // block k + 1's backward
    c.bytes = 1.0;
    c.d2h_s = copy_s;
    c.h2d_s = copy_s;
    p.activation_copies.push_back(c);
  }
  return p;
}

}  // namespace

TEST_SUITE("models.step.activation_offload_plan") {
  TEST_CASE("DataParallel's replicate and scatter go before the model: each copy still follows its block") {
    // GPT-2 124M on 2 GPUs: ddp and data_parallel name the same blocks' last forward units,
    // data_parallel's two units further on.
    JobSpec job = gpuplan::models::testing::nvswitch_node_job(gpuplan::models::testing::build_catalog_model("gpt2"),
                                                              2, 16, 4, AttentionKernel::kFlash);
    job.training.activation_offloading = true;
    const GpuEfficiency e = GpuEfficiency::defaults();
    const StepPlan ddp = plan_step(job, e);
    job.parallelism.strategy = ParallelStrategy::kDataParallel;
    const StepPlan dp = plan_step(job, e);
    REQUIRE(ddp.activation_copies.size() == 11);  // 12 blocks, the last one kept
    REQUIRE(dp.activation_copies.size() == ddp.activation_copies.size());
    for (std::size_t k = 0; k < dp.activation_copies.size(); ++k) {
      const std::string& label = ddp.forward.at(ddp.activation_copies[k].forward_last).label;
      CAPTURE(label);
      CHECK(label.starts_with("layers." + std::to_string(k) + "."));
      CHECK(dp.activation_copies[k].forward_last == ddp.activation_copies[k].forward_last + 2);
      CHECK(dp.forward.at(dp.activation_copies[k].forward_last).label == label);
    }
  }

  TEST_CASE("the copies of a hand-made op table: indices, bytes, seconds") {
    const JobSpec job = four_block_job();
    // Ops: 0 embed, 1-2 layers.0, 3-4 layers.1, 5-6 layers.2, 7-8 layers.3, 9 head.
    const std::vector<ActivationCopy> c = plan_activation_copies(job, job.workload, one_unit_per_op(10), 8.0, 1e9);
    REQUIRE(c.size() == 3);  // the last block stays on the GPU
    // Block 0: its last forward unit is op 2's; backward reaches op 2 at unit 9 - 2 = 7, and
    // block 1's last op (4) at unit 5, where block 0's copy in is issued.
    CHECK(c[0].forward_last == 2);
    CHECK(c[0].backward_first == 7);
    CHECK(c[0].prefetch_at == 5);
    CHECK(c[2].forward_last == 6);
    CHECK(c[2].backward_first == 3);
    CHECK(c[2].prefetch_at == 1);  // block 3's backward, the first of backward
    // 5600 B x 8 samples = 44800 B at 1 GB/s: 44.8 us each way.
    CHECK(c[0].bytes == doctest::Approx(44800));
    CHECK(c[0].d2h_s == doctest::Approx(44.8e-6));
    CHECK(c[0].h2d_s == doctest::Approx(44.8e-6));
    CHECK(c[2].bytes == doctest::Approx(6400 * 8));
    JobSpec off = job;
    off.training.activation_offloading = false;
    CHECK(plan_activation_copies(off, off.workload, one_unit_per_op(10), 8.0, 1e9).empty());
    CHECK_THROWS_AS(plan_activation_copies(job, job.workload, one_unit_per_op(10), 8.0, 0.0), std::invalid_argument);
    CHECK_THROWS_AS(plan_activation_copies(job, job.workload, one_unit_per_op(9), 8.0, 1e9), std::invalid_argument);
  }

  TEST_CASE("link-bound: the step is the copies plus what cannot overlap them") {
    // F = 1 ms, B = 2 ms, C = 10 ms. Host dispatches 1 ms each, ahead of the GPU.
    // f0 1-2, D2H0 2-12; f1 2-3, D2H1 12-22; f2 waits for D2H0: 12-13, D2H2 22-32; f3 waits
    // for D2H1: 22-23; b3 (kept block) 23-25, issuing H2D2 behind D2H2: 32-42; b2 42-44,
    // issuing H2D1 42-52; b1 52-54, H2D0 52-62; b0 62-64. The loss read returns at 64 ms and
    // the next micro-step's first dispatch takes 1 ms: the step is 64 ms =
    // 1 (dispatch) + F (before the first copy) + 6 C (the stream's copies, back to back) + B
    // (after the last), where the step without offloading is 1 + 4 F + 4 B = 13 ms.
    const StepStats off = simulate_steps(four_block_plan(1e-3, 2e-3, 0.0));
    StepPlan none = four_block_plan(1e-3, 2e-3, 10e-3);
    none.activation_copies.clear();
    CHECK(simulate_steps(none).breakdown.step_time_s == doctest::Approx(13e-3).epsilon(1e-9));
    const StepStats s = simulate_steps(four_block_plan(1e-3, 2e-3, 10e-3));
    CHECK(s.breakdown.step_time_s == doctest::Approx(64e-3).epsilon(1e-9));
    CHECK(s.breakdown.gpu_compute_s == doctest::Approx(12e-3).epsilon(1e-9));
    // The GPU idles 3-12, 13-22, 25-42, 44-52, 54-62 with a copy in flight: 51 ms of H2D
    // wait; the other 1 ms is the dispatch after the loss read.
    CHECK(s.breakdown.h2d_s == doctest::Approx(51e-3).epsilon(1e-9));
    CHECK(s.breakdown.host_dispatch_wait_s == doctest::Approx(1e-3).epsilon(1e-9));
    CHECK(off.breakdown.step_time_s == doctest::Approx(13e-3).epsilon(1e-9));  // zero-second copies
  }

  TEST_CASE("compute-bound: the copies hide behind the kernels, the step is unchanged") {
    // F = 10 ms, B = 20 ms, C = 1 ms: f0 1-11, D2H0 11-12, f1 11-21, D2H1 21-22, f2 21-31
    // (D2H0 long done), D2H2 31-32, f3 31-41; b3 41-61 issues H2D2 41-42, b2 61-81 issues
    // H2D1 61-62, b1 81-101 issues H2D0 81-82, b0 101-121: 1 + 4 F + 4 B = 121 ms, as without
    // offloading. Every duration is a whole number of ns, so the engine's rounding up to the
    // ns (sim::to_sim_time) moves nothing: equal to 1e-9 relative (double seconds).
    StepPlan none = four_block_plan(10e-3, 20e-3, 1e-3);
    none.activation_copies.clear();
    const StepStats base = simulate_steps(none);
    const StepStats s = simulate_steps(four_block_plan(10e-3, 20e-3, 1e-3));
    CHECK(base.breakdown.step_time_s == doctest::Approx(121e-3).epsilon(1e-9));
    CHECK(s.breakdown.step_time_s == doctest::Approx(base.breakdown.step_time_s).epsilon(1e-9));
    CHECK(s.breakdown.h2d_s == doctest::Approx(0.0));
  }

  TEST_CASE("one copy out and one in per copied block and micro-step, on the offload stream") {
    const StepPlan p = four_block_plan(10e-3, 20e-3, 1e-3);
    StepGraph g(p, 1, true, 2);
    std::map<StepActivity, int> by_kind;
    std::map<std::string, std::pair<double, double>> copy_s;  // label -> (start, end), micro-step 0
    g.graph().activity_finished().subscribe([&](const ActivityFinished& e) {
      const auto kind = static_cast<StepActivity>(e.kind);
      ++by_kind[kind];
      if ((kind == StepActivity::kActivationD2H || kind == StepActivity::kActivationH2D) &&
          (e.tag & kTagIndexMask) == 0) {
        CHECK(track_name(e.track) == "offload");
        copy_s[std::string(e.label)] = {gpuplan::sim::to_seconds(e.start), gpuplan::sim::to_seconds(e.end)};
      }
    });
    g.run_until_started(2);
    CHECK(by_kind[StepActivity::kActivationD2H] == 2 * 3);
    CHECK(by_kind[StepActivity::kActivationH2D] == 2 * 3);
    // The prefetch: block 1 comes back while block 2's backward runs (61-81 ms).
    CHECK(copy_s.at("block 1 activations H2D").first == doctest::Approx(61e-3).epsilon(1e-9));
    CHECK(copy_s.at("block 2 activations D2H").first == doctest::Approx(31e-3).epsilon(1e-9));
  }
}

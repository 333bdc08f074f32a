#include "dispatch_unit.h"
#include "models/step/step_simulation.h"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace gpuplan::models;

namespace {
using testing::unit;
// forward: dispatch 1 ms, GPU 5 ms; backward: 1 ms, 10 ms; optimizer: 1 ms, 2 ms.
StepPlan simple_plan() {
  StepPlan p;
  p.forward = {unit("fwd", 1e-3, 5e-3)};
  p.backward = {unit("bwd", 1e-3, 10e-3)};
  p.optimizer = {unit("optimizer.step", 1e-3, 2e-3)};
  p.micro_batch = 32;
  p.loader.synthetic = true;
  return p;
}
}  // namespace

TEST_SUITE("models.step.step_simulation") {
  TEST_CASE("synthetic data: the host runs ahead of the GPU within a step, then syncs") {
    const StepStats s = simulate_steps(simple_plan());
    // host: fwd dispatched 0-1 ms, GPU fwd 1-6; bwd dispatched 1-2, GPU 6-16; optimizer
    // dispatched 2-3, GPU 16-18; sync until 18 ms. Step = 18 ms, GPU idle 0-1 ms (dispatch).
    CHECK(s.breakdown.step_time_s == doctest::Approx(18e-3));
    CHECK(s.breakdown.gpu_compute_s == doctest::Approx(15e-3));
    CHECK(s.breakdown.optimizer_s == doctest::Approx(2e-3));
    CHECK(s.breakdown.host_dispatch_wait_s == doctest::Approx(1e-3));
    CHECK(s.breakdown.data_wait_s == doctest::Approx(0.0));
    CHECK(s.gpu_busy_s == doctest::Approx(17e-3));
  }

  TEST_CASE("host-dispatch bound: kernels shorter than their launch starve the GPU") {
    StepPlan p = simple_plan();
    p.forward.clear();
    for (int i = 0; i < 10; ++i) p.forward.push_back(unit("k", 1e-3, 0.1e-3));
    p.backward = {unit("bwd", 1e-3, 0.1e-3)};
    p.optimizer = {unit("optimizer.step", 1e-3, 0.1e-3)};
    const StepStats s = simulate_steps(p);
    // 12 dispatches of 1 ms each, the last kernel ends 0.1 ms after the last dispatch: 12.1 ms.
    CHECK(s.breakdown.step_time_s == doctest::Approx(12.1e-3));
    CHECK(s.breakdown.host_dispatch_wait_s == doctest::Approx(12.1e-3 - 1.2e-3));
  }

  TEST_CASE("num_workers = 0 loads serially in the main process") {
    StepPlan p = simple_plan();
    p.loader.synthetic = false;
    p.loader.workers = 0;
    p.loader.batch_load_s = 20e-3;
    p.loader.batch_cpu_s = 20e-3;
    p.h2d_bytes = 0;
    p.h2d_bytes_per_s = 1e9;
    const StepStats s = simulate_steps(p);
    // 20 ms of loading, then the 18 ms step: 38 ms, 20 ms of it waiting for data.
    CHECK(s.breakdown.step_time_s == doctest::Approx(38e-3));
    CHECK(s.breakdown.data_wait_s == doctest::Approx(20e-3));
  }

  TEST_CASE("one slow worker sets the pace; four workers hide the loading") {
    StepPlan p = simple_plan();
    p.loader.synthetic = false;
    p.loader.workers = 1;
    p.loader.prefetch_batches = 2;
    p.loader.batch_load_s = 30e-3;
    p.loader.batch_cpu_s = 30e-3;
    p.h2d_bytes = 0;
    p.h2d_bytes_per_s = 1e9;
    const StepStats slow = simulate_steps(p);
    // Steady state: one batch per 30 ms; 12 ms of each step waits for data.
    CHECK(slow.breakdown.step_time_s == doctest::Approx(30e-3));
    CHECK(slow.breakdown.data_wait_s == doctest::Approx(12e-3));
    p.loader.workers = 4;
    p.loader.prefetch_batches = 8;
    const StepStats fast = simulate_steps(p);
    // Four workers deliver a batch every 7.5 ms < 18 ms: back to the synthetic step.
    CHECK(fast.breakdown.step_time_s == doctest::Approx(18e-3));
    CHECK(fast.breakdown.data_wait_s == doctest::Approx(0.0));
  }

  TEST_CASE("pageable H2D blocks the host; pinned only gates the first kernel") {
    StepPlan p = simple_plan();
    p.loader.synthetic = false;
    p.loader.workers = 4;
    p.loader.prefetch_batches = 8;
    p.loader.batch_load_s = 1e-3;
    p.h2d_bytes = 8e6;
    p.h2d_bytes_per_s = 1e9;  // 8 ms copy
    p.pinned = false;
    const StepStats pageable = simulate_steps(p);
    // copy 0-8 ms with the host blocked, then the 18 ms step: 26 ms, 8 ms of it H2D.
    CHECK(pageable.breakdown.step_time_s == doctest::Approx(26e-3));
    CHECK(pageable.breakdown.h2d_s == doctest::Approx(8e-3));
    p.pinned = true;
    const StepStats pinned = simulate_steps(p);
    // copy 0-8 ms on the copy engine while the host dispatches (0-3 ms); GPU starts at 8 ms:
    // fwd 8-13, bwd 13-23, optimizer 23-25 -> 25 ms, 8 ms of idle GPU while the copy runs.
    CHECK(pinned.breakdown.step_time_s == doctest::Approx(25e-3));
    CHECK(pinned.breakdown.h2d_s == doctest::Approx(8e-3));
  }

  TEST_CASE("gradient accumulation: (GA - 1) non-final micro-steps plus the final one") {
    StepPlan p = simple_plan();
    p.gradient_accumulation = 8;
    const StepStats s = simulate_steps(p);
    // non-final micro-step: fwd+bwd = 1 + 5 + 10 = 16 ms; final: 18 ms. 7 * 16 + 18 = 130 ms.
    CHECK(s.breakdown.step_time_s == doctest::Approx(130e-3));
    CHECK(s.breakdown.optimizer_s == doctest::Approx(2e-3));
    p.gradient_accumulation = 2;
    CHECK(simulate_steps(p).breakdown.step_time_s == doctest::Approx(34e-3));
  }

  TEST_CASE("gradient accumulation: the parameter all-gather after the optimizer is waited for once per step") {
    // The distributed optimizer's all-gather of the updated parameters (20 ms on the comm
    // stream after the optimizer kernel) holds the next step's first forward kernel. The host
    // dispatches that forward 1 ms after the step's sync, so 19 ms of the gather show, once per
    // step at any accumulation (the first micro-step is simulated apart from the middle ones,
    // which once stood for it (GA - 1) / 2 times).
    StepPlan p = simple_plan();
    p.comm.parameter_all_gather_s = 20e-3;
    for (const int ga : {1, 2, 8, 64}) {
      CAPTURE(ga);
      p.gradient_accumulation = ga;
      // (GA - 1) micro-steps of 16 ms, the final one of 18 ms, the exposed gather 19 ms.
      CHECK(simulate_steps(p).breakdown.step_time_s == doctest::Approx((ga - 1) * 16e-3 + 18e-3 + 19e-3));
    }
  }

  TEST_CASE("trace covers the first steps, in pipeline order") {
    StepSimOptions o;
    o.trace_steps = 1;
    const StepStats s = simulate_steps(simple_plan(), o);
    REQUIRE(s.trace.size() >= 3);
    CHECK(s.trace[0].label == "fwd");
    CHECK(s.trace[0].start_s == doctest::Approx(1e-3));
    CHECK(s.trace[1].label == "bwd");
    CHECK(s.trace[2].label == "optimizer.step");
  }

  TEST_CASE("stop_when_periodic: a loader with slack ends after the short window, at the long window's step") {
    StepPlan p = simple_plan();
    p.loader.synthetic = false;
    p.loader.workers = 4;
    p.loader.prefetch_batches = 8;
    p.loader.batch_load_s = 2e-3;  // a batch per 0.5 ms from 4 workers against an 18 ms step
    p.loader.batch_cpu_s = 2e-3;
    p.h2d_bytes = 0;
    p.h2d_bytes_per_s = 1e9;
    StepSimOptions o;
    o.warmup_steps = 1;
    o.min_steps = 2;
    const StepStats full = simulate_steps(p, o);  // whole loader cycles: 4 x 4 steps measured
    CHECK(full.steps_measured == 16);
    o.stop_when_periodic = true;
    const StepStats short_window = simulate_steps(p, o);
    CHECK(short_window.steps_measured == 2);
    CHECK(short_window.breakdown.step_time_s == doctest::Approx(18e-3));
    CHECK(short_window.breakdown.step_time_s == doctest::Approx(full.breakdown.step_time_s).epsilon(kPeriodicTolerance));
    CHECK(short_window.breakdown.gpu_compute_s ==
          doctest::Approx(full.breakdown.gpu_compute_s).epsilon(kPeriodicTolerance));
    CHECK(short_window.breakdown.data_wait_s == 0.0);
  }

  TEST_CASE("stop_when_periodic: a loader that will limit is simulated in whole cycles") {
    // 4 workers of 80 ms per batch deliver one per 20 ms against an 18 ms step: the 8
    // prefetched batches hide it for the first steps, so the short window sees equal 18 ms
    // steps without data wait; but a batch takes 80 ms > 4 / 2 x 18 ms, so the window grows
    // and the result is the long window's, 20 ms per step (2 ms waiting for data).
    StepPlan p = simple_plan();
    p.loader.synthetic = false;
    p.loader.workers = 4;
    p.loader.prefetch_batches = 8;
    p.loader.batch_load_s = 80e-3;
    p.loader.batch_cpu_s = 80e-3;
    p.h2d_bytes = 0;
    p.h2d_bytes_per_s = 1e9;
    StepSimOptions o;
    o.warmup_steps = 1;
    o.min_steps = 2;
    const StepStats full = simulate_steps(p, o);
    o.stop_when_periodic = true;
    const StepStats checked = simulate_steps(p, o);
    CHECK(checked.steps_measured == full.steps_measured);
    CHECK(checked.breakdown.step_time_s == full.breakdown.step_time_s);
    CHECK(checked.breakdown.step_time_s == doctest::Approx(20e-3).epsilon(0.01));
  }

  TEST_CASE("stop_when_periodic with synthetic data: one step after the warm-up, the long window's step") {
    // A ZeRO-style parameter all-gather after the optimizer (the first micro-step of a step
    // waits for it) and a pipeline-like wait: the steps after the first are alike.
    StepPlan p = simple_plan();
    REQUIRE(p.loader.synthetic);
    p.comm.parameter_all_gather_s = 20e-3;
    for (const int ga : {1, 2, 8}) {
      CAPTURE(ga);
      p.gradient_accumulation = ga;
      StepSimOptions o;
      o.warmup_steps = 1;
      o.min_steps = 4;
      const StepStats full = simulate_steps(p, o);
      CHECK(full.steps_measured == 4);
      o.stop_when_periodic = true;
      const StepStats one = simulate_steps(p, o);
      CHECK(one.steps_measured == 1);
      CHECK(one.events < full.events);
      // (GA - 1) micro-steps of 16 ms, the final one of 18 ms, the exposed gather 19 ms.
      CHECK(one.breakdown.step_time_s == doctest::Approx((ga - 1) * 16e-3 + 18e-3 + 19e-3));
      CHECK(one.breakdown.step_time_s == doctest::Approx(full.breakdown.step_time_s).epsilon(kPeriodicTolerance));
      CHECK(one.breakdown.communication_exposed_s ==
            doctest::Approx(full.breakdown.communication_exposed_s).epsilon(kPeriodicTolerance));
      CHECK(one.fill_s == doctest::Approx(full.fill_s).epsilon(kPeriodicTolerance));
    }
  }

  TEST_CASE("an empty plan is rejected") {
    CHECK_THROWS_AS(simulate_steps(StepPlan{}), std::invalid_argument);
  }
}

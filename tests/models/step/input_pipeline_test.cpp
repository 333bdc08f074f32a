// The input pipeline on the engine (issue 3): per-sample decode, CPU cores shared by workers,
// the main process and the pin-memory thread, storage slots and bandwidth, the page cache,
// and the exact mode against epoch-level reuse. Expected values derived by hand (STYLE.md T2).

#include <doctest/doctest.h>

#include <stdexcept>

#include "dispatch_unit.h"
#include "models/step/step_simulation.h"

using namespace gpuplan::models;

namespace {
using testing::unit;
// GPU: fwd 5 ms, bwd 10 ms, optimizer 2 ms, each dispatched in 1 ms: 18 ms per step on
// synthetic data (see step_simulation_test.cpp). Loader: 10 samples per batch, page cache,
// no H2D bytes, constant decode (cv 0) unless a test says otherwise.
StepPlan loader_plan(int workers, double sample_cpu_s) {
  StepPlan p;
  p.forward = {unit("fwd", 1e-3, 5e-3)};
  p.backward = {unit("bwd", 1e-3, 10e-3)};
  p.optimizer = {unit("optimizer.step", 1e-3, 2e-3)};
  p.micro_batch = 10;
  p.loader.workers = workers;
  p.loader.prefetch_batches = std::max(1, 2 * workers);
  p.loader.samples_per_batch = 10;
  p.loader.sample_cpu_s = sample_cpu_s;
  p.loader.page_cache_hit = true;
  p.loader.seed = 7;
  p.h2d_bytes = 0.0;
  p.h2d_bytes_per_s = 1e9;
  return p;
}
}  // namespace

TEST_SUITE("models.step.input_pipeline") {
  TEST_CASE("num_workers 0: the main process decodes every sample, serially with the GPU") {
    const StepStats s = simulate_steps(loader_plan(0, 2e-3));
    // 10 samples x 2 ms = 20 ms of decode, then the 18 ms step: 38 ms, 20 ms waiting for data.
    CHECK(s.breakdown.step_time_s == doctest::Approx(38e-3));
    CHECK(s.breakdown.data_wait_s == doctest::Approx(20e-3));
    CHECK(s.loader.cpu_s == doctest::Approx(20e-3));
  }

  TEST_CASE("W workers: batch i to worker i mod W; two workers at 30 ms per batch deliver one per 15 ms") {
    const StepStats one = simulate_steps(loader_plan(1, 3e-3));
    // One worker: a batch per 30 ms > 18 ms: the step is 30 ms, 12 ms of it waiting.
    CHECK(one.breakdown.step_time_s == doctest::Approx(30e-3));
    CHECK(one.breakdown.data_wait_s == doctest::Approx(12e-3));
    const StepStats two = simulate_steps(loader_plan(2, 3e-3));
    // Two workers: a batch per 15 ms < 18 ms: GPU-bound again at 18 ms.
    CHECK(two.breakdown.step_time_s == doctest::Approx(18e-3));
    CHECK(two.breakdown.data_wait_s == doctest::Approx(0.0));
  }

  TEST_CASE("workers beyond the cores time-share them with the main process") {
    StepPlan p = loader_plan(4, 4e-3);
    p.loader.cpu_cores = 2;
    const StepStats s = simulate_steps(p);
    // 4 workers + main = 5 threads on 2 cores. Per step the CPU must do 40 ms of decode and
    // 3 ms of dispatch; the workers always have work, so both cores are busy all the time:
    // step = 43 core-ms / 2 cores = 21.5 ms (> the GPU's 18 ms).
    CHECK(s.breakdown.step_time_s == doctest::Approx(21.5e-3).epsilon(0.01));
    CHECK(s.breakdown.data_wait_s > 0.0);
    // Without the contention (8 cores) four workers deliver a batch per 10 ms: 18 ms.
    p.loader.cpu_cores = 8;
    CHECK(simulate_steps(p).breakdown.step_time_s == doctest::Approx(18e-3));
  }

  TEST_CASE("storage: one device slot serialises the readers; more workers stop helping") {
    StepPlan p = loader_plan(1, 1e-3);
    p.loader.page_cache_hit = false;
    p.loader.read_latency_s = 30e-3;  // 10 requests x 3 ms, holding the one slot
    p.loader.storage_queue_depth = 1;
    const StepStats w1 = simulate_steps(p);
    // One worker: 30 ms of reads then 10 ms of decode per batch: 40 ms per step.
    CHECK(w1.breakdown.step_time_s == doctest::Approx(40e-3));
    p.loader.workers = 4;
    p.loader.prefetch_batches = 8;
    const StepStats w4 = simulate_steps(p);
    // Four workers: the disk serves one batch per 30 ms whoever asks: 30 ms per step.
    CHECK(w4.breakdown.step_time_s == doctest::Approx(30e-3));
    CHECK(w4.loader.storage_s > w4.loader.cpu_s);  // queueing for the slot counts as storage
    p.loader.workers = 8;
    p.loader.prefetch_batches = 16;
    CHECK(simulate_steps(p).breakdown.step_time_s == doctest::Approx(30e-3));
    // A queue depth of 4 lets the four workers read in parallel: 40 ms per batch per worker,
    // a batch per 10 ms < 18 ms: GPU-bound.
    p.loader.workers = 4;
    p.loader.prefetch_batches = 8;
    p.loader.storage_queue_depth = 4;
    CHECK(simulate_steps(p).breakdown.step_time_s == doctest::Approx(18e-3));
  }

  TEST_CASE("storage bandwidth is shared by the readers") {
    StepPlan p = loader_plan(4, 0.0);
    p.loader.page_cache_hit = false;
    p.loader.read_bytes = 2.5e6;            // per batch
    p.loader.storage_bytes_per_s = 100e6;   // 25 ms per batch alone
    p.loader.storage_queue_depth = 64;
    const StepStats s = simulate_steps(p);
    // Four readers share 100 MB/s: the device delivers a batch per 25 ms whatever the worker
    // count, so the step is 25 ms (> 18 ms).
    CHECK(s.breakdown.step_time_s == doctest::Approx(25e-3).epsilon(0.01));
    // The page cache removes the reads: GPU-bound at 18 ms.
    p.loader.page_cache_hit = true;
    CHECK(simulate_steps(p).breakdown.step_time_s == doctest::Approx(18e-3));
  }

  TEST_CASE("the pin-memory thread copies batches one at a time") {
    StepPlan p = loader_plan(4, 1e-3);
    p.loader.pin_copy_s = 25e-3;
    const StepStats s = simulate_steps(p);
    // Workers deliver a batch per 2.5 ms, but the one pin thread needs 25 ms each: 25 ms steps.
    CHECK(s.breakdown.step_time_s == doctest::Approx(25e-3));
    CHECK(s.loader.pin_s >= 25e-3);
  }

  TEST_CASE("per-sample decode times are drawn: same seed same result, bursts slow the mean") {
    StepPlan p = loader_plan(2, 3.4e-3);  // 34 ms per batch: 17 ms per batch with 2 workers
    p.loader.sample_cpu_cv = 1.0;
    const StepStats a = simulate_steps(p);
    const StepStats b = simulate_steps(p);
    CHECK(a.breakdown.step_time_s == b.breakdown.step_time_s);
    p.loader.seed = 8;
    CHECK(simulate_steps(p).breakdown.step_time_s != a.breakdown.step_time_s);
    // With constant decode 2 workers keep up with the 18 ms GPU (17 ms per batch); with
    // variable decode a slow batch blocks those behind it (in-order consumption), so some
    // steps wait.
    CHECK(a.breakdown.step_time_s > 18e-3);
    CHECK(a.breakdown.data_wait_s > 0.0);
  }

  TEST_CASE("preprocess_on gpu: the decode becomes GPU time") {
    StepPlan p = loader_plan(4, 0.0);
    p.loader.gpu_preprocess_s = 4e-3;
    const StepStats s = simulate_steps(p);
    // The GPU decode (0-4 ms) starts with the batch and hides the forward's 1 ms dispatch:
    // decode 0-4, fwd 4-9, bwd 9-19, optimizer 19-21: 21 ms, all of it GPU busy.
    CHECK(s.breakdown.step_time_s == doctest::Approx(21e-3));
    CHECK(s.gpu_busy_s == doctest::Approx(21e-3));
  }

  TEST_CASE("exact mode: an epoch simulated batch by batch agrees with fill + steps x steady step") {
    StepPlan p = loader_plan(3, 4e-3);  // 40 ms per batch per worker, 13.3 ms per batch: GPU-bound
    p.loader.sample_cpu_cv = 0.4;
    p.loader.cpu_cores = 3;              // 3 workers + main on 3 cores: contended
    p.loader.page_cache_hit = false;
    p.loader.read_latency_s = 5e-3;
    p.loader.storage_queue_depth = 2;
    const long steps = 300;
    const StepStats steady = simulate_steps(p);
    const double reuse_s = steady.fill_s + steps * steady.breakdown.step_time_s;
    const EpochRun exact = simulate_epoch(p, steps);
    CHECK(exact.elapsed_s == doctest::Approx(reuse_s).epsilon(0.02));
    CHECK_THROWS_AS(simulate_epoch(p, 0), std::invalid_argument);
  }

  TEST_CASE("trace: one batch's events appear in pipeline order") {
    StepPlan p = loader_plan(2, 1e-3);
    p.loader.page_cache_hit = false;
    p.loader.read_latency_s = 2e-3;
    p.loader.pin_copy_s = 1e-3;
    p.pinned = true;
    p.h2d_bytes = 1e6;
    StepSimOptions o;
    o.trace_steps = 2;
    const StepStats s = simulate_steps(p, o);
    auto find = [&](const std::string& track, const std::string& label) -> const TraceSpan* {
      for (const TraceSpan& t : s.trace) {
        if (t.track == track && t.label == label) return &t;
      }
      return nullptr;
    };
    const TraceSpan* read = find("worker 1", "batch 1 read");
    const TraceSpan* decode = find("worker 1", "batch 1");
    const TraceSpan* pin = find("pin_memory", "batch 1");
    const TraceSpan* h2d = find("h2d", "batch 1 H2D");
    REQUIRE(read != nullptr);
    REQUIRE(decode != nullptr);
    REQUIRE(pin != nullptr);
    REQUIRE(h2d != nullptr);
    CHECK(read->end_s <= decode->start_s);
    CHECK(decode->end_s <= pin->start_s);
    CHECK(pin->end_s <= h2d->start_s);
    bool kernel_after_copy = false;
    for (const TraceSpan& t : s.trace) {
      if (t.track == "gpu" && t.start_s >= h2d->end_s) kernel_after_copy = true;
    }
    CHECK(kernel_after_copy);
  }
}

#include "models/job/job_time.h"

#include <doctest/doctest.h>

#include <stdexcept>

#include "models/cost/cost.h"
#include "models/energy/energy.h"

using namespace gpuplan::models;

namespace {
JobSpec imagenet_job() {
  JobSpec j;
  j.dataset.samples = 1281167;
  j.duration.epochs = 90;
  j.training.batch_size = 256;
  j.workload.parameters = 25.557e6;
  j.workload.tokens_per_sample = 1;
  return j;
}
}  // namespace

TEST_SUITE("models.job.job_time") {
  TEST_CASE("epochs x ceil(samples / global batch) steps") {
    const JobTimes t = job_times(imagenet_job(), 0.1, 0.0);
    // ceil(1281167 / 256) = 5005 steps; 5005 * 0.1 s = 500.5 s per epoch; 90 epochs = 45045 s
    CHECK(t.steps_per_epoch == doctest::Approx(5005));
    CHECK(t.epoch_time_s == doctest::Approx(500.5));
    CHECK(t.time_to_train_s == doctest::Approx(45045));
  }

  TEST_CASE("evaluation pass and blocking checkpoints add to the time") {
    JobSpec j = imagenet_job();
    j.dataset.eval_samples = 50000;
    j.checkpointing.enabled = true;
    j.checkpointing.interval_s = 3600;
    j.training.optimizer = Optimizer::kSgdMomentum;
    j.hardware.storage.write_bytes_per_s = 1e9;
    const JobTimes t = job_times(j, 0.1, 0.05);
    // eval: ceil(50000 / 256) = 196 batches * 0.05 s = 9.8 s per epoch
    CHECK(t.epoch_eval_s == doctest::Approx(9.8));
    // train + eval = 90 * (500.5 + 9.8) = 45927 s -> floor(45927 / 3600) = 12 checkpoints
    // of 25.557e6 * 8 B = 204.456e6 B at 1 GB/s = 0.204456 s
    CHECK(t.checkpoints == doctest::Approx(12));
    CHECK(t.checkpoint_write_s == doctest::Approx(0.204456));
    CHECK(t.time_to_train_s == doctest::Approx(45927 + 12 * 0.204456));
  }

  TEST_CASE("an evaluation pass every N steps, on rank 0 alone or split over the ranks") {
    JobSpec j = imagenet_job();
    j.hardware.gpus_per_node = 8;
    j.hardware.nodes = 1;
    j.dataset.eval_samples = 5000;
    j.dataset.eval_every_steps = 1000;
    // Global batch 256 x 8 = 2048: ceil(1281167 / 2048) = 626 steps per epoch, 626 / 1000 =
    // 0.626 passes per epoch.
    j.dataset.eval_first_rank_only = true;
    // rank 0 alone: ceil(5000 / 256) = 20 batches x 0.05 s = 1.0 s per pass; 0.626 s per epoch
    CHECK(job_times(j, 0.1, 0.05).epoch_eval_s == doctest::Approx(0.626));
    j.dataset.eval_first_rank_only = false;
    // all 8 ranks: ceil(5000 / 2048) = 3 batches x 0.05 s = 0.15 s per pass; 0.0939 s per epoch
    CHECK(job_times(j, 0.1, 0.05).epoch_eval_s == doctest::Approx(0.0939));
    // 90 epochs: 90 x (626 x 0.1 + 0.0939) = 5642.451 s
    CHECK(job_times(j, 0.1, 0.05).time_to_train_s == doctest::Approx(5642.451));
  }

  TEST_CASE("evaluation runs per model replica: tensor x pipeline parallel GPUs evaluate one batch together") {
    JobSpec j = imagenet_job();
    j.hardware.gpus_per_node = 8;
    j.hardware.nodes = 2;
    j.parallelism.strategy = ParallelStrategy::kDdp;
    j.parallelism.tensor_parallel = 2;
    j.parallelism.pipeline_parallel = 4;
    j.training.batch_size = 8;
    j.dataset.eval_samples = 3200;
    // 16 GPUs / (TP 2 x PP 4) = 2 replicas: ceil(3200 / (8 x 2)) = 200 batches each.
    CHECK(eval_batches_per_replica(j) == doctest::Approx(200.0));
    // Data-parallel rank 0's replica alone: ceil(3200 / 8) = 400 batches (x2, not x16).
    j.dataset.eval_first_rank_only = true;
    CHECK(eval_batches_per_replica(j) == doctest::Approx(400.0));
    // One pass per epoch at 0.05 s per batch through the replica: 400 x 0.05 = 20 s.
    CHECK(job_times(j, 0.1, 0.05).epoch_eval_s == doctest::Approx(20.0));
    j.dataset.eval_samples = 0.0;
    CHECK(eval_batches_per_replica(j) == 0.0);
  }

  TEST_CASE("a token budget sets the number of steps") {
    JobSpec j = imagenet_job();
    j.duration.epochs = 0;
    j.duration.tokens = 1e9;
    j.workload.tokens_per_sample = 2048;
    j.training.batch_size = 8;
    j.training.gradient_accumulation = 4;
    const JobTimes t = job_times(j, 2.0, 0.0);
    // tokens per step = 8 * 4 * 2048 = 65536; ceil(1e9 / 65536) = 15259 steps * 2 s = 30518 s
    CHECK(t.time_to_train_s == doctest::Approx(30518));
  }

  TEST_CASE("a non-positive step time is rejected") {
    CHECK_THROWS_AS(job_times(imagenet_job(), 0.0, 0.0), std::invalid_argument);
  }
}

TEST_SUITE("models.cost.cost") {
  TEST_CASE("billing rounds up to the granularity") {
    CHECK(billed_seconds(61.2, 1.0) == doctest::Approx(62));
    CHECK(billed_seconds(61.2, 3600.0) == doctest::Approx(3600));
    // Exact, as std::ceil: whole units stay, any fraction bills one more; 0 is 0; beyond 2^52
    // (no fraction left) and for a negative wall the libm path.
    CHECK(billed_seconds(62.0, 1.0) == 62.0);
    CHECK(billed_seconds(120.0, 60.0) == 120.0);
    CHECK(billed_seconds(120.5, 60.0) == 180.0);
    CHECK(billed_seconds(0.0, 60.0) == 0.0);
    CHECK(billed_seconds(1e17, 1.0) == 1e17);
    CHECK(billed_seconds(-1.5, 1.0) == -1.0);
    InstanceSpec i;
    i.price_usd_per_s = 98.32 / 3600.0;  // p5.48xlarge on-demand, $98.32/h (row V114)
    i.billing_granularity_s = 1.0;
    // 1.55 h = 5580 s on one node: 98.32 * 1.55 = $152.40 (issue 5's reference case)
    CHECK(on_demand_cost_usd(i, 1, 5580) == doctest::Approx(152.396));
  }
  TEST_CASE("on-premises: amortized purchase plus electricity") {
    OnPremisesSpec p;
    p.purchase_usd = 1500;
    p.amortization_s = 3 * 365.25 * 86400;
    p.electricity_usd_per_j = 0.15 / 3.6e6;
    // one day of a 3-year, $1500 machine: 1500 / (3 * 365.25) = $1.3689; 10 kWh * $0.15 = $1.50
    CHECK(on_premises_cost_usd(p, 1, 86400, 3.6e7) == doctest::Approx(1500.0 / (3 * 365.25) + 1.5));
  }
}

TEST_SUITE("models.energy.energy") {
  TEST_CASE("idle power plus the busy share of TDP - idle, plus host power") {
    HardwareSpec h;
    h.gpu.tdp_w = 400;
    h.gpu.idle_w = 50;
    h.gpus_per_node = 1;
    h.cpu_cores = 8;
    // GPU 50 + 0.5 * 350 = 225 W; host 100 + 5 * 8 = 140 W; 365 W * 3600 s = 1.314e6 J
    CHECK(training_energy_j(h, 0.5, 3600) == doctest::Approx(365.0 * 3600));
  }
}


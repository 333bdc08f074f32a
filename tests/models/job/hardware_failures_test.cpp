// Hardware failures (models/job/hardware_failures.h) against hand-computed closed forms and
// the spot process's Monte Carlo, and the on-demand job level that uses them.
#include "models/job/hardware_failures.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/job/cloud_job.h"
#include "models/spot/preemption.h"
#include "job_specs.h"

using namespace gpuplan::models;

namespace {
constexpr double kHour = 3600.0;
}  // namespace

TEST_SUITE("models.job.hardware_failures") {
  TEST_CASE("the default rate is Llama 3's: 419 interruptions in 54 days on 16,384 GPUs, 1.97e-5 per GPU-hour") {
    CHECK(kGpuFailureRatePerS * kHour == doctest::Approx(1.9733e-5).epsilon(1e-4));
    // One interruption every 3.09 h on the whole fleet.
    CHECK(1.0 / (16384 * kGpuFailureRatePerS) / kHour == doctest::Approx(54.0 * 24.0 / 419.0));
  }

  TEST_CASE("Poisson quantiles: exact below a mean of 100, normal above") {
    CHECK(poisson_quantile(0.0, 0.9) == 0.0);
    // P(0) = e^-0.1 = 0.905 >= 0.9.
    CHECK(poisson_quantile(0.1, 0.9) == 0.0);
    // P(0) = e^-0.2 = 0.819; P(<=1) = 0.982.
    CHECK(poisson_quantile(0.2, 0.5) == 0.0);
    CHECK(poisson_quantile(0.2, 0.9) == 1.0);
    // Poisson(3): P(<=2) = 0.423, P(<=3) = 0.647, P(<=4) = 0.815, P(<=5) = 0.916.
    CHECK(poisson_quantile(3.0, 0.5) == 3.0);
    CHECK(poisson_quantile(3.0, 0.9) == 5.0);
    // 400 + 1.2816 x 20 = 425.6 -> 426.
    CHECK(poisson_quantile(400.0, 0.9) == 426.0);
    CHECK(std::isinf(poisson_quantile(INFINITY, 0.5)));
  }

  TEST_CASE("no checkpoint: one segment of all the work, (e^(lambda T) - 1) / lambda") {
    SpotJobParams p;
    p.work_s = 1000.0;
    p.nodes = 1;
    p.preemption_rate_per_s = 2e-4;
    const FailureTimes f = failure_time_added(p);
    // lambda T = 0.2: failures e^0.2 - 1 = 0.221403; mean added 5000 x 0.221403 - 1000 = 107.01 s.
    CHECK(f.expected_failures == doctest::Approx(0.2214028));
    CHECK(f.mean_added_s == doctest::Approx(107.0138));
    // Poisson(0.2214): P(0) = 0.801, so the median run meets none; the p90 one meets one,
    // costing the mean loss per failure 107.01 / 0.2214 = 483.3 s.
    CHECK(f.p50_added_s == 0.0);
    CHECK(f.p90_added_s == doctest::Approx(483.34).epsilon(1e-4));
    // Zero rate: nothing added.
    p.preemption_rate_per_s = 0.0;
    const FailureTimes none = failure_time_added(p);
    CHECK(none.expected_failures == 0.0);
    CHECK(none.mean_added_s == 0.0);
  }

  TEST_CASE("periodic checkpoints: Daly's mean per segment, with restart and wait") {
    SpotJobParams p;
    p.work_s = 1000.0;
    p.checkpoint_interval_s = 100.0;
    p.checkpoint_blocking_s = 10.0;
    p.restore_s = 5.0;
    p.startup_s = 20.0;
    p.warmup_s = 5.0;
    p.replacement_wait_s = 30.0;
    p.nodes = 2;
    p.preemption_rate_per_s = 5e-4;  // lambda = 1e-3 /s for the job
    const FailureTimes f = failure_time_added(p);
    // 10 segments, L = 110 s, R = 30 s: failures e^0.03 (e^0.11 - 1) = 0.119819 each; mean
    // (1000 + 30) x 0.119819 = 123.414 s against 110 s without failures.
    const double per_segment = std::exp(0.03) * std::expm1(0.11);
    CHECK(per_segment == doctest::Approx(0.119819));
    CHECK(f.expected_failures == doctest::Approx(10 * per_segment));
    CHECK(f.mean_added_s == doctest::Approx(10 * (1030.0 * per_segment - 110.0)));
    // Poisson(1.198): P(<=0) = 0.302, P(<=1) = 0.663, P(<=2) = 0.880, P(<=3) = 0.966.
    const double per_failure = f.mean_added_s / f.expected_failures;
    CHECK(f.p50_added_s == doctest::Approx(1 * per_failure));
    CHECK(f.p90_added_s == doctest::Approx(3 * per_failure));

    // The spot process's Monte Carlo on the same parameters agrees on the mean (3 %).
    SpotJobParams mc = p;
    mc.cap_s = kTrialCapFactor * p.work_s;
    const SpotSummary s = run_spot_monte_carlo(mc, 4000, 11, p.work_s);
    CHECK(s.wall_mean_s == doctest::Approx(1100.0 + f.mean_added_s).epsilon(0.03));
    CHECK(s.preemptions_mean == doctest::Approx(f.expected_failures).epsilon(0.05));

    // Checkpoints lost with the node: one segment of all the work and its writes, no restore.
    p.checkpoints_survive_preemption = false;
    const FailureTimes lost = failure_time_added(p);
    // L = 1000 + 10 x 10 = 1100 s, R = 25 s: e^0.025 (e^1.1 - 1) = 2.0608 failures, each
    // costing 1 / lambda + D on average: 1030 x 2.0608 - 1100 = 1022.6 s, 7.6x the loss with
    // checkpoints that survive.
    CHECK(lost.expected_failures == doctest::Approx(std::exp(0.025) * std::expm1(1.1)));
    CHECK(lost.mean_added_s == doctest::Approx(1030.0 * std::exp(0.025) * std::expm1(1.1) - 1100.0));
  }

  TEST_CASE("on demand: failures lengthen p50/p90 and choose an auto interval; a huge job without one does not finish") {
    // 1e5 steps of 512 x 100 samples per epoch; a 12 GB checkpoint written in 12 s.
    JobSpec job = testing::auto_checkpointed_job(5.12e9, 10);
    job.hardware.gpus_per_node = 8;
    job.hardware.nodes = 64;
    CloudSpec cloud;
    cloud.instance.price_usd_per_s = 10.0 / kHour;
    cloud.market = Market::kOnDemand;
    job.hardware.gpu_failure_rate_per_s = kGpuFailureRatePerS;
    job.hardware.gpu_failure_rate_source = "test";
    job.cloud = cloud;
    // 1e6 steps of 1 s: 277.8 h of work on 512 GPUs.
    const JobOutcome od = run_job_level(job, 1.0, 0.0, 0.1);
    // delta = 12 s, M = 1 / (512 x 1.9733e-5 /h) = 98.97 h: sqrt(2 x 12 x 356,300) = 2,924 s.
    const double mtbf_s = 1.0 / (512 * kGpuFailureRatePerS);
    CHECK(od.checkpoint_interval_s == doctest::Approx(std::sqrt(2.0 * 12.0 * mtbf_s)));
    CHECK(od.checkpoint_interval_reason.find("M = mean time between hardware failures of 64 node(s), 99 h: "
                                             "hardware failures at 0.000158 /h each (8 GPUs x 1.97e-05 /h)") !=
          std::string::npos);
    REQUIRE(od.failures.has_value());
    // About 512 x 1.9733e-5 x 281 h = 2.84 failures.
    CHECK(od.failures->expected_failures == doctest::Approx(512 * 1.9733e-5 * od.times.time_to_train_s / kHour)
                                                .epsilon(0.02));
    CHECK(od.time_p50_s > od.times.time_to_train_s);
    CHECK(od.time_p90_s > od.time_p50_s);
    REQUIRE(od.notes.size() == 1);
    // 2.83 failures, each losing half an interval (24 min) and a restart on average; the
    // Poisson(2.83) median is 3 failures, its 90th percentile 5.
    CHECK(od.notes[0] ==
          "hardware failures: 2.83 expected over the run (512 GPUs x 1.97e-05 /h per GPU, test); each resumes from "
          "the last checkpoint, adding 69.9 min on average (p50 +74.1 min, p90 +2.06 h)");

    // Without checkpoints on 1,024 GPUs each failure restarts 278 h of work: lambda T = 5.6,
    // so (e^5.6 - 1) / lambda is 48x the work, past the cap of 20x at p50 and p90.
    job.checkpointing.enabled = false;
    job.checkpointing.automatic = false;
    job.hardware.nodes = 128;
    job.dataset.samples = 1.024e10;  // the same 1e6 steps
    const JobOutcome none = run_job_level(job, 1.0, 0.0, 0.1);
    CHECK(std::isinf(none.time_p50_s));
    CHECK(std::isinf(none.time_p90_s));
    REQUIRE(none.notes.size() == 1);
    CHECK(none.notes[0] ==
          "hardware failures: the job does not finish within 20x its time without them: 273 failures expected "
          "(1024 GPUs x 1.97e-05 /h per GPU, test), and each restarts the job from the start (no periodic "
          "checkpoint); add checkpointing: {interval: auto} to resume from the last checkpoint instead");

    // A zero rate: the time without interruptions, no note.
    job.hardware.gpu_failure_rate_per_s = 0.0;
    const JobOutcome quiet = run_job_level(job, 1.0, 0.0, 0.1);
    CHECK(quiet.time_p50_s == quiet.times.time_to_train_s);
    CHECK_FALSE(quiet.failures.has_value());
    CHECK(quiet.notes.empty());
  }

  TEST_CASE("own hardware: the same failures without a cloud section, and no start-up after each") {
    // The first job of the on-demand case on 64 nodes of 8 GPUs, without a cloud section: the
    // same interval, failures and times, because the cloud case's start-up is 0 there too.
    JobSpec job = testing::auto_checkpointed_job(5.12e9, 10);
    job.hardware.gpus_per_node = 8;
    job.hardware.nodes = 64;
    job.hardware.gpu_failure_rate_per_s = kGpuFailureRatePerS;
    job.hardware.gpu_failure_rate_source = "test";
    const JobOutcome own = run_job_level(job, 1.0, 0.0, 0.1);
    CHECK(own.checkpoint_interval_s == doctest::Approx(std::sqrt(2.0 * 12.0 / (512 * kGpuFailureRatePerS))));
    REQUIRE(own.failures.has_value());
    CHECK(own.notes == std::vector<std::string>{
                           "hardware failures: 2.83 expected over the run (512 GPUs x 1.97e-05 /h per GPU, test); each "
                           "resumes from the last checkpoint, adding 69.9 min on average (p50 +74.1 min, p90 +2.06 h)"});
    // Closed form at the chosen interval (failure_time_added with no start-up and no wait).
    const double work_s = own.times.epochs * (own.times.epoch_train_s + own.times.epoch_eval_s);
    const SpotJobParams p = spot_params(job, work_s, own.checkpoint_interval_s, 0.1 + kRestartWarmupSteps * 1.0,
                                        own.times.time_to_train_s);
    CHECK(p.startup_s == 0.0);
    CHECK(p.replacement_wait_s == 0.0);
    CHECK(p.preemption_rate_per_s == doctest::Approx(8 * kGpuFailureRatePerS));
    const FailureTimes f = failure_time_added(p);
    CHECK(own.time_p50_s == doctest::Approx(own.times.time_to_train_s + f.p50_added_s));
    CHECK(own.time_p90_s == doctest::Approx(own.times.time_to_train_s + f.p90_added_s));

    // With auto but no failures: no interval, and the reason says why.
    job.hardware.gpu_failure_rate_per_s = 0.0;
    const JobOutcome quiet = run_job_level(job, 1.0, 0.0, 0.1);
    CHECK(quiet.checkpoint_interval_s == 0.0);
    CHECK(quiet.checkpoint_interval_reason ==
          "interval auto: no hardware failures on own hardware (gpu_failure_rate 0), so no periodic checkpoint");
    CHECK_FALSE(quiet.failures.has_value());
  }
}

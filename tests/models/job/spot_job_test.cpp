// The spot job process (models/job/spot_job.h) against closed forms, and the job level of a
// spot variant (models/job/cloud_job.h).
#include "models/job/spot_job.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "models/cost/cost.h"
#include "models/job/cloud_job.h"
#include "models/spot/preemption.h"
#include "sim/random_stream.h"
#include "sim/sim_time.h"

using namespace gpuplan::models;

namespace {
constexpr double kHour = 3600.0;

SpotJobParams simple(double rate_per_h, double interval_h, double checkpoint_s) {
  SpotJobParams p;
  p.work_s = 10 * kHour;
  p.checkpoint_interval_s = interval_h * kHour;
  p.checkpoint_blocking_s = checkpoint_s;
  p.replacement_wait_s = 600.0;
  p.nodes = 1;
  p.preemption_rate_per_s = rate_per_h / kHour;
  p.cap_s = kTrialCapFactor * p.work_s;
  p.price_usd_per_s = 1.0 / kHour;
  return p;
}
}  // namespace

TEST_SUITE("models.job.spot") {
  TEST_CASE("Young/Daly interval and the closed form of exponential failures") {
    CHECK(young_daly_interval_s(50.0, 4 * kHour) == doctest::Approx(std::sqrt(2.0 * 50.0 * 4 * kHour)));
    CHECK(young_daly_interval_s(50.0, INFINITY) == 0.0);
    // One segment, no downtime: E = (e^{lambda T} - 1) / lambda.
    CHECK(expected_time_exponential_s(kHour, 0.0, 0.0, 1.0 / kHour, 0.0) == doctest::Approx(std::expm1(1.0) * kHour));
  }

  TEST_CASE("mean time to finish with checkpoints matches the closed form (2000 trials, 2 %)") {
    // 10 h of work, checkpoint every hour (60 s blocking), 0.5 preemptions/h, 10 min wait.
    const SpotJobParams p = simple(0.5, 1.0, 60.0);
    const double expected = expected_time_exponential_s(p.work_s, p.checkpoint_interval_s, 60.0,
                                                        p.preemption_rate_per_s, p.replacement_wait_s);
    const SpotSummary s = run_spot_monte_carlo(p, 2000, 7, p.work_s);
    CHECK(s.finished == 2000);
    CHECK(s.wall_mean_s == doctest::Approx(expected).epsilon(0.02));
    // About rate x mean wall time (while up) preemptions on average.
    CHECK(s.preemptions_mean == doctest::Approx(0.5 * (expected - s.preemptions_mean * 600.0) / kHour).epsilon(0.05));
    CHECK(s.wall_p90_s >= s.wall_p50_s);
    CHECK(s.lost_time_share > 0.0);
    CHECK(s.lost_time_share < 1.0);
  }

  TEST_CASE("no checkpoints at a high preemption rate: many times longer, or not within the cap") {
    // 0.2 /h without checkpoints: E = (5 h + 10 min)(e^2 - 1), 3.3x the work.
    const SpotJobParams slow = simple(0.2, 0.0, 0.0);
    const SpotSummary s = run_spot_monte_carlo(slow, 1000, 3, slow.work_s);
    CHECK(s.wall_mean_s ==
          doctest::Approx(expected_time_exponential_s(slow.work_s, 0.0, 0.0, slow.preemption_rate_per_s, 600.0))
              .epsilon(0.06));
    CHECK(s.wall_mean_s > 3.0 * slow.work_s);
    // 0.5 /h: E = (2 h + 10 min)(e^5 - 1) = 32x the work, beyond the 20x cap for most trials.
    const SpotJobParams hopeless = simple(0.5, 0.0, 0.0);
    const SpotSummary h = run_spot_monte_carlo(hopeless, 200, 3, hopeless.work_s);
    CHECK(h.finished < h.trials / 2);
    CHECK(h.wall_p50_s == doctest::Approx(hopeless.cap_s));
    // With hourly checkpoints the same rate finishes every trial.
    const SpotSummary c = run_spot_monte_carlo(simple(0.5, 1.0, 60.0), 200, 3, hopeless.work_s);
    CHECK(c.finished == 200);
  }

  TEST_CASE("determinism: the same seed gives the same trial; trials differ") {
    const SpotJobParams p = simple(0.5, 1.0, 60.0);
    const SpotTrial a = simulate_spot_trial(p, 42, 5);
    const SpotTrial b = simulate_spot_trial(p, 42, 5);
    CHECK(a.wall_s == b.wall_s);
    CHECK(a.preemptions == b.preemptions);
    CHECK(a.cost_usd == b.cost_usd);
    bool differ = false;
    for (std::uint64_t t = 0; t < 10 && !differ; ++t) differ = simulate_spot_trial(p, 42, t).wall_s != a.wall_s;
    CHECK(differ);
  }

  TEST_CASE("several nodes: the first preemption is the least of the nodes' exponential draws") {
    // 4 nodes at 0.5 /h each, no checkpoints, and a replacement wait past the cap: the trial
    // stops at its first preemption, and the work lost is the time it came at (rounded to the
    // nanosecond). Node i draws from RandomStream(seed + trial, "spot/node/<i>") (spot_job.h).
    SpotJobParams p = simple(0.5, 0.0, 0.0);
    p.nodes = 4;
    p.work_s = 1000 * kHour;
    p.cap_s = 2000 * kHour;
    p.replacement_wait_s = 1e4 * kHour;
    for (std::uint64_t trial = 0; trial < 20; ++trial) {
      double first = INFINITY;
      for (int i = 0; i < 4; ++i) {
        gpuplan::sim::RandomStream node(9 + trial, "spot/node/" + std::to_string(i));
        first = std::min(first, node.exponential(kHour / 0.5));
      }
      const SpotTrial t = simulate_spot_trial(p, 9, trial);
      CAPTURE(trial);
      CHECK(t.preemptions == 1);
      CHECK(t.lost_work_s == gpuplan::sim::to_seconds(gpuplan::sim::to_sim_time(first)));
      CHECK_FALSE(t.finished);
      CHECK(t.events == 2);  // the preemption, then the cap
    }
  }

  TEST_CASE("no preemptions: the wall time is the work plus the blocking checkpoints") {
    SpotJobParams p = simple(0.0, 1.0, 60.0);
    const SpotTrial t = simulate_spot_trial(p, 1, 0);
    CHECK(t.finished);
    CHECK(t.preemptions == 0);
    CHECK(t.wall_s == doctest::Approx(10 * kHour + 9 * 60.0));
    CHECK(t.cost_usd == doctest::Approx(t.wall_s / kHour));
  }

  TEST_CASE("async checkpoints block only for the host copy; a preemption before the write ends loses it") {
    SpotJobParams p = simple(0.0, 1.0, 5.0);
    p.checkpoint_background_s = 300.0;
    CHECK(simulate_spot_trial(p, 1, 0).wall_s == doctest::Approx(10 * kHour + 9 * 5.0));
  }

  TEST_CASE("checkpoints on the node's own disk are lost with it: the job restarts from the start") {
    AvailabilityTrace trace;
    trace.gap_s = 600.0;
    trace.alive = {1, 1, 1, 1, 0};  // one drop at 2400 s, capacity back at 3000 s
    trace.alive.insert(trace.alive.end(), 30, 1);
    SpotJobParams p;
    p.work_s = 2 * kHour;
    p.checkpoint_interval_s = 600.0;  // checkpoints at 600, 1200 and 1800 s of work before the drop
    p.nodes = 1;
    p.trace = &trace;
    p.cap_s = 100 * kHour;
    p.price_usd_per_s = 1.0 / kHour;
    const SpotTrial durable = simulate_spot_trial(p, 0, 0);
    CHECK(durable.preemptions == 1);
    CHECK(durable.lost_work_s == doctest::Approx(600.0));                // 2400 s reached, 1800 s kept
    CHECK(durable.wall_s == doctest::Approx(3000.0 + 2 * kHour - 1800.0));  // resumes at 1800 s of work
    p.checkpoints_survive_preemption = false;
    const SpotTrial local = simulate_spot_trial(p, 0, 0);
    CHECK(local.preemptions == 1);
    CHECK(local.lost_work_s == doctest::Approx(2400.0));  // every checkpoint went with the disk
    CHECK(local.wall_s == doctest::Approx(3000.0 + 2 * kHour));
  }

  TEST_CASE("a trace: drops preempt, zeros wait for capacity, partial drops wait for a replacement") {
    AvailabilityTrace trace;
    trace.gap_s = 600.0;
    trace.alive = {0, 1, 1, 1, 0, 0};  // capacity from 600 s; one drop at 2400 s; back at 3600 s
    trace.alive.insert(trace.alive.end(), 20, 1);
    SpotJobParams p;
    p.work_s = 2 * kHour;
    p.nodes = 1;
    p.trace = &trace;
    p.cap_s = 100 * kHour;
    p.price_usd_per_s = 1.0 / kHour;
    const SpotTrial t = simulate_spot_trial(p, 0, 0);
    CHECK(t.finished);
    CHECK(t.preemptions == 1);
    // Starts at 600 s, works 1800 s, preempted at 2400 s (no checkpoint: all lost), capacity back
    // at 3600 s, then 2 h of work.
    CHECK(t.wall_s == doctest::Approx(3600.0 + 2 * kHour));
    CHECK(t.lost_work_s == doctest::Approx(1800.0));
    CHECK(t.billed_node_s == doctest::Approx(1800.0 + 2 * kHour));  // nothing billed without capacity
    CHECK(trace_drops(trace) == 1);
    CHECK(mean_time_between_preemptions_s(1, 0.0, &trace) == doctest::Approx(23 * 600.0));
  }

  TEST_CASE("job level of a spot variant: auto interval from Young/Daly with its reason; on-demand has no spread") {
    JobSpec job;
    job.dataset.samples = 1e6;
    job.duration.epochs = 10;
    job.training.batch_size = 100;
    job.training.optimizer = Optimizer::kAdamW;
    job.workload.parameters = 1e9;  // 12 GB checkpoint
    job.hardware.storage.write_bytes_per_s = 1e9;
    job.hardware.storage.read_bytes_per_s = 2e9;
    job.checkpointing.enabled = true;
    job.checkpointing.automatic = true;
    job.trials = 50;
    CloudSpec cloud;
    cloud.instance.price_usd_per_s = 10.0 / kHour;
    cloud.instance.spot_price_usd_per_s = 3.0 / kHour;
    cloud.market = Market::kOnDemand;
    job.cloud = cloud;
    const JobOutcome od = run_job_level(job, 0.5, 0.0, 0.1);
    CHECK(od.checkpoint_interval_s == 0.0);
    CHECK(od.time_p50_s == od.time_p90_s);
    CHECK(od.checkpoint_interval_reason.find("no preemptions") != std::string::npos);

    job.cloud->market = Market::kSpot;
    job.cloud->preemption_rate_per_s = 0.1 / kHour;
    const JobOutcome spot = run_job_level(job, 0.5, 0.0, 0.1);
    // delta = 12 s, M = 10 h: sqrt(2 x 12 x 36000) = 929.5 s.
    CHECK(spot.checkpoint_interval_s == doctest::Approx(std::sqrt(2.0 * 12.0 * 36000.0)));
    CHECK(spot.checkpoint_interval_reason.find("Young/Daly") != std::string::npos);
    REQUIRE(spot.spot.has_value());
    CHECK(spot.time_p90_s >= spot.time_p50_s);
    CHECK(spot.time_p50_s >= spot.times.time_to_train_s);
  }
}

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
#include "job_specs.h"

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

  TEST_CASE("a segment's moments: Daly's mean (the closed form without restart), the Monte Carlo's mean and variance") {
    // 10 h of work in 1 h intervals with no blocking write, so that all ten segments are
    // alike (the last one too): the job's time is the sum of ten independent segments.
    SpotJobParams p = simple(0.5, 1.0, 0.0);
    const auto no_restart = spot_segment_moments(p);
    REQUIRE(no_restart);
    CHECK(10.0 * no_restart->mean_s == doctest::Approx(expected_time_exponential_s(p.work_s, p.checkpoint_interval_s, 0.0,
                                                                                  p.preemption_rate_per_s, 600.0)));
    // A 20 min start-up and a 10 min warm-up before each retry: (1/lambda + D) e^(lambda R) (e^(lambda L) - 1)
    // = (2 h + 10 min) e^(0.25) (e^(0.5) - 1) = 1.8206 h.
    p.startup_s = 1200.0;
    p.warmup_s = 600.0;
    const auto m = spot_segment_moments(p);
    REQUIRE(m);
    CHECK(m->mean_s == doctest::Approx((2.0 + 1.0 / 6.0) * std::exp(0.25) * std::expm1(0.5) * kHour));
    const SpotSummary s = run_spot_monte_carlo(p, 4000, 11, p.work_s);
    REQUIRE(s.finished == 4000);
    CHECK(s.wall_mean_s == doctest::Approx(10.0 * m->mean_s).epsilon(0.02));
    // The trials' spread against the variance of ten segments.
    double sum2 = 0.0;
    for (int t = 0; t < 4000; ++t) {
      const double d = simulate_spot_trial(p, 11, static_cast<std::uint64_t>(t)).wall_s - s.wall_mean_s;
      sum2 += d * d;
    }
    CHECK(sum2 / 3999.0 == doctest::Approx(10.0 * m->variance_s2).epsilon(0.1));
    // Where the moments do not apply.
    SpotJobParams other = p;
    other.checkpoint_interval_s = 0.0;
    CHECK_FALSE(spot_segment_moments(other));
    other = p;
    other.checkpoints_survive_preemption = false;
    CHECK_FALSE(spot_segment_moments(other));
    other = p;
    other.checkpoint_background_s = 30.0;
    CHECK_FALSE(spot_segment_moments(other));
    other = p;
    other.preemption_rate_per_s = 0.0;
    CHECK_FALSE(spot_segment_moments(other));
  }

  TEST_CASE("the share of trials that can finish by the cap: out of reach, reachable, and bounding the Monte Carlo") {
    // 3 preemptions/h against 1 h intervals and a 1 h restart: a segment takes
    // (1/3 h + 10 min) e^3 (e^3.05 - 1) = 200 h, 100 h of work would take 98 x 200 h against a
    // 2,000 h cap: no trial finishes.
    SpotJobParams hopeless = simple(3.0, 1.0, 60.0);
    hopeless.work_s = 100 * kHour;
    hopeless.cap_s = kTrialCapFactor * hopeless.work_s;
    hopeless.startup_s = kHour;
    const double bound = spot_finish_share_bound(hopeless);
    CHECK(bound < 0.02);
    CHECK(run_spot_monte_carlo(hopeless, 20, 5, hopeless.work_s).finished == 0);
    // 0.5 /h with hourly checkpoints finishes well within the cap: nothing bounded.
    CHECK(spot_finish_share_bound(simple(0.5, 1.0, 60.0)) == 1.0);
    // Near the cap the bound holds over the trials: a cap at 80 % of the nine segments the
    // bound counts (10 h of work in 1 h intervals, the first one left out).
    SpotJobParams near = simple(0.5, 1.0, 0.0);
    near.startup_s = 1200.0;
    near.warmup_s = 600.0;
    near.cap_s = 0.8 * 9.0 * spot_segment_moments(near)->mean_s;
    const double near_bound = spot_finish_share_bound(near);
    CHECK(near_bound > 0.05);
    CHECK(near_bound < 1.0);
    const SpotSummary n = run_spot_monte_carlo(near, 1000, 5, near.work_s);
    CHECK(static_cast<double>(n.finished) / n.trials <= near_bound);
  }

  TEST_CASE("an absurd rate with no wait stops at the preemption bound, not after 10^13 events") {
    SpotJobParams p = simple(3.6e12, 0.0, 0.0);  // 1e9 preemptions per second
    p.replacement_wait_s = 0.0;
    const SpotTrial t = simulate_spot_trial(p, 7, 0);
    CHECK_FALSE(t.finished);
    CHECK(t.preemptions == kMaxPreemptionsPerTrial);
    CHECK(t.wall_s == p.cap_s);
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
    JobSpec job = testing::auto_checkpointed_job(1e6, 10);  // a 12 GB checkpoint written in 12 s
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
    CHECK_FALSE(spot.spot_out_of_reach);
    // The search's skip changes nothing where trials finish.
    const JobOutcome searched = run_job_level(job, 0.5, 0.0, 0.1, true);
    REQUIRE(searched.spot.has_value());
    CHECK(searched.time_p90_s == spot.time_p90_s);

    // 20 preemptions an hour against a 2 h start-up: no trial finishes within the cap, and
    // the search does not run them (the times are those without preemptions).
    job.cloud->preemption_rate_per_s = 20.0 / kHour;
    job.cloud->startup_s = 2 * kHour;
    const JobOutcome hopeless = run_job_level(job, 0.5, 0.0, 0.1);
    REQUIRE(hopeless.spot.has_value());
    CHECK(hopeless.spot->finished == 0);
    CHECK_FALSE(hopeless.spot->finishes_at(0.5));
    const JobOutcome skipped = run_job_level(job, 0.5, 0.0, 0.1, true);
    CHECK(skipped.spot_out_of_reach);
    CHECK_FALSE(skipped.spot.has_value());
    CHECK(skipped.time_p90_s == skipped.times.time_to_train_s);
    CHECK(skipped.checkpoint_interval_s == hopeless.checkpoint_interval_s);
  }
}

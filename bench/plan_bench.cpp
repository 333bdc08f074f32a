/// \file plan_bench.cpp
/// Speed of the job level on sweeps (issue 5 target: 1,000 points x 200 Monte Carlo trials
/// in under a minute on 2 cores): (1) 1,000 spot job-level points of the multi-day GPT-2 XL
/// job of scenarios/spot-vs-on-demand-a100.yaml (250 per-node preemption rates from 0.01 to
/// 0.5 /h x 4 checkpoint settings), 200 trials each, on all cores; (2) `gpuplan plan` of the
/// same scenario over every catalog instance, on every node count and on 1-2 nodes (the
/// point set of 6216732, for comparison).

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include "bench_clock.h"
#include "cli/app_context.h"
#include "cli/plan.h"
#include "config/scenario_loader.h"
#include "models/job/cloud_job.h"
#include "models/job/job_time.h"

using namespace gpuplan;

namespace {

/// Times `gpuplan plan` of `s` over `node_counts` (the deadline does not change the work) and
/// prints its points, CPU seconds and CPU milliseconds per point.
void bench_plan(const config::Scenario& s, const cli::AppContext& context, const char* what,
                const std::vector<int>& node_counts) {
  std::fflush(stdout);
  cli::PlanOptions options;
  options.deadline_s = 7 * 86400.0;
  options.node_counts = node_counts;
  const unsigned threads = std::max(1U, std::thread::hardware_concurrency());
  const bench::Stopwatch plan_watch;
  const cli::Planner planner(s, context.catalogs, options);
  const cli::PlanResult r = planner.finish(planner.evaluate());
  const bench::Elapsed plan = plan_watch.elapsed();
  std::size_t fit = 0;
  for (const auto& p : r.points) fit += p.fits ? 1 : 0;
  fmt::print("gpuplan plan spot-vs-on-demand-a100 ({}): {} points ({} fit) on {} threads: {:.2f} s wall, "
             "{:.2f} s CPU, {:.2f} ms CPU per point\n",
             what, r.points.size(), fit, threads, plan.wall_s, plan.cpu_s,
             1e3 * plan.cpu_s / static_cast<double>(std::max<std::size_t>(r.points.size(), 1)));
}

}  // namespace

void bench_plan_sweep() {
  const cli::AppContext context = cli::load_context(cli::default_catalog_dir(), {});
  const config::Scenario s = config::load_scenario(
      std::string(GPUPLAN_SOURCE_DIR) + "/scenarios/spot-vs-on-demand-a100.yaml", context.catalogs, context.families);
  const models::JobSpec& base = s.variants.at(2).job;  // spot_every_30_min
  const double step_s = 1.36;                           // the scenario's simulated step
  std::vector<models::JobSpec> points;
  const double intervals[] = {0.0, 900.0, 1800.0, -1.0};  // none, 15 min, 30 min, auto
  for (int r = 0; r < 250; ++r) {
    for (double interval : intervals) {
      models::JobSpec j = base;
      j.trials = 200;
      j.cloud->preemption_rate_per_s = (0.01 + 0.49 * r / 249.0) / 3600.0;
      j.checkpointing.enabled = interval != 0.0;
      j.checkpointing.automatic = interval < 0.0;
      j.checkpointing.interval_s = interval > 0.0 ? interval : 0.0;
      points.push_back(std::move(j));
    }
  }
  const unsigned threads = std::max(1U, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> events{0};
  std::vector<double> p90(points.size());
  const bench::Stopwatch watch;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < points.size(); i = next++) {
        const models::JobOutcome o = models::run_job_level(points[i], step_s, 0.0, 0.0);
        p90[i] = o.time_p90_s;
        events += o.spot ? o.spot->events : 0;
      }
    });
  }
  for (std::thread& t : pool) t.join();
  const bench::Elapsed sweep = watch.elapsed();
  std::fflush(stdout);
  fmt::print("job-level sweep: {} points x 200 trials on {} threads: {:.2f} s wall, {:.2f} s CPU, {:.1f} M events "
             "({:.1f} M/s of CPU)\n",
             points.size(), threads, sweep.wall_s, sweep.cpu_s, static_cast<double>(events.load()) / 1e6,
             static_cast<double>(events.load()) / 1e6 / sweep.cpu_s);

  // The plan over every node count, then over 1 and 2 nodes only: the point set of 6216732
  // (kPlanNodeCounts was {1, 2} then), so that figure stays comparable.
  bench_plan(s, context, "all providers", cli::kPlanNodeCounts);
  bench_plan(s, context, "all providers, 1-2 nodes as at 6216732", {1, 2});
}

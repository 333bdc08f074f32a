#include "models/step/step_simulation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

#include "models/step/step_graph.h"
#include "models/step/step_measurement.h"
#include "sim/sim_time.h"

namespace gpuplan::models {

using sim::SimTime;

namespace {

/// StepSimOptions::stop_when_periodic's test of the window of micro-steps [first, end) and
/// its steps `per_step`: no data wait, every step as long (kPeriodicTolerance), and the
/// loader at most half busy (every batch so far ready within `workers` / 2 shortest
/// micro-steps of its reader starting it, and pinned within half of one), so that the
/// readers' random draws never reached the host or the GPU.
bool loader_cannot_shape(const StepMeasurement& observer, const std::vector<Attribution>& per_step, int first, int end,
                         int workers) {
  double shortest_step_s = std::numeric_limits<double>::infinity();
  double longest_step_s = 0.0;
  for (const Attribution& a : per_step) {
    if (a.data_wait_s > 0.0) return false;
    shortest_step_s = std::min(shortest_step_s, a.total());
    longest_step_s = std::max(longest_step_s, a.total());
  }
  if (per_step.empty() || longest_step_s - shortest_step_s > kPeriodicTolerance * longest_step_s) return false;
  const auto& micro = observer.micro_steps();
  SimTime shortest_micro = std::numeric_limits<SimTime>::max();
  for (int i = first; i < end; ++i) {
    shortest_micro = std::min(shortest_micro, micro[static_cast<std::size_t>(i + 1)].start -
                                                  micro[static_cast<std::size_t>(i)].start);
  }
  const auto [batch, pin] = observer.longest_batch(micro[static_cast<std::size_t>(end)].start);
  return 2 * batch <= workers * shortest_micro && 2 * pin <= shortest_micro;
}

}  // namespace

StepStats simulate_steps(const StepPlan& plan, const StepSimOptions& options) {
  if (plan.forward.empty()) {
    throw std::invalid_argument("simulate_steps: the plan has no forward ops");
  }
  const int ga = plan.gradient_accumulation;
  // With GA > 3 three micro-steps per step are simulated: the first, which follows the
  // optimizer and waits for what it updates (ZeRO's and the distributed optimizer's parameter
  // all-gather), one middle micro-step standing for the GA - 2 alike, and the final one, which
  // runs the gradient reduction and the optimizer.
  const int simulated_ga = std::min(ga, 3);
  const double middle_weight = simulated_ga > 2 ? static_cast<double>(ga - 2) : 0.0;
  StepGraph graph(plan, simulated_ga, options.trace_steps > 0);
  StepMeasurement observer(graph, plan, true, options.trace_steps > 0);

  // The measured window is whole loader cycles: with W workers batch i comes from worker
  // i mod W, so the input pipeline repeats every W batches, i.e. every
  // W / gcd(W, simulated_ga) steps. A window of part of a cycle can sit wholly inside a burst
  // of prefetched batches (W workers with the same latency deliver W batches at once) and see
  // none of the waits between bursts; whole cycles see each worker equally often. The
  // statistics run on the cycle means (the batch-means method, Law & Kelton, "Simulation
  // Modeling and Analysis", 5th ed., 2015, section 9.5.3):
  // - stationarity: when the means of the window's two halves differ by more than their 95 %
  //   confidence (and more than `relative_precision`), the window still holds a transient
  //   (workers that start together need tens of cycles to lose their common phase): the first
  //   half joins the warm-up and the window grows (a two-half variant of the sequential
  //   warm-up tests in Law & Kelton, section 9.5.1);
  // - precision: the 95 % half-width of the mean of the cycle means below
  //   `relative_precision` of the mean.
  const int workers = plan.loader.synthetic ? 0 : plan.loader.workers;
  const int cycle = workers > 1 ? workers / std::gcd(workers, simulated_ga) : 1;
  const std::size_t cycle_size = static_cast<std::size_t>(cycle);
  auto whole_cycles = [cycle](int n) { return (n + cycle - 1) / cycle * cycle; };
  // StepSimOptions::stop_when_periodic with synthetic data: the steps after the warm-up are
  // alike, one of them is measured.
  const int min_steps = options.stop_when_periodic && plan.loader.synthetic ? 1 : options.min_steps;
  const int min_measured = whole_cycles(std::max(min_steps, cycle > 1 ? 4 * cycle : 1));
  const int max_measured =
      std::max(min_measured, std::max(options.max_steps, options.max_cycles * cycle) / cycle * cycle);
  int warmup = options.warmup_steps;
  int steps = warmup + std::min(max_measured, min_measured);
  // StepSimOptions::stop_when_periodic: a short window first, kept when the loader cannot
  // have shaped it (checked below), else grown as usual.
  const int short_measured = std::max(1, options.min_steps);
  bool try_short = options.stop_when_periodic && cycle > 1 && !graph.cpu_contended() && short_measured < min_measured;
  if (try_short) steps = warmup + short_measured;
  std::vector<Attribution> per_step;
  auto mean_var = [](const double* x, std::size_t n) {
    double mean = 0.0;
    for (std::size_t i = 0; i < n; ++i) mean += x[i] / static_cast<double>(n);
    double var = 0.0;
    for (std::size_t i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean) / std::max(1.0, static_cast<double>(n) - 1.0);
    return std::pair{mean, var};
  };
  while (true) {
    graph.run_until_started(static_cast<long>(steps) * simulated_ga);
    const auto& micro = observer.micro_steps();
    per_step.clear();
    for (int s = warmup; s < steps; ++s) {
      Attribution step;
      for (int m = 0; m < simulated_ga; ++m) {
        const int i = s * simulated_ga + m;
        const Attribution a =
            observer.attribute(micro[i].start, micro[i + 1].start, plan.comm.overlap_compute_slowdown);
        step.add(a, m == 0 || micro[i].final ? 1.0 : middle_weight);
      }
      per_step.push_back(step);
    }
    if (try_short) {
      try_short = false;
      if (loader_cannot_shape(observer, per_step, warmup * simulated_ga, steps * simulated_ga, workers)) break;
      steps = warmup + std::min(max_measured, min_measured);
      continue;
    }
    std::vector<double> cycle_means;
    for (std::size_t c = 0; c + cycle_size <= per_step.size(); c += cycle_size) {
      double sum = 0.0;
      for (std::size_t k = 0; k < cycle_size; ++k) sum += per_step[c + k].total();
      cycle_means.push_back(sum / cycle);
    }
    const std::size_t k = cycle_means.size();
    const auto [mean, var] = mean_var(cycle_means.data(), k);
    const double half_width = 1.96 * std::sqrt(var / static_cast<double>(k));
    bool drift = false;
    if (k >= 4) {
      const std::size_t h = k / 2;
      const auto [m1, v1] = mean_var(cycle_means.data(), h);
      const auto [m2, v2] = mean_var(cycle_means.data() + h, k - h);
      const double se = std::sqrt(v1 / static_cast<double>(h) + v2 / static_cast<double>(k - h));
      drift = std::abs(m1 - m2) > std::max(1.96 * se, options.relative_precision * mean);
    }
    const int measured = steps - warmup;
    const bool at_limit = measured >= max_measured || steps >= options.warmup_steps + 2 * max_measured;
    if (at_limit || (!drift && half_width <= options.relative_precision * mean)) {
      break;
    }
    if (drift) {
      warmup += static_cast<int>(k / 2 * cycle_size);  // the first half was still warming up
    }
    // Double the simulated steps (warm-up included), in whole cycles of the window.
    steps = warmup + std::min(max_measured, whole_cycles(2 * steps - warmup));
  }

  Attribution mean;
  for (const auto& s : per_step) mean.add(s, 1.0 / static_cast<double>(per_step.size()));
  StepStats stats;
  stats.breakdown.gpu_compute_s = mean.compute_s;
  stats.breakdown.optimizer_s = mean.optimizer_s;
  stats.breakdown.host_optimizer_s = mean.host_optimizer_s;
  stats.breakdown.data_wait_s = mean.data_wait_s;
  stats.breakdown.h2d_s = mean.h2d_s;
  stats.breakdown.host_dispatch_wait_s = mean.dispatch_s;
  stats.breakdown.communication_exposed_s = mean.comm_s;
  stats.breakdown.pipeline_bubble_s = mean.pipeline_bubble_s;
  stats.breakdown.step_time_s = mean.total();
  stats.gpu_busy_s = mean.compute_s + mean.optimizer_s - mean.host_optimizer_s;
  stats.steps_measured = static_cast<int>(per_step.size());
  // Where the readers' time went over the measured window: batches read and decoded in it.
  const auto& micro = observer.micro_steps();
  const SimTime window_start = micro[static_cast<std::size_t>(warmup * simulated_ga)].start;
  const SimTime window_end = micro[static_cast<std::size_t>(steps * simulated_ga)].start;
  stats.loader = observer.loader_stats(window_start, window_end);
  // Pipeline fill: how much later the measured window starts than steady steps would have.
  const double mean_simulated_step_s =
      sim::to_seconds(window_end - window_start) / std::max(1, steps - warmup);
  stats.fill_s = std::max(0.0, sim::to_seconds(window_start) - warmup * mean_simulated_step_s);
  if (options.trace_steps > 0) {
    // The traced steps [trace_first_step, + trace_steps), simulated further if the measured
    // window ends before them (the statistics above are already taken).
    const auto first = static_cast<std::size_t>(options.trace_first_step) * static_cast<std::size_t>(simulated_ga);
    const auto end = first + static_cast<std::size_t>(options.trace_steps) * static_cast<std::size_t>(simulated_ga);
    graph.run_until_started(static_cast<long>(end));
    const auto& all = observer.micro_steps();
    stats.trace = observer.take_trace(all[first].start, all[end].start);
  }
  stats.events = graph.events();
  return stats;
}

EpochRun simulate_epoch(const StepPlan& plan, long steps, const StepSimOptions& /*options: nothing to trace*/) {
  if (plan.forward.empty()) {
    throw std::invalid_argument("simulate_epoch: the plan has no forward ops");
  }
  if (steps < 1) {
    throw std::invalid_argument("simulate_epoch: an epoch needs at least one step");
  }
  const int ga = plan.gradient_accumulation;
  const long micro_steps = steps * ga;
  StepGraph graph(plan, ga, false, micro_steps);
  StepMeasurement observer(graph, plan, false, false);
  graph.run_until_started(micro_steps);
  const auto& starts = observer.micro_steps();
  EpochRun run;
  run.elapsed_s = sim::to_seconds(starts[static_cast<std::size_t>(micro_steps)].start);
  const long skipped = steps / 2;
  run.filled_steps = steps - skipped;
  run.filled_s = run.elapsed_s - sim::to_seconds(starts[static_cast<std::size_t>(skipped * ga)].start);
  run.events = graph.events();
  return run;
}

}  // namespace gpuplan::models

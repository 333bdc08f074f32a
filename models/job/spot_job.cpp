#include "models/job/spot_job.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/cost/cost.h"
#include "models/spot/preemption.h"
#include "sim/random_stream.h"
#include "sim/sim_time.h"

namespace gpuplan::models {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Drops and returns of capacity of a trace replayed cyclically: probe k (time k x gap)
/// reads alive[k mod n]; a drop is a probe below the one before it (the wrap-around pair
/// counts from the second pass on).
class TraceIndex {
 public:
  explicit TraceIndex(const AvailabilityTrace& t) : t_(t), n_(static_cast<std::int64_t>(t.alive.size())) {
    if (n_ == 0 || !(t.gap_s > 0.0)) {
      throw std::invalid_argument("spot trace '" + t.source + "' has no samples or a non-positive gap");
    }
    for (std::int64_t i = 0; i < n_; ++i) {
      if (t.alive[i] < t.alive[(i + n_ - 1) % n_]) drops_.push_back(i);
    }
    next_positive_.assign(n_, -1);
    std::int64_t next = -1;
    for (std::int64_t pass = 0; pass < 2; ++pass) {
      for (std::int64_t i = n_ - 1; i >= 0; --i) {
        if (t.alive[i] > 0) next = i + (pass == 0 ? n_ : 0);  // first pass sees the wrap
        if (pass == 1) next_positive_[i] = next < 0 ? -1 : next - i;
      }
    }
  }
  std::int64_t tick(double t) const { return static_cast<std::int64_t>(std::floor(t / t_.gap_s)); }
  bool capacity_at(double t) const { return t_.alive[tick(t) % n_] > 0; }
  double next_drop_after(double t) const {
    if (drops_.empty()) return kInf;
    std::int64_t k = tick(t) + 1;
    for (int guard = 0; guard < 3; ++guard) {
      const std::int64_t c = k / n_;
      const std::int64_t r = k % n_;
      auto it = std::lower_bound(drops_.begin(), drops_.end(), r);
      if (it != drops_.end() && c == 0 && *it == 0) ++it;
      if (it != drops_.end()) return static_cast<double>(c * n_ + *it) * t_.gap_s;
      k = (c + 1) * n_;
    }
    return kInf;
  }
  double next_capacity_after(double t) const {
    const std::int64_t k = tick(t) + 1;
    const std::int64_t off = next_positive_[k % n_];
    return off < 0 ? kInf : static_cast<double>(k + off) * t_.gap_s;
  }

 private:
  const AvailabilityTrace& t_;
  std::int64_t n_;
  std::vector<std::int64_t> drops_;
  std::vector<std::int64_t> next_positive_;
};

/// Runs the trials of one job, one after another, with one stream per node and one trace
/// index, reset between trials instead of rebuilt (no allocation per trial).
///
/// A trial is a discrete-event process whose queue never holds more than two events: the
/// cap, and the next of (what the job is doing ends, the next preemption). So the queue is
/// those two times, in simulated nanoseconds (sim::to_sim_time), ordered as sim::Engine
/// orders events (time, then scheduling order: the cap, scheduled first, wins a tie), and
/// an event costs a comparison instead of a heap operation and a callback. Runs of blocking
/// checkpoint cycles that end before the next preemption are taken in one event
/// (fast-forward): the state after them is exactly the state after the cycles.
class TrialRunner {
 public:
  /// Throws std::invalid_argument for a trace with no samples or a non-positive gap.
  explicit TrialRunner(const SpotJobParams& p) : p_(p) {
    if (p.trace != nullptr) {
      trace_.emplace(*p.trace);
    } else if (p.preemption_rate_per_s > 0.0) {
      const auto nodes = static_cast<std::size_t>(p.nodes);
      streams_.reserve(nodes);
      names_.reserve(nodes);
      for (std::size_t i = 0; i < nodes; ++i) {
        names_.push_back("spot/node/" + std::to_string(i));
        streams_.emplace_back(0, names_.back());
      }
      draws_.resize(nodes);
    }
    if (p.checkpoint_interval_s > 0.0) {
      last_checkpoint_k_ = static_cast<std::int64_t>(std::ceil(p.work_s / p.checkpoint_interval_s)) - 1;
    }
  }

  /// Trial `trial` of a job seeded `seed` (spot_job.h: simulate_spot_trial).
  SpotTrial run(std::uint64_t seed, std::uint64_t trial) {
    for (std::size_t i = 0; i < streams_.size(); ++i) streams_[i].reseed(seed + trial, names_[i]);
    s_ = State{};
    pending_checkpoints_.clear();
    const sim::SimTime cap_tick = sim::to_sim_time(p_.cap_s);
    if (trace_ && !trace_->capacity_at(0.0)) {
      wait_for_capacity();
    } else {
      up(0.0);
    }
    // The process's event runs while it comes before the cap; the cap (or the preemption
    // bound, kMaxPreemptionsPerTrial) ends the trial.
    while (!s_.out.finished) {
      ++s_.out.events;
      if (!s_.has_pending || s_.pending_tick >= cap_tick || s_.out.preemptions >= kMaxPreemptionsPerTrial) {
        s_.now_tick = cap_tick;
        s_.now_s = sim::to_seconds(cap_tick);
        break;
      }
      s_.now_tick = s_.pending_tick;
      s_.now_s = s_.pending_s;
      s_.has_pending = false;
      dispatch();
    }
    if (!s_.out.finished) {
      s_.out.wall_s = p_.cap_s;
      close_period(p_.cap_s);
    }
    s_.out.cost_usd = s_.out.billed_node_s * p_.price_usd_per_s;
    return s_.out;
  }

 private:
  enum class Next { kBeginWork, kReach, kCheckpointDone, kRecover, kPreempt, kFastForward };

  double now() const { return s_.now_s; }

  /// Schedules `what` at `t`, or the pending preemption instead when it comes first (ties go
  /// to the preemption). Nothing is scheduled at or beyond the cap.
  void next(double t, Next what, double arg = 0.0) {
    if (s_.preemption_armed && s_.next_preemption_s <= t) {
      t = s_.next_preemption_s;
      what = Next::kPreempt;
    }
    s_.has_pending = false;
    if (!(t < p_.cap_s)) return;
    const sim::SimTime tick = sim::to_sim_time(t);
    if (tick < s_.now_tick) throw std::logic_error("spot trial: an event scheduled before now");
    s_.pending = what;
    s_.pending_arg = arg;
    s_.pending_tick = tick;
    s_.pending_s = sim::to_seconds(tick);  // divided here, off the next event's critical path
    s_.has_pending = true;
  }

  void dispatch() {
    switch (s_.pending) {
      case Next::kBeginWork: begin_work(); break;
      case Next::kReach: reach(s_.pending_arg); break;
      case Next::kCheckpointDone: checkpoint_done(); break;
      case Next::kRecover: recover(); break;
      case Next::kPreempt: preempt(); break;
      case Next::kFastForward: fast_forwarded(static_cast<std::int64_t>(s_.pending_arg)); break;
    }
  }

  void close_period(double t) {
    if (s_.billed_nodes > 0) {
      s_.out.billed_node_s += s_.billed_nodes * billed_seconds(t - s_.period_start_s, p_.billing_granularity_s);
    }
    s_.billed_nodes = 0;
  }
  void begin_period(int nodes) {
    close_period(now());
    s_.period_start_s = now();
    s_.billed_nodes = nodes;
  }

  /// The first of the nodes' next preemptions, in seconds from now: the least of one
  /// exponential draw per node (each stream draws one uniform, as RandomStream::exponential
  /// would). The inversion -mean ln(1 - u) increases with u, so the least draw comes from
  /// the least u; only the uniforms within 2^-30 of the least are inverted (libm's log1p
  /// errs by a few ulps, far below what that gap changes), so the result is exactly the
  /// least of all the nodes' exponentials.
  double first_preemption_in_s() {
    double least = 1.0;
    for (std::size_t i = 0; i < streams_.size(); ++i) {
      draws_[i] = streams_[i].uniform01();
      least = std::min(least, draws_[i]);
    }
    const double mean = 1.0 / p_.preemption_rate_per_s;
    constexpr double kInversionMargin = 0x1.0p-30;
    double first = kInf;
    for (const double u : draws_) {
      if (u <= least + kInversionMargin) first = std::min(first, sim::RandomStream::exponential_of_uniform(mean, u));
    }
    return first;
  }

  /// Draws (Poisson) or looks up (trace) the next preemption after now and arms it.
  void arm_preemption() {
    double t = kInf;
    if (trace_) {
      t = trace_->next_drop_after(now());
    } else if (!streams_.empty()) {
      t = now() + first_preemption_in_s();
    }
    s_.next_preemption_s = t;
    s_.preemption_armed = t < kInf;
  }

  void up(double recovery_s) {
    begin_period(p_.nodes);
    arm_preemption();
    if (recovery_s > 0.0) {
      next(now() + recovery_s, Next::kBeginWork);
    } else {
      begin_work();
    }
  }

  void begin_work() {
    const double interval = p_.checkpoint_interval_s;
    if (interval > 0.0 && p_.checkpoint_background_s == 0.0 && s_.pos_k < last_checkpoint_k_) {
      // Whole cycles (interval of work + blocking write) that end strictly before the next
      // preemption (or all remaining ones when none is armed).
      const double cycle = interval + p_.checkpoint_blocking_s;
      std::int64_t cycles = last_checkpoint_k_ - s_.pos_k;
      if (s_.preemption_armed) {
        const double fit = std::ceil((s_.next_preemption_s - now()) / cycle) - 1.0;
        cycles = std::min<std::int64_t>(cycles, fit > 0.0 ? static_cast<std::int64_t>(fit) : 0);
      }
      if (cycles >= 2) {
        s_.working = true;
        s_.segment_start_s = now();
        s_.segment_start_pos = s_.pos;
        next(now() + static_cast<double>(cycles) * cycle, Next::kFastForward, static_cast<double>(cycles));
        return;
      }
    }
    double target = p_.work_s;
    if (interval > 0.0) {
      target = std::min(target, static_cast<double>(s_.pos_k + 1) * interval);
    }
    s_.working = true;
    s_.segment_start_s = now();
    s_.segment_start_pos = s_.pos;
    next(now() + (target - s_.pos), Next::kReach, target);
  }

  void fast_forwarded(std::int64_t cycles) {
    s_.working = false;
    s_.pos_k += cycles;
    s_.pos = static_cast<double>(s_.pos_k) * p_.checkpoint_interval_s;
    s_.last_ckpt = s_.pos;
    s_.last_k = s_.pos_k;
    begin_work();
  }

  void reach(double target) {
    s_.working = false;
    s_.pos = target;
    if (s_.pos >= p_.work_s) {
      s_.out.finished = true;
      s_.out.wall_s = now();
      close_period(now());
      return;
    }
    ++s_.pos_k;
    if (p_.checkpoint_blocking_s > 0.0) {
      next(now() + p_.checkpoint_blocking_s, Next::kCheckpointDone);
    } else {
      checkpoint_done();
    }
  }

  void checkpoint_done() {
    if (p_.checkpoint_background_s > 0.0) {
      pending_checkpoints_.push_back({s_.pos, s_.pos_k, now() + p_.checkpoint_background_s});
    } else {
      s_.last_ckpt = s_.pos;
      s_.last_k = s_.pos_k;
    }
    begin_work();
  }

  void preempt() {
    s_.preemption_armed = false;
    ++s_.out.preemptions;
    // Work done so far: inside a plain segment, linear in time; inside a fast-forward, the
    // whole cycles done count (their checkpoints completed), the rest of the work is lost.
    double reached = s_.pos;
    if (s_.working) {
      reached = s_.segment_start_pos + (now() - s_.segment_start_s);
      if (s_.pending == Next::kFastForward) {
        const double cycle = p_.checkpoint_interval_s + p_.checkpoint_blocking_s;
        const auto done = static_cast<std::int64_t>(std::floor((now() - s_.segment_start_s) / cycle));
        const double into = now() - s_.segment_start_s - static_cast<double>(done) * cycle;
        s_.pos_k += done;
        s_.last_k = s_.pos_k;
        s_.last_ckpt = static_cast<double>(s_.pos_k) * p_.checkpoint_interval_s;
        reached = s_.last_ckpt + std::min(into, p_.checkpoint_interval_s);
      }
    }
    for (const PendingCheckpoint& c : pending_checkpoints_) {
      if (c.done_s <= now() && c.pos > s_.last_ckpt) {
        s_.last_ckpt = c.pos;
        s_.last_k = c.k;
      }
    }
    pending_checkpoints_.clear();
    if (!p_.checkpoints_survive_preemption) {
      s_.last_ckpt = 0.0;  // the preempted node's disk held them: back to the start
      s_.last_k = 0;
    }
    s_.out.lost_work_s += std::max(0.0, reached - s_.last_ckpt);
    s_.pos = s_.last_ckpt;
    s_.pos_k = s_.last_k;
    s_.working = false;
    if (trace_ && !trace_->capacity_at(now())) {
      wait_for_capacity();
      return;
    }
    begin_period(std::max(0, p_.nodes - 1));
    if (trace_) arm_preemption();  // a further drop while waiting preempts again
    next(now() + p_.replacement_wait_s, Next::kRecover);
  }

  void wait_for_capacity() {
    begin_period(0);
    s_.preemption_armed = false;
    const double t = trace_->next_capacity_after(now());
    if (t < kInf) {
      next(t, Next::kRecover);
    } else {
      s_.has_pending = false;
    }
  }

  void recover() {
    const double restore = s_.last_ckpt > 0.0 ? p_.restore_s : 0.0;
    up(p_.startup_s + restore + p_.warmup_s);
  }

  struct PendingCheckpoint {
    double pos;
    std::int64_t k;
    double done_s;
  };

  /// What one trial changes; reset to this at the start of each.
  struct State {
    sim::SimTime now_tick = 0;       ///< the time of the event being processed
    double now_s = 0.0;              ///< the same in seconds (sim::to_seconds: one division per event)
    bool has_pending = false;        ///< whether the process has an event besides the cap
    sim::SimTime pending_tick = 0;   ///< when it is due
    double pending_s = 0.0;          ///< the same in seconds
    Next pending = Next::kBeginWork;
    double pending_arg = 0.0;
    bool preemption_armed = false;
    double next_preemption_s = kInf;
    double pos = 0.0;
    std::int64_t pos_k = 0;
    double last_ckpt = 0.0;
    std::int64_t last_k = 0;
    bool working = false;
    double segment_start_s = 0.0;
    double segment_start_pos = 0.0;
    double period_start_s = 0.0;
    int billed_nodes = 0;
    SpotTrial out;
  };

  const SpotJobParams& p_;
  std::vector<std::string> names_;         ///< per node: its stream's component name
  std::vector<sim::RandomStream> streams_;  ///< per node (Poisson mode), reseeded per trial
  std::vector<double> draws_;               ///< per node: the uniform of its next preemption
  std::optional<TraceIndex> trace_;
  std::int64_t last_checkpoint_k_ = 0;  ///< index of the last checkpoint before the end of the work
  std::vector<PendingCheckpoint> pending_checkpoints_;
  State s_;
};

void require_valid(const SpotJobParams& params) {
  if (!(params.work_s > 0.0) || !(params.cap_s > 0.0) || params.nodes < 1) {
    throw std::invalid_argument("simulate_spot_trial: work, cap and nodes must be positive");
  }
}

}  // namespace

SpotTrial simulate_spot_trial(const SpotJobParams& params, std::uint64_t seed, std::uint64_t trial) {
  require_valid(params);
  TrialRunner runner(params);
  return runner.run(seed, trial);
}

SpotSummary run_spot_monte_carlo(const SpotJobParams& params, int trials, std::uint64_t seed,
                                 double no_preemption_s) {
  SpotSummary s;
  s.trials = std::max(trials, 1);
  std::vector<double> walls;
  std::vector<double> costs;
  walls.reserve(static_cast<std::size_t>(s.trials));
  costs.reserve(static_cast<std::size_t>(s.trials));
  double wall_sum = 0.0;
  double preemptions = 0.0;
  require_valid(params);
  TrialRunner runner(params);
  for (int i = 0; i < s.trials; ++i) {
    const SpotTrial t = runner.run(seed, static_cast<std::uint64_t>(i));
    walls.push_back(t.wall_s);
    costs.push_back(t.cost_usd);
    wall_sum += t.wall_s;
    preemptions += t.preemptions;
    s.finished += t.finished ? 1 : 0;
    s.events += t.events;
  }
  s.wall_mean_s = wall_sum / s.trials;
  s.preemptions_mean = preemptions / s.trials;
  s.lost_time_share = wall_sum > 0.0 ? std::max(0.0, 1.0 - no_preemption_s * s.trials / wall_sum) : 0.0;
  s.wall_p50_s = nearest_rank_quantile(walls, 0.5);
  s.wall_p90_s = nearest_rank_quantile(walls, 0.9);
  s.cost_p50_usd = nearest_rank_quantile(costs, 0.5);
  s.cost_p90_usd = nearest_rank_quantile(costs, 0.9);
  return s;
}

std::optional<SpotSegmentMoments> spot_segment_moments(const SpotJobParams& p) {
  const double lambda = p.nodes * p.preemption_rate_per_s;  // preemptions of the job per second up
  if (p.trace != nullptr || !(lambda > 0.0) || !(p.checkpoint_interval_s > 0.0) || p.checkpoint_background_s > 0.0 ||
      !p.checkpoints_survive_preemption) {
    return std::nullopt;
  }
  const double window = p.checkpoint_interval_s + p.checkpoint_blocking_s;  // L
  const double retry = p.startup_s + p.restore_s + p.warmup_s + window;      // R + L
  const double wait = p.replacement_wait_s;                                  // D
  // Moments of an exponential X (rate lambda) cut to X < t: P(X < t), E[X | X < t], E[X^2 | X < t].
  const auto cut = [lambda](double t) {
    const double fail = -std::expm1(-lambda * t);
    const double e = 1.0 - fail;
    const double m1 = (fail / lambda - e * t) / fail;
    const double m2 = (2.0 * fail / (lambda * lambda) - e * (t * t + 2.0 * t / lambda)) / fail;
    return std::array<double, 3>{fail, m1, m2};
  };
  // The first try: the window alone, preempted with probability 1 - q at Y < L; then the
  // wait D and tries of R + L, each preempted with probability 1 - r at Y' < R + L and then
  // waiting D again: G ~ geometric failed tries, each costing Z = Y' + D, then R + L.
  const auto [first_fails, y1, y2] = cut(window);
  const auto [retry_fails, yr1, yr2] = cut(retry);
  const double r = 1.0 - retry_fails;
  const double z1 = yr1 + wait;
  const double z_var = yr2 - yr1 * yr1;
  const double g1 = retry_fails / r;
  const double g2 = retry_fails * (1.0 + retry_fails) / (r * r);
  const double v1 = retry + g1 * z1;
  const double v2 = retry * retry + 2.0 * retry * g1 * z1 + g1 * z_var + g2 * z1 * z1;
  const double f1 = y1 + wait + v1;
  const double f2 = y2 + 2.0 * y1 * wait + wait * wait + 2.0 * (y1 + wait) * v1 + v2;
  SpotSegmentMoments m;
  m.mean_s = (1.0 - first_fails) * window + first_fails * f1;
  m.variance_s2 = std::max(0.0, (1.0 - first_fails) * window * window + first_fails * f2 - m.mean_s * m.mean_s);
  return m;
}

double spot_finish_share_bound(const SpotJobParams& p) {
  const std::optional<SpotSegmentMoments> m = spot_segment_moments(p);
  if (!m) return 1.0;
  const double segments = std::floor(p.work_s / p.checkpoint_interval_s) - 1.0;
  if (!(segments >= 1.0)) return 1.0;
  const double mean = segments * m->mean_s;
  const double variance = segments * m->variance_s2;
  if (std::isinf(mean) && !std::isnan(m->mean_s)) return 0.0;  // a try that never succeeds in double range
  if (!std::isfinite(mean) || !std::isfinite(variance) || mean <= p.cap_s) return 1.0;
  const double gap = mean - p.cap_s;
  return variance / (variance + gap * gap);
}

double mean_time_between_preemptions_s(int nodes, double rate_per_s, const AvailabilityTrace* trace) {
  if (trace != nullptr) {
    const int drops = trace_drops(*trace);
    double up_s = 0.0;
    for (int a : trace->alive) up_s += a > 0 ? trace->gap_s : 0.0;
    return drops > 0 ? up_s / drops : kInf;
  }
  return rate_per_s > 0.0 && nodes > 0 ? 1.0 / (nodes * rate_per_s) : kInf;
}

int trace_drops(const AvailabilityTrace& trace) {
  int drops = 0;
  for (std::size_t i = 1; i < trace.alive.size(); ++i) drops += trace.alive[i] < trace.alive[i - 1] ? 1 : 0;
  return drops;
}

}  // namespace gpuplan::models

#include "models/job/spot_job.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "models/cost/cost.h"
#include "models/spot/preemption.h"
#include "sim/engine.h"
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

/// One trial. At most one event of the process is pending besides the cap: the next of
/// (what the job is doing ends, the next preemption), so nothing stale clutters the queue.
/// Runs of blocking checkpoint cycles that end before the next preemption are taken in one
/// event (fast-forward): the state after them is exactly the state after the cycles.
class Trial {
 public:
  Trial(const SpotJobParams& p, std::uint64_t seed, std::uint64_t trial) : p_(p) {
    if (p.trace != nullptr) {
      trace_.emplace(*p.trace);
    } else if (p.preemption_rate_per_s > 0.0) {
      streams_.reserve(static_cast<std::size_t>(p.nodes));
      for (int i = 0; i < p.nodes; ++i) {
        streams_.emplace_back(seed + trial, "spot/node/" + std::to_string(i));
      }
    }
    if (p.checkpoint_interval_s > 0.0) {
      last_checkpoint_k_ = static_cast<std::int64_t>(std::ceil(p.work_s / p.checkpoint_interval_s)) - 1;
    }
  }

  SpotTrial run() {
    engine_.schedule_at(sim::to_sim_time(p_.cap_s), [this] { engine_.stop(); });
    if (trace_ && !trace_->capacity_at(0.0)) {
      wait_for_capacity();
    } else {
      up(0.0);
    }
    engine_.run();
    if (!out_.finished) {
      out_.wall_s = p_.cap_s;
      close_period(p_.cap_s);
    }
    out_.cost_usd = out_.billed_node_s * p_.price_usd_per_s;
    out_.events = engine_.events_processed();
    return out_;
  }

 private:
  enum class Next { kBeginWork, kReach, kCheckpointDone, kRecover, kPreempt, kFastForward };

  double now() const { return sim::to_seconds(engine_.now()); }

  /// Schedules `what` at `t`, or the pending preemption instead when it comes first (ties go
  /// to the preemption). Nothing is scheduled at or beyond the cap.
  void next(double t, Next what, double arg = 0.0) {
    if (preemption_armed_ && next_preemption_s_ <= t) {
      t = next_preemption_s_;
      what = Next::kPreempt;
    }
    ++generation_;
    if (!(t < p_.cap_s)) return;
    pending_ = what;
    pending_arg_ = arg;
    const std::uint64_t g = generation_;
    engine_.schedule_at(sim::to_sim_time(t), [this, g] {
      if (g == generation_) dispatch();
    });
  }

  void dispatch() {
    switch (pending_) {
      case Next::kBeginWork: begin_work(); break;
      case Next::kReach: reach(pending_arg_); break;
      case Next::kCheckpointDone: checkpoint_done(); break;
      case Next::kRecover: recover(); break;
      case Next::kPreempt: preempt(); break;
      case Next::kFastForward: fast_forwarded(static_cast<std::int64_t>(pending_arg_)); break;
    }
  }

  void close_period(double t) {
    if (billed_nodes_ > 0) {
      out_.billed_node_s += billed_nodes_ * billed_seconds(t - period_start_s_, p_.billing_granularity_s);
    }
    billed_nodes_ = 0;
  }
  void begin_period(int nodes) {
    close_period(now());
    period_start_s_ = now();
    billed_nodes_ = nodes;
  }

  /// Draws (Poisson) or looks up (trace) the next preemption after now and arms it.
  void arm_preemption() {
    double t = kInf;
    if (trace_) {
      t = trace_->next_drop_after(now());
    } else if (!streams_.empty()) {
      const double mean = 1.0 / p_.preemption_rate_per_s;
      double first = kInf;
      for (sim::RandomStream& s : streams_) first = std::min(first, s.exponential(mean));
      t = now() + first;
    }
    next_preemption_s_ = t;
    preemption_armed_ = t < kInf;
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
    if (interval > 0.0 && p_.checkpoint_background_s == 0.0 && pos_k_ < last_checkpoint_k_) {
      // Whole cycles (interval of work + blocking write) that end strictly before the next
      // preemption (or all remaining ones when none is armed).
      const double cycle = interval + p_.checkpoint_blocking_s;
      std::int64_t cycles = last_checkpoint_k_ - pos_k_;
      if (preemption_armed_) {
        const double fit = std::ceil((next_preemption_s_ - now()) / cycle) - 1.0;
        cycles = std::min<std::int64_t>(cycles, fit > 0.0 ? static_cast<std::int64_t>(fit) : 0);
      }
      if (cycles >= 2) {
        working_ = true;
        segment_start_s_ = now();
        segment_start_pos_ = pos_;
        next(now() + static_cast<double>(cycles) * cycle, Next::kFastForward, static_cast<double>(cycles));
        return;
      }
    }
    double target = p_.work_s;
    if (interval > 0.0) {
      target = std::min(target, static_cast<double>(pos_k_ + 1) * interval);
    }
    working_ = true;
    segment_start_s_ = now();
    segment_start_pos_ = pos_;
    next(now() + (target - pos_), Next::kReach, target);
  }

  void fast_forwarded(std::int64_t cycles) {
    working_ = false;
    pos_k_ += cycles;
    pos_ = static_cast<double>(pos_k_) * p_.checkpoint_interval_s;
    last_ckpt_ = pos_;
    last_k_ = pos_k_;
    begin_work();
  }

  void reach(double target) {
    working_ = false;
    pos_ = target;
    if (pos_ >= p_.work_s) {
      out_.finished = true;
      out_.wall_s = now();
      close_period(now());
      engine_.stop();
      return;
    }
    ++pos_k_;
    if (p_.checkpoint_blocking_s > 0.0) {
      next(now() + p_.checkpoint_blocking_s, Next::kCheckpointDone);
    } else {
      checkpoint_done();
    }
  }

  void checkpoint_done() {
    if (p_.checkpoint_background_s > 0.0) {
      pending_checkpoints_.push_back({pos_, pos_k_, now() + p_.checkpoint_background_s});
    } else {
      last_ckpt_ = pos_;
      last_k_ = pos_k_;
    }
    begin_work();
  }

  void preempt() {
    preemption_armed_ = false;
    ++out_.preemptions;
    // Work done so far: inside a plain segment, linear in time; inside a fast-forward, the
    // whole cycles done count (their checkpoints completed), the rest of the work is lost.
    double reached = pos_;
    if (working_) {
      reached = segment_start_pos_ + (now() - segment_start_s_);
      if (pending_ == Next::kFastForward) {
        const double cycle = p_.checkpoint_interval_s + p_.checkpoint_blocking_s;
        const auto done = static_cast<std::int64_t>(std::floor((now() - segment_start_s_) / cycle));
        const double into = now() - segment_start_s_ - static_cast<double>(done) * cycle;
        pos_k_ += done;
        last_k_ = pos_k_;
        last_ckpt_ = static_cast<double>(pos_k_) * p_.checkpoint_interval_s;
        reached = last_ckpt_ + std::min(into, p_.checkpoint_interval_s);
      }
    }
    for (const PendingCheckpoint& c : pending_checkpoints_) {
      if (c.done_s <= now() && c.pos > last_ckpt_) {
        last_ckpt_ = c.pos;
        last_k_ = c.k;
      }
    }
    pending_checkpoints_.clear();
    if (!p_.checkpoints_survive_preemption) {
      last_ckpt_ = 0.0;  // the preempted node's disk held them: back to the start
      last_k_ = 0;
    }
    out_.lost_work_s += std::max(0.0, reached - last_ckpt_);
    pos_ = last_ckpt_;
    pos_k_ = last_k_;
    working_ = false;
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
    preemption_armed_ = false;
    const double t = trace_->next_capacity_after(now());
    if (t < kInf) {
      next(t, Next::kRecover);
    } else {
      ++generation_;
    }
  }

  void recover() {
    const double restore = last_ckpt_ > 0.0 ? p_.restore_s : 0.0;
    up(p_.startup_s + restore + p_.warmup_s);
  }

  struct PendingCheckpoint {
    double pos;
    std::int64_t k;
    double done_s;
  };

  const SpotJobParams& p_;
  sim::Engine engine_;
  std::vector<sim::RandomStream> streams_;
  std::optional<TraceIndex> trace_;
  std::uint64_t generation_ = 0;
  Next pending_ = Next::kBeginWork;
  double pending_arg_ = 0.0;
  bool preemption_armed_ = false;
  double next_preemption_s_ = kInf;
  std::int64_t last_checkpoint_k_ = 0;  ///< index of the last checkpoint before the end of the work
  double pos_ = 0.0;
  std::int64_t pos_k_ = 0;
  double last_ckpt_ = 0.0;
  std::int64_t last_k_ = 0;
  bool working_ = false;
  double segment_start_s_ = 0.0;
  double segment_start_pos_ = 0.0;
  std::vector<PendingCheckpoint> pending_checkpoints_;
  double period_start_s_ = 0.0;
  int billed_nodes_ = 0;
  SpotTrial out_;
};

}  // namespace

SpotTrial simulate_spot_trial(const SpotJobParams& params, std::uint64_t seed, std::uint64_t trial) {
  if (!(params.work_s > 0.0) || !(params.cap_s > 0.0) || params.nodes < 1) {
    throw std::invalid_argument("simulate_spot_trial: work, cap and nodes must be positive");
  }
  Trial t(params, seed, trial);
  return t.run();
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
  for (int i = 0; i < s.trials; ++i) {
    const SpotTrial t = simulate_spot_trial(params, seed, static_cast<std::uint64_t>(i));
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

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
  double now() const { return sim::to_seconds(engine_.now()); }

  template <typename F>
  void at(double t, F f) {
    if (!(t < p_.cap_s)) return;  // beyond the cap: the cap event stops the trial first
    const std::uint64_t g = generation_;
    engine_.schedule_at(sim::to_sim_time(t), [this, g, f] {
      if (g == generation_) f();
    });
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

  void schedule_preemption() {
    double t = kInf;
    if (trace_) {
      t = trace_->next_drop_after(now());
    } else if (!streams_.empty()) {
      const double mean = 1.0 / p_.preemption_rate_per_s;
      double first = kInf;
      for (sim::RandomStream& s : streams_) first = std::min(first, s.exponential(mean));
      t = now() + first;
    }
    if (t < kInf) at(t, [this] { preempt(); });
  }

  void up(double recovery_s) {
    ++generation_;
    begin_period(p_.nodes);
    schedule_preemption();
    if (recovery_s > 0.0) {
      at(now() + recovery_s, [this] { begin_work(); });
    } else {
      begin_work();
    }
  }

  void begin_work() {
    double target = p_.work_s;
    if (p_.checkpoint_interval_s > 0.0) {
      target = std::min(target, static_cast<double>(pos_k_ + 1) * p_.checkpoint_interval_s);
    }
    working_ = true;
    segment_start_s_ = now();
    segment_start_pos_ = pos_;
    at(now() + (target - pos_), [this, target] { reach(target); });
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
    const double done = now() + p_.checkpoint_blocking_s;
    at(done, [this] {
      if (p_.checkpoint_background_s > 0.0) {
        pending_.push_back({pos_, pos_k_, now() + p_.checkpoint_background_s});
      } else {
        last_ckpt_ = pos_;
        last_k_ = pos_k_;
      }
      begin_work();
    });
  }

  void preempt() {
    ++generation_;
    ++out_.preemptions;
    const double reached = working_ ? segment_start_pos_ + (now() - segment_start_s_) : pos_;
    for (const Pending& c : pending_) {
      if (c.done_s <= now() && c.pos > last_ckpt_) {
        last_ckpt_ = c.pos;
        last_k_ = c.k;
      }
    }
    pending_.clear();
    out_.lost_work_s += std::max(0.0, reached - last_ckpt_);
    pos_ = last_ckpt_;
    pos_k_ = last_k_;
    working_ = false;
    if (trace_ && !trace_->capacity_at(now())) {
      wait_for_capacity();
      return;
    }
    begin_period(std::max(0, p_.nodes - 1));
    if (trace_) schedule_preemption();  // a further drop while waiting preempts again
    at(now() + p_.replacement_wait_s, [this] { recover(); });
  }

  void wait_for_capacity() {
    begin_period(0);
    const double t = trace_->next_capacity_after(now());
    if (t < kInf) at(t, [this] { recover(); });
  }

  void recover() {
    const double restore = last_ckpt_ > 0.0 ? p_.restore_s : 0.0;
    up(p_.startup_s + restore + p_.warmup_s);
  }

  struct Pending {
    double pos;
    std::int64_t k;
    double done_s;
  };

  const SpotJobParams& p_;
  sim::Engine engine_;
  std::vector<sim::RandomStream> streams_;
  std::optional<TraceIndex> trace_;
  std::uint64_t generation_ = 0;
  double pos_ = 0.0;
  std::int64_t pos_k_ = 0;
  double last_ckpt_ = 0.0;
  std::int64_t last_k_ = 0;
  bool working_ = false;
  double segment_start_s_ = 0.0;
  double segment_start_pos_ = 0.0;
  std::vector<Pending> pending_;
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

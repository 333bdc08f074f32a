#include "models/step/step_simulation.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <stdexcept>

#include "sim/engine.h"
#include "sim/fifo_server.h"
#include "sim/sim_time.h"

namespace gpuplan::models {
namespace {

using sim::SimTime;

/// What the host (the training process's main thread) is doing.
enum class HostState { kWaitingData, kLoading, kCopying, kDispatching, kSyncing };

struct Interval {
  SimTime start;
  SimTime end;
  bool optimizer;
};

struct MicroStep {
  SimTime start = 0;
  bool final = false;
};

/// One simulation run of a plan; lives for the duration of simulate_steps().
class StepProcess {
 public:
  StepProcess(const StepPlan& plan, int simulated_accumulation, int trace_micro_steps)
      : plan_(plan),
        accumulation_(simulated_accumulation),
        trace_micro_steps_(trace_micro_steps),
        gpu_(engine_, "gpu", 1),
        copy_engine_(engine_, "h2d", 1),
        workers_(engine_, "data_workers", std::max(1, plan.loader.workers)) {
    engine_.set_trace_hook([this](const sim::TraceEvent& e) { on_trace(e); });
  }

  /// Runs until `micro_steps` micro-steps have started and the engine drains.
  void run_until(int micro_steps) {
    target_micro_steps_ = micro_steps;
    if (!running_) {
      running_ = true;
      start_micro_step();
    }
    engine_.run();
  }

  const std::vector<MicroStep>& micro_steps() const { return micro_steps_; }
  const std::vector<Interval>& gpu_busy() const { return gpu_busy_; }
  const std::vector<std::pair<SimTime, SimTime>>& copies() const { return copies_; }
  const std::vector<std::pair<SimTime, HostState>>& host_states() const { return host_states_; }
  std::uint64_t events() const { return engine_.events_processed(); }
  std::vector<TraceSpan>& trace() { return trace_; }

 private:
  void set_host(HostState s) {
    if (host_states_.empty() || host_states_.back().second != s) {
      host_states_.emplace_back(engine_.now(), s);
    }
  }

  void on_trace(const sim::TraceEvent& e) {
    if (e.track == "gpu") {
      gpu_busy_.push_back({e.start, e.end, e.label == "optimizer.step"});
    } else if (e.track == "h2d") {
      copies_.emplace_back(e.start, e.end);
    }
    if (static_cast<int>(micro_steps_.size()) <= trace_micro_steps_) {
      trace_.push_back({std::string(e.track), std::string(e.label), sim::to_seconds(e.start),
                        sim::to_seconds(e.end)});
    }
  }

  // ---- data loader (placeholder until the input-pipeline issue) ----
  void issue_batches() {
    if (plan_.loader.synthetic || plan_.loader.workers == 0) {
      return;
    }
    while (issued_ < consumed_ + plan_.loader.prefetch_batches) {
      const long index = issued_++;
      workers_.submit(sim::to_sim_time(plan_.loader.batch_load_s), [this, index] { on_batch_ready(index); },
                      "batch");
    }
  }

  void on_batch_ready(long index) {
    ready_[index] = true;
    if (waiting_for_ == index) {
      waiting_for_ = -1;
      take_batch();
    }
  }

  // ---- host process ----
  void start_micro_step() {
    const int index = static_cast<int>(micro_steps_.size());
    if (index >= target_micro_steps_) {
      running_ = false;
      return;
    }
    micro_steps_.push_back({engine_.now(), (index % accumulation_) == accumulation_ - 1});
    if (plan_.loader.synthetic) {
      after_copy();
      return;
    }
    if (plan_.loader.workers == 0) {
      // num_workers = 0: the main process loads the batch itself, serially.
      set_host(HostState::kLoading);
      engine_.schedule_in(sim::to_sim_time(plan_.loader.batch_load_s), [this] { start_copy(); });
      return;
    }
    issue_batches();
    set_host(HostState::kWaitingData);
    const long index_wanted = consumed_;
    if (ready_[index_wanted]) {
      take_batch();
    } else {
      waiting_for_ = index_wanted;
    }
  }

  void take_batch() {
    ready_.erase(consumed_);
    ++consumed_;
    issue_batches();
    start_copy();
  }

  void start_copy() {
    const SimTime copy_time = sim::to_sim_time(plan_.h2d_bytes / plan_.h2d_bytes_per_s);
    if (plan_.pinned) {
      // Pinned + non_blocking: the copy engine works while the host dispatches; the stream
      // holds kernels behind the copy.
      hold_gpu_ = true;
      copy_engine_.submit(copy_time, [this] { release_gpu(); }, "batch H2D");
      after_copy();
      return;
    }
    // Pageable: cudaMemcpy from pageable memory is synchronous for the host and ordered in
    // the stream after the previous kernels.
    when_gpu_idle([this, copy_time] {
      set_host(HostState::kCopying);
      copy_engine_.submit(copy_time, [this] { after_copy(); }, "batch H2D (pageable)");
    });
  }

  void after_copy() {
    unit_index_ = 0;
    phase_ = 0;
    if (plan_.loader.gpu_preprocess_s > 0.0) {
      submit_gpu("decode (GPU)", plan_.loader.gpu_preprocess_s);
    }
    dispatch_next();
  }

  const std::vector<DispatchUnit>* phase_units() const {
    switch (phase_) {
      case 0: return &plan_.forward;
      case 1: return &plan_.backward;
      case 2: return micro_steps_.back().final ? &plan_.optimizer : nullptr;
      default: return nullptr;
    }
  }

  void dispatch_next() {
    const std::vector<DispatchUnit>* units = phase_units();
    while (units != nullptr && unit_index_ >= units->size()) {
      ++phase_;
      unit_index_ = 0;
      units = phase_units();
      if (phase_ > 2) {
        break;
      }
    }
    if (units == nullptr) {
      end_micro_step();
      return;
    }
    const DispatchUnit& u = (*units)[unit_index_++];
    set_host(HostState::kDispatching);
    engine_.schedule_in(sim::to_sim_time(u.dispatch_s), [this, &u] {
      submit_gpu(u.label, u.gpu_s);
      dispatch_next();
    });
  }

  void end_micro_step() {
    // The loss is read every micro-step (loss.item()): the host waits for the GPU.
    set_host(HostState::kSyncing);
    when_gpu_idle([this] { start_micro_step(); });
  }

  // ---- GPU stream ----
  void submit_gpu(const std::string& label, double gpu_s) {
    if (hold_gpu_) {
      held_.push_back({label, gpu_s});
      return;
    }
    ++gpu_outstanding_;
    gpu_.submit(sim::to_sim_time(gpu_s), [this] { on_gpu_done(); }, label);
  }

  void release_gpu() {
    hold_gpu_ = false;
    std::deque<std::pair<std::string, double>> held;
    held.swap(held_);
    for (const auto& [label, gpu_s] : held) {
      submit_gpu(label, gpu_s);
    }
    check_idle();
  }

  void on_gpu_done() {
    --gpu_outstanding_;
    check_idle();
  }

  void when_gpu_idle(std::function<void()> callback) {
    idle_waiters_.push_back(std::move(callback));
    check_idle();
  }

  void check_idle() {
    if (gpu_outstanding_ == 0 && !hold_gpu_ && held_.empty() && !idle_waiters_.empty()) {
      auto waiters = std::move(idle_waiters_);
      idle_waiters_.clear();
      for (auto& w : waiters) {
        w();
      }
    }
  }

  const StepPlan& plan_;
  int accumulation_;
  int trace_micro_steps_;
  sim::Engine engine_;
  sim::FifoServer gpu_;
  sim::FifoServer copy_engine_;
  sim::FifoServer workers_;
  int target_micro_steps_ = 0;
  bool running_ = false;
  std::vector<MicroStep> micro_steps_;
  std::vector<Interval> gpu_busy_;
  std::vector<std::pair<SimTime, SimTime>> copies_;
  std::vector<std::pair<SimTime, HostState>> host_states_;
  std::vector<TraceSpan> trace_;
  long issued_ = 0;
  long consumed_ = 0;
  long waiting_for_ = -1;
  std::map<long, bool> ready_;
  std::size_t unit_index_ = 0;
  int phase_ = 0;
  int gpu_outstanding_ = 0;
  bool hold_gpu_ = false;
  std::deque<std::pair<std::string, double>> held_;
  std::vector<std::function<void()>> idle_waiters_;
};

/// Time of [a, b) split by where it went.
struct Attribution {
  double compute_s = 0.0;
  double optimizer_s = 0.0;
  double data_wait_s = 0.0;
  double h2d_s = 0.0;
  double dispatch_s = 0.0;
  double total() const { return compute_s + optimizer_s + data_wait_s + h2d_s + dispatch_s; }
};

Attribution attribute(const StepProcess& p, SimTime a, SimTime b) {
  Attribution out;
  // GPU busy parts.
  std::vector<std::pair<SimTime, SimTime>> busy;
  for (const Interval& iv : p.gpu_busy()) {
    const SimTime s = std::max(iv.start, a);
    const SimTime e = std::min(iv.end, b);
    if (e > s) {
      (iv.optimizer ? out.optimizer_s : out.compute_s) += sim::to_seconds(e - s);
      busy.emplace_back(s, e);
    }
  }
  std::sort(busy.begin(), busy.end());
  // Idle gaps, attributed to what held the GPU back.
  std::vector<std::pair<SimTime, SimTime>> gaps;
  SimTime cursor = a;
  for (const auto& [s, e] : busy) {
    if (s > cursor) gaps.emplace_back(cursor, s);
    cursor = std::max(cursor, e);
  }
  if (b > cursor) gaps.emplace_back(cursor, b);
  const auto& states = p.host_states();
  for (const auto& [gs, ge] : gaps) {
    // Walk the host states overlapping [gs, ge).
    auto it = std::upper_bound(states.begin(), states.end(), gs,
                               [](SimTime t, const auto& st) { return t < st.first; });
    HostState state = it == states.begin() ? HostState::kDispatching : std::prev(it)->second;
    SimTime t = gs;
    while (t < ge) {
      const SimTime next = (it != states.end() && it->first < ge) ? it->first : ge;
      const double span = sim::to_seconds(next - t);
      bool copying = false;
      for (const auto& [cs, ce] : p.copies()) {
        if (cs < next && ce > t) {
          copying = true;
          break;
        }
      }
      switch (state) {
        case HostState::kWaitingData:
        case HostState::kLoading: out.data_wait_s += span; break;
        case HostState::kCopying: out.h2d_s += span; break;
        case HostState::kDispatching:
        case HostState::kSyncing: (copying ? out.h2d_s : out.dispatch_s) += span; break;
      }
      t = next;
      if (it != states.end() && it->first <= t) {
        state = it->second;
        ++it;
      }
    }
  }
  return out;
}

void add(Attribution& into, const Attribution& x, double weight) {
  into.compute_s += weight * x.compute_s;
  into.optimizer_s += weight * x.optimizer_s;
  into.data_wait_s += weight * x.data_wait_s;
  into.h2d_s += weight * x.h2d_s;
  into.dispatch_s += weight * x.dispatch_s;
}

}  // namespace

StepStats simulate_steps(const StepPlan& plan, const StepSimOptions& options) {
  if (plan.forward.empty()) {
    throw std::invalid_argument("simulate_steps: the plan has no forward ops");
  }
  const int ga = plan.gradient_accumulation;
  const int simulated_ga = std::min(ga, 3);
  const double nonfinal_weight = simulated_ga > 1 ? static_cast<double>(ga - 1) / (simulated_ga - 1) : 0.0;
  StepProcess process(plan, simulated_ga, options.trace_steps * simulated_ga);

  int steps = options.warmup_steps + options.min_steps;
  std::vector<Attribution> per_step;
  while (true) {
    process.run_until(steps * simulated_ga + 1);
    const auto& micro = process.micro_steps();
    per_step.clear();
    for (int s = options.warmup_steps; s < steps; ++s) {
      Attribution step;
      for (int m = 0; m < simulated_ga; ++m) {
        const int i = s * simulated_ga + m;
        const Attribution a = attribute(process, micro[i].start, micro[i + 1].start);
        add(step, a, micro[i].final ? 1.0 : nonfinal_weight);
      }
      per_step.push_back(step);
    }
    const double n = static_cast<double>(per_step.size());
    double mean = 0.0;
    for (const auto& s : per_step) mean += s.total() / n;
    double var = 0.0;
    for (const auto& s : per_step) var += (s.total() - mean) * (s.total() - mean) / std::max(1.0, n - 1);
    const double half_width = 1.96 * std::sqrt(var / n);
    if (half_width <= options.relative_precision * mean || steps - options.warmup_steps >= options.max_steps) {
      break;
    }
    steps = std::min(options.warmup_steps + options.max_steps, steps * 2);
  }

  Attribution mean;
  for (const auto& s : per_step) add(mean, s, 1.0 / static_cast<double>(per_step.size()));
  StepStats stats;
  stats.breakdown.gpu_compute_s = mean.compute_s;
  stats.breakdown.optimizer_s = mean.optimizer_s;
  stats.breakdown.data_wait_s = mean.data_wait_s;
  stats.breakdown.h2d_s = mean.h2d_s;
  stats.breakdown.host_dispatch_wait_s = mean.dispatch_s;
  stats.breakdown.step_time_s = mean.total();
  stats.gpu_busy_s = mean.compute_s + mean.optimizer_s;
  stats.steps_measured = static_cast<int>(per_step.size());
  stats.events = process.events();
  stats.trace = std::move(process.trace());
  return stats;
}

}  // namespace gpuplan::models

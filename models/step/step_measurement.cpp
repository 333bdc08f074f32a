#include "models/step/step_measurement.h"

#include <algorithm>

#include "sim/reused_storage.h"

namespace gpuplan::models {
namespace {

using sim::SimTime;

/// Length of [a, b) covered by `intervals` (sorted by start, not overlapping), ns.
SimTime covered(const std::vector<std::pair<SimTime, SimTime>>& intervals, SimTime a, SimTime b) {
  if (b <= a || intervals.empty()) return 0;
  auto it = std::upper_bound(intervals.begin(), intervals.end(), a,
                             [](SimTime t, const auto& iv) { return t < iv.second; });
  SimTime total = 0;
  for (; it != intervals.end() && it->first < b; ++it) {
    const SimTime s = std::max(it->first, a);
    const SimTime e = std::min(it->second, b);
    if (e > s) total += e - s;
  }
  return total;
}

}  // namespace

void Attribution::add(const Attribution& x, double weight) {
  compute_s += weight * x.compute_s;
  optimizer_s += weight * x.optimizer_s;
  data_wait_s += weight * x.data_wait_s;
  h2d_s += weight * x.h2d_s;
  dispatch_s += weight * x.dispatch_s;
  comm_s += weight * x.comm_s;
  host_optimizer_s += weight * x.host_optimizer_s;
  pipeline_bubble_s += weight * x.pipeline_bubble_s;
}

struct StepMeasurement::Spare {
  std::vector<MicroStep> micro_steps;
  std::vector<Busy> gpu_busy;
  std::vector<Span> comm_busy;
  std::vector<Span> pipeline_waits;
  std::vector<Span> copies;
  std::vector<std::pair<sim::SimTime, HostState>> host_states;
  std::vector<BatchRecord> batches;
};

StepMeasurement::Spare& StepMeasurement::spare() {
  thread_local Spare storage;
  return storage;
}

StepMeasurement::StepMeasurement(StepGraph& graph, const StepPlan& plan, bool breakdown, bool trace)
    : graph_(graph),
      breakdown_(breakdown),
      trace_(trace),
      loads_(!plan.loader.synthetic),
      main_loads_(!plan.loader.synthetic && plan.loader.workers == 0),
      pins_(plan.loader.pin_copy_s > 0.0) {
  Spare& s = spare();
  sim::take_storage(micro_steps_, s.micro_steps);
  sim::take_storage(gpu_busy_, s.gpu_busy);
  sim::take_storage(comm_busy_, s.comm_busy);
  sim::take_storage(pipeline_waits_, s.pipeline_waits);
  sim::take_storage(copies_, s.copies);
  sim::take_storage(host_states_, s.host_states);
  sim::take_storage(batches_, s.batches);
  micro_step_subscription_ =
      graph_.micro_step_started().subscribe([this](const MicroStepStarted& e) { on_micro_step(e); });
  if (breakdown_ || trace_) {
    started_subscription_ =
        graph_.graph().activity_started().subscribe([this](const sim::ActivityStarted& e) { on_started(e); });
    finished_subscription_ =
        graph_.graph().activity_finished().subscribe([this](const sim::ActivityFinished& e) { on_finished(e); });
  }
}

StepMeasurement::~StepMeasurement() {
  graph_.micro_step_started().unsubscribe(micro_step_subscription_);
  if (breakdown_ || trace_) {
    graph_.graph().activity_started().unsubscribe(started_subscription_);
    graph_.graph().activity_finished().unsubscribe(finished_subscription_);
  }
  // Leave the larger storage for the next measurement on this thread.
  Spare& s = spare();
  sim::keep_storage(micro_steps_, s.micro_steps);
  sim::keep_storage(gpu_busy_, s.gpu_busy);
  sim::keep_storage(comm_busy_, s.comm_busy);
  sim::keep_storage(pipeline_waits_, s.pipeline_waits);
  sim::keep_storage(copies_, s.copies);
  sim::keep_storage(host_states_, s.host_states);
  sim::keep_storage(batches_, s.batches);
}

void StepMeasurement::set_host(HostState s, SimTime t) {
  if (host_states_.empty() || host_states_.back().second != s) {
    host_states_.emplace_back(t, s);
  }
}

StepMeasurement::BatchRecord& StepMeasurement::batch(std::uint64_t tag) {
  const auto i = static_cast<std::size_t>(tag & kTagIndexMask);
  if (i >= batches_.size()) batches_.resize(std::max(i + 1, 2 * batches_.size()));
  return batches_[i];
}

void StepMeasurement::on_micro_step(const MicroStepStarted& e) {
  micro_steps_.push_back({e.time, e.final});
  if (breakdown_ && loads_) {
    set_host(main_loads_ ? HostState::kLoading : HostState::kWaitingData, e.time);
  }
}

void StepMeasurement::on_started(const sim::ActivityStarted& e) {
  if (!breakdown_) return;
  switch (static_cast<StepActivity>(e.kind)) {
    case StepActivity::kDispatch: set_host(HostState::kDispatching, e.time); break;
    case StepActivity::kCopyPageable: set_host(HostState::kCopying, e.time); break;
    default: break;
  }
}

void StepMeasurement::on_finished(const sim::ActivityFinished& e) {
  const auto kind = static_cast<StepActivity>(e.kind);
  if (breakdown_) {
    switch (kind) {
      case StepActivity::kKernel: gpu_busy_.push_back({e.start, e.end, BusyKind::kCompute}); break;
      case StepActivity::kOptimizerKernel: gpu_busy_.push_back({e.start, e.end, BusyKind::kOptimizer}); break;
      case StepActivity::kHostOptimizer: gpu_busy_.push_back({e.start, e.end, BusyKind::kHostOptimizer}); break;
      case StepActivity::kCommKernel: gpu_busy_.push_back({e.start, e.end, BusyKind::kCommunication}); break;
      case StepActivity::kAllReduce:
      case StepActivity::kAllGather:
      case StepActivity::kReduceScatter: comm_busy_.emplace_back(e.start, e.end); break;
      case StepActivity::kPipelineWait: pipeline_waits_.emplace_back(e.start, e.end); break;
      case StepActivity::kCopyPinned:
      case StepActivity::kCopyPageable: copies_.emplace_back(e.start, e.end); break;
      case StepActivity::kActivationD2H:
      case StepActivity::kActivationH2D: offload_copies_.emplace_back(e.start, e.end); break;
      case StepActivity::kDispatch:
        if ((e.tag & kTagHostWaitsAfter) != 0) set_host(HostState::kSyncing, e.end);
        break;
      case StepActivity::kDecode: {
        // Released when its reader started the batch; began when the last byte was read.
        BatchRecord& b = batch(e.tag);
        b.read_start = e.released;
        b.read_end = e.start;
        b.decode_end = e.end;
        if (!pins_) {
          b.ready = e.end;
          b.done = true;
        }
        break;
      }
      case StepActivity::kPin: {
        BatchRecord& b = batch(e.tag);
        b.ready = e.end;
        b.done = true;
        break;
      }
      default: break;
    }
  }
  if (trace_) {
    switch (kind) {
      case StepActivity::kStorageSlot:
      case StepActivity::kDispatch: break;
      case StepActivity::kRead:
        // From the first request (queueing for a slot included) to the last byte.
        spans_.push_back({track_name(e.track), std::string(e.label), sim::to_seconds(e.released), sim::to_seconds(e.end)});
        break;
      default:
        spans_.push_back({track_name(e.track), std::string(e.label), sim::to_seconds(e.start), sim::to_seconds(e.end)});
        break;
    }
  }
}

namespace {

/// True when one of `serial` (copies one after another on one engine or stream, in order)
/// runs within [a, b): the first one ending after a is the earliest to start among those that do.
bool serial_copy_within(const std::vector<std::pair<SimTime, SimTime>>& serial, SimTime a, SimTime b) {
  const auto it = std::upper_bound(serial.begin(), serial.end(), a,
                                   [](SimTime t, const std::pair<SimTime, SimTime>& c) { return t < c.second; });
  return it != serial.end() && it->first < b;
}

}  // namespace

bool StepMeasurement::copying(SimTime a, SimTime b) const {
  return serial_copy_within(copies_, a, b) || serial_copy_within(offload_copies_, a, b);
}

Attribution StepMeasurement::attribute(SimTime a, SimTime b, double slowdown) const {
  Attribution out;
  // GPU busy parts (the compute stream's intervals, in order); compute beside a running
  // all-reduce is slowed by the plan's share.
  std::vector<Span> busy;
  auto first = std::upper_bound(gpu_busy_.begin(), gpu_busy_.end(), a,
                                [](SimTime t, const Busy& iv) { return t < iv.end; });
  for (auto iv = first; iv != gpu_busy_.end() && iv->start < b; ++iv) {
    const SimTime s = std::max(iv->start, a);
    const SimTime e = std::min(iv->end, b);
    if (e > s) {
      const double span = sim::to_seconds(e - s);
      switch (iv->kind) {
        case BusyKind::kCompute: {
          // Overlapped compute ran at 1 / (1 + slowdown) (simulated on the SMs): the
          // stretch, slowdown / (1 + slowdown) of the overlap, is communication's cost.
          const double stretch = slowdown / (1.0 + slowdown) * sim::to_seconds(covered(comm_busy_, s, e));
          out.compute_s += span - stretch;
          out.comm_s += stretch;
          break;
        }
        case BusyKind::kOptimizer: out.optimizer_s += span; break;
        case BusyKind::kHostOptimizer:
          out.optimizer_s += span;
          out.host_optimizer_s += span;
          break;
        case BusyKind::kCommunication: out.comm_s += span; break;
      }
      busy.emplace_back(s, e);
    }
  }
  // Idle gaps, attributed to what held the GPU back.
  std::vector<Span> gaps;
  SimTime cursor = a;
  for (const auto& [s, e] : busy) {
    if (s > cursor) gaps.emplace_back(cursor, s);
    cursor = std::max(cursor, e);
  }
  if (b > cursor) gaps.emplace_back(cursor, b);
  const auto& states = host_states_;
  for (const auto& [gs, ge] : gaps) {
    // Walk the host states overlapping [gs, ge).
    auto it = std::upper_bound(states.begin(), states.end(), gs,
                               [](SimTime t, const auto& st) { return t < st.first; });
    HostState state = it == states.begin() ? HostState::kDispatching : std::prev(it)->second;
    SimTime t = gs;
    while (t < ge) {
      const SimTime next = (it != states.end() && it->first < ge) ? it->first : ge;
      // The GPU idles while its pipeline stage waits for the others' activations and
      // gradients (the bubble), or while an all-reduce it must wait for runs (exposed
      // communication). The step graph emits the wait on the compute stream before the
      // stage's last micro-step, so no all-reduce of the step runs beside it.
      const SimTime in_bubble = covered(pipeline_waits_, t, next);
      const SimTime in_comm = std::min(covered(comm_busy_, t, next), next - t - in_bubble);
      out.pipeline_bubble_s += sim::to_seconds(in_bubble);
      out.comm_s += sim::to_seconds(in_comm);
      const double span = sim::to_seconds(next - t - in_bubble - in_comm);
      switch (state) {
        case HostState::kWaitingData:
        case HostState::kLoading: out.data_wait_s += span; break;
        case HostState::kCopying: out.h2d_s += span; break;
        case HostState::kDispatching:
        case HostState::kSyncing: (copying(t, next) ? out.h2d_s : out.dispatch_s) += span; break;
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

LoaderStats StepMeasurement::loader_stats(SimTime from, SimTime to) const {
  LoaderStats stats;
  int counted = 0;
  for (const BatchRecord& rec : batches_) {
    if (rec.done && rec.read_start >= from && rec.ready <= to) {
      stats.storage_s += sim::to_seconds(rec.read_end - rec.read_start);
      stats.cpu_s += sim::to_seconds(rec.decode_end - rec.read_end);
      stats.pin_s += sim::to_seconds(rec.ready - rec.decode_end);
      ++counted;
    }
  }
  if (counted > 0) {
    stats.storage_s /= counted;
    stats.cpu_s /= counted;
    stats.pin_s /= counted;
  }
  stats.batches_measured = counted;
  return stats;
}

std::pair<SimTime, SimTime> StepMeasurement::longest_batch(SimTime to) const {
  std::pair<SimTime, SimTime> longest{0, 0};
  for (const BatchRecord& rec : batches_) {
    if (!rec.done || rec.ready > to) continue;
    longest.first = std::max(longest.first, rec.ready - rec.read_start);
    longest.second = std::max(longest.second, rec.ready - rec.decode_end);
  }
  return longest;
}

std::vector<TraceSpan> StepMeasurement::take_trace(SimTime from, SimTime to) {
  const double from_s = sim::to_seconds(from);
  const double to_s = sim::to_seconds(to);
  std::vector<TraceSpan> spans = std::move(spans_);
  spans_.clear();
  std::erase_if(spans, [&](const TraceSpan& t) {
    const bool overlaps = t.start_s < to_s && t.end_s > from_s;
    const bool instant_inside = t.start_s == t.end_s && t.start_s >= from_s && t.start_s < to_s;
    return !overlaps && !instant_inside;
  });
  return spans;
}

}  // namespace gpuplan::models

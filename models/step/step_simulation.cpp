#include "models/step/step_simulation.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>

#include "sim/engine.h"
#include "sim/fifo_server.h"
#include "sim/random_stream.h"
#include "sim/shared_bandwidth.h"
#include "sim/sim_time.h"

namespace gpuplan::models {
namespace {

using sim::SimTime;

/// What the host (the training process's main thread) is doing.
enum class HostState { kWaitingData, kLoading, kCopying, kDispatching, kSyncing };

/// What a GPU-busy interval was doing.
enum class BusyKind : std::uint32_t { kCompute, kOptimizer, kCommunication };

struct Interval {
  SimTime start;
  SimTime end;
  BusyKind kind;
};

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

struct MicroStep {
  SimTime start = 0;
  bool final = false;
};

/// Per batch, what its reader saw (for the bottleneck and the loader statistics).
struct BatchRecord {
  SimTime read_start = 0;   ///< the reader started the batch (storage request submitted)
  SimTime read_end = 0;     ///< last byte read (= read_start from the page cache)
  SimTime decode_end = 0;   ///< decode + augment done
  SimTime ready = 0;        ///< in the main process (after pinning, when pinned)
  bool done = false;
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
        comm_(engine_, "nccl", 1),
        storage_slots_(engine_, "storage", std::max(1, plan.loader.storage_queue_depth)),
        cpu_(engine_) {
    const LoaderPlan& l = plan_.loader;
    readers_.resize(static_cast<std::size_t>(std::max(1, l.workers)));
    for (std::size_t r = 0; r < readers_.size(); ++r) {
      const std::string name = l.workers == 0 ? "data_loader.main" : "data_loader.worker " + std::to_string(r);
      readers_[r].random = std::make_unique<sim::RandomStream>(l.seed, name);
      readers_[r].track = l.workers == 0 ? "main process" : "worker " + std::to_string(r);
    }
    if (!l.synthetic && !l.page_cache_hit && l.storage_bytes_per_s > 0.0 && l.read_bytes > 0.0) {
      storage_link_ = cpu_.add_resource("storage_bandwidth", l.storage_bytes_per_s);
      has_storage_link_ = true;
    }
    // CPU contention: workers, the main process and the pin-memory thread share `cpu_cores`
    // cores by processor sharing (a thread gets at most one core): a max-min fair network in
    // which each thread is a resource of capacity 1 and the cores one of capacity cpu_cores.
    const int threads = std::max(0, l.workers) + 1 + (l.pin_copy_s > 0.0 && l.workers > 0 ? 1 : 0);
    contended_ = !l.synthetic && l.cpu_cores > 0 && threads > l.cpu_cores;
    if (contended_) {
      cores_ = cpu_.add_resource("cpu", static_cast<double>(l.cpu_cores));
      for (int t = 0; t < threads; ++t) {
        thread_resources_.push_back(cpu_.add_resource("thread " + std::to_string(t), 1.0));
      }
    }
    bucket_at_unit_.assign(plan_.backward.size(), -1);
    for (std::size_t b = 0; b < plan_.comm.buckets.size(); ++b) {
      bucket_at_unit_[plan_.comm.buckets[b].ready_after_unit] = static_cast<int>(b);
    }
    for (sim::FifoServer* server : {&gpu_, &copy_engine_, &comm_}) {
      server->finished().subscribe(
          [this, server](const sim::ServiceFinished& e) { on_finished(*server, e); });
    }
  }

  /// Runs until `micro_steps` micro-steps have started and ended; pending loader events stay
  /// queued for the next call.
  void run_until(int micro_steps) {
    target_micro_steps_ = micro_steps;
    if (!running_) {
      running_ = true;
      start_micro_step();
    }
    engine_.run();
  }

  /// Only batches below `batches` are ever loaded (one epoch of the exact mode).
  void limit_batches(long batches) { batch_limit_ = batches; }

  const std::vector<MicroStep>& micro_steps() const { return micro_steps_; }
  const std::vector<Interval>& gpu_busy() const { return gpu_busy_; }
  const std::vector<std::pair<SimTime, SimTime>>& copies() const { return copies_; }
  const std::vector<std::pair<SimTime, SimTime>>& comm_busy() const { return comm_busy_; }
  const std::vector<std::pair<SimTime, HostState>>& host_states() const { return host_states_; }
  const std::map<long, BatchRecord>& batches() const { return batches_; }
  SimTime last_end() const { return last_end_; }
  std::uint64_t events() const { return engine_.events_processed(); }
  std::vector<TraceSpan>& trace() { return trace_; }

 private:
  struct Reader {
    std::deque<long> queue;  ///< batch indices assigned and not started
    bool busy = false;
    std::unique_ptr<sim::RandomStream> random;
    std::string track;
  };

  void set_host(HostState s) {
    if (host_states_.empty() || host_states_.back().second != s) {
      host_states_.emplace_back(engine_.now(), s);
    }
  }

  bool tracing(long batch) const { return batch <= trace_micro_steps_; }

  void add_span(const std::string& track, long batch, SimTime start, SimTime end) {
    if (tracing(batch)) {
      trace_.push_back({track, "batch " + std::to_string(batch), sim::to_seconds(start), sim::to_seconds(end)});
    }
  }

  /// Records a completed job of one of the GPU-side servers: typed by the server it ran on
  /// and the kind it was submitted with, not by its label.
  void on_finished(const sim::FifoServer& server, const sim::ServiceFinished& e) {
    if (&server == &gpu_) {
      gpu_busy_.push_back({e.start, e.end, static_cast<BusyKind>(e.kind)});
    } else if (&server == &copy_engine_) {
      copies_.emplace_back(e.start, e.end);
    } else {
      comm_busy_.emplace_back(e.start, e.end);
    }
    if (static_cast<int>(micro_steps_.size()) <= trace_micro_steps_) {
      trace_.push_back({server.name(), std::string(e.label), sim::to_seconds(e.start),
                        sim::to_seconds(e.end)});
    }
  }

  // ---- CPU ----
  /// Runs `core_s` seconds of one core's work on `thread` (workers 0..W-1, main W, pin W+1).
  void run_cpu(int thread, double core_s, std::function<void()> done) {
    if (contended_) {
      cpu_.start_flow({thread_resources_[static_cast<std::size_t>(thread)], cores_}, core_s, std::move(done));
    } else {
      engine_.schedule_in(sim::to_sim_time(core_s), std::move(done));
    }
  }

  int main_thread() const { return std::max(0, plan_.loader.workers); }

  // ---- data loader ----
  void issue_batches() {
    if (plan_.loader.synthetic || plan_.loader.workers == 0) {
      return;
    }
    while (issued_ < consumed_ + plan_.loader.prefetch_batches && (batch_limit_ < 0 || issued_ < batch_limit_)) {
      const long index = issued_++;
      const auto worker = static_cast<std::size_t>(index % plan_.loader.workers);
      readers_[worker].queue.push_back(index);
      if (!readers_[worker].busy) {
        start_next(worker);
      }
    }
  }

  void start_next(std::size_t reader) {
    Reader& r = readers_[reader];
    if (r.queue.empty()) {
      r.busy = false;
      return;
    }
    r.busy = true;
    const long index = r.queue.front();
    r.queue.pop_front();
    read_batch(reader, index);
  }

  /// Storage phase of one batch: the reader's requests hold one device slot for their
  /// latency, then the bytes share the device bandwidth.
  void read_batch(std::size_t reader, long index) {
    const LoaderPlan& l = plan_.loader;
    BatchRecord& rec = batches_[index];
    rec.read_start = engine_.now();
    auto after_read = [this, reader, index] {
      batches_[index].read_end = engine_.now();
      add_span("storage", index, batches_[index].read_start, engine_.now());
      decode_batch(reader, index);
    };
    if (l.page_cache_hit) {
      decode_batch(reader, index);
      return;
    }
    if (l.samples_per_batch == 0) {
      // Whole-batch plan: storage is a constant per reader.
      if (l.batch_storage_s > 0.0) {
        engine_.schedule_in(sim::to_sim_time(l.batch_storage_s), after_read);
      } else {
        decode_batch(reader, index);
      }
      return;
    }
    storage_slots_.submit(sim::to_sim_time(l.read_latency_s), [this, after_read] {
      if (has_storage_link_) {
        cpu_.start_flow({storage_link_}, plan_.loader.read_bytes, after_read);
      } else {
        after_read();
      }
    });
  }

  void decode_batch(std::size_t reader, long index) {
    const LoaderPlan& l = plan_.loader;
    BatchRecord& rec = batches_[index];
    if (rec.read_end < rec.read_start) rec.read_end = engine_.now();
    double core_s = 0.0;
    if (l.samples_per_batch > 0) {
      for (int i = 0; i < l.samples_per_batch; ++i) {
        core_s += readers_[reader].random->lognormal_with_mean_cv(l.sample_cpu_s, l.sample_cpu_cv);
      }
    } else {
      core_s = std::max(0.0, (l.batch_load_s > 0.0 ? l.batch_load_s : l.batch_cpu_s) - l.batch_storage_s);
    }
    const SimTime start = engine_.now();
    const int thread = l.workers == 0 ? main_thread() : static_cast<int>(reader);
    run_cpu(thread, core_s, [this, reader, index, start] {
      batches_[index].decode_end = engine_.now();
      add_span(readers_[reader].track, index, start, engine_.now());
      on_decoded(reader, index);
    });
  }

  void on_decoded(std::size_t reader, long index) {
    const LoaderPlan& l = plan_.loader;
    if (l.workers == 0) {
      // The main process pins its own batch, then goes on.
      if (l.pin_copy_s > 0.0) {
        const SimTime start = engine_.now();
        run_cpu(main_thread(), l.pin_copy_s, [this, index, start] {
          add_span("main process", index, start, engine_.now());
          batch_ready(index);
        });
      } else {
        batch_ready(index);
      }
      return;
    }
    start_next(reader);
    if (l.pin_copy_s > 0.0) {
      pin_queue_.push_back(index);
      if (!pinning_) pin_next();
    } else {
      batch_ready(index);
    }
  }

  /// The pin-memory thread copies batches into page-locked memory in arrival order.
  void pin_next() {
    if (pin_queue_.empty()) {
      pinning_ = false;
      return;
    }
    pinning_ = true;
    const long index = pin_queue_.front();
    pin_queue_.pop_front();
    const SimTime start = engine_.now();
    run_cpu(main_thread() + 1, plan_.loader.pin_copy_s, [this, index, start] {
      add_span("pin_memory", index, start, engine_.now());
      batch_ready(index);
      pin_next();
    });
  }

  void batch_ready(long index) {
    BatchRecord& rec = batches_[index];
    rec.ready = engine_.now();
    rec.done = true;
    if (plan_.loader.workers == 0) {
      take_batch();
      return;
    }
    if (waiting_for_ == index) {
      waiting_for_ = -1;
      take_batch();
    }
  }

  // ---- host process ----
  void start_micro_step() {
    const int index = static_cast<int>(micro_steps_.size());
    if (index >= target_micro_steps_) {
      // Pause here: the loader's pending events stay queued, so the next run_until resumes
      // at this instant rather than after the engine has drained (which would stretch a step).
      running_ = false;
      last_end_ = engine_.now();
      engine_.stop();
      return;
    }
    micro_steps_.push_back({engine_.now(), (index % accumulation_) == accumulation_ - 1});
    if (micro_steps_.back().final) buckets_done_ = 0;
    if (plan_.loader.synthetic) {
      after_copy();
      return;
    }
    if (plan_.loader.workers == 0) {
      // num_workers = 0: the main process loads the batch itself, serially.
      set_host(HostState::kLoading);
      read_batch(0, consumed_);
      return;
    }
    issue_batches();
    set_host(HostState::kWaitingData);
    const long index_wanted = consumed_;
    const auto it = batches_.find(index_wanted);
    if (it != batches_.end() && it->second.done) {
      take_batch();
    } else {
      waiting_for_ = index_wanted;
    }
  }

  void take_batch() {
    taken_ = consumed_;
    ++consumed_;
    issue_batches();
    start_copy();
  }

  void start_copy() {
    const SimTime copy_time = sim::to_sim_time(plan_.h2d_bytes / plan_.h2d_bytes_per_s);
    const long batch = taken_;
    const std::string label = tracing(batch) ? "batch " + std::to_string(batch) + " H2D" : std::string("batch H2D");
    if (plan_.pinned) {
      // Pinned + non_blocking: the copy engine works while the host dispatches; the stream
      // holds kernels behind the copy.
      copy_hold_ = true;
      copy_engine_.submit(copy_time, [this] { release_copy_hold(); }, label);
      after_copy();
      return;
    }
    // Pageable: cudaMemcpy from pageable memory is synchronous for the host and ordered in
    // the stream after the previous kernels.
    when_gpu_idle([this, copy_time, label] {
      set_host(HostState::kCopying);
      copy_engine_.submit(copy_time, [this] { after_copy(); }, label + " (pageable)");
    });
  }

  void after_copy() {
    unit_index_ = 0;
    phase_ = 0;
    if (plan_.loader.gpu_preprocess_s > 0.0) {
      submit_gpu("decode (GPU)", plan_.loader.gpu_preprocess_s, BusyKind::kCompute);
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
    if (phase_ == 2 && unit_index_ == 0 && plan_.host_sync_before_optimizer && !optimizer_synced_) {
      // GradScaler reads found_inf on the host: the host waits for backward (and, through
      // the default stream, for DDP's all-reduces) before it dispatches the optimizer.
      set_host(HostState::kSyncing);
      when_step_synced([this] {
        optimizer_synced_ = true;
        dispatch_next();
      });
      return;
    }
    optimizer_synced_ = false;
    if (phase_ == 2 && unit_index_ == 0 && buckets_done_ < plan_.comm.buckets.size()) {
      // DDP: the optimizer's kernels wait (on the GPU) for every bucket's all-reduce.
      optimizer_held_ = true;
    }
    const std::size_t index = unit_index_++;
    const DispatchUnit& u = (*units)[index];
    const int bucket = phase_ == 1 && micro_steps_.back().final ? bucket_at_unit_[index] : -1;
    set_host(HostState::kDispatching);
    // The main process competes for a core with the workers when they outnumber the cores.
    const BusyKind kind = phase_ == 2        ? BusyKind::kOptimizer
                          : u.communication ? BusyKind::kCommunication
                                            : BusyKind::kCompute;
    run_cpu(main_thread(), u.dispatch_s, [this, &u, bucket, kind] {
      if (bucket >= 0) {
        submit_gpu(u.label, u.gpu_s, kind,
                   [this, bucket] { start_all_reduce(static_cast<std::size_t>(bucket)); });
      } else {
        submit_gpu(u.label, u.gpu_s, kind);
      }
      dispatch_next();
    });
  }

  /// A bucket is full once the backward unit that completes it has run on the GPU; its
  /// all-reduce queues on NCCL's stream.
  void start_all_reduce(std::size_t bucket) {
    const GradientBucket& b = plan_.comm.buckets[bucket];
    const std::string label = "all_reduce bucket " + std::to_string(bucket) + " (" +
                              std::to_string(static_cast<long long>(b.bytes / 1024)) + " KiB)";
    comm_.submit(sim::to_sim_time(b.all_reduce_s), [this] {
      ++buckets_done_;
      if (buckets_done_ == plan_.comm.buckets.size() && optimizer_held_) {
        release_optimizer_hold();
      }
      if (buckets_done_ == plan_.comm.buckets.size() && !comm_waiters_.empty()) {
        auto waiters = std::move(comm_waiters_);
        comm_waiters_.clear();
        for (auto& w : waiters) when_gpu_idle(std::move(w));
      }
    }, label);
  }

  void end_micro_step() {
    // The loss is read every micro-step (loss.item()): the host waits for the GPU.
    set_host(HostState::kSyncing);
    when_gpu_idle([this] { start_micro_step(); });
  }

  // ---- GPU stream ----
  struct HeldKernel {
    std::string label;
    double gpu_s;
    BusyKind kind;
    std::function<void()> on_done;
  };

  /// Kernels the host submits go to the GPU stream, unless the stream is held: behind DDP's
  /// all-reduces (the optimizer), or behind a pinned copy in flight (everything).
  void submit_gpu(const std::string& label, double gpu_s, BusyKind kind,
                  std::function<void()> on_done = {}) {
    if (optimizer_held_) {
      held_for_comm_.push_back({label, gpu_s, kind, std::move(on_done)});
    } else if (copy_hold_) {
      held_.push_back({label, gpu_s, kind, std::move(on_done)});
    } else {
      launch(label, gpu_s, kind, std::move(on_done));
    }
  }

  void launch(const std::string& label, double gpu_s, BusyKind kind, std::function<void()> on_done) {
    ++gpu_outstanding_;
    gpu_.submit(sim::to_sim_time(gpu_s), [this, done = std::move(on_done)] {
      if (done) done();
      on_gpu_done();
    }, label, static_cast<std::uint32_t>(kind));
  }

  /// The pinned copy is done: the kernels queued behind it go to the GPU in order (they were
  /// submitted before any optimizer hold).
  void release_copy_hold() {
    copy_hold_ = false;
    launch_all(held_);
  }

  /// Every all-reduce is done: the optimizer's kernels follow. The copy hold is over by then:
  /// the buckets were filled by backward kernels queued behind it.
  void release_optimizer_hold() {
    optimizer_held_ = false;
    launch_all(held_for_comm_);
  }

  /// Sends every kernel of `queue` to the GPU in order and empties it.
  void launch_all(std::deque<HeldKernel>& queue) {
    std::deque<HeldKernel> held;
    held.swap(queue);
    for (HeldKernel& k : held) {
      launch(k.label, k.gpu_s, k.kind, std::move(k.on_done));
    }
    check_idle();
  }

  void on_gpu_done() {
    --gpu_outstanding_;
    check_idle();
  }

  /// `callback` once the GPU is idle and every all-reduce of this step is done.
  void when_step_synced(std::function<void()> callback) {
    if (buckets_done_ < plan_.comm.buckets.size()) {
      comm_waiters_.push_back(std::move(callback));
    } else {
      when_gpu_idle(std::move(callback));
    }
  }

  void when_gpu_idle(std::function<void()> callback) {
    idle_waiters_.push_back(std::move(callback));
    check_idle();
  }

  void check_idle() {
    if (gpu_outstanding_ == 0 && !copy_hold_ && !optimizer_held_ && held_.empty() && held_for_comm_.empty() &&
        !idle_waiters_.empty()) {
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
  sim::FifoServer comm_;  ///< NCCL's stream: DDP bucket all-reduces, one at a time
  sim::FifoServer storage_slots_;
  sim::BandwidthNetwork cpu_;  ///< cores, threads and the storage bandwidth
  sim::ResourceId storage_link_;
  bool has_storage_link_ = false;
  sim::ResourceId cores_;
  std::vector<sim::ResourceId> thread_resources_;
  bool contended_ = false;
  std::vector<Reader> readers_;
  std::deque<long> pin_queue_;
  bool pinning_ = false;
  int target_micro_steps_ = 0;
  bool running_ = false;
  SimTime last_end_ = 0;
  std::vector<MicroStep> micro_steps_;
  std::vector<Interval> gpu_busy_;
  std::vector<std::pair<SimTime, SimTime>> copies_;
  std::vector<std::pair<SimTime, SimTime>> comm_busy_;
  std::vector<int> bucket_at_unit_;  ///< per backward unit: the bucket it completes, or -1
  std::size_t buckets_done_ = 0;     ///< all-reduces finished in the current optimizer step
  bool optimizer_held_ = false;
  bool optimizer_synced_ = false;  ///< the host has passed GradScaler's sync of this step
  std::vector<std::function<void()>> comm_waiters_;  ///< host waits for the last all-reduce
  std::vector<std::pair<SimTime, HostState>> host_states_;
  std::vector<TraceSpan> trace_;
  std::map<long, BatchRecord> batches_;
  long issued_ = 0;
  long consumed_ = 0;
  long taken_ = 0;
  long waiting_for_ = -1;
  long batch_limit_ = -1;
  std::size_t unit_index_ = 0;
  int phase_ = 0;
  int gpu_outstanding_ = 0;
  bool copy_hold_ = false;              ///< a pinned H2D copy is in flight: kernels wait behind it
  std::deque<HeldKernel> held_;         ///< kernels behind the copy
  std::deque<HeldKernel> held_for_comm_;  ///< the optimizer's kernels behind DDP's all-reduces
  std::vector<std::function<void()>> idle_waiters_;
};

/// Time of [a, b) split by where it went.
struct Attribution {
  double compute_s = 0.0;
  double optimizer_s = 0.0;
  double data_wait_s = 0.0;
  double h2d_s = 0.0;
  double dispatch_s = 0.0;
  double comm_s = 0.0;  ///< communication not hidden, and the slowdown of compute beside it
  double total() const { return compute_s + optimizer_s + data_wait_s + h2d_s + dispatch_s + comm_s; }
};

Attribution attribute(const StepProcess& p, SimTime a, SimTime b, double slowdown) {
  Attribution out;
  const auto& comm = p.comm_busy();
  // GPU busy parts; compute beside a running all-reduce is slowed by the plan's share.
  std::vector<std::pair<SimTime, SimTime>> busy;
  for (const Interval& iv : p.gpu_busy()) {
    const SimTime s = std::max(iv.start, a);
    const SimTime e = std::min(iv.end, b);
    if (e > s) {
      const double span = sim::to_seconds(e - s);
      switch (iv.kind) {
        case BusyKind::kCompute:
          out.compute_s += span;
          out.comm_s += slowdown * sim::to_seconds(covered(comm, s, e));
          break;
        case BusyKind::kOptimizer: out.optimizer_s += span; break;
        case BusyKind::kCommunication: out.comm_s += span; break;
      }
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
      // The GPU idles while an all-reduce it must wait for runs: exposed communication.
      const SimTime in_comm = covered(comm, t, next);
      out.comm_s += sim::to_seconds(in_comm);
      const double span = sim::to_seconds(next - t - in_comm);
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
  into.comm_s += weight * x.comm_s;
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
        const Attribution a =
            attribute(process, micro[i].start, micro[i + 1].start, plan.comm.overlap_compute_slowdown);
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
  stats.breakdown.communication_exposed_s = mean.comm_s;
  stats.breakdown.step_time_s = mean.total();
  stats.gpu_busy_s = mean.compute_s + mean.optimizer_s;
  stats.steps_measured = static_cast<int>(per_step.size());
  // Where the readers' time went over the measured window: batches read and decoded in it.
  const auto& micro = process.micro_steps();
  const SimTime window_start = micro[static_cast<std::size_t>(options.warmup_steps * simulated_ga)].start;
  const SimTime window_end = micro.back().start;
  int counted = 0;
  for (const auto& [index, rec] : process.batches()) {
    if (rec.done && rec.read_start >= window_start && rec.ready <= window_end) {
      stats.loader.storage_s += sim::to_seconds(rec.read_end - rec.read_start);
      stats.loader.cpu_s += sim::to_seconds(rec.decode_end - rec.read_end);
      stats.loader.pin_s += sim::to_seconds(rec.ready - rec.decode_end);
      ++counted;
    }
  }
  if (counted > 0) {
    stats.loader.storage_s /= counted;
    stats.loader.cpu_s /= counted;
    stats.loader.pin_s /= counted;
  }
  stats.loader.batches_measured = counted;
  // Pipeline fill: how much later the measured window starts than steady steps would have.
  const double mean_simulated_step_s =
      sim::to_seconds(window_end - window_start) / std::max(1, steps - options.warmup_steps);
  stats.fill_s = std::max(0.0, sim::to_seconds(window_start) - options.warmup_steps * mean_simulated_step_s);
  stats.events = process.events();
  stats.trace = std::move(process.trace());
  return stats;
}

EpochRun simulate_epoch(const StepPlan& plan, long steps, const StepSimOptions& options) {
  if (plan.forward.empty()) {
    throw std::invalid_argument("simulate_epoch: the plan has no forward ops");
  }
  if (steps < 1) {
    throw std::invalid_argument("simulate_epoch: an epoch needs at least one step");
  }
  const int ga = plan.gradient_accumulation;
  StepProcess process(plan, ga, options.trace_steps * ga);
  const long micro_steps = steps * ga;
  process.limit_batches(micro_steps);
  process.run_until(static_cast<int>(micro_steps));
  EpochRun run;
  run.elapsed_s = sim::to_seconds(process.last_end());
  run.events = process.events();
  return run;
}

}  // namespace gpuplan::models

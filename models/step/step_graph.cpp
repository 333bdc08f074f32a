#include "models/step/step_graph.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpuplan::models {

std::string track_name(std::uint32_t track) {
  switch (static_cast<StepTrack>(track)) {
    case StepTrack::kMainProcess: return "main process";
    case StepTrack::kPinThread: return "pin_memory";
    case StepTrack::kCopyEngine: return "h2d";
    case StepTrack::kComputeStream: return "gpu";
    case StepTrack::kCommStream: return "nccl";
    case StepTrack::kStorage: return "storage";
    case StepTrack::kOffloadStream: return "offload";
    case StepTrack::kWorker0: break;
  }
  return "worker " + std::to_string(track - static_cast<std::uint32_t>(StepTrack::kWorker0));
}

StepGraph::StepGraph(const StepPlan& plan, int accumulation, bool labels, long micro_step_limit)
    : plan_(plan), accumulation_(accumulation), labels_(labels), limit_(micro_step_limit), graph_(engine_) {
  if (accumulation < 1) {
    throw std::invalid_argument("StepGraph: gradient accumulation " + std::to_string(accumulation) +
                                "; expected at least 1 micro-step per optimizer step");
  }
  const LoaderPlan& l = plan_.loader;
  workers_ = l.synthetic ? 0 : std::max(0, l.workers);
  prefetch_ = l.prefetch_batches;
  pin_thread_ = !l.synthetic && l.workers > 0 && l.pin_copy_s > 0.0;
  // Resources, in this order (the max-min solver breaks ties between equal shares by it).
  if (!l.synthetic && !l.page_cache_hit && l.storage_bytes_per_s > 0.0 && l.read_bytes > 0.0) {
    storage_link_ = graph_.add_resource("storage_bandwidth", l.storage_bytes_per_s);
    has_storage_link_ = true;
  }
  // CPU contention: workers, the main process and the pin-memory thread share `cpu_cores`
  // cores max-min (processor sharing); a thread runs on at most one core (a rate bound of 1).
  const int threads = std::max(0, l.workers) + 1 + (l.pin_copy_s > 0.0 && l.workers > 0 ? 1 : 0);
  contended_ = !l.synthetic && l.cpu_cores > 0 && threads > l.cpu_cores;
  if (contended_) {
    cores_ = graph_.add_resource("cpu", static_cast<double>(l.cpu_cores));
  }
  // The GPU's SMs: kernels run at most at full speed (bound 1); an all-reduce beside them
  // takes s / (1 + s) of the SMs, so that compute overlapping it runs at 1 / (1 + s), i.e.
  // takes 1 + s times as long (s = CommPlan::overlap_compute_slowdown), while the all-reduce
  // keeps its own time. Without slowdown NCCL's stream uses no SMs and kernels are timers.
  sm_ = graph_.add_resource("gpu SMs", 1.0);
  const double s = plan_.comm.overlap_compute_slowdown;
  comm_sm_share_ = s > 0.0 ? s / (1.0 + s) : 0.0;
  for (std::size_t b = 0; b < plan_.comm.buckets.size(); ++b) {
    const std::size_t unit = plan_.comm.buckets[b].ready_after_unit;
    if (unit >= buckets_after_unit_.size()) buckets_after_unit_.resize(unit + 1);
    buckets_after_unit_[unit].push_back(b);
  }
  if (!l.synthetic) {
    for (int r = 0; r < std::max(1, workers_); ++r) {
      const std::string name = workers_ == 0 ? "data_loader.main" : "data_loader.worker " + std::to_string(r);
      readers_.push_back(std::make_unique<sim::RandomStream>(l.seed, name));
    }
  }
  storage_slots_.resize(static_cast<std::size_t>(std::max(1, l.storage_queue_depth)));
  const std::vector<ShardedUnitComm>& units = plan_.comm.units;
  forward_unit_start_.assign(plan_.forward.size(), -1);
  backward_unit_start_.assign(plan_.backward.size(), -1);
  backward_unit_end_.assign(plan_.backward.size(), -1);
  for (std::size_t u = 0; u < units.size(); ++u) {
    const ShardedUnitComm& c = units[u];
    if (c.forward_end > plan_.forward.size() || c.backward_end > plan_.backward.size() ||
        c.forward_begin >= c.forward_end || c.backward_begin >= c.backward_end) {
      throw std::invalid_argument("StepGraph: sharded unit " + c.name + " lies outside the plan's units");
    }
    forward_unit_start_[c.forward_begin] = static_cast<int>(u);
    backward_unit_start_[c.backward_begin] = static_cast<int>(u);
    backward_unit_end_[c.backward_end - 1] = static_cast<int>(u);
  }
  unit_gather_.resize(units.size());
  unit_has_gather_.assign(units.size(), 0);
  const std::vector<ActivationCopy>& copies = plan_.activation_copies;
  copy_out_after_.assign(plan_.forward.size(), -1);
  copy_out_wait_.assign(plan_.forward.size(), -1);
  copy_in_wait_.assign(plan_.backward.size(), -1);
  copy_in_issue_.assign(copies.empty() ? 0 : plan_.backward.size(), {});
  for (std::size_t k = 0; k < copies.size(); ++k) {
    const ActivationCopy& c = copies[k];
    if (c.forward_last >= plan_.forward.size() || c.backward_first >= plan_.backward.size() ||
        c.prefetch_at >= c.backward_first) {
      throw std::invalid_argument("StepGraph: activation copy " + std::to_string(k) + " lies outside the plan's units");
    }
    copy_out_after_[c.forward_last] = static_cast<int>(k);
    copy_in_wait_[c.backward_first] = static_cast<int>(k);
    copy_in_issue_[c.prefetch_at].push_back(static_cast<int>(k));
    // The forward after the next copied block's waits for this copy: the side stream may be
    // one block behind (the last copy is waited for by backward's copy in, in stream order).
    if (k + 1 < copies.size() && copies[k + 1].forward_last + 1 < plan_.forward.size()) {
      copy_out_wait_[copies[k + 1].forward_last + 1] = static_cast<int>(k);
    }
  }
  copy_out_.resize(copies.size());
  copy_in_.resize(copies.size());
  copy_in_emitted_.assign(copies.size(), 0);
  graph_.activity_finished().subscribe([this](const sim::ActivityFinished& e) { on_finished(e); });
}

void StepGraph::run_until_started(long index) {
  target_ = index;
  if (!begun_) {
    begun_ = true;
    begin();
  }
  if (started_ > index) {
    return;
  }
  engine_.run();
  if (started_ <= index) {
    throw std::logic_error("StepGraph: the graph stopped after " + std::to_string(started_) +
                           " micro-steps, before micro-step " + std::to_string(index) + " started");
  }
}

void StepGraph::begin() {
  started_ = 1;
  micro_step_started_.emit(MicroStepStarted{0, final_micro_step(0), engine_.now()});
  for (int k = 0; k < 2 && (limit_ < 0 || emitted_ < limit_); ++k) {
    emit_micro_step(emitted_++);
  }
  if (plan_.loader.synthetic || limit_ == 0) {
    return;
  }
  if (workers_ == 0) {
    arrive(0);
    return;
  }
  for (long i = 0; i < prefetch_; ++i) {
    check_arrival(i);
  }
}

void StepGraph::on_finished(const sim::ActivityFinished& e) {
  const long index = static_cast<long>(e.tag & kTagIndexMask);
  switch (static_cast<StepActivity>(e.kind)) {
    case StepActivity::kDecode: on_decoded(index); break;
    case StepActivity::kPin: on_ready(index); break;
    case StepActivity::kKernel:
    case StepActivity::kOptimizerKernel:
    case StepActivity::kHostOptimizer:
    case StepActivity::kCommKernel:
      if ((e.tag & kTagEndsMicroStep) != 0) on_micro_step_boundary(index + 1);
      break;
    default: break;
  }
}

/// The last kernel of micro-step `index - 1` has run: the host's loss read returns and
/// micro-step `index` starts.
void StepGraph::on_micro_step_boundary(long index) {
  started_ = index + 1;
  micro_step_started_.emit(MicroStepStarted{index, final_micro_step(index), engine_.now()});
  if (index == target_) {
    engine_.stop();  // after this event: what is due now stays queued for the next run
  }
  if (limit_ >= 0 && index >= limit_) {
    return;
  }
  if (limit_ < 0 || emitted_ < limit_) {
    emit_micro_step(emitted_++);
  }
  if (plan_.loader.synthetic) {
    return;
  }
  if (workers_ == 0) {
    arrive(index);  // num_workers = 0: the main process loads its batch now, serially
  } else if ((flags(index) & kReady) != 0) {
    take(index);
  }
}

sim::ActivitySpec StepGraph::cpu_work(double core_s, StepActivity kind, StepTrack track, std::uint64_t tag) const {
  sim::ActivitySpec spec;
  spec.kind = static_cast<std::uint32_t>(kind);
  spec.track = static_cast<std::uint32_t>(track);
  spec.tag = tag;
  spec.amount = core_s;
  spec.bound_per_s = 1.0;  // one thread: at most one core
  if (contended_) spec.resources = {cores_};
  return spec;
}

sim::ActivitySpec StepGraph::gpu_work(double gpu_s, StepActivity kind, StepTrack track, std::uint64_t tag) const {
  sim::ActivitySpec spec;
  spec.kind = static_cast<std::uint32_t>(kind);
  spec.track = static_cast<std::uint32_t>(track);
  spec.tag = tag;
  spec.amount = gpu_s;
  spec.bound_per_s = 1.0;
  if (comm_sm_share_ > 0.0) spec.resources = {sm_};  // else nothing shares the SMs: a timer
  return spec;
}

sim::ActivityId StepGraph::add_kernel(const DispatchUnit& u, StepActivity kind, std::uint64_t tag,
                                      sim::ActivityId dispatch, sim::SimTime dispatch_lag,
                                      const std::vector<sim::ActivityId>& extra_predecessors) {
  sim::ActivitySpec spec = u.off_gpu ? timer_work(u.gpu_s, kind, StepTrack::kComputeStream, tag, "")
                                     : gpu_work(u.gpu_s, kind, StepTrack::kComputeStream, tag);
  if (labels_) spec.label = u.label;
  const sim::ActivityId id = graph_.add(std::move(spec));
  if (dispatch_lag < 0) {
    graph_.add_successor(dispatch, id);
  } else {
    graph_.add_start_successor(dispatch, id, dispatch_lag);
  }
  if (has_tail_) graph_.add_successor(tail_, id);  // stream order
  for (const sim::ActivityId p : extra_predecessors) graph_.add_successor(p, id);
  graph_.start(id);
  tail_ = id;
  has_tail_ = true;
  return id;
}

void StepGraph::emit_micro_step(long index) {
  const bool final = final_micro_step(index);
  const bool loads = !plan_.loader.synthetic;
  const auto tag = static_cast<std::uint64_t>(index);
  Gate& gate = gates_[index & 1];
  gate = Gate{};
  gate.index = index;
  // The previous micro-step's last kernel: the host's sync before this micro-step.
  const bool has_boundary = has_tail_;
  const sim::ActivityId boundary = tail_;
  std::vector<sim::ActivityId> first_kernel_waits;
  if (loads) {
    // The batch's H2D copy, once the host has taken the batch (the gate).
    sim::ActivitySpec copy;
    copy.kind = static_cast<std::uint32_t>(plan_.pinned ? StepActivity::kCopyPinned : StepActivity::kCopyPageable);
    copy.track = static_cast<std::uint32_t>(StepTrack::kCopyEngine);
    copy.tag = tag;
    copy.amount = plan_.h2d_bytes / plan_.h2d_bytes_per_s;
    copy.bound_per_s = 1.0;
    if (labels_) copy.label = "batch " + std::to_string(index) + (plan_.pinned ? " H2D" : " H2D (pageable)");
    gate.copy = graph_.add(std::move(copy));
    gate.has_copy = true;
    if (has_boundary) graph_.add_successor(boundary, gate.copy);
    // Pinned + non_blocking: the stream holds the kernels behind the copy. Pageable: the
    // copy is synchronous for the host, which dispatches after it.
    first_kernel_waits.push_back(gate.copy);
  }
  if (plan_.loader.gpu_preprocess_s > 0.0) {
    DispatchUnit decode;
    decode.label = "decode (GPU)";
    decode.gpu_s = plan_.loader.gpu_preprocess_s;
    sim::ActivitySpec spec = gpu_work(decode.gpu_s, StepActivity::kKernel, StepTrack::kComputeStream, tag);
    if (labels_) spec.label = decode.label;
    const sim::ActivityId id = graph_.add(std::move(spec));
    if (has_tail_) graph_.add_successor(tail_, id);
    for (const sim::ActivityId p : first_kernel_waits) graph_.add_successor(p, id);
    graph_.start(id);
    tail_ = id;
    has_tail_ = true;
    first_kernel_waits.clear();
  }
  if (loads && !plan_.pinned) first_kernel_waits.clear();  // the dispatch already waits for the copy

  if (final && plan_.pipeline.wait_s > 0.0) {
    // Pipeline parallelism: what the stage waits on the others over the step, before its last
    // micro-step's forward (after the previous kernels, in stream order).
    sim::ActivitySpec wait = timer_work(plan_.pipeline.wait_s, StepActivity::kPipelineWait, StepTrack::kComputeStream,
                                        tag, labels_ ? "pipeline bubble" : "");
    const sim::ActivityId id = graph_.add(std::move(wait));
    if (has_tail_) graph_.add_successor(tail_, id);
    for (const sim::ActivityId p : first_kernel_waits) graph_.add_successor(p, id);
    graph_.start(id);
    tail_ = id;
    has_tail_ = true;
  }
  const std::vector<DispatchUnit>* phases[3] = {&plan_.forward, &plan_.backward, final ? &plan_.optimizer : nullptr};
  const StepActivity phase_kind[3] = {StepActivity::kKernel, StepActivity::kKernel, StepActivity::kOptimizerKernel};
  int last_phase = 0;
  for (int p = 0; p < 3; ++p) {
    if (phases[p] != nullptr && !phases[p]->empty()) last_phase = p;
  }
  // fp16 AMP's GradScaler reads found_inf on the host before optimizer.step
  // (torch/amp/grad_scaler.py, GradScaler._maybe_opt_step): the optimizer's dispatch waits
  // for backward and, through the default stream, for DDP's all-reduces.
  const bool sync_before_optimizer = final && plan_.host_sync_before_optimizer && !plan_.optimizer.empty();
  int last_before_optimizer = -1;  // the phase whose last dispatch precedes the optimizer's sync
  if (sync_before_optimizer) last_before_optimizer = plan_.backward.empty() ? 0 : 1;
  bool has_dispatch = false;
  sim::ActivityId previous;
  bool previous_real = true;  // `previous` is the last unit's own dispatch activity
  bool step_buckets = false;  // this micro-step all-reduces buckets (the last one, DDP)
  // Without CPU contention a dispatch is a timer of to_sim_time(dispatch_s) that only the one
  // before it delays once a phase's first dispatch has begun: the dispatches between a phase's
  // first and last are then not activities, and their kernels begin no earlier than the
  // first's start plus the dispatch times up to theirs (a start-to-start edge; the same times,
  // half the activities). The first and last stay activities: what a phase waits for, the host
  // sync after it (kTagHostWaitsAfter), the next phase's predecessor.
  const bool coalesce = !contended_;
  for (int p = 0; p < 3; ++p) {
    if (phases[p] == nullptr) continue;
    const std::vector<DispatchUnit>& units = *phases[p];
    sim::ActivityId head;      // the phase's first dispatch
    sim::SimTime head_ns = 0;  // from its start to the end of the current unit's dispatch
    for (std::size_t i = 0; i < units.size(); ++i) {
      const DispatchUnit& u = units[i];
      const bool last = i + 1 == units.size();
      const bool middle = coalesce && i > 0 && !last;
      // The dispatch's duration as ActivityGraph times a timer: to_sim_time(amount / bound 1).
      const sim::SimTime dispatch_ns = coalesce ? sim::to_sim_time(u.dispatch_s) : 0;
      sim::ActivityId dispatch = head;
      sim::SimTime kernel_lag = -1;  // -1: the kernel follows its own dispatch's finish
      bool gated = false;
      if (middle) {
        head_ns += dispatch_ns;
        kernel_lag = head_ns;
      } else {
        std::uint64_t dispatch_tag = tag;
        if (last && (p == last_phase || p == last_before_optimizer)) dispatch_tag |= kTagHostWaitsAfter;
        sim::ActivitySpec spec = cpu_work(u.dispatch_s, StepActivity::kDispatch, StepTrack::kMainProcess, dispatch_tag);
        dispatch = graph_.add(std::move(spec));
        if (has_dispatch && previous_real) {
          graph_.add_successor(previous, dispatch);
        } else if (has_dispatch) {
          graph_.add_start_successor(head, dispatch, head_ns);
        } else if (loads && !plan_.pinned) {
          graph_.add_successor(gate.copy, dispatch);
        } else {
          if (has_boundary) graph_.add_successor(boundary, dispatch);
          gated = loads;  // pinned: the host dispatches once it has taken the batch
        }
        if (i == 0) {
          head = dispatch;
          head_ns = dispatch_ns;
        } else {
          head_ns += dispatch_ns;
        }
      }
      std::vector<sim::ActivityId> waits;
      if (p == 2 && i == 0) {
        if (sync_before_optimizer) {
          if (has_tail_) graph_.add_successor(tail_, dispatch);
          if (step_buckets) graph_.add_successor(comm_tail_, dispatch);
        }
        if (step_buckets) waits.push_back(comm_tail_);  // DDP: the optimizer follows every all-reduce
      }
      if (!has_dispatch) waits.insert(waits.end(), first_kernel_waits.begin(), first_kernel_waits.end());
      if (p == 0 && i == 0 && has_parameter_gather_) {
        waits.push_back(parameter_gather_);  // ZeRO-1/2: the forward reads the gathered update
        has_parameter_gather_ = false;
      }
      if (p == 0 && last && has_parameter_gather_rest_) {
        waits.push_back(parameter_gather_rest_);  // --overlap-param-gather: the last bucket's layers
        has_parameter_gather_rest_ = false;
      }
      if (p < 2 && !plan_.comm.units.empty()) {
        emit_unit_gathers(index, p == 1, i, has_boundary ? &boundary : nullptr, waits);
      }
      if (p < 2 && !plan_.activation_copies.empty()) emit_activation_copies(index, p == 1, i, nullptr, waits);
      if (middle) {
        // no activity: the kernel's start-to-start edge from `head` stands for the dispatch
      } else if (gated) {
        gate.dispatch = dispatch;
        gate.has_dispatch = true;
      } else {
        graph_.start(dispatch);
      }
      if (!middle) previous = dispatch;
      previous_real = !middle;
      has_dispatch = true;
      const StepActivity kind = u.communication && p < 2 ? StepActivity::kCommKernel
                                : u.off_gpu                ? StepActivity::kHostOptimizer
                                                           : phase_kind[p];
      const std::uint64_t kernel_tag = last && p == last_phase ? tag | kTagEndsMicroStep : tag;
      const sim::ActivityId kernel = add_kernel(u, kind, kernel_tag, dispatch, kernel_lag, waits);
      if (p == 1 && (final || plan_.comm.every_micro_step)) {
        step_buckets = emit_buckets(index, i, kernel) || step_buckets;
      }
      if (p == 1 && !plan_.comm.units.empty()) step_buckets = emit_unit_reduces(index, i, kernel) || step_buckets;
      if (p < 2 && !plan_.activation_copies.empty()) emit_activation_copies(index, p == 1, i, &kernel, waits);
      if (p == 2 && last && plan_.comm.parameter_all_gather_s > 0.0) {
        const double first_s = plan_.comm.parameter_all_gather_first_s;
        const bool overlapped = first_s > 0.0 && first_s < plan_.comm.parameter_all_gather_s;
        parameter_gather_ = add_comm(overlapped ? first_s : plan_.comm.parameter_all_gather_s,
                                     StepActivity::kAllGather, index,
                                     overlapped ? "all_gather updated parameters (first bucket)"
                                                : "all_gather updated parameters",
                                     {kernel});
        has_parameter_gather_ = true;
        if (overlapped) {
          parameter_gather_rest_ = add_comm(plan_.comm.parameter_all_gather_s - first_s, StepActivity::kAllGather,
                                            index, "all_gather updated parameters (other buckets)",
                                            {parameter_gather_});
          has_parameter_gather_rest_ = true;
        }
      }
    }
  }
  if (loads && (flags(index) & kReady) != 0) release_gate(index);
}

sim::ActivityId StepGraph::add_comm(double s, StepActivity kind, long index, std::string label,
                                    const std::vector<sim::ActivityId>& predecessors) {
  sim::ActivitySpec spec;
  spec.kind = static_cast<std::uint32_t>(kind);
  spec.track = static_cast<std::uint32_t>(StepTrack::kCommStream);
  spec.tag = static_cast<std::uint64_t>(index);
  if (labels_) spec.label = std::move(label);
  if (comm_sm_share_ > 0.0) {
    spec.amount = comm_sm_share_ * s;  // at its bound: s
    spec.resources = {sm_};
    spec.bound_per_s = comm_sm_share_;
  } else {
    spec.amount = s;
    spec.bound_per_s = 1.0;
  }
  const sim::ActivityId id = graph_.add(std::move(spec));
  for (const sim::ActivityId p : predecessors) graph_.add_successor(p, id);
  if (has_comm_tail_) graph_.add_successor(comm_tail_, id);  // NCCL's stream runs one collective at a time
  graph_.start(id);
  comm_tail_ = id;
  has_comm_tail_ = true;
  return id;
}

bool StepGraph::emit_buckets(long index, std::size_t backward_unit, sim::ActivityId kernel) {
  bool any = false;
  if (backward_unit >= buckets_after_unit_.size()) return false;
  const std::vector<GradientBucket>& buckets = plan_.comm.buckets;
  const StepActivity kind = plan_.comm.bucket_collective == Collective::kReduceScatter ? StepActivity::kReduceScatter
                                                                                        : StepActivity::kAllReduce;
  for (const std::size_t b : buckets_after_unit_[backward_unit]) {
    // A bucket is full once the backward unit that completes it has run on the GPU; its
    // collective queues on NCCL's stream.
    std::string label;
    if (labels_) {
      label = std::string(collective_name(plan_.comm.bucket_collective)) + " bucket " + std::to_string(b) + " (" +
              std::to_string(static_cast<long long>(buckets[b].bytes / 1024)) + " KiB)";
    }
    add_comm(buckets[b].all_reduce_s, kind, index, std::move(label), {kernel});
    any = true;
  }
  return any;
}

/// Before the first kernel of plan unit `unit` (forward, or backward when `backward`): if a
/// shard unit starts there, the gathers FSDP issues at that moment (forward_prefetch /
/// BACKWARD_PRE): the unit's own if it is the first of its pass (forward: after the previous
/// micro-step, i.e. the optimizer's update; backward: after forward), then the next unit's,
/// issued when this unit starts, i.e. after the kernels before it; the unit's first kernel
/// waits for its own gather.
void StepGraph::emit_unit_gathers(long index, bool backward, std::size_t unit, const sim::ActivityId* boundary,
                                  std::vector<sim::ActivityId>& waits) {
  const int u = backward ? backward_unit_start_[unit] : forward_unit_start_[unit];
  if (u < 0) return;
  const int count = static_cast<int>(plan_.comm.units.size());
  // Forward runs the units in order 0, 1, ...; backward in order count - 1, ..., 0.
  const int first = backward ? count - 1 : 0;
  const int next = backward ? u - 1 : u + 1;
  const sim::ActivityId* before = has_tail_ ? &tail_ : nullptr;
  if (u == first) {
    for (std::uint8_t& g : unit_has_gather_) g = 0;
    emit_unit_gather(index, backward, u, backward ? before : boundary);
  }
  if (next >= 0 && next < count) emit_unit_gather(index, backward, next, before);
  if (unit_has_gather_[static_cast<std::size_t>(u)] != 0) waits.push_back(unit_gather_[static_cast<std::size_t>(u)]);
}

void StepGraph::emit_unit_gather(long index, bool backward, int shard_unit, const sim::ActivityId* after) {
  const ShardedUnitComm& c = plan_.comm.units[static_cast<std::size_t>(shard_unit)];
  const double s = backward ? c.backward_all_gather_s : c.forward_all_gather_s;
  if (!(s > 0.0)) return;
  std::string label;
  if (labels_) label = "all_gather " + c.name + (backward ? " bwd" : " fwd");
  std::vector<sim::ActivityId> predecessors;
  if (after != nullptr) predecessors.push_back(*after);
  unit_gather_[static_cast<std::size_t>(shard_unit)] =
      add_comm(s, StepActivity::kAllGather, index, std::move(label), predecessors);
  unit_has_gather_[static_cast<std::size_t>(shard_unit)] = 1;
}

/// After the last backward kernel of a shard unit: its reduce-scatter (no_shard: all-reduce)
/// and, with replicas, the shard's all-reduce across nodes. True when any was queued.
bool StepGraph::emit_unit_reduces(long index, std::size_t backward_unit, sim::ActivityId kernel) {
  const int u = backward_unit_end_[backward_unit];
  if (u < 0) return false;
  const ShardedUnitComm& c = plan_.comm.units[static_cast<std::size_t>(u)];
  if (!(c.gradient_reduce_s > 0.0)) return false;
  const bool scatter = c.forward_all_gather_s > 0.0;
  add_comm(c.gradient_reduce_s, scatter ? StepActivity::kReduceScatter : StepActivity::kAllReduce, index,
           labels_ ? std::string(scatter ? "reduce_scatter " : "all_reduce ") + c.name : std::string(), {kernel});
  if (c.replica_all_reduce_s > 0.0) {
    add_comm(c.replica_all_reduce_s, StepActivity::kAllReduce, index,
             labels_ ? "all_reduce " + c.name + " across nodes" : std::string(), {});
  }
  return true;
}

void StepGraph::emit_activation_copies(long index, bool backward, std::size_t unit, const sim::ActivityId* kernel,
                                       std::vector<sim::ActivityId>& waits) {
  const std::vector<ActivationCopy>& copies = plan_.activation_copies;
  if (kernel == nullptr) {
    // Before the unit's kernel: the copy it waits for.
    const int k = backward ? copy_in_wait_[unit] : copy_out_wait_[unit];
    if (k < 0) return;
    const auto c = static_cast<std::size_t>(k);
    if (!backward) {
      waits.push_back(copy_out_[c]);
    } else if (copy_in_emitted_[c] != 0) {
      waits.push_back(copy_in_[c]);
    }
    return;
  }
  // After it: the copies it issues, queued on the offload stream in order.
  const auto add_copy = [&](std::size_t c, bool in) {
    const ActivationCopy& copy = copies[c];
    std::string label;
    if (labels_) label = "block " + std::to_string(c) + (in ? " activations H2D" : " activations D2H");
    const sim::ActivityId id =
        graph_.add(timer_work(in ? copy.h2d_s : copy.d2h_s, in ? StepActivity::kActivationH2D : StepActivity::kActivationD2H,
                              StepTrack::kOffloadStream, static_cast<std::uint64_t>(index), std::move(label)));
    if (has_offload_tail_) graph_.add_successor(offload_tail_, id);
    if (in) {
      graph_.add_start_successor(*kernel, id, 0);  // issued as the unit's backward begins
    } else {
      graph_.add_successor(*kernel, id);  // the side stream waits for the compute stream
    }
    graph_.start(id);
    offload_tail_ = id;
    has_offload_tail_ = true;
    return id;
  };
  if (!backward) {
    const int k = copy_out_after_[unit];
    if (k >= 0) {
      const auto c = static_cast<std::size_t>(k);
      copy_out_[c] = add_copy(c, false);
      copy_in_emitted_[c] = 0;
    }
    return;
  }
  for (const int k : copy_in_issue_[unit]) {
    const auto c = static_cast<std::size_t>(k);
    copy_in_[c] = add_copy(c, true);
    copy_in_emitted_[c] = 1;
  }
}

void StepGraph::release_gate(long index) {
  Gate& gate = gates_[index & 1];
  if (gate.index != index) {
    throw std::logic_error("StepGraph: micro-step " + std::to_string(index) + " is not emitted");
  }
  if (gate.has_copy) graph_.start(gate.copy);
  if (gate.has_dispatch) graph_.start(gate.dispatch);
  gate.has_copy = false;
  gate.has_dispatch = false;
}

}  // namespace gpuplan::models

#pragma once
/// \file step_graph.h
/// The step as a graph (STYLE.md E3): from a StepPlan, StepGraph emits the activities of the
/// micro-steps of one rank on a sim::ActivityGraph, with their dependencies and resources,
/// and the engine plays them. The one place that says what a step does:
///
/// - loader (step_graph_loader.cpp): per batch, the reader's storage requests (a queue slot
///   of the device for their latency, in arrival order), the bytes on the device's bandwidth,
///   decode on the reader's thread (core-seconds on the node's cores, a thread at most one
///   core), pinning (pin-memory thread, in decode order); back-pressure as edges: batch i's
///   read waits for batch i - prefetch to be taken and for its worker's previous batch;
/// - host and GPU (step_graph.cpp): the H2D copy (pinned: the host goes on, kernels wait for
///   it; pageable: the host waits), one dispatch per unit on the main thread, each unit's
///   kernels after its dispatch in stream order on the compute stream (without CPU
///   contention a phase's dispatches between its first and last are no activities: their
///   kernels follow the first's start plus the dispatch times up to theirs), DataParallel's
///   scatter/gather as units, the optimizer on the last micro-step, the loss read at the end
///   of every micro-step (the next micro-step starts when the GPU is idle);
/// - data parallelism (step_graph.cpp, `emit_buckets`): DDP's gradient buckets, each
///   all-reduced on the communication stream once the backward unit that fills it has run
///   (overlapping the rest of backward), only on the last micro-step (`no_sync` under
///   gradient accumulation); the optimizer's kernels wait for the last all-reduce;
/// - sharded data parallelism (step_graph.cpp, `emit_unit_gathers`, `emit_unit_reduces`;
///   sharded_data_parallel_plan.h): FSDP's per-unit all-gathers before forward and backward,
///   one unit ahead, and reduce-scatters after backward, on the communication stream in the
///   order issued; ZeRO-1/2's buckets and the all-gather of the updated parameters that the
///   next forward waits for;
/// - pipeline parallelism (step_graph.cpp, emit_micro_step; pipeline_parallel_plan.h): the
///   stage's wait for the other stages in the simulated schedule, one activity on the
///   compute stream before the last micro-step's forward;
/// - activation offloading (step_graph.cpp, `emit_activation_copies`;
///   activation_offload_plan.h): after a block's last forward kernel its saved activations
///   are copied out on the offload stream, one copy after another; the forward two blocks
///   later waits for that copy (the side stream may run one block behind the compute stream);
///   when a block's backward begins, the next block's copy in is issued on the same stream,
///   and that block's first backward kernel waits for it.
///
/// A new parallelism is a new emit function called from `emit_micro_step`. Micro-steps are
/// emitted one ahead (micro-step m + 1 when m starts), batches when their reader starts them,
/// so graphs of any length run with reused slots. Measurement subscribes to the graph's
/// signals and to `micro_step_started` (step_measurement.h). Units: seconds, bytes.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/step/step_activity.h"
#include "models/step/step_plan.h"
#include "sim/activity_graph.h"
#include "sim/engine.h"
#include "sim/random_stream.h"
#include "sim/signal.h"

namespace gpuplan::models {

/// A micro-step began (the host synchronised with the GPU after the previous one), emitted
/// by StepGraph::micro_step_started. Index `limit` of a limited graph marks the end.
struct MicroStepStarted {
  long index;     ///< micro-steps counted from 0
  bool final;     ///< the last micro-step of an optimizer step (all-reduces, optimizer)
  sim::SimTime time;
};

/// The step graph of one rank and the engine that plays it. Not copyable.
class StepGraph {
 public:
  /// Micro-step m is final when m mod `accumulation` = accumulation - 1. With `labels` every
  /// activity is named for the trace ("batch 7 read", the unit's label). `micro_step_limit`
  /// >= 0 emits only that many micro-steps and loads only that many batches (one epoch);
  /// -1 = unlimited. `plan` must outlive the graph. Throws std::invalid_argument for an
  /// accumulation < 1.
  StepGraph(const StepPlan& plan, int accumulation, bool labels, long micro_step_limit = -1);
  /// A temporary plan would dangle: keep the plan in a variable.
  StepGraph(StepPlan&& plan, int accumulation, bool labels, long micro_step_limit = -1) = delete;
  StepGraph(const StepGraph&) = delete;
  StepGraph& operator=(const StepGraph&) = delete;
  StepGraph(StepGraph&&) = delete;
  StepGraph& operator=(StepGraph&&) = delete;
  ~StepGraph() = default;

  /// The graph, for observers of its activities.
  sim::ActivityGraph& graph() { return graph_; }
  /// Emitted when a micro-step starts (index 0 at time 0), before its activities begin.
  sim::Signal<MicroStepStarted>& micro_step_started() { return micro_step_started_; }

  /// Plays the graph until micro-step `index` has started (all before it are done); events
  /// due at that instant stay queued for the next call. Throws std::logic_error if the graph
  /// stops before (a limited graph asked past its limit).
  void run_until_started(long index);
  /// Micro-steps started so far.
  long started() const { return started_; }
  /// True when the loader's threads outnumber the cores, so that CPU work shares them max-min.
  bool cpu_contended() const { return contended_; }
  /// Engine events processed.
  std::uint64_t events() const { return engine_.events_processed(); }

 private:
  /// Per batch, what its reader has done (back-pressure and the host's take).
  enum BatchFlag : std::uint8_t { kArrived = 1, kDecoded = 2, kReady = 4, kTaken = 8 };
  /// The activities of a micro-step the host starts once its batch is ready.
  struct Gate {
    long index = -1;
    bool has_copy = false;
    bool has_dispatch = false;
    sim::ActivityId copy;
    sim::ActivityId dispatch;
  };

  // step_graph.cpp: host, GPU, data parallelism.
  void begin();
  void on_finished(const sim::ActivityFinished& e);
  void on_micro_step_boundary(long index);
  void emit_micro_step(long index);
  bool emit_buckets(long index, std::size_t backward_unit, sim::ActivityId kernel);
  void emit_unit_gathers(long index, bool backward, std::size_t unit, const sim::ActivityId* boundary,
                         std::vector<sim::ActivityId>& waits);
  void emit_unit_gather(long index, bool backward, int shard_unit, const sim::ActivityId* after);
  bool emit_unit_reduces(long index, std::size_t backward_unit, sim::ActivityId kernel);
  /// Activation offloading around plan unit `unit` of phase forward (`backward` false) or
  /// backward: before its kernel (`kernel` null), the copies it waits for go to `waits`;
  /// after it (`kernel` its kernel), the copies it issues are emitted.
  void emit_activation_copies(long index, bool backward, std::size_t unit, const sim::ActivityId* kernel,
                              std::vector<sim::ActivityId>& waits);
  /// `s` seconds of NCCL work queued on the communication stream after `predecessors`.
  sim::ActivityId add_comm(double s, StepActivity kind, long index, std::string label,
                           const std::vector<sim::ActivityId>& predecessors);
  /// A unit's kernels on the compute stream after `dispatch` has finished, or, with
  /// `dispatch_lag` >= 0, `dispatch_lag` ns after `dispatch` began (a coalesced host run).
  sim::ActivityId add_kernel(const DispatchUnit& u, StepActivity kind, std::uint64_t tag, sim::ActivityId dispatch,
                             sim::SimTime dispatch_lag, const std::vector<sim::ActivityId>& extra_predecessors);
  sim::ActivitySpec cpu_work(double core_s, StepActivity kind, StepTrack track, std::uint64_t tag) const;
  /// `s` seconds of work on no shared resource (storage latency, a whole-batch read).
  sim::ActivitySpec timer_work(double s, StepActivity kind, StepTrack track, std::uint64_t tag,
                                   std::string label) const;
  sim::ActivitySpec gpu_work(double gpu_s, StepActivity kind, StepTrack track, std::uint64_t tag) const;
  void release_gate(long index);
  bool final_micro_step(long index) const { return index % accumulation_ == accumulation_ - 1; }

  // step_graph_loader.cpp: the data loader.
  void check_arrival(long batch);
  void arrive(long batch);
  void on_decoded(long batch);
  void on_ready(long batch);
  void take(long batch);
  std::uint8_t& flags(long batch);

  const StepPlan& plan_;
  int accumulation_;
  bool labels_;
  long limit_;
  sim::Engine engine_;
  sim::ActivityGraph graph_;
  sim::Signal<MicroStepStarted> micro_step_started_;
  // Resources.
  bool contended_ = false;  ///< threads outnumber cores: CPU work shares the cores max-min
  sim::ResourceId cores_;
  bool has_storage_link_ = false;
  sim::ResourceId storage_link_;
  sim::ResourceId sm_;
  double comm_sm_share_ = 0.0;  ///< share of the SMs an all-reduce takes beside compute
  /// Per backward unit, the buckets (plan_.comm.buckets indexes, in order) it completes.
  std::vector<std::vector<std::size_t>> buckets_after_unit_;
  // Emission state.
  bool begun_ = false;
  long target_ = 0;
  long started_ = 0;   ///< micro-steps started
  long emitted_ = 0;   ///< micro-steps emitted
  bool has_tail_ = false;
  sim::ActivityId tail_;       ///< the compute stream's last kernel
  bool has_comm_tail_ = false;
  sim::ActivityId comm_tail_;  ///< the communication stream's last all-reduce
  Gate gates_[2];              ///< micro-steps started - 1 .. emitted - 1, by index mod 2
  // Sharded data parallelism (CommPlan::units): per plan unit, the shard unit starting at a
  // forward unit / starting and ending at a backward unit (-1: none); the micro-step's gathers.
  std::vector<int> forward_unit_start_;
  std::vector<int> backward_unit_start_;
  std::vector<int> backward_unit_end_;
  std::vector<sim::ActivityId> unit_gather_;
  std::vector<std::uint8_t> unit_has_gather_;
  bool has_parameter_gather_ = false;
  sim::ActivityId parameter_gather_;  ///< ZeRO-1/2: the updated parameters' all-gather the next forward waits for
  /// --overlap-param-gather: the gather's remaining buckets, which the first micro-step's
  /// last forward kernel waits for (CommPlan::parameter_all_gather_first_s).
  bool has_parameter_gather_rest_ = false;
  sim::ActivityId parameter_gather_rest_;
  // Activation offloading (StepPlan::activation_copies): per plan unit, the copy (index) a
  // forward unit issues after its kernel / waits for before it, a backward unit waits for,
  // and the copies a backward unit's start issues (-1 / empty: none); the micro-step's copies.
  std::vector<int> copy_out_after_;
  std::vector<int> copy_out_wait_;
  std::vector<int> copy_in_wait_;
  std::vector<std::vector<int>> copy_in_issue_;
  std::vector<sim::ActivityId> copy_out_;
  std::vector<sim::ActivityId> copy_in_;
  std::vector<std::uint8_t> copy_in_emitted_;
  bool has_offload_tail_ = false;
  sim::ActivityId offload_tail_;  ///< the offload stream's last copy
  // Loader state.
  int workers_ = 0;
  int prefetch_ = 0;
  bool pin_thread_ = false;    ///< workers > 0 and pin_memory: the pin-memory thread
  std::vector<std::uint8_t> batch_flags_;
  std::vector<std::unique_ptr<sim::RandomStream>> readers_;
  std::vector<sim::ActivityId> storage_slots_;  ///< the last `queue depth` slot activities, FIFO
  long storage_requests_ = 0;
  bool has_pin_tail_ = false;
  sim::ActivityId pin_tail_;
};

}  // namespace gpuplan::models

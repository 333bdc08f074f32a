#pragma once
/// \file step_measurement.h
/// Measurement of a step graph as an observer (STYLE.md E5): it subscribes to the graph's
/// activity signals and to StepGraph::micro_step_started, and records, by each activity's
/// kind and track tags (step_activity.h), never its label: when the GPU was busy and on what,
/// when all-reduces and copies ran, what the host was doing, where each batch's reader spent
/// its time, and (when tracing) every span. From these it splits any window of time into the
/// step-time breakdown (`attribute`). Units: ns (sim::SimTime) inside, seconds out.

#include <cstdint>
#include <utility>
#include <vector>

#include "models/results.h"
#include "models/step/step_graph.h"
#include "models/step/step_simulation.h"
#include "models/trace_span.h"
#include "sim/sim_time.h"

namespace gpuplan::models {

/// Time of a window split by where it went, seconds.
struct Attribution {
  double compute_s = 0.0;
  double optimizer_s = 0.0;
  double data_wait_s = 0.0;
  double h2d_s = 0.0;
  double dispatch_s = 0.0;
  double comm_s = 0.0;  ///< communication not hidden, and the slowdown of compute beside it
  /// The part of optimizer_s spent off the GPU (an offloaded optimizer step): not GPU busy.
  double host_optimizer_s = 0.0;
  /// The compute stream idle while its pipeline stage waits for the others
  /// (StepActivity::kPipelineWait): the schedule's bubble and the stages' imbalance.
  double pipeline_bubble_s = 0.0;
  /// The window's length: the sum of the parts.
  double total() const {
    return compute_s + optimizer_s + data_wait_s + h2d_s + dispatch_s + comm_s + pipeline_bubble_s;
  }
  /// Adds `weight` times `x` to every part.
  void add(const Attribution& x, double weight);
};

/// The observer of one StepGraph. Subscribes in its constructor; must be destroyed before the
/// graph (declare it after). Not copyable.
class StepMeasurement {
 public:
  /// When a micro-step started and whether it was the last of its optimizer step.
  struct MicroStep {
    sim::SimTime start = 0;
    bool final = false;
  };

  /// With `breakdown`, records what `attribute` and `loader_stats` need; with `trace`, every
  /// span (`trace`). Micro-step starts are always recorded.
  StepMeasurement(StepGraph& graph, const StepPlan& plan, bool breakdown, bool trace);
  StepMeasurement(const StepMeasurement&) = delete;
  StepMeasurement& operator=(const StepMeasurement&) = delete;
  StepMeasurement(StepMeasurement&&) = delete;
  StepMeasurement& operator=(StepMeasurement&&) = delete;
  ~StepMeasurement();

  /// The micro-steps started so far, by index.
  const std::vector<MicroStep>& micro_steps() const { return micro_steps_; }

  /// Splits [a, b) by where the time went: GPU busy on compute (less the slowdown beside an
  /// all-reduce, which counts as communication), on the optimizer or on GPU-side
  /// communication; GPU idle while an all-reduce runs as exposed communication, while its
  /// pipeline stage waits for the others (StepActivity::kPipelineWait) as the pipeline
  /// bubble (a wait beside a running all-reduce counts once, as the bubble); the rest of
  /// the idle time by what held the GPU back: the host waiting for data, copying, or
  /// dispatching (H2D when a copy was in flight: the batch's, or activation offloading's
  /// copies on the offload stream). `slowdown` = CommPlan::overlap_compute_slowdown.
  Attribution attribute(sim::SimTime a, sim::SimTime b, double slowdown) const;

  /// Where the readers' time went, mean per batch over the batches read and made ready
  /// within [from, to).
  LoaderStats loader_stats(sim::SimTime from, sim::SimTime to) const;

  /// Over the batches made ready before `to`: the longest time from their reader starting
  /// one to its being ready, and the longest from decoded to ready (the pin-memory thread's
  /// queue and copy), ns. Zeros when none was.
  std::pair<sim::SimTime, sim::SimTime> longest_batch(sim::SimTime to) const;

  /// The spans at work during [from, to) (overlapping it, or of zero length inside it), in
  /// the order they finished; empties the recorded spans.
  std::vector<TraceSpan> take_trace(sim::SimTime from, sim::SimTime to);

 private:
  /// What the host (the training process's main thread) is doing.
  enum class HostState : std::uint8_t { kWaitingData, kLoading, kCopying, kDispatching, kSyncing };
  /// What a GPU-busy interval was doing.
  enum class BusyKind : std::uint8_t { kCompute, kOptimizer, kHostOptimizer, kCommunication };
  struct Busy {
    sim::SimTime start;
    sim::SimTime end;
    BusyKind kind;
  };
  /// Per batch, what its reader saw.
  struct BatchRecord {
    sim::SimTime read_start = 0;  ///< the reader started the batch (storage requests submitted)
    sim::SimTime read_end = 0;    ///< last byte read (= read_start from the page cache)
    sim::SimTime decode_end = 0;  ///< decode + augment done
    sim::SimTime ready = 0;       ///< in the main process (after pinning, when pinned)
    bool done = false;
  };
  using Span = std::pair<sim::SimTime, sim::SimTime>;

  /// Storage of the recording vectors below, kept per thread between measurements (empty).
  struct Spare;
  /// This thread's spare storage: the last measurement destroyed on it left its vectors there,
  /// cleared, and the next one built takes them, so that a run of simulations (the planner's)
  /// neither reallocates nor faults in fresh pages for each. Only capacity moves between
  /// measurements, never a recorded value.
  static Spare& spare();

  void on_started(const sim::ActivityStarted& e);
  void on_finished(const sim::ActivityFinished& e);
  void on_micro_step(const MicroStepStarted& e);
  void set_host(HostState s, sim::SimTime t);
  BatchRecord& batch(std::uint64_t tag);
  bool copying(sim::SimTime a, sim::SimTime b) const;

  StepGraph& graph_;
  bool breakdown_;
  bool trace_;
  bool loads_;
  bool main_loads_;   ///< num_workers = 0: the main process loads
  bool pins_;         ///< batches are pinned before they are ready
  std::size_t started_subscription_ = 0;
  std::size_t finished_subscription_ = 0;
  std::size_t micro_step_subscription_ = 0;
  std::vector<MicroStep> micro_steps_;
  std::vector<Busy> gpu_busy_;             ///< in stream order: sorted, not overlapping
  std::vector<Span> comm_busy_;            ///< in stream order
  std::vector<Span> pipeline_waits_;       ///< the pipeline stage's waits, in stream order
  std::vector<Span> copies_;               ///< in copy-engine order
  std::vector<Span> offload_copies_;       ///< activation offloading's copies, in offload-stream order
  std::vector<std::pair<sim::SimTime, HostState>> host_states_;
  std::vector<BatchRecord> batches_;
  std::vector<TraceSpan> spans_;
};

}  // namespace gpuplan::models

#pragma once
/// \file activity_graph.h
/// Activities (an amount of work on shared resources) linked by successor edges: the graph a
/// model builds of one training step and the engine plays.

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine.h"
#include "sim/shared_bandwidth.h"
#include "sim/signal.h"
#include "sim/sim_time.h"

namespace gpuplan::sim {

/// Identifies an activity of the ActivityGraph that created it. Slots are reused once an
/// activity has finished; the generation tells a finished activity from its slot's next one.
struct ActivityId {
  std::uint32_t index = 0;       ///< slot in the graph's table
  std::uint32_t generation = 0;  ///< which use of the slot
  /// Two ids are equal when they name the same activity.
  friend bool operator==(ActivityId, ActivityId) = default;
};

/// What one activity does: wait `latency_s`, then do `amount` units of work on every resource
/// in `resources` at once (a flow of the max-min network), at most `bound_per_s` units per
/// second. With no resources the work runs alone at its bound: `amount / bound_per_s` s.
/// Units are the resources' own (bytes on a link, core-seconds on a pool of cores,
/// GPU-seconds on a stream of capacity 1).
struct ActivitySpec {
  std::string label;          ///< what it is, for observers (a trace span's name)
  std::uint32_t kind = 0;     ///< the caller's tag, passed to observers (what the time is spent on)
  std::uint32_t track = 0;    ///< the caller's tag for where it runs (a trace row)
  std::uint64_t tag = 0;      ///< the caller's payload for observers (e.g. a batch number)
  double latency_s = 0.0;     ///< fixed delay before the work, s (a request's latency)
  double amount = 0.0;        ///< work, in the resources' unit
  ResourceList resources;     ///< resources the work uses at once (may be empty; held inline)
  double bound_per_s = std::numeric_limits<double>::infinity();  ///< rate cap, units/s
  std::function<void()> on_done;  ///< runs when it finishes, before its successors start (may be empty)
};

/// An activity began (its predecessors had finished and it was started), reported by
/// ActivityGraph::activity_started. The label view is valid only during the call.
struct ActivityStarted {
  ActivityId id;
  std::string_view label;
  std::uint32_t kind;
  std::uint32_t track;
  std::uint64_t tag;
  SimTime time;
};

/// An activity finished, reported by ActivityGraph::activity_finished. The label view is
/// valid only during the call. Subscribers may add and start activities (a model that builds
/// its graph as it runs); the finished activity's successors begin after every subscriber.
struct ActivityFinished {
  ActivityId id;
  std::string_view label;
  std::uint32_t kind;
  std::uint32_t track;
  std::uint64_t tag;
  SimTime released;  ///< when `start` released it (it began once its predecessors had finished)
  SimTime start;   ///< when it began (its latency included)
  SimTime end;
  double amount;   ///< its work, in the resources' unit
};

/// A dependency graph of activities on resources shared max-min (SimGrid s4u's model:
/// `Activity::add_successor`, an activity starts once it is started and all its predecessors
/// have finished; resources shared by the `lmm` max-min solver with per-activity bounds).
/// The sharing is BandwidthNetwork's water-filling (shared_bandwidth.h), the one solver.
///
/// Use: `add` creates an activity, `add_successor(a, b)` makes b wait for a, `start(b)`
/// releases b (it begins as soon as its predecessors have finished). Activities may be added
/// while the engine runs, e.g. from an `on_done`. A cycle of successors never starts; such
/// activities stay counted in `unfinished()`.
///
/// Observers subscribe to `activity_started` and `activity_finished`. The graph must outlive the engine's processing of its events.
/// Not copyable.
class ActivityGraph {
 public:
  /// An empty graph whose activities are timed by `engine`.
  explicit ActivityGraph(Engine& engine);
  ActivityGraph(const ActivityGraph&) = delete;
  ActivityGraph& operator=(const ActivityGraph&) = delete;
  ActivityGraph(ActivityGraph&&) = delete;
  ActivityGraph& operator=(ActivityGraph&&) = delete;
  /// Leaves its tables' storage (emptied) for the next graph built on this thread.
  ~ActivityGraph();

  /// Adds a resource of `capacity_per_s` units/s shared by the activities on it.
  /// Throws std::invalid_argument if the capacity is not a finite number > 0.
  ResourceId add_resource(std::string name, double capacity_per_s) {
    return network_.add_resource(std::move(name), capacity_per_s);
  }

  /// Creates an activity; it does not run until `start`. Throws std::invalid_argument for a
  /// negative or non-finite latency or amount, a bound that is not > 0, or work with neither a
  /// resource nor a finite bound (it would take no time and no resource: say which).
  ActivityId add(ActivitySpec spec);

  /// Makes `after` wait for `before` to finish. No effect if `before` has already finished.
  /// Throws std::logic_error if `after` is running or finished, is unknown, or is `before`.
  void add_successor(ActivityId before, ActivityId after);

  /// Makes `after` begin no earlier than `lag` ns after `before` begins (a start-to-start
  /// edge with a lag, as in project scheduling): a thread whose work is known in advance
  /// (`before` followed by `lag` ns of timers that nothing else delays) gates `after` without
  /// an activity per piece of it. If `before` is running, its start is known and only the
  /// earliest start of `after` moves. An `after` whose predecessors are done before that
  /// time begins in an event at it. Throws std::logic_error if `after` is running or
  /// finished, is unknown, or is `before`, if `before` has finished, or if `lag` < 0.
  void add_start_successor(ActivityId before, ActivityId after, SimTime lag);

  /// Releases `id`: it begins now if its predecessors have finished, else when the last one
  /// does. Throws std::logic_error if `id` is unknown, finished or already started.
  void start(ActivityId id);

  /// `add` then `start`, after making the new activity wait for each of `predecessors`.
  ActivityId start_after(const std::vector<ActivityId>& predecessors, ActivitySpec spec);

  /// True once `id` has finished (also for the ids of reused slots' earlier activities).
  bool finished(ActivityId id) const;
  /// Activities added and not finished.
  std::size_t unfinished() const { return unfinished_; }

  /// The max-min network that shares the resources (for its per-resource queries).
  BandwidthNetwork& network() { return network_; }
  /// Emitted when an activity begins (before its latency).
  Signal<ActivityStarted>& activity_started() { return started_; }
  /// Emitted when an activity finishes, before its `on_done` and its successors.
  Signal<ActivityFinished>& activity_finished() { return finished_; }

 private:
  /// kDue: released, predecessors done, waiting for its earliest start (an engine event).
  enum class State : std::uint8_t { kFree, kCreated, kReleased, kDue, kRunning };
  /// What following an edge reads, 12 bytes a slot: a finishing activity's successors are
  /// scattered over the table, which stays in cache this way (the bodies would not).
  struct Slot {
    std::uint32_t generation = 0;
    State state = State::kFree;
    int pending_predecessors = 0;
  };
  /// Successors held in the body; further ones go to `more_successors_`.
  static constexpr std::uint32_t kInlineSuccessors = 3;
  /// The rest of an activity, same index as its Slot: what begin, work and finish read, 120
  /// bytes (the spec's label and callback, which most activities lack, live in `extras_`).
  struct Body {
    SimTime released = 0;
    SimTime start = 0;
    SimTime earliest = 0;  ///< it begins no earlier (start-to-start edges; 0: none)
    double latency_s = 0.0;
    double amount = 0.0;
    double bound_per_s = 0.0;
    std::uint64_t tag = 0;
    std::uint32_t kind = 0;
    std::uint32_t track = 0;
    ResourceList resources;
    bool has_extra = false;  ///< extras_[i] holds a label or a callback
    bool has_start_successors = false;  ///< start_successors_[i] is not empty
    std::uint32_t successor_count = 0;
    std::array<ActivityId, kInlineSuccessors> successors{};  ///< the first ones, in order
  };
  /// An activity's label and callback, same index as its Slot; read only when `has_extra`.
  struct Extra {
    std::string label;
    std::function<void()> on_done;
  };
  /// A start-to-start edge: `after` begins no earlier than `lag` ns after the owner begins.
  struct StartEdge {
    ActivityId after;
    SimTime lag = 0;
  };

  /// The label of the activity in slot `index` (empty when it has none).
  std::string_view label(std::uint32_t index) const {
    return bodies_[index].has_extra ? std::string_view(extras_[index].label) : std::string_view();
  }
  /// Storage of the activity tables below, kept per thread between graphs (empty): a run of
  /// graphs (the planner's step simulations) then neither reallocates its tables nor faults in
  /// fresh pages for each. Only capacity moves between graphs, never an activity.
  struct Spare;
  static Spare& spare();

  Slot& live(ActivityId id, const char* what);
  void begin(std::uint32_t index);
  /// Its predecessors are done: begin now, or in an event at its earliest start.
  void begin_when_due(std::uint32_t index);
  /// One predecessor of `next` (finish edge, or start edge reached) is done.
  void release(ActivityId next);
  void work(std::uint32_t index);
  void finish(std::uint32_t index);

  Engine& engine_;
  BandwidthNetwork network_;
  std::vector<Slot> slots_;
  std::vector<Body> bodies_;  ///< bodies_[i] belongs to slots_[i]
  std::vector<Extra> extras_;  ///< extras_[i] belongs to slots_[i]
  std::vector<std::uint32_t> free_slots_;
  /// Per slot, the successors beyond the first kInlineSuccessors, in order (most are empty).
  std::vector<std::vector<ActivityId>> more_successors_;
  std::vector<std::vector<ActivityId>> spare_successors_;  ///< emptied successor lists, reused
  /// Per slot, its start-to-start successors until it begins (most are empty).
  std::vector<std::vector<StartEdge>> start_successors_;
  std::size_t unfinished_ = 0;
  Signal<ActivityStarted> started_;
  Signal<ActivityFinished> finished_;
};

}  // namespace gpuplan::sim

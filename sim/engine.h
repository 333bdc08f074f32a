#pragma once
/// \file engine.h
/// The discrete-event engine: a simulated clock and a queue of timed callbacks.

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/sim_time.h"

namespace gpuplan::sim {

/// A discrete-event engine: a simulated clock `now()` and a queue of callbacks, each due at a
/// simulated time. Events run in order of (time, insertion sequence), so events due at the
/// same time run in the order they were scheduled and every run is deterministic
/// (STYLE.md E5). An ordinary object: no globals, so many engines may run side by side,
/// one per thread at most (STYLE.md E4). Not copyable or movable, because callbacks
/// capture references to it.
///
/// The engine reports nothing itself: resources and the activity graph emit typed signals
/// (signal.h) that observers subscribe to.
///
/// Implementation: a binary min-heap of small (time, sequence, slot) entries; the callbacks
/// live in a slot table reused through a free list, so heap operations move 24 bytes.
class Engine {
 public:
  /// A callback run when its event is due.
  using Callback = std::function<void()>;

  Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  Engine(Engine&&) = delete;
  Engine& operator=(Engine&&) = delete;
  ~Engine() = default;

  /// The current simulated time: the due time of the event being (or last) processed, or the
  /// limit of the last `run_until`. Starts at 0.
  SimTime now() const { return now_; }

  /// Schedules `callback` to run at simulated time `t`. An event due at `now()` runs after
  /// every event already scheduled for `now()`.
  /// Throws std::logic_error if `t < now()` (the past) or `callback` is empty.
  void schedule_at(SimTime t, Callback callback);

  /// Schedules `callback` to run `delay` nanoseconds after `now()`.
  /// Throws std::logic_error if `delay` is negative or `callback` is empty, and TimeRangeError
  /// (sim_time.h) if `now() + delay` overflows SimTime.
  void schedule_in(SimTime delay, Callback callback);

  /// Processes events in order until none is left or a callback calls `stop()`.
  /// An exception thrown by a callback propagates out; the engine stays usable (the event
  /// that threw counts as processed). Throws std::logic_error if called from a callback.
  void run();

  /// Processes every event due at or before `t`, then sets `now()` to `t`, unless a callback
  /// called `stop()`, in which case `now()` stays at the time of the last processed event.
  /// Throws std::logic_error if `t < now()` or if called from a callback.
  void run_until(SimTime t);

  /// Processes the next event, if any. Returns false if the queue was empty.
  /// Throws std::logic_error if called from a callback.
  bool step();

  /// Asks the running `run()` or `run_until()` to return after the current event. A call made
  /// while neither is running has no effect: each of them clears the request on entry.
  void stop() { stop_requested_ = true; }

  /// True when no event is pending.
  bool empty() const { return heap_.empty(); }

  /// The number of pending events.
  std::size_t pending_events() const { return heap_.size(); }

  /// The due time of the next event. Throws std::logic_error if none is pending.
  SimTime next_event_time() const;

  /// The number of events processed since construction.
  std::uint64_t events_processed() const { return events_processed_; }

 private:
  struct Entry {
    SimTime time;
    std::uint64_t sequence;
    std::uint32_t slot;
  };
  // Heap order for std::push_heap/pop_heap (a max-heap): "a runs after b".
  static bool runs_after(const Entry& a, const Entry& b) {
    return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
  }

  void push(SimTime t, Callback callback);
  void process_next();

  SimTime now_ = 0;
  std::uint64_t next_sequence_ = 0;
  std::uint64_t events_processed_ = 0;
  bool running_ = false;
  bool stop_requested_ = false;
  std::vector<Entry> heap_;
  std::vector<Callback> callbacks_;
  std::vector<std::uint32_t> free_slots_;
};

}  // namespace gpuplan::sim

#pragma once
/// \file engine.h
/// The discrete-event engine: a simulated clock and a queue of timed callbacks.

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/sim_time.h"

namespace gpuplan::sim {

/// Identifies a scheduled event for `Engine::reschedule_at` and `Engine::cancel`: its slot in
/// the engine's table and the sequence number it was (last) scheduled with, so that the id of
/// an event that has run or was cancelled never names the slot's next event.
struct EventId {
  std::uint32_t slot = 0;
  std::uint64_t sequence = 0;
};

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
/// Implementation: a binary min-heap of small (time, sequence, slot) entries that records each
/// slot's position in the heap (so a pending event can be moved or removed in O(log n)); the
/// callbacks live in a slot table reused through a free list, so heap operations move 24 bytes.
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
  /// Returns the event's id. Throws std::logic_error if `t < now()` (the past) or `callback`
  /// is empty.
  EventId schedule_at(SimTime t, Callback callback);

  /// Schedules `callback` to run `delay` nanoseconds after `now()`; returns the event's id.
  /// Throws std::logic_error if `delay` is negative or `callback` is empty, and TimeRangeError
  /// (sim_time.h) if `now() + delay` overflows SimTime.
  EventId schedule_in(SimTime delay, Callback callback);

  /// Moves the pending event `id` to time `t` with a new sequence number, keeping its
  /// callback: exactly as if it were cancelled and its callback scheduled at `t` now (it runs
  /// after every event already scheduled for `t`). Updates `id` to the moved event. Returns
  /// false, changing nothing, if `id` has run or was cancelled. Throws std::logic_error if
  /// `t < now()`. Cost O(log n); O(1) when `t` is unchanged and few events share it.
  bool reschedule_at(EventId& id, SimTime t);

  /// Removes the pending event `id` unrun. Returns false if it has run or was cancelled.
  bool cancel(EventId id);

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
  /// Heap order: "a runs before b" (time, then sequence).
  static bool runs_before(const Entry& a, const Entry& b) {
    return a.time != b.time ? a.time < b.time : a.sequence < b.sequence;
  }

  EventId push(SimTime t, Callback callback);
  bool pending(EventId id) const;
  void place(std::size_t position, const Entry& entry);
  void sift_up(std::size_t position, const Entry& moving);
  void sift_down(std::size_t position, const Entry& moving);
  void remove_at(std::size_t position);
  void process_next();

  SimTime now_ = 0;
  std::uint64_t next_sequence_ = 0;
  std::uint64_t events_processed_ = 0;
  bool running_ = false;
  bool stop_requested_ = false;
  std::vector<Entry> heap_;
  std::vector<Callback> callbacks_;
  std::vector<std::uint32_t> heap_position_;  ///< per slot: its entry's index in heap_ (pending slots only)
  std::vector<std::uint32_t> free_slots_;
};

}  // namespace gpuplan::sim

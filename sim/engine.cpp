#include "sim/engine.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace gpuplan::sim {

namespace {

// Marks the engine as running for the lifetime of a run/run_until/step call, so that a
// nested call from a callback is refused and an exception leaves the engine usable.
class RunningGuard {
 public:
  RunningGuard(bool& running, const char* what) : running_(running) {
    if (running_) {
      throw std::logic_error(std::string("Engine::") + what +
                             ": called from inside an event callback; schedule an event instead");
    }
    running_ = true;
  }
  RunningGuard(const RunningGuard&) = delete;
  RunningGuard& operator=(const RunningGuard&) = delete;
  ~RunningGuard() { running_ = false; }

 private:
  bool& running_;
};

}  // namespace

EventId Engine::schedule_at(SimTime t, Callback callback) {
  if (t < now_) {
    throw std::logic_error("Engine::schedule_at: time " + std::to_string(t) +
                           " ns is before now (" + std::to_string(now_) +
                           " ns); events cannot be scheduled in the past");
  }
  return push(t, std::move(callback));
}

EventId Engine::schedule_in(SimTime delay, Callback callback) {
  if (delay < 0) {
    throw std::logic_error("Engine::schedule_in: negative delay " + std::to_string(delay) +
                           " ns; expected a delay >= 0");
  }
  if (delay > std::numeric_limits<SimTime>::max() - now_) {
    throw TimeRangeError("Engine::schedule_in: now + delay (" + std::to_string(now_) + " + " +
                           std::to_string(delay) + " ns) overflows the simulated-time range");
  }
  return push(now_ + delay, std::move(callback));
}

EventId Engine::push(SimTime t, Callback callback) {
  if (!callback) {
    throw std::logic_error("Engine: cannot schedule an empty callback");
  }
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    if (callbacks_.size() >= std::numeric_limits<std::uint32_t>::max()) {
      throw std::logic_error("Engine: more than 2^32 pending events");
    }
    slot = static_cast<std::uint32_t>(callbacks_.size());
    callbacks_.push_back(std::move(callback));
    heap_position_.push_back(0);
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    callbacks_[slot] = std::move(callback);
  }
  // Built in place from scalars (no Entry on the stack copied as a vector: see sift_up).
  const std::uint64_t sequence = next_sequence_++;
  heap_.push_back(Entry{t, sequence, slot});  // braces: clang 14 has no parenthesized aggregate init
  sift_up(heap_.size() - 1, heap_.back());
  return EventId{slot, sequence};
}

bool Engine::pending(EventId id) const {
  if (id.slot >= heap_position_.size()) {
    return false;
  }
  const std::size_t position = heap_position_[id.slot];
  return position < heap_.size() && heap_[position].slot == id.slot && heap_[position].sequence == id.sequence;
}

void Engine::place(std::size_t position, const Entry& entry) {
  heap_[position] = entry;
  heap_position_[entry.slot] = static_cast<std::uint32_t>(position);
}

// The entry arrives by reference and is read field by field: a 24-byte Entry passed by value
// goes through the stack, and reading it back as one 16-byte vector right after the caller's
// 8-byte stores defeats store forwarding (a stall per event, seen with perf annotate).
void Engine::sift_up(std::size_t position, const Entry& moving) {
  const Entry entry{moving.time, moving.sequence, moving.slot};
  while (position > 0) {
    const std::size_t parent = (position - 1) / 2;
    if (!runs_before(entry, heap_[parent])) {
      break;
    }
    place(position, heap_[parent]);
    position = parent;
  }
  place(position, entry);
}

void Engine::sift_down(std::size_t position, const Entry& moving) {
  const Entry entry{moving.time, moving.sequence, moving.slot};
  const std::size_t n = heap_.size();
  while (true) {
    std::size_t child = 2 * position + 1;
    if (child >= n) {
      break;
    }
    if (child + 1 < n && runs_before(heap_[child + 1], heap_[child])) {
      ++child;
    }
    if (!runs_before(heap_[child], entry)) {
      break;
    }
    place(position, heap_[child]);
    position = child;
  }
  place(position, entry);
}

void Engine::remove_at(std::size_t position) {
  const Entry last = heap_.back();
  heap_.pop_back();
  if (position == heap_.size()) {
    return;
  }
  if (position > 0 && runs_before(last, heap_[(position - 1) / 2])) {
    sift_up(position, last);
  } else {
    sift_down(position, last);
  }
}

bool Engine::reschedule_at(EventId& id, SimTime t) {
  if (t < now_) {
    throw std::logic_error("Engine::reschedule_at: time " + std::to_string(t) +
                           " ns is before now (" + std::to_string(now_) + " ns)");
  }
  if (!pending(id)) {
    return false;
  }
  const std::size_t position = heap_position_[id.slot];
  const Entry moved{t, next_sequence_++, id.slot};
  // A new sequence number orders it after every event now scheduled for `t`: later than
  // before unless the time moved earlier.
  if (runs_before(moved, heap_[position])) {
    sift_up(position, moved);
  } else {
    sift_down(position, moved);
  }
  id.sequence = moved.sequence;
  return true;
}

bool Engine::cancel(EventId id) {
  if (!pending(id)) {
    return false;
  }
  callbacks_[id.slot] = nullptr;
  free_slots_.push_back(id.slot);
  remove_at(heap_position_[id.slot]);
  return true;
}

void Engine::process_next() {
  // Field by field: the front was likely just written by a sift, field by field, and one
  // 16-byte load of it would wait for those stores to reach the cache (see sift_up).
  const SimTime time = heap_.front().time;
  const std::uint32_t slot = heap_.front().slot;
  remove_at(0);
  // Move the callback out before running it: it may schedule events, which may grow the slot
  // table and would otherwise move the callback from under its own call.
  Callback callback = std::move(callbacks_[slot]);
  callbacks_[slot] = nullptr;
  free_slots_.push_back(slot);
  now_ = time;
  ++events_processed_;
  callback();
}

void Engine::run() {
  const RunningGuard guard(running_, "run");
  stop_requested_ = false;
  while (!heap_.empty() && !stop_requested_) {
    process_next();
  }
  stop_requested_ = false;
}

void Engine::run_until(SimTime t) {
  if (t < now_) {
    throw std::logic_error("Engine::run_until: limit " + std::to_string(t) +
                           " ns is before now (" + std::to_string(now_) + " ns)");
  }
  const RunningGuard guard(running_, "run_until");
  stop_requested_ = false;
  while (!heap_.empty() && heap_.front().time <= t && !stop_requested_) {
    process_next();
  }
  if (!stop_requested_) {
    now_ = t;
  }
  stop_requested_ = false;
}

bool Engine::step() {
  const RunningGuard guard(running_, "step");
  if (heap_.empty()) {
    return false;
  }
  process_next();
  return true;
}

SimTime Engine::next_event_time() const {
  if (heap_.empty()) {
    throw std::logic_error("Engine::next_event_time: no event is pending");
  }
  return heap_.front().time;
}

}  // namespace gpuplan::sim

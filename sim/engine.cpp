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

void Engine::schedule_at(SimTime t, Callback callback) {
  if (t < now_) {
    throw std::logic_error("Engine::schedule_at: time " + std::to_string(t) +
                           " ns is before now (" + std::to_string(now_) +
                           " ns); events cannot be scheduled in the past");
  }
  push(t, std::move(callback));
}

void Engine::schedule_in(SimTime delay, Callback callback) {
  if (delay < 0) {
    throw std::logic_error("Engine::schedule_in: negative delay " + std::to_string(delay) +
                           " ns; expected a delay >= 0");
  }
  if (delay > std::numeric_limits<SimTime>::max() - now_) {
    throw TimeRangeError("Engine::schedule_in: now + delay (" + std::to_string(now_) + " + " +
                           std::to_string(delay) + " ns) overflows the simulated-time range");
  }
  push(now_ + delay, std::move(callback));
}

void Engine::push(SimTime t, Callback callback) {
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
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    callbacks_[slot] = std::move(callback);
  }
  heap_.push_back(Entry{t, next_sequence_++, slot});
  std::push_heap(heap_.begin(), heap_.end(), runs_after);
}

void Engine::process_next() {
  std::pop_heap(heap_.begin(), heap_.end(), runs_after);
  const Entry entry = heap_.back();
  heap_.pop_back();
  // Move the callback out before running it: it may schedule events, which may grow the slot
  // table and would otherwise move the callback from under its own call.
  Callback callback = std::move(callbacks_[entry.slot]);
  callbacks_[entry.slot] = nullptr;
  free_slots_.push_back(entry.slot);
  now_ = entry.time;
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

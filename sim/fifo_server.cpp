#include "sim/fifo_server.h"

#include <stdexcept>
#include <utility>

namespace gpuplan::sim {

FifoServer::FifoServer(Engine& engine, std::string name, int slots)
    : engine_(engine), name_(std::move(name)) {
  if (slots < 1) {
    throw std::invalid_argument("FifoServer '" + name_ + "': " + std::to_string(slots) +
                                " slots; expected at least 1");
  }
  slots_.resize(static_cast<std::size_t>(slots));
  free_slots_.reserve(slots_.size());
  // Free slots are taken from the back: keep slot 0 at the back so slots fill in index order.
  for (std::size_t i = slots_.size(); i-- > 0;) {
    free_slots_.push_back(static_cast<std::uint32_t>(i));
  }
}

void FifoServer::submit(SimTime service_time, std::function<void()> on_done, std::string label,
                        std::uint32_t kind) {
  if (service_time < 0) {
    throw std::invalid_argument("FifoServer '" + name_ + "': negative service time " +
                                std::to_string(service_time) + " ns");
  }
  Job job{engine_.now(), service_time, std::move(on_done), std::move(label), kind};
  if (free_slots_.empty()) {
    waiting_.push_back(std::move(job));
  } else {
    start(std::move(job));
  }
}

void FifoServer::start(Job job) {
  const std::uint32_t index = free_slots_.back();
  free_slots_.pop_back();
  Slot& slot = slots_[index];
  const SimTime now = engine_.now();
  slot.arrival = job.arrival;
  slot.start = now;
  slot.busy_since = now;
  slot.busy = true;
  slot.on_done = std::move(job.on_done);
  slot.label = std::move(job.label);
  slot.kind = job.kind;
  engine_.schedule_in(job.service_time, [this, index] { complete(index); });
}

void FifoServer::complete(std::uint32_t slot_index) {
  Slot& slot = slots_[slot_index];
  const SimTime now = engine_.now();
  completed_busy_ += now - slot.busy_since;
  slot.busy = false;
  ++completed_;
  wait_sum_s_ += to_seconds(slot.start - slot.arrival);
  system_sum_s_ += to_seconds(now - slot.arrival);
  finished_.emit(ServiceFinished{slot.label, slot.kind, slot.arrival, slot.start, now});

  std::function<void()> on_done = std::move(slot.on_done);
  slot.on_done = nullptr;
  slot.label.clear();
  free_slots_.push_back(slot_index);
  if (!waiting_.empty()) {
    Job next = std::move(waiting_.front());
    waiting_.pop_front();
    start(std::move(next));
  }
  if (on_done) {
    on_done();
  }
}

SimTime FifoServer::busy_time() const {
  SimTime busy = completed_busy_;
  for (const Slot& slot : slots_) {
    if (slot.busy) {
      busy += engine_.now() - slot.busy_since;
    }
  }
  return busy;
}

double FifoServer::utilization(SimTime horizon) const {
  if (horizon <= 0) {
    throw std::invalid_argument("FifoServer '" + name_ + "': utilization horizon " +
                                std::to_string(horizon) + " ns; expected > 0");
  }
  return static_cast<double>(busy_time()) /
         (static_cast<double>(slots()) * static_cast<double>(horizon));
}

double FifoServer::mean_wait_s() const {
  return completed_ == 0 ? 0.0 : wait_sum_s_ / static_cast<double>(completed_);
}

double FifoServer::mean_time_in_system_s() const {
  return completed_ == 0 ? 0.0 : system_sum_s_ / static_cast<double>(completed_);
}

void FifoServer::reset_statistics() {
  const SimTime now = engine_.now();
  completed_ = 0;
  completed_busy_ = 0;
  wait_sum_s_ = 0.0;
  system_sum_s_ = 0.0;
  for (Slot& slot : slots_) {
    if (slot.busy) {
      slot.busy_since = now;
    }
  }
}

}  // namespace gpuplan::sim

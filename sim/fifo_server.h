#pragma once
/// \file fifo_server.h
/// A multi-slot first-come-first-served server (a G/G/k station).

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine.h"
#include "sim/signal.h"
#include "sim/sim_time.h"

namespace gpuplan::sim {

/// One completed job of a FifoServer, as reported by FifoServer::finished. The label view is
/// valid only during the subscriber call.
struct ServiceFinished {
  std::string_view label;  ///< the job's label (may be empty)
  std::uint32_t kind;      ///< the submitter's tag for the job (what the time was spent on)
  SimTime arrival;         ///< when the job was submitted
  SimTime start;           ///< when its service began
  SimTime end;             ///< when its service ended
};

/// A station with `slots` identical servers and one unbounded FIFO waiting line: Kendall's
/// G/G/k with first-come-first-served discipline. Each job brings its own service time; a job
/// starts as soon as a slot is free and every earlier job has started. Models, for example,
/// CPU cores shared by data-loader workers or a storage device with a queue depth.
///
/// Statistics cover the window since construction or the last `reset_statistics()`.
/// Each completed job is reported through the `finished` signal.
/// The server must outlive the engine's processing of the events it schedules. Not copyable.
class FifoServer {
 public:
  /// A server called `name` with `slots` parallel slots.
  /// Throws std::invalid_argument if `slots < 1`.
  FifoServer(Engine& engine, std::string name, int slots);
  FifoServer(const FifoServer&) = delete;
  FifoServer& operator=(const FifoServer&) = delete;
  FifoServer(FifoServer&&) = delete;
  FifoServer& operator=(FifoServer&&) = delete;
  ~FifoServer() = default;

  /// Adds a job that needs `service_time` ns of one slot. `on_done` (may be empty) is called
  /// from the engine event at which the job completes, after the next waiting job (if any) has
  /// taken the freed slot. `label` names the job for observers; `kind` is the submitter's
  /// tag, passed through to the `finished` signal so observers need no string matching.
  /// Throws std::invalid_argument if `service_time < 0`.
  void submit(SimTime service_time, std::function<void()> on_done, std::string label = {},
              std::uint32_t kind = 0);

  /// Emitted once per completed job, before its `on_done`.
  Signal<ServiceFinished>& finished() { return finished_; }

  /// The server's name.
  const std::string& name() const { return name_; }
  /// The number of parallel slots.
  int slots() const { return static_cast<int>(slots_.size()); }
  /// Jobs waiting for a slot (not counting those in service).
  std::size_t queue_length() const { return waiting_.size(); }
  /// Jobs in service now (at most `slots()`).
  int in_service() const { return slots() - static_cast<int>(free_slots_.size()); }

  /// Jobs completed in the statistics window.
  std::uint64_t completed() const { return completed_; }

  /// Busy time summed over slots in the statistics window, up to `now()`, in ns: the service
  /// of completed jobs plus the elapsed part of the jobs in service.
  SimTime busy_time() const;

  /// `busy_time() / (slots * horizon)`, in [0, 1] when `horizon` is the length of the
  /// statistics window. Throws std::invalid_argument if `horizon <= 0`.
  double utilization(SimTime horizon) const;

  /// Mean time from submission to start of service of the jobs completed in the window, in
  /// seconds (0 when none completed). A job counts in the window in which it completes.
  double mean_wait_s() const;

  /// Mean time from submission to completion of the jobs completed in the window, in seconds
  /// (0 when none completed).
  double mean_time_in_system_s() const;

  /// Starts a new statistics window at `now()`, e.g. after a warm-up period: clears the
  /// counters, and counts only the remaining part of the service of jobs now in service.
  void reset_statistics();

 private:
  struct Job {
    SimTime arrival;
    SimTime service_time;
    std::function<void()> on_done;
    std::string label;
    std::uint32_t kind;
  };
  struct Slot {
    SimTime arrival = 0;
    SimTime start = 0;
    SimTime busy_since = 0;  // max(start, last statistics reset)
    bool busy = false;
    std::function<void()> on_done;
    std::string label;
    std::uint32_t kind = 0;
  };

  void start(Job job);
  void complete(std::uint32_t slot_index);

  Engine& engine_;
  std::string name_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::deque<Job> waiting_;

  std::uint64_t completed_ = 0;
  SimTime completed_busy_ = 0;
  double wait_sum_s_ = 0.0;
  double system_sum_s_ = 0.0;
  Signal<ServiceFinished> finished_;
};

}  // namespace gpuplan::sim

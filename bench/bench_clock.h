#pragma once
/// \file bench_clock.h
/// Wall and CPU time of a bench figure. The machine is shared (bench/README.md): the wall time
/// counts the other users' work too, the process's CPU time (all threads, std::clock) much
/// less, so each figure prints both and A/B comparisons read the CPU time.

#include <chrono>
#include <ctime>

namespace gpuplan::bench {

/// Seconds since a Stopwatch started.
struct Elapsed {
  double wall_s = 0.0;  ///< steady-clock seconds
  double cpu_s = 0.0;   ///< CPU seconds of the whole process (every thread), std::clock
};

/// Starts at construction; `elapsed` reads it (any number of times).
class Stopwatch {
 public:
  Stopwatch() : wall_start_(std::chrono::steady_clock::now()), cpu_start_(std::clock()) {}
  /// Wall and CPU seconds since construction.
  Elapsed elapsed() const {
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count(),
            static_cast<double>(std::clock() - cpu_start_) / CLOCKS_PER_SEC};
  }

 private:
  std::chrono::steady_clock::time_point wall_start_;
  std::clock_t cpu_start_;
};

}  // namespace gpuplan::bench

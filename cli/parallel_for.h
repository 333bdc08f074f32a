#pragma once
/// \file parallel_for.h
/// The commands' one thread pool: `gpuplan plan`'s points and `gpuplan run`'s checked
/// remedies (cli/advisor.h). Results go to slots by index, so the output does not depend on
/// the number of threads.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpuplan::cli {

/// Runs fn(i) for i in [0, n) on `threads` threads; reports progress from the calling thread
/// when `progress` is set. Rethrows the first exception a call threw, after all have run.
template <typename F>
void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t, std::size_t)>& progress,
                  std::size_t progress_base, std::size_t progress_total, F fn) {
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  const unsigned workers = std::max(1U, std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(n, 1))));
  std::vector<std::thread> pool;
  std::exception_ptr error;
  std::mutex error_mutex;
  for (unsigned w = 0; w < workers; ++w) {
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < n; i = next++) {
        try {
          fn(i);
        } catch (...) {
          const std::lock_guard<std::mutex> lock(error_mutex);
          if (!error) error = std::current_exception();
        }
        ++done;
      }
    });
  }
  if (progress) {
    while (done.load() < n) {
      progress(progress_base + done.load(), progress_total);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    progress(progress_base + n, progress_total);
  }
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace gpuplan::cli

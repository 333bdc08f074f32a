#pragma once
/// \file progress_bar.h
/// A progress bar on standard error for commands that run long: drawn only when standard
/// error is a terminal and only once the command has run for a second, so that quick runs,
/// pipes, tests and goldens see nothing.

#include <chrono>
#include <cstddef>
#include <string>

namespace gpuplan::cli {

class ProgressBar {
 public:
  /// `label` prefixes the bar ("run"). Decides once whether standard error is a terminal.
  explicit ProgressBar(std::string label);
  /// Draws "\r<label> [#####.....] done/total" when shown; ends the line when done == total.
  void update(std::size_t done, std::size_t total);
  /// Whether the bar can draw at all (standard error is a terminal).
  bool enabled() const { return enabled_; }

 private:
  std::string label_;
  bool enabled_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace gpuplan::cli

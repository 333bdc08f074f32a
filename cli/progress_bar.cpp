#include "cli/progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace gpuplan::cli {

namespace {
/// A command shorter than this shows no bar.
constexpr std::chrono::seconds kShowAfter{1};
constexpr std::size_t kBarCells = 30;
}  // namespace

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)), enabled_(isatty(fileno(stderr)) != 0), start_(std::chrono::steady_clock::now()) {}

void ProgressBar::update(std::size_t done, std::size_t total) {
  if (!enabled_ || total == 0) return;
  if (!drawn_ && std::chrono::steady_clock::now() - start_ < kShowAfter) return;
  const std::size_t filled = done * kBarCells / total;
  std::fprintf(stderr, "\r%s [%s%s] %zu/%zu", label_.c_str(), std::string(filled, '#').c_str(),
               std::string(kBarCells - filled, '.').c_str(), done, total);
  if (done == total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace gpuplan::cli

#include "core/text_distance.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace gpuplan::core {
namespace {
std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}
}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment (Wagner-Fischer with Damerau's adjacent transposition): three
  // rows, the one before the previous for the transposition.
  std::vector<std::size_t> before(b.size() + 1);
  std::vector<std::size_t> previous(b.size() + 1);
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) {
    previous[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::vector<std::string> closest(std::string_view word, const std::vector<std::string>& candidates,
                                 std::size_t max_distance, std::size_t max_results) {
  const std::string w = lower(word);
  std::vector<std::pair<std::size_t, std::size_t>> scored;  // (distance, index)
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string c = lower(candidates[i]);
    std::size_t d = edit_distance(w, c);
    const bool prefix = w.size() >= 3 && c.size() >= 3 && (c.starts_with(w) || w.starts_with(c));
    if (d <= max_distance || prefix) {
      scored.emplace_back(prefix ? std::min(d, max_distance) : d, i);
    }
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [d, i] : scored) {
    if (out.size() == max_results) {
      break;
    }
    out.push_back(candidates[i]);
  }
  return out;
}

std::string did_you_mean(const std::vector<std::string>& suggestions) {
  if (suggestions.empty()) {
    return "";
  }
  std::string out = "; did you mean ";
  for (std::size_t i = 0; i < suggestions.size(); ++i) {
    if (i > 0) {
      out += (i + 1 == suggestions.size()) ? " or " : ", ";
    }
    out += suggestions[i];
  }
  return out + "?";
}

}  // namespace gpuplan::core

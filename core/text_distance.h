#pragma once
/// \file text_distance.h
/// Edit distance and "did you mean" suggestions for unknown keys and catalog names
/// (STYLE.md C3; the threshold of 2 follows Ninja's spellcheck).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::core {

/// Optimal string alignment distance: Levenshtein's insert, delete and substitute plus the
/// transposition of two adjacent characters, each costing 1 (Damerau 1964: the four cover
/// most typing errors; "rtx3900" is one edit from "rtx3090"), case-sensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidates closest to `word`, at most `max_results`, nearest first (ties in the
/// candidates' order). A candidate qualifies when its case-insensitive edit distance is at
/// most `max_distance`, or when one contains the other as a prefix of at least 3 characters
/// (so "a100-80" suggests "a100-80gb"). Empty when nothing is close.
std::vector<std::string> closest(std::string_view word, const std::vector<std::string>& candidates,
                                 std::size_t max_distance = 2, std::size_t max_results = 3);

/// "; did you mean a, b or c?" for a non-empty list, else "".
std::string did_you_mean(const std::vector<std::string>& suggestions);

}  // namespace gpuplan::core

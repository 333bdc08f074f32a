#pragma once
/// \file scenario_reading.h
/// Small helpers shared by the section readers of a scenario (scenario_workload.cpp,
/// scenario_hardware.cpp, scenario_validator.cpp). Internal to config/.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/yaml_reader.h"

namespace gpuplan::config {

/// Up to three names of `candidates` close to `word` (core::closest), near spellings and
/// completions first; names that are only a prefix of `word` when nothing else is close.
std::vector<std::string> closest_names(const std::string& word, const std::vector<std::string>& candidates);

/// "; did you mean a or b?" when some candidate is close to `word`; otherwise, for a short
/// list, "; known <what>: a, b, c"; otherwise "".
std::string suggest_names(const std::string& word, const std::vector<std::string>& candidates,
                          const std::string& what);

/// suggest_names for a model name, knowing how people write them: a catalog name equal up to
/// case, separators, a Hugging Face organisation and a leading "meta-" is named first
/// ("meta-llama/Meta-Llama-3-8B": did you mean llama3-8b?), then (at most three) within one
/// edit of it or beginning it, with the same sizes and versions ("llama-3.1-8b",
/// "mistralai/Mistral-7B-v0.1"; not "Llama-2-70b" for llama2-7b); else the closest names with
/// the same sizes and versions; else a pointer to `gpuplan list models`. Never empty.
std::string suggest_model_names(const std::string& name, const std::vector<std::string>& catalog_names);

/// True when `text` is `word` in another case ("Auto" for auto, "CATALOG" for catalog): a
/// keyword that a key reads in lower case only (enumerated values are lower case: STYLE.md N5),
/// for the fix "write auto (in lower case)".
bool written_in_another_case(const std::string& text, std::string_view word);

/// Splits an exception text "<problem>; <fix>" at its first "; " into {problem, "; fix"}.
std::pair<std::string, std::string> split_problem_fix(const std::string& text);

/// A number in (0, max_value]: MapReader::number with above_min ("expected a number above 0, at
/// most <max_value>" for a negative value and for 0 alike).
std::optional<double> positive_number(MapReader& reader, const std::string& key, double max_value,
                                      Requirement req = Requirement::kOptional);

/// A whole number in [min_value, max_value] written as a number ("1281167" or "1.28e6").
std::optional<double> whole_number(MapReader& reader, const std::string& key, double min_value,
                                   double max_value, Requirement req = Requirement::kOptional);

/// `value` with its default when absent (or invalid: the error is already recorded).
template <typename T, typename U>
T value_or(const std::optional<T>& value, U fallback) {
  return value ? *value : static_cast<T>(fallback);
}

/// "1 GPU", "8 GPUs": `n` and `word`, plural with an s.
std::string plural(int n, const std::string& word);

/// "1, 2, 4 or 8": the divisors of n from `smallest` on ("" when there are none), for fixes
/// that name the parallel sizes that would fit.
std::string divisors_text(int n, int smallest = 1);

/// Records "missing key '<key>'" at `reader`'s mapping with `fix` (starting with "; "), or
/// once as the unknown key that misspells it (MapReader::missing).
void missing_key(MapReader& reader, const std::string& key, const std::string& fix);

}  // namespace gpuplan::config

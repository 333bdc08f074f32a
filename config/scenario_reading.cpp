#include "config/scenario_reading.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "core/text_distance.h"

namespace gpuplan::config {

namespace {
constexpr std::size_t kMaxListedNames = 24;
}  // namespace

std::vector<std::string> closest_names(const std::string& word, const std::vector<std::string>& candidates) {
  // core::closest also accepts a candidate that is a mere prefix of the word ("a10" for
  // "a100-80"); keep those only when nothing better is close: near spellings and
  // completions ("a100-80gb") first, nearest first.
  const auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  const std::string w = lower(word);
  std::vector<std::pair<std::size_t, std::string>> better;
  std::vector<std::string> prefixes;
  for (const std::string& c : core::closest(word, candidates, 2, candidates.size())) {
    const std::string l = lower(c);
    const std::size_t distance = core::edit_distance(w, l);
    if (distance <= 2 || l.starts_with(w)) {
      better.emplace_back(distance, c);
    } else {
      prefixes.push_back(c);
    }
  }
  std::stable_sort(better.begin(), better.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  // Only the nearest spellings ("resnet50" for "resnet-50", not also "resnet152"), plus
  // every completion.
  std::vector<std::string> out;
  for (const auto& [distance, c] : better) {
    if (distance <= better.front().first || lower(c).starts_with(w)) {
      out.push_back(c);
    }
  }
  if (out.empty()) {
    out = prefixes;
  }
  if (out.size() > 3) {
    out.resize(3);
  }
  return out;
}

std::string suggest_names(const std::string& word, const std::vector<std::string>& candidates,
                          const std::string& what) {
  const std::vector<std::string> near = closest_names(word, candidates);
  if (!near.empty()) {
    return core::did_you_mean(near);
  }
  if (candidates.empty() || candidates.size() > kMaxListedNames) {
    return "";
  }
  std::string out = "; known " + what + ": ";
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    out += (i == 0 ? "" : ", ") + candidates[i];
  }
  return out;
}

namespace {
/// A model name as people write it, folded for comparison: lower case, the Hugging Face
/// organisation ("meta-llama/") and a leading "meta-" dropped, no '-', '_', '.' or spaces
/// ("meta-llama/Meta-Llama-3.1-8B" -> "llama318b", as "llama3.1-8b" folds).
std::string folded_model_name(const std::string& name) {
  std::string s = name.substr(name.find_last_of('/') == std::string::npos ? 0 : name.find_last_of('/') + 1);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (s.rfind("meta-", 0) == 0) s = s.substr(5);
  std::string out;
  for (const char c : s) {
    if (c != '-' && c != '_' && c != '.' && c != ' ') out += c;
  }
  return out;
}

/// The runs of digits of `s` in order ("Llama-3.1-8B" -> 3, 1, 8).
std::vector<std::string> digit_runs(const std::string& s) {
  std::vector<std::string> runs;
  std::string run;
  for (const char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      run += c;
    } else if (!run.empty()) {
      runs.push_back(run);
      run.clear();
    }
  }
  if (!run.empty()) runs.push_back(run);
  return runs;
}

/// True when every digit run of `catalog_name` appears, in order, among those of `word`: a
/// minor version the catalog leaves out is fine ("Llama-3.1-8B" for llama3-8b), another size
/// is not ("llama2-70b" is not llama2-7b, "pythia-12b" not pythia-1b).
bool same_numbers(const std::string& catalog_name, const std::string& word) {
  const std::vector<std::string> want = digit_runs(catalog_name);
  const std::vector<std::string> have = digit_runs(word);
  std::size_t i = 0;
  for (const std::string& h : have) {
    if (i < want.size() && h == want[i]) ++i;
  }
  return i == want.size();
}
}  // namespace

std::string suggest_model_names(const std::string& name, const std::vector<std::string>& catalog_names) {
  // Equal once folded, else within one edit once folded ("llama-3.1-8b" -> llama3-8b), or
  // the folded catalog name begins the folded word ("Mistral-7B-v0.1" -> mistral-7b).
  std::vector<std::string> same;
  std::vector<std::string> close;
  const std::string folded = folded_model_name(name);
  // A letter O typed for a zero after a digit ("resnet5O"): the same name once read as 0.
  std::string zeros = name;
  for (std::size_t i = 1; i < zeros.size(); ++i) {
    if ((zeros[i] == 'O' || zeros[i] == 'o') && std::isdigit(static_cast<unsigned char>(zeros[i - 1]))) zeros[i] = '0';
  }
  const std::string folded_zeros = folded_model_name(zeros);
  for (const std::string& c : catalog_names) {
    const std::string f = folded_model_name(c);
    if (f == folded || f == folded_zeros) {
      same.push_back(c);
    } else if (same_numbers(c, name) && (core::edit_distance(f, folded) <= 1 || (f.size() >= 6 && folded.rfind(f, 0) == 0))) {
      close.push_back(c);
    }
  }
  if (!same.empty()) return core::did_you_mean(same);
  if (!close.empty() && close.size() <= 3) return core::did_you_mean(close);
  std::vector<std::string> near;
  for (const std::string& c : closest_names(name, catalog_names)) {
    if (same_numbers(c, name)) near.push_back(c);
  }
  return near.empty() ? "; `gpuplan list models` lists the catalog's models" : core::did_you_mean(near);
}

std::pair<std::string, std::string> split_problem_fix(const std::string& text) {
  const std::size_t semi = text.find("; ");
  if (semi == std::string::npos) {
    return {text, ""};
  }
  return {text.substr(0, semi), text.substr(semi)};
}

bool written_in_another_case(const std::string& text, std::string_view word) {
  if (text.size() != word.size() || text == word) return false;
  return std::equal(text.begin(), text.end(), word.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
}

std::optional<double> positive_number(MapReader& reader, const std::string& key, double max_value,
                                      Requirement req) {
  return reader.number(key, 0.0, max_value, req, /*above_min=*/true);
}

std::optional<double> whole_number(MapReader& reader, const std::string& key, double min_value,
                                   double max_value, Requirement req) {
  const std::optional<double> value = reader.number(key, min_value, max_value, req);
  if (value && *value != std::floor(*value)) {
    reader.error(key, "expected a whole number, found '" + reader.raw(key).Scalar() + "'");
    return std::nullopt;
  }
  return value;
}

std::string plural(int n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string divisors_text(int n, int smallest) {
  std::vector<int> divisors;
  for (int d = smallest; d <= n; ++d) {
    if (n % d == 0) divisors.push_back(d);
  }
  std::string text;
  for (std::size_t i = 0; i < divisors.size(); ++i) {
    if (i > 0) text += i + 1 == divisors.size() ? " or " : ", ";
    text += std::to_string(divisors[i]);
  }
  return text;
}

void missing_key(MapReader& reader, const std::string& key, const std::string& fix) { reader.missing(key, fix); }

}  // namespace gpuplan::config

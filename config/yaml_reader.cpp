#include "config/yaml_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>

#include "config/input_text.h"
#include "config/overrides.h"
#include "config/yaml_bounds.h"
#include "core/text_distance.h"

namespace gpuplan::config {

void ErrorSink::add(const std::string& problem, const YAML::Mark& mark, const std::string& key_path,
                    const std::string& fix) {
  add_formatted(format_diagnostic(problem, to_source_mark(mark), key_path, fix));
}

void ErrorSink::add_formatted(std::string message) {
  ++count_;
  if (messages_.size() < kMaxKeptErrors) {
    messages_.push_back(std::move(message));
  }
}

void ErrorSink::add_missing_key(const YAML::Mark& mark, const std::string& key_path, const std::string& fix) {
  if (std::find(suggested_paths_.begin(), suggested_paths_.end(), key_path) != suggested_paths_.end()) {
    return;
  }
  const std::string key = key_path.substr(key_path.rfind('.') + 1);  // npos + 1 = 0: the whole path
  if (messages_.size() < kMaxKeptErrors) missing_keys_.emplace_back(key_path, messages_.size());
  add("missing key '" + key + "'", mark, key_path, fix);
}

void ErrorSink::add_unknown_key(const std::string& key, const YAML::Mark& mark, const std::string& key_path,
                                const std::string& fix, const std::vector<std::string>& suggested_paths) {
  const std::string message = format_diagnostic("unknown key '" + key + "'", to_source_mark(mark), key_path, fix);
  suggested_paths_.insert(suggested_paths_.end(), suggested_paths.begin(), suggested_paths.end());
  for (auto it = missing_keys_.begin(); it != missing_keys_.end(); ++it) {
    if (std::find(suggested_paths.begin(), suggested_paths.end(), it->first) != suggested_paths.end()) {
      messages_[it->second] = message;
      missing_keys_.erase(it);
      return;
    }
  }
  add_formatted(message);
}

void ErrorSink::throw_if_any() const {
  if (count_ != 0) {
    throw ConfigError(messages_, count_);
  }
}

SourceMark ErrorSink::to_source_mark(const YAML::Mark& mark) const {
  if (mark.line < 0) {
    return {file_, 0, 0};
  }
  return {file_, mark.line + 1, mark.column + 1};
}

namespace {

void find_duplicates(const YAML::Node& node, const std::string& path, ErrorSink& sink) {
  if (node.IsMap()) {
    std::map<std::string, int> first_line;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
      const std::string child = path.empty() ? key : path + "." + key;
      const auto [pos, inserted] = first_line.emplace(key, it->first.Mark().line + 1);
      if (!inserted) {
        sink.add("duplicate key '" + key + "'", it->first.Mark(), child,
                 "; the first one is on line " + std::to_string(pos->second) + ", remove one of them");
      }
      find_duplicates(it->second, child, sink);
    }
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      find_duplicates(node[i], path + "[" + std::to_string(i) + "]", sink);
    }
  }
}

}  // namespace

YAML::Node parse_yaml(const std::string& text, const std::string& file) {
  check_input_text(text, file);
  check_yaml_bounds(text, file);
  ErrorSink sink(file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    sink.add("YAML syntax error: " + e.msg, e.mark, "", "; check the indentation and quoting there");
    sink.throw_if_any();
  }
  find_duplicates(root, "", sink);
  sink.throw_if_any();
  return root;
}

YAML::Node load_yaml_file(const std::string& path) { return parse_yaml(read_text_file(path), path); }

std::string describe_node(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a sequence";
  return "'" + node.Scalar() + "'";
}

bool is_quoted_scalar(const YAML::Node& node) { return node.IsScalar() && node.Tag() == "!"; }

QuotedNumber quoted_number(const YAML::Node& node, const std::string& expected) {
  if (!is_quoted_scalar(node)) {
    return {};
  }
  const std::string& text = node.Scalar();
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) {
    return {};
  }
  return {"expected " + expected + ", found the quoted text \"" + text + "\"",
          "; write " + text + " without quotes (quotes make it text in YAML)"};
}

MapReader::MapReader(const YAML::Node& node, std::string key_path, ErrorSink& sink, YAML::Mark mark)
    : node_(node), key_path_(std::move(key_path)), sink_(&sink), mark_(mark) {
  if (node.IsDefined() && !node.IsNull()) {
    mark_ = node.Mark();
  }
  if (!node.IsMap()) {
    valid_ = false;
    sink.add("expected a mapping, found " + describe_node(node), mark_, key_path_,
             "; write the keys of " + (key_path_.empty() ? std::string("the file") : key_path_) +
                 " indented below it");
  }
}

bool MapReader::has(const std::string& key) const { return valid_ && node_[key].IsDefined(); }

std::string MapReader::path_of(const std::string& key) const {
  return key_path_.empty() ? key : key_path_ + "." + key;
}

YAML::Mark MapReader::mark_of(const std::string& key) const {
  if (valid_) {
    const YAML::Node value = node_[key];
    if (value.IsDefined() && !value.IsNull()) {
      return value.Mark();
    }
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == key) {
        return it->first.Mark();
      }
    }
  }
  return mark_;
}

void MapReader::error(const std::string& key, const std::string& problem, const std::string& fix) const {
  sink_->add(problem, mark_of(key), path_of(key), fix);
}

std::string MapReader::note(const std::string& key, const std::string& problem, const std::string& fix) const {
  const SourceMark at = sink_->to_source_mark(mark_of(key));
  const std::string where =
      at.line > 0 ? " (line " + std::to_string(at.line) + ", column " + std::to_string(at.column) + ")" : "";
  return path_of(key) + where + ": " + problem + fix;
}

const YAML::Node* MapReader::lookup(const std::string& key, Requirement req, std::string_view expected) {
  known_.push_back(key);
  if (!valid_) {
    return nullptr;
  }
  YAML::Node value = node_[key];
  if (!value.IsDefined()) {
    if (req == Requirement::kRequired) {
      missing(key, "; add " + key + ": " + std::string(expected));
    }
    return nullptr;
  }
  if (value.IsNull()) {
    sink_->add("missing value for '" + key + "'", mark_of(key), path_of(key),
               "; write " + key + ": " + std::string(expected) + " or remove the key");
    return nullptr;
  }
  held_.push_back(value);
  return &held_.back();
}

std::optional<std::string> MapReader::scalar(const std::string& key, Requirement req,
                                             std::string_view expected) {
  const YAML::Node* value = lookup(key, req, expected);
  if (value == nullptr) {
    return std::nullopt;
  }
  if (!value->IsScalar()) {
    const std::string found = describe_node(*value);
    sink_->add("expected " + std::string(expected) + ", found " + found, value->Mark(), path_of(key),
               "; write " + key + ": " + std::string(expected) + " (one value, not " + found + ")");
    return std::nullopt;
  }
  return value->Scalar();
}

std::optional<std::string> MapReader::string(const std::string& key, Requirement req) {
  return scalar(key, req, "a text value");
}

namespace {
/// A value that a number key refuses but that other tools read as a number: that number in
/// plain digits, and why it must be written so ("numbers take no k, M, G, B or T suffix").
struct Rewrite {
  std::string digits;
  std::string why;
};

/// A count written with a magnitude suffix ("10M": 10e6, or when `whole` 10000000), else nullopt.
std::optional<Rewrite> plain_count_rewrite(const std::string& text, bool whole) {
  const std::optional<std::string> plain = core::plain_count(text, whole);
  if (!plain) return std::nullopt;
  return Rewrite{*plain, "numbers take no k, M, G, B or T suffix"};
}

/// A token length written with k or M ("4k": 4096, core::binary_count), else nullopt: a "4k
/// context" is 4096 tokens, so the fix offers that first and the decimal reading after it.
std::optional<Rewrite> binary_count_rewrite(const std::string& text) {
  const std::optional<std::string> binary = core::binary_count(text);
  if (!binary) return std::nullopt;
  const std::optional<std::string> decimal = core::plain_count(text, true);
  return Rewrite{*binary, "in a token length k is 1024, as a 4k context is 4096 tokens" +
                              (decimal ? "; write " + *decimal + " if that was meant" : std::string()) +
                              "; numbers take no k or M suffix"};
}

/// A whole number in YAML 1.1's underscores or 0x, 0o or 0b digits ("524_288_000",
/// "0x1F400000": core::decimal_digits), which number keys refuse; else nullopt.
std::optional<Rewrite> decimal_digits_rewrite(const std::string& text) {
  const std::optional<std::string> digits = core::decimal_digits(text);
  if (!digits) return std::nullopt;
  return Rewrite{*digits, "numbers are written in decimal digits, without _ or a 0x, 0o or 0b prefix"};
}

/// A whole number written with an exponent or a decimal point ("1e6", "8.0"), which a
/// whole-number key does not read; else nullopt.
std::optional<Rewrite> whole_digits_rewrite(const std::string& text) {
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size() || !std::isfinite(value) || value != std::floor(value) ||
      std::fabs(value) > 9.0e15) {
    return std::nullopt;
  }
  return Rewrite{std::to_string(static_cast<std::int64_t>(value)),
                 "a whole number is written in digits, without an exponent or a decimal point"};
}

/// Digits with a leading zero ("0100", "-007"), which YAML 1.1 reads as octal (0100 is 64)
/// and YAML 1.2 as decimal (100): the same file would mean two numbers, so number keys refuse
/// it. The rewrite is the decimal reading; the reason names both. nullopt for anything else.
std::optional<Rewrite> leading_zero_rewrite(const std::string& text) {
  std::string_view s = text;
  const bool negative = !s.empty() && s.front() == '-';
  if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
  if (s.size() < 2 || s.front() != '0' || s.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  const std::size_t first = s.find_first_not_of('0');
  const std::string decimal =
      first == std::string_view::npos ? "0" : (negative ? "-" : "") + std::string(s.substr(first));
  std::string octal = "text";  // YAML 1.1 reads 0[0-7]+ as octal; with an 8 or a 9 it is no number there
  if (s.find_first_of("89") == std::string_view::npos) {
    if (const std::optional<std::string> value = core::decimal_digits((negative ? "-0o" : "0o") + std::string(s))) {
      octal = "octal " + *value;
    }
  }
  return Rewrite{decimal, "a leading zero is ambiguous: YAML 1.1 reads " + text + " as " + octal + ", YAML 1.2 as " +
                              decimal + "; write numbers without leading zeros"};
}

/// The fix for `text`, which `rewrite` reads as a number (empty without one): "; write
/// <digits> (<why>)" when `fits` takes that number; otherwise the range to write, so that the
/// fix holds when applied: "; -0x10 is -16, out of range: write <expected> (<why>)".
std::string rewrite_fix(const std::string& text, const std::optional<Rewrite>& rewrite,
                        const std::function<bool(double)>& fits, const std::string& expected) {
  if (!rewrite) return "";
  double value = 0.0;
  const std::string& digits = rewrite->digits;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc{} && ptr == digits.data() + digits.size() && fits(value)) {
    return "; write " + digits + " (" + rewrite->why + ")";
  }
  return "; " + text + " is " + digits + ", out of range: write " + expected + " (" + rewrite->why + ")";
}

/// The number `text` is when it is a number alone ("0", "-1", "+2.5"), else nullopt.
std::optional<double> bare_number(const std::string& text) {
  std::string_view s = text;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

bool in_range(double v, Range range) {
  switch (range) {
    case Range::kAny: return true;
    case Range::kNonNegative: return v >= 0.0;
    case Range::kPositive: return v > 0.0;
  }
  return true;
}
std::string range_words(Range range) {
  switch (range) {
    case Range::kAny: return "any value";
    case Range::kNonNegative: return "zero or more";
    case Range::kPositive: return "more than zero";
  }
  return "";
}

/// " more than zero", " of zero or more" or "": `range` after a quantity's name in a fix
/// ("a duration more than zero").
std::string range_phrase(Range range) {
  if (range == Range::kAny) return "";
  return (range == Range::kNonNegative ? " of " : " ") + range_words(range);
}
}  // namespace

std::string leading_zero_fix(const std::string& text, const std::function<bool(double)>& fits,
                             const std::string& expected) {
  return rewrite_fix(text, leading_zero_rewrite(text), fits, expected);
}

bool MapReader::refused_quoted(const std::string& key, const std::string& expected,
                               const std::function<bool(double)>& fits, bool whole) const {
  QuotedNumber quoted = quoted_number(node_[key], expected);
  if (quoted.problem.empty()) {
    return false;
  }
  // The number to write without quotes is the one this key then reads: "0100" as 100, and for
  // a whole number "1e3" as 1000; out of range or not whole, the range instead.
  const std::string& text = node_[key].Scalar();
  std::optional<Rewrite> rewrite = leading_zero_rewrite(text);
  if (!rewrite && whole) rewrite = whole_digits_rewrite(text);
  const std::string digits = rewrite ? rewrite->digits : text;
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  const bool readable = (rewrite || !whole) && ec == std::errc{} && ptr == digits.data() + digits.size();
  if (!readable || !fits(value)) {
    quoted.fix = "; " + text + " is " + (readable ? "out of range" : "not a whole number") + ": write " + expected +
                 " without quotes (quotes make it text in YAML)";
  } else if (digits != text) {
    quoted.fix = "; write " + digits + " without quotes (quotes make it text in YAML)";
  }
  error(key, quoted.problem, quoted.fix);
  return true;
}

std::optional<double> MapReader::quantity(const std::string& key, core::Dimension dimension, Range range,
                                          Requirement req, std::string_view example) {
  const core::DimensionInfo info = core::describe(dimension);
  const bool vowel = !info.name.empty() && std::string_view("aeiou").find(info.name.front()) != std::string_view::npos;
  const std::string named = (vowel ? "an " : "a ") + std::string(info.name);  // "a duration"
  const std::string expected =
      named + " with its unit, such as " + std::string(example.empty() ? info.example : example);
  auto text = scalar(key, req, expected);
  if (!text) {
    return std::nullopt;
  }
  double value = 0.0;
  try {
    value = core::parse_quantity(*text, dimension);
  } catch (const core::UnitError& e) {
    if (const std::optional<double> bare = bare_number(*text); bare && !in_range(*bare, range)) {
      // parse_quantity's fix would put a unit after the number, which stays out of range.
      error(key, "a bare number is not " + named + ": found '" + *text + "'",
            "; write " + named + range_phrase(range) + ", with its unit, e.g. " +
                std::string(example.empty() ? info.example : example));
      return std::nullopt;
    }
    // The UnitError text is "<problem>; <fix>" or a single sentence.
    const std::string what = e.what();
    const auto semi = what.find("; ");
    if (semi == std::string::npos) {
      error(key, what);
    } else {
      error(key, what.substr(0, semi), what.substr(semi));
    }
    return std::nullopt;
  }
  if (!in_range(value, range)) {
    error(key, "out-of-range " + std::string(info.name) + " '" + *text + "'",
          "; expected " + range_words(range));
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> MapReader::integer(const std::string& key, std::int64_t min_value, std::int64_t max_value,
                                               Requirement req, CountSuffix suffix) {
  const std::string expected = "a whole number from " + std::to_string(min_value) + " to " + std::to_string(max_value);
  const auto fits = [min_value, max_value](double v) {
    return v >= static_cast<double>(min_value) && v <= static_cast<double>(max_value);
  };
  auto text = scalar(key, req, expected);
  if (!text || refused_quoted(key, expected, fits, true)) {
    return std::nullopt;
  }
  std::int64_t value = 0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  std::optional<Rewrite> rewrite = leading_zero_rewrite(*text);
  if (!rewrite && (ec != std::errc{} || ptr != end)) {
    if (suffix == CountSuffix::kBinary) rewrite = binary_count_rewrite(*text);
    if (!rewrite) rewrite = plain_count_rewrite(*text, true);
    if (!rewrite) rewrite = decimal_digits_rewrite(*text);
    if (!rewrite) rewrite = whole_digits_rewrite(*text);
  } else if (!rewrite) {
    if (value < min_value || value > max_value) {
      error(key, "out-of-range value " + *text, "; expected " + expected);
      return std::nullopt;
    }
    return value;
  }
  error(key, "expected " + expected + ", found '" + *text + "'", rewrite_fix(*text, rewrite, fits, expected));
  return std::nullopt;
}

std::optional<double> MapReader::number(const std::string& key, double min_value, double max_value,
                                        Requirement req, bool above_min) {
  std::ostringstream range_text;
  if (min_value == std::numeric_limits<double>::lowest() && max_value == std::numeric_limits<double>::max()) {
    range_text << "a number";  // any finite number: the caller checks the range that applies
  } else if (above_min) {
    range_text << "a number above " << min_value << ", at most " << max_value;
  } else {
    range_text << "a number from " << min_value << " to " << max_value;
  }
  const auto fits = [min_value, max_value, above_min](double v) {
    return v >= min_value && v <= max_value && !(above_min && v == min_value);
  };
  auto text = scalar(key, req, range_text.str());
  if (!text || refused_quoted(key, range_text.str(), fits, false)) {
    return std::nullopt;
  }
  double value = 0.0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  std::optional<Rewrite> rewrite = leading_zero_rewrite(*text);
  if (rewrite || ec != std::errc{} || ptr != end || !std::isfinite(value)) {
    if (!rewrite) rewrite = plain_count_rewrite(*text, false);
    if (!rewrite) rewrite = decimal_digits_rewrite(*text);
    error(key, "expected " + range_text.str() + ", found '" + *text + "'",
          rewrite_fix(*text, rewrite, fits, range_text.str()));
    return std::nullopt;
  }
  if (value < min_value || value > max_value || (above_min && value == min_value)) {
    error(key, "out-of-range value " + *text, "; expected " + range_text.str());
    return std::nullopt;
  }
  return value;
}

std::optional<bool> MapReader::boolean(const std::string& key, Requirement req) {
  auto text = scalar(key, req, "true or false");
  if (!text) {
    return std::nullopt;
  }
  const bool quoted = is_quoted_scalar(node_[key]);
  // YAML 1.2's core schema: true, True, TRUE and false, False, FALSE.
  if (!quoted && (*text == "true" || *text == "True" || *text == "TRUE")) return true;
  if (!quoted && (*text == "false" || *text == "False" || *text == "FALSE")) return false;
  if (quoted && (*text == "true" || *text == "false")) {
    // As quoted_number: YAML makes "true" text, and a key that is sometimes text and
    // sometimes a flag would read differently from the same file in other YAML tools.
    error(key, "expected true or false, found the quoted text \"" + *text + "\"",
          "; write " + *text + " without quotes (quotes make it text in YAML)");
    return std::nullopt;
  }
  // YAML 1.1's yes/no/on/off are plain text in YAML 1.2 (and in gpuplan).
  error(key, "expected true or false, found '" + *text + "'", "; write true or false");
  return std::nullopt;
}

std::optional<std::string> MapReader::choice(const std::string& key,
                                             const std::vector<std::string_view>& allowed,
                                             Requirement req, const std::vector<ChoiceAlias>& aliases) {
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    list += (i == 0 ? "" : (i + 1 == allowed.size() ? " or " : ", ")) + std::string(allowed[i]);
  }
  auto text = scalar(key, req, "one of " + list);
  if (!text) {
    return std::nullopt;
  }
  for (std::string_view a : allowed) {
    if (a == *text) {
      return text;
    }
  }
  // Aliases first: "fa3" is 3 edits from "flash3", too far for closest().
  std::string folded;
  for (const char c : *text) {
    if (c != '-' && c != '_' && c != '.' && c != ' ') {
      folded += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  for (const ChoiceAlias& alias : aliases) {
    if (alias.written == folded) {
      error(key, "unknown value '" + *text + "', expected one of " + list,
            core::did_you_mean({std::string(alias.meant)}));
      return std::nullopt;
    }
  }
  std::vector<std::string> candidates(allowed.begin(), allowed.end());
  const auto near = core::closest(*text, candidates);
  error(key, "unknown value '" + *text + "', expected one of " + list, core::did_you_mean(near));
  return std::nullopt;
}

std::optional<MapReader> MapReader::map(const std::string& key, Requirement req) {
  const YAML::Node* value = lookup(key, req, "a mapping of keys");
  if (value == nullptr) {
    return std::nullopt;
  }
  MapReader child(*value, path_of(key), *sink_, value->Mark());
  if (!child.valid()) {
    return std::nullopt;
  }
  return child;
}

YAML::Node MapReader::raw(const std::string& key) {
  known_.push_back(key);
  if (!valid_) {
    return YAML::Node(YAML::NodeType::Undefined);
  }
  return node_[key];
}

void MapReader::declare(const std::vector<std::string>& keys) {
  known_.insert(known_.end(), keys.begin(), keys.end());
}

namespace {

/// Names other tools give a scenario key (torchrun, Megatron-LM, DeepSpeed, HF Trainer,
/// Lightning), and the key: an unknown key among them is taken to mean its key where the
/// mapping has it (`gpu_count` under hardware is gpus_per_node, not the nearer-spelled gpu).
constexpr std::pair<std::string_view, std::string_view> kOtherToolsKeyNames[] = {
    {"gpu_count", "gpus_per_node"},
    {"num_gpus", "gpus_per_node"},
    {"n_gpus", "gpus_per_node"},
    {"ngpus", "gpus_per_node"},
    {"gpus", "gpus_per_node"},
    {"nproc_per_node", "gpus_per_node"},
    {"num_nodes", "nodes"},
    {"nnodes", "nodes"},
    {"node_count", "nodes"},
    {"micro_batch_size", "batch_size"},
    {"per_device_train_batch_size", "batch_size"},
    {"train_micro_batch_size_per_gpu", "batch_size"},
    {"gradient_accumulation_steps", "gradient_accumulation"},
    {"accumulate_grad_batches", "gradient_accumulation"},
    {"gradient_checkpointing", "activation_checkpointing"},
    {"enable_activation_offloading", "activation_offloading"},
    {"offload_activations", "activation_offloading"},
    {"seq_length", "sequence_length"},
    {"seq_len", "sequence_length"},
    {"max_seq_length", "sequence_length"},
    {"block_size", "sequence_length"},
    {"num_train_epochs", "epochs"},
    {"max_epochs", "epochs"},
    {"tensor_model_parallel_size", "tensor_parallel"},
    {"pipeline_model_parallel_size", "pipeline_parallel"},
    {"context_parallel_size", "context_parallel"},
    {"expert_model_parallel_size", "expert_parallel"},
    {"tp", "tensor_parallel"},
    {"tp_size", "tensor_parallel"},
    {"pp", "pipeline_parallel"},
    {"pp_size", "pipeline_parallel"},
    {"cp", "context_parallel"},
    {"ep", "expert_parallel"},
    {"virtual_pipeline_model_parallel_size", "virtual_stages"},
    {"grad_accum", "gradient_accumulation"},
    {"recompute_activations", "activation_checkpointing"},
    {"recompute_granularity", "activation_checkpointing"},
    {"attn_implementation", "attention"},
    {"torch_compile", "framework_overhead"},
    {"stage", "zero_stage"},
    {"cpu_offload", "offload"},
    {"offload_optimizer", "offload"},
    {"offload_param", "offload"},
    {"hidden_act", "mlp"},
    {"activation_function", "mlp"},
    {"instance_type", "instance"},
    {"model_name_or_path", "model"},
    {"model_name", "model"},
    {"lora_r", "rank"},
    {"lora_rank", "rank"},
    {"lora_alpha", "alpha"},
    {"lora_dropout", "dropout"},
    {"target_modules", "targets"},
    {"fsdp", "sharding"},
    {"sharding_strategy", "sharding"},
};

/// The second of the pair in `table` whose first is `key`, else empty.
template <std::size_t N>
std::string_view looked_up(const std::pair<std::string_view, std::string_view> (&table)[N], const std::string& key) {
  for (const auto& [name, value] : table) {
    if (key == name) return value;
  }
  return {};
}

/// gpuplan's key for `key` where another tool names it so (kOtherToolsKeyNames), else empty.
std::string_view other_tools_key(const std::string& key) { return looked_up(kOtherToolsKeyNames, key); }

/// Keys of other tools for what a scenario says another way (a derived quantity, or a
/// setting whose value differs), each with the fix that says how: DeepSpeed's
/// train_batch_size and Megatron's global_batch_size, torchrun's world size, HF's and
/// Megatron's step counts, HF's bf16/fp16 flags and Accelerate's mixed_precision.
constexpr std::string_view kGlobalBatchFix =
    "; gpuplan derives the global batch: batch_size (per GPU, per micro-step) x gradient_accumulation x the "
    "data-parallel ranks, so set batch_size and gradient_accumulation";
constexpr std::string_view kStepCountFix =
    "; gpuplan sizes the job by workload.tokens (a language model: optimizer steps x global batch x "
    "sequence_length) or workload.epochs: set one of them";
constexpr std::pair<std::string_view, std::string_view> kDerivedKeys[] = {
    {"global_batch_size", kGlobalBatchFix},
    {"train_batch_size", kGlobalBatchFix},
    {"world_size", "; gpuplan counts the GPUs as hardware.gpus_per_node x hardware.nodes: set those"},
    {"max_steps", kStepCountFix},
    {"train_iters", kStepCountFix},
    {"max_iters", kStepCountFix},
    {"total_steps", kStepCountFix},
    {"bf16", "; set training.precision: bf16_amp (autocast to bf16, HF's bf16: true) or bf16 (bf16 weights too)"},
    {"fp16", "; set training.precision: fp16_amp (autocast to fp16 with loss scaling, HF's fp16: true)"},
    {"mixed_precision", "; set training.precision: bf16_amp or fp16_amp (Accelerate's bf16 or fp16)"},
    {"use_spot", "; set cloud.market: spot"},
    {"deepspeed", "; set parallelism.strategy: zero with parallelism.zero_stage (and parallelism.offload for "
                  "ZeRO-Offload)"},
};

/// The fix for `key` where kDerivedKeys has it, else empty.
std::string_view derived_key_fix(const std::string& key) { return looked_up(kDerivedKeys, key); }

/// True for a mapping of a scenario: one of the schema's sections at `key_path`, or the
/// file's root (empty path, with `workload` among its `known` keys).
bool scenario_mapping(const std::string& key_path, const std::vector<std::string>& known) {
  if (key_path.empty()) return std::find(known.begin(), known.end(), "workload") != known.end();
  const std::vector<SchemaPath> schema = schema_paths();
  return std::any_of(schema.begin(), schema.end(),
                     [&key_path](const SchemaPath& p) { return p.path == key_path && p.section; });
}

/// The known keys of its own mapping that an unknown `key` is taken to mean: its key where
/// another tool names it so (kOtherToolsKeyNames); else the closest known key
/// (core::closest); else a known key that `key` ends with after an underscore (peft's
/// lora_alpha is alpha). Empty when none is near.
std::vector<std::string> near_known_keys(const std::string& key, const std::vector<std::string>& known) {
  const std::string_view ours = other_tools_key(key);
  if (!ours.empty() && std::find(known.begin(), known.end(), ours) != known.end()) return {std::string(ours)};
  std::vector<std::string> suggestions = core::closest(key, known, 2, 1);
  for (const std::string& k : known) {
    if (suggestions.empty() && k.size() >= 3 && key.size() > k.size() + 1 && key.ends_with("_" + k)) {
      suggestions.push_back(k);
    }
  }
  return suggestions;
}

/// The shortest unknown key that unknown_key_suggestions matches to near keys of other sections.
constexpr std::size_t kMinNearSchemaKeyLength = 5;

/// The suggestions for an unknown `key` of the mapping at `key_path` that reads `known`, as
/// full key paths: its near_known_keys; else, in a section of the scenario schema, the
/// schema paths elsewhere whose last key is `key` ("did you mean training.fine_tuning?"
/// under hardware), else whose last key is within edit distance 2 of it (training.zero_stge:
/// "did you mean parallelism.zero_stage?"), for keys of kMinNearSchemaKeyLength characters
/// or more; at most 3. `shown` gets them as the message names them: a key of the same
/// mapping by its name, another section's by its path.
std::vector<std::string> unknown_key_suggestions(const std::string& key, const std::string& key_path,
                                                 const std::vector<std::string>& known,
                                                 std::vector<std::string>& shown) {
  shown = near_known_keys(key, known);
  std::vector<std::string> paths;
  for (const std::string& k : shown) paths.push_back(key_path.empty() ? k : key_path + "." + k);
  if (!shown.empty() || !scenario_mapping(key_path, known)) return paths;
  const std::vector<SchemaPath> schema = schema_paths();
  const auto last_key = [](const std::string& path) { return path.substr(path.rfind('.') + 1); };
  // Another tool's name is looked for as gpuplan's (HF's num_train_epochs under training is
  // workload.epochs).
  const std::string wanted = other_tools_key(key).empty() ? key : std::string(other_tools_key(key));
  for (const SchemaPath& p : schema) {
    if (!p.file_level && paths.size() < 3 && last_key(p.path) == wanted) {
      paths.push_back(p.path);
    }
  }
  // Near keys only when no key matches exactly, and for keys long enough that two edits
  // leave most of them (a two-letter key is two edits from any other).
  const bool exact = !paths.empty();
  for (const SchemaPath& p : schema) {
    if (!exact && key.size() >= kMinNearSchemaKeyLength && !p.file_level && paths.size() < 3 &&
        core::edit_distance(last_key(p.path), key) <= 2) {
      paths.push_back(p.path);
    }
  }
  shown = paths;
  return paths;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// `names` without repeats, in first-seen order.
std::vector<std::string> unique_names(const std::vector<std::string>& names) {
  std::vector<std::string> unique;
  for (const auto& k : names) {
    if (!contains(unique, k)) unique.push_back(k);
  }
  return unique;
}

}  // namespace

void MapReader::missing(const std::string& key, const std::string& fix) {
  if (!valid_) {
    return;  // the mapping itself was reported
  }
  sink_->add_missing_key(mark_, path_of(key), fix);
}

bool MapReader::knows(const std::string& key) const { return contains(known_, key); }

std::vector<std::string> MapReader::written_keys() const {
  std::vector<std::string> keys;
  if (!valid_) return keys;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.IsScalar()) keys.push_back(it->first.Scalar());
  }
  return keys;
}

void MapReader::finish() {
  if (!valid_) {
    return;
  }
  const std::vector<std::string> unique = unique_names(known_);
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
    if (contains(known_, key)) {
      continue;
    }
    std::vector<std::string> shown;
    std::vector<std::string> paths = unknown_key_suggestions(key, key_path_, unique, shown);
    std::string fix = core::did_you_mean(shown);
    const std::string_view derived = derived_key_fix(key);
    if (!derived.empty() && scenario_mapping(key_path_, unique)) {
      fix = std::string(derived);
      paths.clear();  // not a misspelling of a key here: the fix names the keys to set
    }
    if (fix.empty() && !unique.empty()) {
      // Nothing close: the keys this mapping takes, so that the fix is not a search.
      constexpr std::size_t kListed = 12;
      fix = "; remove it, or use a key of " + (key_path_.empty() ? std::string("the file") : key_path_) + ": ";
      for (std::size_t i = 0; i < unique.size() && i < kListed; ++i) fix += (i == 0 ? "" : ", ") + unique[i];
      if (unique.size() > kListed) fix += ", ...";
    }
    const std::size_t dot = key.find('.');
    if (dot != std::string::npos && dot > 0 && contains(known_, key.substr(0, dot)) && scenario_mapping(key_path_, unique)) {
      // `training.batch_size: 4` outside strategies: and sweep: (the only places a dotted
      // path is read): nest it. Its key path is quoted, a literal key, so that it is not taken
      // for the path an override of a strategy sets (config/scenario_loader.cpp, relocate).
      const YAML::Node value = it->second;
      const std::string written = value.IsScalar() ? value.Scalar() : std::string("...");
      fix = "; a dotted key path is read under strategies: and sweep: only; here nest it: " + key.substr(0, dot) +
            ": {" + key.substr(dot + 1) + ": " + written + "}";
      sink_->add_unknown_key(key, it->first.Mark(), path_of("\"" + key + "\""), fix, {});
      continue;
    }
    sink_->add_unknown_key(key, it->first.Mark(), path_of(key), fix, paths);
  }
}

}  // namespace gpuplan::config

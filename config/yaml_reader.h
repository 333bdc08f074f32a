#pragma once
/// \file yaml_reader.h
/// Strict reading of YAML input (scenarios and catalogs) with yaml-cpp, internal to config/
/// (no YAML::Node escapes config/: STYLE.md C1). Every error is collected in an ErrorSink
/// with file:line:column (1-based), the key path and a fix (C2-C5); nothing is defaulted
/// silently: callers pass their documented defaults explicitly.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/config_error.h"
#include "config/input_text.h"
#include "core/unit_parse.h"

namespace gpuplan::config {

/// Collects formatted error messages for one input; throws them together (STYLE.md C4).
class ErrorSink {
 public:
  explicit ErrorSink(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }
  /// Records `<problem> at <file>:<l>:<c> (<key_path>)<fix>`; `fix` should start with "; ".
  void add(const std::string& problem, const YAML::Mark& mark, const std::string& key_path,
           const std::string& fix = "");
  /// Records a message that is already formatted.
  void add_formatted(std::string message);
  /// Records "missing key '<key>' at <mark> (<key_path>)<fix>" for the required key at
  /// `key_path`, unless an unknown-key error of this sink suggested `key_path` already
  /// (add_unknown_key): a misspelt or misplaced key is one mistake, reported once.
  void add_missing_key(const YAML::Mark& mark, const std::string& key_path, const std::string& fix);
  /// Records "unknown key '<key>' at <mark> (<key_path>)<fix>", where `fix` suggests the key
  /// paths `suggested_paths` ("; did you mean batch_size?" suggests training.batch_size). A
  /// missing-key error recorded for one of them takes this message instead: the count and the
  /// messages' number stay as they were, and the mistake is named once, at the key written.
  void add_unknown_key(const std::string& key, const YAML::Mark& mark, const std::string& key_path,
                       const std::string& fix, const std::vector<std::string>& suggested_paths);
  bool empty() const { return count_ == 0; }
  /// The first kMaxKeptErrors messages recorded.
  const std::vector<std::string>& messages() const { return messages_; }
  /// How many messages were recorded, kept or not.
  std::size_t count() const { return count_; }
  /// Throws ConfigError with the messages recorded so far, if any.
  void throw_if_any() const;
  /// 1-based source position of a yaml-cpp mark (which is 0-based).
  SourceMark to_source_mark(const YAML::Mark& mark) const;

 private:
  std::string file_;
  std::vector<std::string> messages_;
  std::size_t count_ = 0;
  std::vector<std::pair<std::string, std::size_t>> missing_keys_;  // (key path, index in messages_)
  std::vector<std::string> suggested_paths_;  // key paths that unknown-key errors suggested
};

/// Most messages an ErrorSink keeps: more than are shown (kMaxShownErrors), so that sorting
/// by position still shows the first ones, and few enough that a million unknown keys cost
/// little memory.
inline constexpr std::size_t kMaxKeptErrors = 1000;

/// Parses YAML text. Throws ConfigError when the text is not plain UTF-8
/// (check_input_text), crosses a bound of config/yaml_bounds.h (aliases, depth, size, a
/// second document), has a syntax error ("YAML syntax error: ... at file:line:column") or
/// duplicate mapping keys anywhere in the document (yaml-cpp keeps both and returns the
/// first on lookup, silently: STYLE.md C3).
YAML::Node parse_yaml(const std::string& text, const std::string& file);

/// Reads and parses a YAML file. Throws ConfigError when it cannot be read
/// ("cannot read file 'x': No such file or directory").
YAML::Node load_yaml_file(const std::string& path);


/// Whether a key must be present.
enum class Requirement { kOptional, kRequired };
/// Accepted range of a number or quantity.
enum class Range { kAny, kNonNegative, kPositive };
/// What k and M mean in the fix for a whole number written with one ("4k"), which number keys
/// refuse: 10^3 and 10^6 (a count of samples or steps), or 2^10 and 2^20 for a token length,
/// where a "4k context" is 4096 tokens (core::binary_count).
enum class CountSuffix { kDecimal, kBinary };

/// A common spelling of an enumerated value that gpuplan does not accept, and the accepted
/// value it means (`fa3` for `flash3`): MapReader::choice suggests the latter.
struct ChoiceAlias {
  std::string_view written;  ///< lower case, without '-', '_', '.' or spaces
  std::string_view meant;    ///< one of the accepted values
};

/// Strict accessor for one YAML mapping. Each getter records an error and returns nullopt
/// when the value is missing (if required), of the wrong type, malformed or out of range.
/// finish() reports every key that no getter asked for, with a did-you-mean.
class MapReader {
 public:
  /// `node` must be a mapping; otherwise an error is recorded at `mark` and valid() is false.
  MapReader(const YAML::Node& node, std::string key_path, ErrorSink& sink, YAML::Mark mark = {});

  bool valid() const { return valid_; }
  bool has(const std::string& key) const;
  /// The mapping's scalar keys as written, in order (empty when it is not a mapping): one
  /// pass, for a caller that asks has() of many keys that are mostly absent.
  std::vector<std::string> written_keys() const;
  /// True when `key` was read or declared here (finish() will not call it unknown).
  bool knows(const std::string& key) const;
  const std::string& key_path() const { return key_path_; }
  std::string path_of(const std::string& key) const;
  /// Position of the value of `key`, or of this mapping when the key is absent.
  YAML::Mark mark_of(const std::string& key) const;
  YAML::Mark mark() const { return mark_; }
  ErrorSink& sink() const { return *sink_; }

  std::optional<std::string> string(const std::string& key, Requirement req = Requirement::kOptional);
  /// A dimensional value written with its unit ("110 KiB"); SI result. A bare number outside
  /// `range` ("0" for a positive duration) is not told to add a unit to it, which would still be
  /// out of range: its fix names the range and `example`, a valid value for this key written as
  /// the fix should show it ("\"30 min\", or auto"); the dimension's example when empty.
  std::optional<double> quantity(const std::string& key, core::Dimension dimension, Range range = Range::kPositive,
                                 Requirement req = Requirement::kOptional, std::string_view example = {});
  /// integer() and number() refuse a number written in quotes (pipeline_parallel: "4"):
  /// "expected ..., found the quoted text "4"; write 4 without quotes", and digits with a leading
  /// zero ("0100", octal 64 in YAML 1.1, 100 in YAML 1.2). A value that other tools read as a
  /// number ("10M", "0x10", "1e6", "0100") is told to write that number in digits when it is in
  /// range, else to write a number of the range ("1e9 is 1000000000, out of range: write a whole
  /// number from 1 to 100000"), so that the fix holds when applied. `suffix` says what k and M
  /// mean in that fix.
  std::optional<std::int64_t> integer(const std::string& key, std::int64_t min_value, std::int64_t max_value,
                                      Requirement req = Requirement::kOptional,
                                      CountSuffix suffix = CountSuffix::kDecimal);
  /// A dimensionless number (counts that may be written as 1.28e6, epochs) in [min_value,
  /// max_value], or in (min_value, max_value] with `above_min` ("expected a number above 0, at
  /// most 1e+06": one range text for a negative value, 0 and junk alike).
  std::optional<double> number(const std::string& key, double min_value, double max_value,
                               Requirement req = Requirement::kOptional, bool above_min = false);
  std::optional<bool> boolean(const std::string& key, Requirement req = Requirement::kOptional);
  /// One of `allowed`; the error lists them and suggests the closest (STYLE.md C5). A value
  /// that `aliases` names (compared in lower case without '-', '_', '.' and spaces: "FA-3"
  /// is "fa3") suggests its accepted value instead ("did you mean flash3?"); it is still an
  /// error, so that a file means one thing.
  std::optional<std::string> choice(const std::string& key, const std::vector<std::string_view>& allowed,
                                    Requirement req = Requirement::kOptional,
                                    const std::vector<ChoiceAlias>& aliases = {});
  std::optional<MapReader> map(const std::string& key, Requirement req = Requirement::kOptional);
  /// The raw node of `key` (undefined when absent); marks the key as known.
  YAML::Node raw(const std::string& key);
  /// Marks keys as known without reading them.
  void declare(const std::vector<std::string>& keys);
  /// Records an error about `key` at its position.
  void error(const std::string& key, const std::string& problem, const std::string& fix = "") const;
  /// The text of a note about `key` (valid input that is likely not what was meant), not
  /// recorded: "<key_path> (line <l>, column <c>): <problem><fix>", as scenario notes start
  /// with the key path; the file is left out, so that outputs (goldens) do not depend on where
  /// it lies. Without a position (a value a strategy set), "<key_path>: <problem><fix>".
  std::string note(const std::string& key, const std::string& problem, const std::string& fix) const;
  /// Records that the required `key` is absent, with `fix` (starting with "; "): "missing key
  /// 'key' at <this mapping> (path.key); <fix>". An unknown key that suggests it, here or in
  /// another section, is reported instead (ErrorSink::add_missing_key), before or after.
  void missing(const std::string& key, const std::string& fix);
  /// Reports unknown keys: "unknown key 'x' at f:l:c (path.x); did you mean y?"
  /// (ErrorSink::add_unknown_key).
  void finish();

 private:
  const YAML::Node* lookup(const std::string& key, Requirement req, std::string_view expected);
  std::optional<std::string> scalar(const std::string& key, Requirement req, std::string_view expected);
  /// Records the quoted-number error of `key` (quoted_number) and returns true, if it is one.
  /// Its fix writes the number as this key reads it ("0100" as 100; for a `whole` key "1e3" as
  /// 1000), or the range when that number does not `fit` or is not whole, so that it holds.
  bool refused_quoted(const std::string& key, const std::string& expected, const std::function<bool(double)>& fits,
                      bool whole) const;

  YAML::Node node_;
  std::string key_path_;
  ErrorSink* sink_;
  YAML::Mark mark_;
  bool valid_ = true;
  std::vector<std::string> known_;
  std::vector<YAML::Node> held_;  // keeps looked-up nodes alive for lookup()'s pointer
};

/// For digits with a leading zero ("0100"), which YAML 1.1 reads as octal (64) and YAML 1.2 as
/// decimal (100), so that number keys refuse them: the fix, "; write 100 (a leading zero is
/// ambiguous: ...)" when `fits` takes 100, else "; 0100 is 100, out of range: write <expected>
/// (...)". "" for any other text. MapReader::integer and number use it, and so do an inline
/// model's architecture numbers.
std::string leading_zero_fix(const std::string& text, const std::function<bool(double)>& fits,
                             const std::string& expected);

/// "a mapping", "a sequence", "a scalar", "nothing": for "found ..." in messages.
std::string describe_node(const YAML::Node& node);

/// Whether `node` is a scalar written in quotes ('4' or "4"): YAML makes it text, not a
/// number (yaml-cpp tags a quoted scalar "!", a plain one "?").
bool is_quoted_scalar(const YAML::Node& node);

/// For a number key whose value is `node`: when it is a number written in quotes, the
/// problem and fix to report, e.g. {"expected <expected>, found the quoted text \"4\"",
/// "; write 4 without quotes"}; both empty otherwise (a plain scalar, or quoted text that is
/// no number, which the caller's own "expected ..." error covers). Every number gpuplan reads
/// from YAML goes through this: MapReader::integer/number and inline model parameters.
struct QuotedNumber {
  std::string problem;
  std::string fix;
};
QuotedNumber quoted_number(const YAML::Node& node, const std::string& expected);

}  // namespace gpuplan::config

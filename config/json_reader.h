#pragma once
/// \file json_reader.h
/// Strict reading of the JSON files of calibration (cuda_probe output and calibration
/// profiles) with nlohmann_json, internal to config/. Errors follow STYLE.md C2:
/// `<problem> at <file>[:<line>:<column>] (<key.path>)[; <fix>]`. nlohmann_json 3.11 keeps
/// no positions for values, so only syntax errors carry line:column; the others name the file
/// and the key path. Every error is collected and thrown together (C4).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuplan::config {

/// Parses `text`; throws ConfigError when it is not plain UTF-8 (check_input_text), on a
/// syntax error ("malformed JSON: <reason> at <file>:<line>:<column>; <fix>") and on a
/// number outside double range ("number '1e400' outside the range of a double (about
/// 1.8e308) at <file>:<line>:<column>; <fix>").
nlohmann::json parse_json_text(const std::string& text, const std::string& file, const std::string& fix);

/// Largest number JsonObjectReader::number accepts: 10^18 in SI units. The largest
/// quantities of probe outputs and profiles are FLOP/s peaks, about 10^16 (NVIDIA B200
/// dense FP8: 4.5e15), so 2^63 or 1e30 is a corrupt file, not a measurement.
inline constexpr double kMaxJsonNumber = 1e18;

/// Collected errors of one JSON file.
class JsonErrors {
 public:
  explicit JsonErrors(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }
  void add(const std::string& problem, const std::string& key_path, const std::string& fix = "");
  const std::vector<std::string>& messages() const { return messages_; }
  /// Throws ConfigError with every message, if any.
  void throw_if_any() const;

 private:
  std::string file_;
  std::vector<std::string> messages_;
};

/// Strict accessor for one JSON object, like MapReader: getters record an error and return
/// nullopt; finish() reports keys no getter asked for, with a did-you-mean.
class JsonObjectReader {
 public:
  /// Records "expected an object" when `value` is not one.
  JsonObjectReader(const nlohmann::json& value, std::string key_path, JsonErrors& errors);
  bool valid() const { return valid_; }
  bool has(const std::string& key) const;
  std::string path_of(const std::string& key) const;
  std::optional<std::string> string(const std::string& key, bool required);
  /// A finite number of at most kMaxJsonNumber; `positive` rejects zero and negatives, else
  /// only negatives.
  std::optional<double> number(const std::string& key, bool required, bool positive);
  std::optional<std::int64_t> integer(const std::string& key, bool required, std::int64_t min_value);
  /// The raw value of `key` (nullptr when absent); marks the key as known.
  const nlohmann::json* raw(const std::string& key, bool required, const char* expected);
  void declare(const std::vector<std::string>& keys);
  void error(const std::string& key, const std::string& problem, const std::string& fix = "");
  void finish();
  JsonErrors& errors() { return *errors_; }

 private:
  const nlohmann::json* value_;
  std::string key_path_;
  JsonErrors* errors_;
  bool valid_ = true;
  std::vector<std::string> known_;
};

/// "an object", "an array", "a string", "a number", "a boolean", "null".
std::string describe_json(const nlohmann::json& value);

}  // namespace gpuplan::config

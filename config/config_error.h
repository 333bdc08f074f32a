#pragma once
/// \file config_error.h
/// User-input errors (STYLE.md X1, C2): `<problem> at <file>:<line>:<column> (<key.path>)[; <fix>]`,
/// positions 1-based. A ConfigError carries every error found in a file (C4).

#include <stdexcept>
#include <string>
#include <vector>

namespace gpuplan::config {

/// A position in an input file, 1-based. line == 0 means "the whole file".
struct SourceMark {
  std::string file;
  int line = 0;
  int column = 0;
};

/// One error message, already formatted with its location.
struct Diagnostic {
  std::string message;
};

/// Formats `<problem> at <file>:<line>:<column> (<key_path>)<fix>`; `fix` starts with "; ".
std::string format_diagnostic(const std::string& problem, const SourceMark& mark,
                              const std::string& key_path, const std::string& fix = "");

/// All the errors of one input; what() is the messages joined by newlines.
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<std::string> messages);
  explicit ConfigError(const std::string& message) : ConfigError(std::vector<std::string>{message}) {}
  const std::vector<std::string>& messages() const { return messages_; }

 private:
  std::vector<std::string> messages_;
};

}  // namespace gpuplan::config

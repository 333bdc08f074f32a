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

/// `n` with a comma between groups of three digits: 1000000 -> "1,000,000".
std::string grouped_thousands(std::size_t n);

/// Most errors a ConfigError keeps and prints; the rest are only counted.
inline constexpr std::size_t kMaxShownErrors = 50;

/// All the errors of one input; what() is the messages joined by newlines. At most
/// kMaxShownErrors are kept (in the order given); count() is how many there were.
class ConfigError : public std::runtime_error {
 public:
  /// `count` is the number of errors found, when more were found than are in `messages`
  /// (0: messages.size()).
  explicit ConfigError(std::vector<std::string> messages, std::size_t count = 0);
  explicit ConfigError(const std::string& message) : ConfigError(std::vector<std::string>{message}) {}
  const std::vector<std::string>& messages() const { return messages_; }
  std::size_t count() const { return count_; }
  /// "1 error", "3 errors", or "1,000,000 errors; the first 50 are shown".
  std::string summary() const;

 private:
  std::size_t count_;
  std::vector<std::string> messages_;
};

}  // namespace gpuplan::config

#pragma once
/// \file config_error.h
/// User-input errors (STYLE.md X1, C2): `<problem> at <file>:<line>:<column> (<key.path>)[; <fix>]`,
/// positions 1-based. A ConfigError carries every error found in a file (C4).

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
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

/// Most bytes of an echoed value (a quoted '...' in a message, or a key path) that a message
/// shows: a 1 MB unknown name would otherwise be printed whole.
inline constexpr std::size_t kMaxEchoedBytes = 80;

/// `text` with every single-quoted value ('...' opened after a space or bracket, closed
/// before one or a punctuation mark) longer than kMaxEchoedBytes cut to its first
/// kMaxEchoedBytes bytes (at a UTF-8 character boundary) + "... (N bytes)"; a text that is
/// itself longer (a key path) cut the same way when `whole` is true.
std::string bounded_echoes(const std::string& text, bool whole = false);

/// `text` with every invisible or layout-changing character written as `<U+XXXX>`: C0 and
/// C1 controls and DEL, format characters (Unicode category Cf: U+200B zero-width space,
/// U+202E right-to-left override, U+FEFF, ...), spaces other than U+0020 (Zs: U+00A0
/// no-break space, U+2007, U+3000, ...), U+2028/U+2029 and the blank Hangul fillers. A
/// terminal shows such a character as nothing, a plain space or a reordered line, so a
/// value that holds one would look valid in the message that refuses it. `escaped`, when
/// given, receives the code points written so (each once, in order of first appearance).
/// Bytes that are not UTF-8 are kept as they are.
std::string escape_invisible(std::string_view text, std::vector<char32_t>* escaped = nullptr);

/// Formats `<problem> at <file>:<line>:<column> (<key_path>)<fix>`; `fix` starts with "; ".
/// The one place messages about input are built: the values they echo are cut by
/// bounded_echoes and their invisible characters written as `<U+XXXX>` (escape_invisible),
/// the problem then saying so: "unknown value 'flash<U+200B>' (it contains the invisible
/// character U+200B, shown as <U+200B>), expected ..." (the file name is kept as given).
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

#pragma once
/// \file text_table.h
/// A grid of text cells printed as an aligned terminal table or a Markdown table.

#include <cstddef>
#include <string>
#include <vector>

namespace gpuplan::report {

/// The width terminal tables keep to (they wrap into panels beyond it, TextTable::to_text).
inline constexpr std::size_t kTerminalColumns = 120;

class TextTable {
 public:
  /// Header and cells are stored as one_line() text (report/display_width.h): a newline or
  /// other control character in a name prints as `\n`, `\xNN` and cannot break a row.
  explicit TextTable(std::vector<std::string> header);
  /// Adds a row; missing cells print empty, extra cells are an std::invalid_argument.
  void add_row(std::vector<std::string> cells);
  /// Columns padded to their widest cell in display columns (display_width: CJK characters
  /// count 2); the first column left-aligned, the others right.
  std::string to_text() const;
  /// As to_text() when that fits in `max_columns` display columns; otherwise the columns
  /// after the first wrap into several tables (panels) one below the other, each repeating
  /// the first column and holding as many further columns as fit, separated by a blank line.
  /// A single column wider than the limit still gets its own panel.
  std::string to_text(std::size_t max_columns) const;
  /// GitHub-flavoured Markdown; '|' in cells escaped.
  std::string to_markdown() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace gpuplan::report

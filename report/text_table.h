#pragma once
/// \file text_table.h
/// A grid of text cells printed as an aligned terminal table or a Markdown table.

#include <string>
#include <vector>

namespace gpuplan::report {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  /// Adds a row; missing cells print empty, extra cells are an std::invalid_argument.
  void add_row(std::vector<std::string> cells);
  /// Columns padded to their widest cell; the first column left-aligned, the others right.
  std::string to_text() const;
  /// GitHub-flavoured Markdown; '|' in cells escaped.
  std::string to_markdown() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace gpuplan::report

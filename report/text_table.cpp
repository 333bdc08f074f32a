#include "report/text_table.h"

#include <algorithm>
#include <stdexcept>

namespace gpuplan::report {
namespace {
// Display width: count UTF-8 code points, not bytes.
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}
std::string pad(const std::string& s, std::size_t w, bool left) {
  const std::string fill(w > width(s) ? w - width(s) : 0, ' ');
  return left ? s + fill : fill + s;
}
}  // namespace

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() > header_.size()) {
    throw std::invalid_argument("TextTable: more cells than columns");
  }
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::to_text() const {
  std::vector<std::size_t> widths(header_.size());
  for (std::size_t c = 0; c < header_.size(); ++c) {
    widths[c] = width(header_[c]);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], width(row[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out += "  ";
      out += pad(cells[c], widths[c], c == 0);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  std::size_t total = 0;
  for (std::size_t w : widths) total += w;
  out += std::string(total + 2 * (widths.size() - 1), '-') + "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string TextTable::to_markdown() const {
  auto escape = [](const std::string& s) {
    std::string out;
    for (char ch : s) {
      if (ch == '|') out += '\\';
      out += ch;
    }
    return out;
  };
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const auto& c : cells) out += " " + escape(c) + " |";
    return out + "\n";
  };
  std::string out = line(header_);
  out += "|";
  for (std::size_t c = 0; c < header_.size(); ++c) out += c == 0 ? " --- |" : " ---: |";
  out += "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace gpuplan::report

#include "report/text_table.h"

#include <algorithm>
#include <stdexcept>

#include "report/display_width.h"

namespace gpuplan::report {
namespace {
std::size_t width(const std::string& s) { return display_width(s); }
std::string pad(const std::string& s, std::size_t w, bool left) {
  const std::string fill(w > width(s) ? w - width(s) : 0, ' ');
  return left ? s + fill : fill + s;
}
}  // namespace

TextTable::TextTable(std::vector<std::string> header) : header_(std::move(header)) {
  for (std::string& h : header_) h = one_line(h);
}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() > header_.size()) {
    throw std::invalid_argument("TextTable: more cells than columns");
  }
  cells.resize(header_.size());
  for (std::string& c : cells) c = one_line(c);
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

std::string TextTable::to_text(std::size_t max_columns) const {
  auto column_width = [&](std::size_t c) {
    std::size_t w = width(header_[c]);
    for (const auto& row : rows_) w = std::max(w, width(row[c]));
    return w;
  };
  std::vector<std::size_t> widths(header_.size());
  std::size_t total = 0;
  for (std::size_t c = 0; c < header_.size(); ++c) {
    widths[c] = column_width(c);
    total += widths[c] + (c > 0 ? 2 : 0);
  }
  if (total <= max_columns || header_.size() < 3) return to_text();
  std::string out;
  std::size_t c = 1;
  while (c < header_.size()) {
    std::vector<std::size_t> columns = {0};
    std::size_t used = widths[0];
    while (c < header_.size() && (columns.size() == 1 || used + 2 + widths[c] <= max_columns)) {
      used += 2 + widths[c];
      columns.push_back(c++);
    }
    auto pick = [&](const std::vector<std::string>& cells) {
      std::vector<std::string> picked;
      for (std::size_t k : columns) picked.push_back(cells[k]);
      return picked;
    };
    TextTable panel(pick(header_));
    for (const auto& row : rows_) panel.add_row(pick(row));
    out += (out.empty() ? "" : "\n") + panel.to_text();
  }
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

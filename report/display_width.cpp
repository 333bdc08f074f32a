#include "report/display_width.h"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

namespace gpuplan::report {
namespace {

using Range = std::pair<char32_t, char32_t>;

// Zero width: combining diacritics and the zero-width characters (mk_wcwidth's main ranges).
constexpr std::array<Range, 9> kZeroWidth = {{{0x0300, 0x036F},
                                              {0x0483, 0x0489},
                                              {0x0591, 0x05BD},
                                              {0x1AB0, 0x1AFF},
                                              {0x1DC0, 0x1DFF},
                                              {0x200B, 0x200F},
                                              {0x20D0, 0x20FF},
                                              {0xFE00, 0xFE0F},
                                              {0xFE20, 0xFE2F}}};

// East Asian Wide and Fullwidth (mk_wcwidth), plus the emoji blocks.
constexpr std::array<Range, 13> kWide = {{{0x1100, 0x115F},
                                          {0x2E80, 0x303E},
                                          {0x3041, 0x33FF},
                                          {0x3400, 0x4DBF},
                                          {0x4E00, 0x9FFF},
                                          {0xA000, 0xA4CF},
                                          {0xAC00, 0xD7A3},
                                          {0xF900, 0xFAFF},
                                          {0xFE30, 0xFE6F},
                                          {0xFF00, 0xFF60},
                                          {0xFFE0, 0xFFE6},
                                          {0x1F300, 0x1FAFF},
                                          {0x20000, 0x3FFFD}}};

bool in(const auto& ranges, char32_t c) {
  return std::any_of(ranges.begin(), ranges.end(), [c](const Range& r) { return c >= r.first && c <= r.second; });
}

/// The code point starting at text[i] and its length in bytes; {byte, 1} for invalid UTF-8.
std::pair<char32_t, std::size_t> decode(std::string_view text, std::size_t i) {
  const auto b = static_cast<unsigned char>(text[i]);
  const std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > text.size()) return {b, 1};
  char32_t c = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
  for (std::size_t k = 1; k < n; ++k) {
    const auto cont = static_cast<unsigned char>(text[i + k]);
    if ((cont & 0xC0) != 0x80) return {b, 1};
    c = (c << 6) | (cont & 0x3F);
  }
  return {c, n};
}

}  // namespace

std::size_t display_width(std::string_view text) {
  std::size_t columns = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto [c, n] = decode(text, i);
    i += n;
    columns += in(kZeroWidth, c) ? 0 : in(kWide, c) ? 2 : 1;
  }
  return columns;
}

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto b = static_cast<unsigned char>(ch);
    if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (b < 0x20 || b == 0x7F) {
      out += fmt::format("\\x{:02X}", b);
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace gpuplan::report

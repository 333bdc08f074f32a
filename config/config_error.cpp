#include "config/config_error.h"

#include <algorithm>
#include <string_view>
#include <utility>

namespace gpuplan::config {
namespace {
std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) {
      out += '\n';
    }
    out += lines[i];
  }
  return out;
}

std::vector<std::string> first_shown(std::vector<std::string> messages) {
  if (messages.size() > kMaxShownErrors) {
    messages.resize(kMaxShownErrors);
  }
  return messages;
}

/// The first kMaxEchoedBytes bytes of `value`, backed off to a UTF-8 character boundary,
/// + "... (N bytes)"; `value` itself when it is short enough.
std::string cut(std::string_view value) {
  const std::size_t marker = value.rfind("... (");
  const bool already_cut = marker != std::string_view::npos && marker <= kMaxEchoedBytes && value.ends_with(" bytes)");
  if (value.size() <= kMaxEchoedBytes || already_cut) {
    return std::string(value);  // short, or cut by an earlier message that this one quotes
  }
  std::size_t end = kMaxEchoedBytes;
  while (end > 0 && (static_cast<unsigned char>(value[end]) & 0xC0U) == 0x80U) {
    --end;  // a continuation byte: the character starts before
  }
  return std::string(value.substr(0, end)) + "... (" + grouped_thousands(value.size()) + " bytes)";
}

/// Whether code point `c` is invisible or changes the layout of the line around it
/// (escape_invisible). Categories from the Unicode Character Database (UnicodeData.txt,
/// Unicode 15.1): Cc, Cf, Zs other than U+0020, Zl, Zp, plus the Hangul fillers (Lo, but
/// Default_Ignorable_Code_Point and drawn blank) and U+034F COMBINING GRAPHEME JOINER.
bool invisible(char32_t c) {
  if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) return true;  // Cc: C0, DEL, C1
  if (c < 0xA0) return false;
  constexpr std::pair<char32_t, char32_t> kRanges[] = {
      {0x00A0, 0x00A0}, {0x00AD, 0x00AD}, {0x034F, 0x034F},   {0x061C, 0x061C},   {0x115F, 0x1160},
      {0x1680, 0x1680}, {0x180E, 0x180E}, {0x2000, 0x200F},   {0x2028, 0x202F},   {0x205F, 0x206F},
      {0x3000, 0x3000}, {0x3164, 0x3164}, {0xFEFF, 0xFEFF},   {0xFFA0, 0xFFA0},   {0xFFF9, 0xFFFB},
      {0x1D173, 0x1D17A}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F}};
  for (const auto& [first, last] : kRanges) {
    if (c >= first && c <= last) return true;
  }
  return false;
}

/// The code point of the UTF-8 sequence at `text[i]` and its length in bytes; length 0 when
/// the bytes there are not a well-formed sequence.
std::pair<char32_t, std::size_t> decode_utf8(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  char32_t c = 0;
  if (lead < 0x80) return {lead, 1};
  if ((lead & 0xE0U) == 0xC0U) {
    length = 2;
    c = lead & 0x1FU;
  } else if ((lead & 0xF0U) == 0xE0U) {
    length = 3;
    c = lead & 0x0FU;
  } else if ((lead & 0xF8U) == 0xF0U) {
    length = 4;
    c = lead & 0x07U;
  } else {
    return {0, 0};
  }
  if (i + length > text.size()) return {0, 0};
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0U) != 0x80U) return {0, 0};
    c = (c << 6U) | (byte(i + k) & 0x3FU);
  }
  return {c, length};
}

/// "U+200B": four hex digits at least, upper case.
std::string code_point_name(char32_t c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string digits;
  for (char32_t v = c; v != 0 || digits.size() < 4; v >>= 4U) digits.insert(digits.begin(), kHex[v & 0xFU]);
  return "U+" + digits;
}

/// `problem` with a note after the first quoted value that escape_invisible changed, or at
/// its end when none is quoted: " (it contains the invisible character U+200B, shown as
/// <U+200B>)".
std::string with_invisible_note(std::string problem, const std::vector<char32_t>& escaped) {
  std::string names;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    names += (i == 0 ? "" : (i + 1 == escaped.size() ? " and " : ", ")) + code_point_name(escaped[i]);
  }
  const std::string what = std::string(escaped.size() == 1 ? "the invisible character " : "the invisible characters ") +
                           names + ", shown as <" + code_point_name(escaped.front()) + ">)";
  const std::size_t first = problem.find("<U+");
  const std::size_t close = first == std::string::npos ? std::string::npos : problem.find('\'', first);
  if (close != std::string::npos) return problem.insert(close + 1, " (it contains " + what);
  return problem + " (the value contains " + what;
}

}  // namespace

std::string escape_invisible(std::string_view text, std::vector<char32_t>* escaped) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto [c, length] = decode_utf8(text, i);
    if (length == 0) {
      out += text[i++];  // not UTF-8: kept (input files are checked for UTF-8 before parsing)
      continue;
    }
    if (invisible(c)) {
      out += "<" + code_point_name(c) + ">";
      if (escaped != nullptr && std::find(escaped->begin(), escaped->end(), c) == escaped->end()) {
        escaped->push_back(c);
      }
    } else {
      out.append(text, i, length);
    }
    i += length;
  }
  return out;
}

std::string bounded_echoes(const std::string& text, bool whole) {
  if (whole) {
    return cut(text);
  }
  // A quote opens a value after a space or a bracket and closes it before one or a
  // punctuation mark, so that the apostrophe of "the job's" is neither.
  const auto opens = [&text](std::size_t q) {
    return q == 0 || std::string_view(" ([{=,").find(text[q - 1]) != std::string_view::npos;
  };
  const auto closes = [&text](std::size_t q) {
    return q + 1 == text.size() || std::string_view(" )]},;:.?!").find(text[q + 1]) != std::string_view::npos;
  };
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t open = text.find('\'', i);
    while (open != std::string::npos && !opens(open)) open = text.find('\'', open + 1);
    std::size_t close = open == std::string::npos ? std::string::npos : text.find('\'', open + 1);
    while (close != std::string::npos && !closes(close)) close = text.find('\'', close + 1);
    if (close == std::string::npos) {
      out.append(text, i, std::string::npos);
      break;
    }
    out.append(text, i, open + 1 - i);
    out += cut(std::string_view(text).substr(open + 1, close - open - 1));
    out += '\'';
    i = close + 1;
  }
  return out;
}

std::string format_diagnostic(const std::string& problem, const SourceMark& mark,
                              const std::string& key_path, const std::string& fix) {
  // Cut first, so that "(N bytes)" counts the bytes written, then escaped.
  std::vector<char32_t> escaped;
  std::string out = escape_invisible(bounded_echoes(problem), &escaped);
  const std::string path = escape_invisible(bounded_echoes(key_path, true), &escaped);
  if (!escaped.empty()) {
    out = with_invisible_note(std::move(out), escaped);
  }
  out += " at " + mark.file;
  if (mark.line > 0) {
    out += ":" + std::to_string(mark.line) + ":" + std::to_string(mark.column);
  }
  if (!path.empty()) {
    out += " (" + path + ")";
  }
  return out + escape_invisible(bounded_echoes(fix));
}

std::string grouped_thousands(std::size_t n) {
  std::string digits = std::to_string(n);
  for (std::size_t i = digits.size(); i > 3; i -= 3) {
    digits.insert(i - 3, ",");
  }
  return digits;
}

ConfigError::ConfigError(std::vector<std::string> messages, std::size_t count)
    : std::runtime_error(join(first_shown(messages))),
      count_(std::max(count, messages.size())),
      messages_(first_shown(std::move(messages))) {}

std::string ConfigError::summary() const {
  std::string out = grouped_thousands(count_) + (count_ == 1 ? " error" : " errors");
  if (count_ > messages_.size()) {
    out += "; the first " + std::to_string(messages_.size()) + " are shown";
  }
  return out;
}

}  // namespace gpuplan::config

#include "config/config_error.h"

#include <algorithm>
#include <string_view>

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

}  // namespace

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
  std::string out = bounded_echoes(problem) + " at " + mark.file;
  if (mark.line > 0) {
    out += ":" + std::to_string(mark.line) + ":" + std::to_string(mark.column);
  }
  if (!key_path.empty()) {
    out += " (" + bounded_echoes(key_path, true) + ")";
  }
  return out + bounded_echoes(fix);
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

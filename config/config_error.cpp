#include "config/config_error.h"

#include <algorithm>

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

}  // namespace

std::string format_diagnostic(const std::string& problem, const SourceMark& mark,
                              const std::string& key_path, const std::string& fix) {
  std::string out = problem + " at " + mark.file;
  if (mark.line > 0) {
    out += ":" + std::to_string(mark.line) + ":" + std::to_string(mark.column);
  }
  if (!key_path.empty()) {
    out += " (" + key_path + ")";
  }
  return out + fix;
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

#include "config/config_error.h"

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

ConfigError::ConfigError(std::vector<std::string> messages)
    : std::runtime_error(join(messages)), messages_(std::move(messages)) {}

}  // namespace gpuplan::config

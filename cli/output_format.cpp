#include "cli/output_format.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

namespace gpuplan::cli {

bool is_stdout(const std::string& output_path) { return output_path == "-"; }

std::optional<std::string> format_from_extension(const std::string& output_path) {
  if (output_path.empty() || is_stdout(output_path)) return std::nullopt;
  std::string ext = std::filesystem::path(output_path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".csv") return "csv";
  if (ext == ".json") return "json";
  if (ext == ".md" || ext == ".markdown") return "markdown";
  if (ext == ".html" || ext == ".htm") return "html";
  if (ext == ".txt") return "table";
  return std::nullopt;
}

std::string output_format(const std::optional<std::string>& explicit_format, const std::string& output_path,
                          const std::string& fallback) {
  if (explicit_format) return *explicit_format;
  if (const std::optional<std::string> inferred = format_from_extension(output_path)) return *inferred;
  if (!output_path.empty() && !is_stdout(output_path) && std::filesystem::path(output_path).has_extension()) {
    throw std::invalid_argument("-o " + output_path + ": the extension '" +
                                std::filesystem::path(output_path).extension().string() +
                                "' names no output format; name the file .txt (table), .md (markdown), .csv, "
                                ".json or .html, or pass --format");
  }
  return fallback;
}

}  // namespace gpuplan::cli

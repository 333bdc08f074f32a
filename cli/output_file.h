#pragma once
/// \file output_file.h
/// Writes a whole output at once: to a temporary file beside the target, renamed on success,
/// so a failed run leaves no partial file (STYLE.md X2).

#include <string>

namespace gpuplan::cli {

/// Writes `content` to `path` atomically. Throws std::runtime_error naming the path and the
/// OS reason when the folder is missing or not writable.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace gpuplan::cli

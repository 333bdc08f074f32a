#pragma once
/// \file output_file.h
/// Outputs are written in full or not at all (STYLE.md X2): to a temporary file beside the
/// target, renamed over it on success, and removed on any failure, so that no partial or
/// stray file is left behind. Targets that are not regular files are refused, never
/// replaced (issue 15).

#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::cli {

/// One output file. The constructor checks the target and creates the temporary file, so
/// that a command can open all its outputs before it does any work and fail before any of
/// them exists; the destructor removes the temporary file unless commit() renamed it, and a
/// SIGINT or SIGTERM meanwhile removes it too (the constructor installs the handler,
/// remove_registered_temporaries, then lets the signal's default action end the process; a
/// signal that was ignored stays ignored).
class OutputFile {
 public:
  /// Throws std::runtime_error "cannot write '<path>': <reason>" when `path` names a
  /// symbolic link, a directory, a FIFO, a socket or a device (refused, not replaced), an
  /// existing file without write permission, a folder that is missing or not writable, or
  /// the same file as one of `inputs` (std::filesystem::equivalent: `run s.yaml -o s.yaml`
  /// would replace the scenario by its report). A folder that exists but cannot take a new
  /// file (no write permission, a read-only file system, /proc) is "its folder DIR is not
  /// writable".
  explicit OutputFile(std::string path, const std::vector<std::string>& inputs = {});
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  const std::string& path() const { return path_; }
  /// Writes `content` to the temporary file (all of it, replacing what was written before).
  /// Throws std::runtime_error naming the path when the write fails (disk full).
  void write(const std::string& content);
  /// Renames the temporary file over the target. Throws std::runtime_error on failure.
  void commit();

 private:
  std::string path_;
  std::string temporary_;
  int slot_ = -1;  ///< the temporary file's slot in the signal handler's registry; -1: none
  bool committed_ = false;
};

/// Removes the temporary file of every OutputFile that is neither committed nor destroyed:
/// what the SIGINT and SIGTERM handler does before the signal's default action ends the
/// process (Ctrl-C, `kill`), since a signal runs no destructor. Async-signal-safe (unlink(2)
/// of paths kept in static buffers, no allocation, no lock); exposed so that tests can call
/// it. An OutputFile registers its temporary file before creating it and unregisters it once
/// renamed or removed; at most kMaxInterruptibleOutputs are registered at once (a command
/// opens two at most), and a path too long for PATH_MAX is not registered.
void remove_registered_temporaries() noexcept;

/// How many OutputFiles' temporary files can be registered at once.
inline constexpr int kMaxInterruptibleOutputs = 16;

/// Writes `content` to `path` at once: OutputFile(path, inputs), write, commit.
void write_file_atomically(const std::string& path, const std::string& content,
                           const std::vector<std::string>& inputs = {});

/// `name` made safe as a file name from data (a probe's GPU name and date, a catalog
/// entry): every character other than ASCII letters, digits, '-', '_' and '.' becomes '_',
/// and leading dots become '_', so the name has no path separator and cannot be "." or
/// ".."; an empty name becomes "_".
std::string sanitized_file_name(std::string_view name);

}  // namespace gpuplan::cli

#include "cli/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <stdexcept>

namespace gpuplan::cli {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
  throw std::runtime_error("cannot write '" + path + "': " + reason);
}

/// The reason an existing target cannot be replaced, or "" when it can (or is absent).
std::string refusal(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    return "";  // absent: the folder is checked when the temporary file is created
  }
  if (S_ISLNK(info.st_mode)) {
    return "it is a symbolic link, which gpuplan does not replace; give the path of a regular file";
  }
  if (S_ISDIR(info.st_mode)) {
    return "it is a directory; give the path of a file in it";
  }
  if (!S_ISREG(info.st_mode)) {
    return "it is not a regular file (a FIFO, socket or device), which gpuplan does not replace; give "
           "the path of a regular file";
  }
  if (::access(path.c_str(), W_OK) != 0) {
    return std::string(std::strerror(errno)) + "; choose a file you may write";
  }
  return "";
}

/// The input among `inputs` that `path` names too (the same file, by device and inode), or "".
std::string input_named_by(const std::string& path, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    std::error_code error;
    if (std::filesystem::equivalent(path, input, error) && !error) {
      return input;
    }
  }
  return "";
}

}  // namespace

OutputFile::OutputFile(std::string path, const std::vector<std::string>& inputs) : path_(std::move(path)) {
  if (path_.empty()) {
    fail(path_, "the file name is empty");
  }
  if (const std::string input = input_named_by(path_, inputs); !input.empty()) {
    fail(path_, "it is the input file " + input + ", which the output would replace; give -o another file, "
                "such as " + std::filesystem::path(path_).replace_extension("").string() + "-report.txt");
  }
  if (const std::string reason = refusal(path_); !reason.empty()) {
    fail(path_, reason);
  }
  temporary_ = path_ + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int error = errno;
    temporary_.clear();
    fail(path_, error == ENOENT ? std::string("its folder does not exist; create it first")
                                : std::string(std::strerror(error)));
  }
  ::close(fd);
}

OutputFile::~OutputFile() {
  if (!committed_ && !temporary_.empty()) {
    std::remove(temporary_.c_str());
  }
}

void OutputFile::write(const std::string& content) {
  std::FILE* out = std::fopen(temporary_.c_str(), "wb");
  if (out == nullptr) {
    fail(path_, std::strerror(errno));
  }
  const std::size_t written = std::fwrite(content.data(), 1, content.size(), out);
  const bool closed = std::fclose(out) == 0;
  if (written != content.size() || !closed) {
    fail(path_, "write failed (is the disk full?)");
  }
}

void OutputFile::commit() {
  // Checked again: the target may have changed while the command ran.
  if (const std::string reason = refusal(path_); !reason.empty()) {
    fail(path_, reason);
  }
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    fail(path_, std::strerror(errno));
  }
  committed_ = true;
}

void write_file_atomically(const std::string& path, const std::string& content,
                           const std::vector<std::string>& inputs) {
  OutputFile file(path, inputs);
  file.write(content);
  file.commit();
}

std::string sanitized_file_name(std::string_view name) {
  std::string out;
  for (const char c : name) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_' || c == '.';
    out += safe ? c : '_';
  }
  for (char& c : out) {
    if (c != '.') break;
    c = '_';
  }
  return out.empty() ? std::string("_") : out;
}

}  // namespace gpuplan::cli

#include "cli/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <stdexcept>

namespace gpuplan::cli {
namespace {

/// One registered temporary file. A signal handler can reach only static storage, so the
/// registry is the one global of this file (STYLE.md E4 allows no other): fixed slots whose
/// path the handler reads while the slot is kReady.
struct TemporarySlot {
  std::atomic<int> state{0};
  char path[PATH_MAX];
};
constexpr int kFree = 0;
constexpr int kWriting = 1;  ///< claimed, path being copied: the handler skips it
constexpr int kReady = 2;
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slots' state");
TemporarySlot g_temporaries[kMaxInterruptibleOutputs];

/// The slot that now holds `path`, or -1 when every slot is taken or the path is too long.
int register_temporary(const std::string& path) {
  if (path.size() >= sizeof(TemporarySlot::path)) {
    return -1;
  }
  for (int i = 0; i < kMaxInterruptibleOutputs; ++i) {
    int expected = kFree;
    if (g_temporaries[i].state.compare_exchange_strong(expected, kWriting)) {
      std::memcpy(g_temporaries[i].path, path.c_str(), path.size() + 1);
      g_temporaries[i].state.store(kReady, std::memory_order_release);
      return i;
    }
  }
  return -1;
}

void unregister_temporary(int& slot) {
  if (slot >= 0) {
    g_temporaries[slot].state.store(kFree, std::memory_order_release);
    slot = -1;
  }
}

/// The SIGINT and SIGTERM handler: removes the temporary files, then raises the signal again
/// under its default action, so the process ends as the signal ends it (exit status 128 + N
/// in a shell). Only async-signal-safe calls: unlink, sigaction, raise.
extern "C" void remove_temporaries_and_raise_again(int signal_number) {
  remove_registered_temporaries();
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(signal_number, &default_action, nullptr);
  ::raise(signal_number);  // blocked while this handler runs: delivered on return
}

/// Installs the handler for SIGINT and SIGTERM where another disposition is in place (each
/// OutputFile checks: a test framework may have put its own back meanwhile); a signal that
/// is ignored (SIG_IGN: a background job of a non-interactive shell, nohup) stays ignored.
void install_interrupt_handler() {
  for (const int signal_number : {SIGINT, SIGTERM}) {
    struct sigaction current {};
    if (::sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler == SIG_IGN ||
        current.sa_handler == remove_temporaries_and_raise_again) {
      continue;
    }
    struct sigaction action {};
    action.sa_handler = remove_temporaries_and_raise_again;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal_number, &action, nullptr);
  }
}

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

/// Why the temporary file beside `path` could not be created (`error`: open's errno). A
/// folder that exists but takes no new file is "not writable": /proc answers ENOENT, a
/// folder without write permission EACCES, a read-only file system EROFS.
std::string folder_refusal(const std::string& path, int error) {
  std::string folder = std::filesystem::path(path).parent_path().string();
  if (folder.empty()) {
    folder = ".";
  }
  std::error_code ignored;
  const bool folder_exists = std::filesystem::is_directory(folder, ignored);
  if (error == ENOENT && !folder_exists) {
    return "its folder does not exist; create it first";
  }
  if (folder_exists && (error == ENOENT || error == EACCES || error == EPERM || error == EROFS)) {
    return "its folder " + folder + " is not writable" +
           (error == ENOENT ? std::string() : " (" + std::string(std::strerror(error)) + ")") +
           "; write to a folder you may write";
  }
  return std::strerror(error);
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
  // Registered before it exists, so that no signal can come between its creation and its
  // registration.
  install_interrupt_handler();
  slot_ = register_temporary(temporary_);
  const int fd = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int error = errno;
    unregister_temporary(slot_);
    temporary_.clear();
    fail(path_, folder_refusal(path_, error));
  }
  ::close(fd);
}

OutputFile::~OutputFile() {
  if (!committed_ && !temporary_.empty()) {
    std::remove(temporary_.c_str());
  }
  unregister_temporary(slot_);
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
  unregister_temporary(slot_);
}

void remove_registered_temporaries() noexcept {
  for (TemporarySlot& slot : g_temporaries) {
    if (slot.state.load(std::memory_order_acquire) == kReady) {
      ::unlink(slot.path);
    }
  }
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

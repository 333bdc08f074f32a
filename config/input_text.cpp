#include "config/input_text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace gpuplan::config {
namespace {

/// Length of the UTF-8 sequence starting at `i`, or 0 when it is malformed (RFC 3629 §4).
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    return 1;
  }
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) low = 0xA0;   // no overlong forms
    if (b0 == 0xED) high = 0x9F;  // no UTF-16 surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) low = 0x90;   // no overlong forms
    if (b0 == 0xF4) high = 0x8F;  // at most U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) {
    return 0;
  }
  for (std::size_t k = 1; k < length; ++k) {
    const unsigned char b = byte(i + k);
    const unsigned char lo = k == 1 ? low : 0x80;
    const unsigned char hi = k == 1 ? high : 0xBF;
    if (b < lo || b > hi) {
      return 0;
    }
  }
  return length;
}

struct Bom {
  std::string_view bytes;
  const char* encoding;
};

}  // namespace

bool is_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      return false;
    }
    i += n;
  }
  return true;
}

SourceMark position_of(std::string_view text, std::size_t offset, const std::string& file) {
  SourceMark mark{file, 1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++mark.line;
      mark.column = 1;
    } else {
      ++mark.column;
    }
  }
  return mark;
}

void check_input_text(std::string_view text, const std::string& file) {
  using namespace std::string_view_literals;
  // UTF-32 first: its little-endian mark begins with UTF-16's.
  static const std::array<Bom, 4> kBoms = {{{"\x00\x00\xFE\xFF"sv, "UTF-32"},
                                            {"\xFF\xFE\x00\x00"sv, "UTF-32"},
                                            {"\xFE\xFF"sv, "UTF-16"},
                                            {"\xFF\xFE"sv, "UTF-16"}}};
  for (const Bom& bom : kBoms) {
    if (text.starts_with(bom.bytes)) {
      throw ConfigError(format_diagnostic(std::string("the file is ") + bom.encoding +
                                              " (it starts with a byte-order mark)",
                                          {file, 1, 1}, "", "; save it as UTF-8"));
    }
  }
  const std::size_t start = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  for (std::size_t i = start; i < text.size();) {
    const char c = text[i];
    if (c == '\0') {
      throw ConfigError(format_diagnostic("NUL byte", position_of(text, i, file), "",
                                          "; the file is binary, or UTF-16/32 without a byte-order "
                                          "mark: save it as UTF-8 text"));
    }
    if (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) {
      throw ConfigError(format_diagnostic("carriage return without a line feed", position_of(text, i, file), "",
                                          "; the file has CR-only (old Mac) line endings: save it with "
                                          "LF or CRLF line endings"));
    }
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      throw ConfigError(format_diagnostic("bytes that are not UTF-8", position_of(text, i, file), "",
                                          "; save the file as UTF-8 text"));
    }
    i += n;
  }
}

std::string read_text_file(const std::string& path, const std::string& what) {
  const auto fail = [&](const std::string& reason) {
    throw ConfigError("cannot read " + what + " '" + path + "': " + reason);
  };
  // Opened without blocking, so that a FIFO with no writer is refused instead of waited on;
  // fstat on the open descriptor then decides (no race between a check and the open).
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    fail(std::strerror(errno));
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    fail(std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) {
    fail("it is a directory; give the path of a file in it");
  }
  if (!S_ISREG(info.st_mode)) {
    fail("it is not a regular file (a FIFO, socket or device); save the input to a file and give its path");
  }
  if (static_cast<std::uintmax_t>(info.st_size) > kMaxInputBytes) {
    fail("it is " + grouped_thousands(static_cast<std::size_t>(info.st_size)) + " bytes, more than the " +
         grouped_thousands(kMaxInputBytes) + " gpuplan reads; split it or remove what is not needed");
  }
  std::string text(static_cast<std::size_t>(info.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ::ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      fail(std::strerror(errno));
    }
    if (n == 0) {
      break;  // the file shrank while being read
    }
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  return text;
}

}  // namespace gpuplan::config

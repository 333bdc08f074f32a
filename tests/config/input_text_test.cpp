// Input text that is not plain UTF-8 (issue 15): refused at its first offending byte,
// before a parser can misread it.
#include "config/input_text.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config_fixture.h"

namespace gpuplan::config::testing {
namespace {

std::string text_error(const std::string& text) {
  return error_of([&] { check_input_text(text, "f.yaml"); });
}

}  // namespace

TEST_SUITE("config.input_text") {
  TEST_CASE("byte-order marks: UTF-8 is read, UTF-16 and UTF-32 in either order are refused") {
    CHECK(text_error("\xEF\xBB\xBF" "a: 1\n") == "(no error)");
    const std::string utf16 = "the file is UTF-16 (it starts with a byte-order mark) at f.yaml:1:1; save it as UTF-8";
    const std::string utf32 = "the file is UTF-32 (it starts with a byte-order mark) at f.yaml:1:1; save it as UTF-8";
    CHECK(text_error(std::string("\xFF\xFE" "a\0:\0", 6)) == utf16);
    CHECK(text_error(std::string("\xFE\xFF\0a\0:", 6)) == utf16);
    CHECK(text_error(std::string("\xFF\xFE\0\0a\0\0\0", 8)) == utf32);
    CHECK(text_error(std::string("\0\0\xFE\xFF\0\0\0a", 8)) == utf32);
  }

  TEST_CASE("a NUL byte, a lone carriage return and bytes that are not UTF-8 are refused where they are") {
    CHECK(text_error(std::string("a: 1\nb: \0\n", 10)) ==
          "NUL byte at f.yaml:2:4; the file is binary, or UTF-16/32 without a byte-order mark: save it as "
          "UTF-8 text");
    CHECK(text_error("a: 1\rb: 2\r") ==
          "carriage return without a line feed at f.yaml:1:5; the file has CR-only (old Mac) line endings: "
          "save it with LF or CRLF line endings");
    CHECK(text_error("a: 1\r\nb: 2\r\n") == "(no error)");
    const std::string not_utf8 = "bytes that are not UTF-8 at f.yaml:1:7; save the file as UTF-8 text";
    CHECK(text_error("name: \xFF\n") == not_utf8);          // never a UTF-8 byte
    CHECK(text_error("name: \xC0\xAF\n") == not_utf8);      // overlong '/'
    CHECK(text_error("name: \xED\xA0\x80\n") == not_utf8);  // a UTF-16 surrogate
    CHECK(text_error("name: \xF4\x90\x80\x80\n") == not_utf8);  // above U+10FFFF
    CHECK(text_error("name: \xE2\x82") == not_utf8);        // truncated
    CHECK(text_error("name: caf\xC3\xA9 \xF0\x9F\x9A\x80\n") == "(no error)");  // é and a 4-byte emoji
  }

  TEST_CASE("read_text_file refuses a directory, a device, a FIFO and a file over the size bound") {
    CHECK(error_of([] { read_text_file("/dev/zero"); }) ==
          "cannot read file '/dev/zero': it is not a regular file (a FIFO, socket or device); save the input "
          "to a file and give its path");
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("gpuplan-input-text-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    CHECK(error_of([&] { read_text_file(dir.string()); }) ==
          "cannot read file '" + dir.string() + "': it is a directory; give the path of a file in it");
    const std::string fifo = (dir / "fifo").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(error_of([&] { read_text_file(fifo); }) ==
          "cannot read file '" + fifo + "': it is not a regular file (a FIFO, socket or device); save the "
          "input to a file and give its path");
    // 100 MB of unknown keys: refused from its size before a byte is parsed.
    const std::filesystem::path big = dir / "big.yaml";
    {
      std::ofstream out(big, std::ios::binary);
      const std::string block = std::string(999'999, 'k') + "\n";
      for (int i = 0; i < 100; ++i) out << block;
    }
    CHECK(error_of([&] { read_text_file(big.string()); }) ==
          "cannot read file '" + big.string() + "': it is 100,000,000 bytes, more than the 67,108,864 gpuplan "
          "reads; split it or remove what is not needed");
    std::filesystem::remove_all(dir);
  }
}

}  // namespace gpuplan::config::testing

// config::bounded_echoes: the values a message echoes are cut to kMaxEchoedBytes (80) bytes
// + "... (N bytes)", at a UTF-8 character boundary, once; prose apostrophes are not quotes.

#include <doctest/doctest.h>

#include <string>

#include "config/config_error.h"

using gpuplan::config::bounded_echoes;
using gpuplan::config::format_diagnostic;

TEST_SUITE("config.bounded_echoes") {
  TEST_CASE("a long quoted value is cut; short ones, prose and the file name are kept") {
    const std::string x81(81, 'x');
    CHECK(bounded_echoes("unknown model '" + x81 + "'") ==
          "unknown model '" + std::string(80, 'x') + "... (81 bytes)'");
    CHECK(bounded_echoes("unknown model '" + std::string(80, 'x') + "'") == "unknown model '" + std::string(80, 'x') + "'");
    // "the job's" and "isn't" hold apostrophes, not quotes: the 90 bytes between them stay.
    const std::string prose = "the job's " + std::string(90, 'y') + " isn't cut";
    CHECK(bounded_echoes(prose) == prose);
    // A cut value quoted again by a later message is not cut twice.
    const std::string once = bounded_echoes("'" + x81 + "'");
    CHECK(bounded_echoes(once) == once);
    const std::string path = "/" + std::string(100, 'd') + "/s.yaml";
    CHECK(format_diagnostic("unknown key '" + x81 + "'", {path, 3, 5}, "hardware." + x81) ==
          "unknown key '" + std::string(80, 'x') + "... (81 bytes)' at " + path + ":3:5 (hardware." +
              std::string(71, 'x') + "... (90 bytes))");
  }

  TEST_CASE("the cut backs off to a UTF-8 character boundary") {
    // 79 ASCII bytes then "é" (2 bytes, C3 A9): byte 80 is the é's second byte, so the cut
    // keeps 79 bytes.
    const std::string value = std::string(79, 'a') + "\xC3\xA9" + "bbb";
    CHECK(bounded_echoes("'" + value + "'") == "'" + std::string(79, 'a') + "... (84 bytes)'");
  }
}

// config::bounded_echoes: the values a message echoes are cut to kMaxEchoedBytes (80) bytes
// + "... (N bytes)", at a UTF-8 character boundary, once; prose apostrophes are not quotes.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "config/config_error.h"

using gpuplan::config::bounded_echoes;
using gpuplan::config::escape_invisible;
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

  TEST_CASE("invisible and bidi characters are escaped as <U+XXXX>, and the problem says so") {
    // U+200B zero-width space (E2 80 8B), U+00A0 no-break space (C2 A0), U+202E right-to-left
    // override (E2 80 AE), U+0007 bell, U+FEFF; "é" (C3 A9) and the ASCII space are visible.
    std::vector<char32_t> escaped;
    CHECK(escape_invisible("a\u200Bb\u00A0c\u202Ed\ae\uFEFF f\u00E9\u200B", &escaped) ==
          "a<U+200B>b<U+00A0>c<U+202E>d<U+0007>e<U+FEFF> f\u00E9<U+200B>");
    CHECK(escaped == std::vector<char32_t>{0x200B, 0xA0, 0x202E, 0x7, 0xFEFF});
    CHECK(escape_invisible("\xFF\xE2\x80") == "\xFF\xE2\x80");  // not UTF-8: kept
    CHECK(format_diagnostic("unknown value 'flash\u200B', expected one of eager or flash", {"s.yaml", 4, 77},
                            "training.attention", "; did you mean flash?") ==
          "unknown value 'flash<U+200B>' (it contains the invisible character U+200B, shown as <U+200B>), expected "
          "one of eager or flash at s.yaml:4:77 (training.attention); did you mean flash?");
    CHECK(format_diagnostic("out-of-range value 1\u00A0000\u202E", {"s.yaml", 1, 1}, "a.b") ==
          "out-of-range value 1<U+00A0>000<U+202E> (the value contains the invisible characters U+00A0 and U+202E, "
          "shown as <U+00A0>) at s.yaml:1:1 (a.b)");
    // A message that quotes an escaped one is not noted twice.
    const std::string once = format_diagnostic("unknown key 'x\u200B'", {"s.yaml", 2, 3}, "hardware.x\u200B");
    CHECK(once == "unknown key 'x<U+200B>' (it contains the invisible character U+200B, shown as <U+200B>) at "
                  "s.yaml:2:3 (hardware.x<U+200B>)");
    CHECK(format_diagnostic(once.substr(0, once.find(" at ")), {"s.yaml", 2, 3}, "hardware.x<U+200B>") == once);
  }
}

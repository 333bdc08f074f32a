// TextTable: aligned text, and the wrap into panels that keeps a terminal table within a width.
#include <doctest/doctest.h>

#include "report/display_width.h"
#include "report/text_table.h"

namespace gpuplan::report {

TEST_SUITE("report.text_table") {
  TEST_CASE("to_text(width): unchanged when it fits, panels repeating the first column when it does not") {
    TextTable t({"strategy", "aaaa", "bbbb", "cccc"});
    t.add_row({"x", "1", "2", "3"});
    // Full width: 8 + 3 x (2 + 4) = 26 columns.
    CHECK(t.to_text(26) == t.to_text());
    // 20 columns: "strategy" (8) + 2 + 4 + 2 + 4 = 20 holds two more columns, the third wraps.
    CHECK(t.to_text(20) ==
          "strategy  aaaa  bbbb\n"
          "--------------------\n"
          "x            1     2\n"
          "\n"
          "strategy  cccc\n"
          "--------------\n"
          "x            3\n");
  }

  TEST_CASE("a name with a newline or '|' stays in its row; CJK characters take two columns") {
    TextTable t({"strategy", "samples/s"});
    t.add_row({"a\nb|c", "1"});
    t.add_row({"训练", "2"});  // two CJK ideographs: 4 display columns (6 bytes)
    t.add_row({"x", "3"});
    // First column 8 wide ("strategy"; "a\nb|c" prints as 6 characters), then 2 + 9.
    CHECK(t.to_text() == "strategy  samples/s\n"
                         "-------------------\n"
                         "a\\nb|c" + std::string(12, ' ') + "1\n" +
                         "训练" + std::string(14, ' ') + "2\n" +
                         "x" + std::string(17, ' ') + "3\n");
    CHECK(t.to_markdown() == "| strategy | samples/s |\n"
                             "| --- | ---: |\n"
                             "| a\\nb\\|c | 1 |\n"
                             "| 训练 | 2 |\n"
                             "| x | 3 |\n");
  }

  TEST_CASE("display_width and one_line") {
    CHECK(display_width("resnet50") == 8);
    CHECK(display_width("训练") == 4);          // U+8BAD U+7EC3, CJK Unified Ideographs
    CHECK(display_width("ｂｓ６４") == 8);       // fullwidth forms U+FF42 U+FF53 U+FF16 U+FF14
    CHECK(display_width("e\xCC\x81") == 1);     // e + U+0301 combining acute accent
    CHECK(display_width("\xFF") == 1);          // not UTF-8: one column per byte
    CHECK(one_line("a\r\nb\tc\x1b[31m") == "a\\r\\nb\\tc\\x1B[31m");
  }
}

}  // namespace gpuplan::report

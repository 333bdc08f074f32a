// TextTable: aligned text, and the wrap into panels that keeps a terminal table within a width.
#include <doctest/doctest.h>

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
}

}  // namespace gpuplan::report

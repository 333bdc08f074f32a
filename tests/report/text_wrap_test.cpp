// Word wrap of terminal prose.
#include <doctest/doctest.h>

#include "report/text_wrap.h"

namespace gpuplan::report {

TEST_SUITE("report.text_wrap") {
  TEST_CASE("breaks at the last space that fits, indents continuations, keeps newlines and short lines") {
    CHECK(wrap_text("one two three four\nfive\n", 9) == "one two\n  three\n  four\nfive\n");
    CHECK(wrap_text("short\n", 120) == "short\n");
    CHECK(wrap_text("averyveryverylongword and more", 8) == "averyveryverylongword\n  and\n  more");
  }
}

}  // namespace gpuplan::report

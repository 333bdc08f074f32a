// Hostile YAML (issue 15): each case is refused in bounded time with the whole message,
// at the position of the alias, value or document that crosses the bound.
#include "config/yaml_bounds.h"

#include <doctest/doctest.h>

#include <string>

#include "config_fixture.h"
#include "config/yaml_reader.h"

namespace gpuplan::config::testing {
namespace {

std::string bounds_error(const std::string& text) {
  return error_of([&] { check_yaml_bounds(text, "f.yaml"); });
}

/// "a0: &a0 [x, x, ...]" then levels that repeat the one before `width` times: the
/// "billion laughs" shape; level k expands to about width^(k+1) values.
std::string alias_bomb(int levels, int width) {
  std::string text = "a0: &a0 [";
  for (int i = 0; i < width; ++i) text += i == 0 ? "x" : ", x";
  text += "]\n";
  for (int level = 1; level < levels; ++level) {
    text += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < width; ++i) {
      text += (i == 0 ? "*a" : ", *a") + std::to_string(level - 1);
    }
    text += "]\n";
  }
  return text;
}

}  // namespace

TEST_SUITE("config.yaml_bounds") {
  TEST_CASE("an alias inside its own anchor is refused at the alias, in a sequence and in a mapping") {
    CHECK(bounds_error("a: &x [*x]\n") ==
          "alias '*x' refers to the anchor '&x' that contains it at f.yaml:1:8; an anchor cannot contain "
          "itself: write the value out instead");
    CHECK(bounds_error("strategies: &s\n  amp: *s\n") ==
          "alias '*s' refers to the anchor '&s' that contains it at f.yaml:2:8; an anchor cannot contain "
          "itself: write the value out instead");
  }

  TEST_CASE("an alias of a finished anchor is fine, and counts as the values it expands to") {
    CHECK(bounds_error("a: &x [1, 2]\nb: *x\n") == "(no error)");
    // 10 levels of 10: anchor k expands to 1 + 10 x (size of k-1) values (11, 111, 1,111,
    // 11,111, 111,111, ...). Lines 1-5 hold 1 + 5 keys + 123,455 values, so the first alias
    // of *a4 (line 6) brings the total past 200,000.
    const std::string bomb = alias_bomb(10, 10);
    const std::string message = bounds_error(bomb);
    CHECK(message.starts_with("more than 200,000 values in one file (alias '*a4' expanded) at f.yaml:6:"));
    CHECK(message.ends_with("; split the file, or write fewer strategies, sweep values or aliases"));
  }

  TEST_CASE("nesting is bounded, also through aliases") {
    const std::string deep = "a: " + std::string(100'000, '[') + std::string(100'000, ']') + "\n";
    // The top mapping is level 1, so the 64th '[' (column 3 + 64) is level 65, the first too deep.
    CHECK(bounds_error(deep) ==
          "nesting deeper than 64 levels at f.yaml:1:67; gpuplan's files nest a few levels: check for "
          "unclosed brackets or aliases of aliases");
    // 40 levels under an anchor, used 40 levels deep: 80 once expanded.
    const std::string forty_open(40, '[');
    const std::string forty_close(40, ']');
    CHECK(bounds_error("a: &x " + forty_open + forty_close + "\nb: " + forty_open + "*x" + forty_close + "\n") ==
          "nesting deeper than 64 levels (alias '*x' expanded) at f.yaml:2:44; gpuplan's files nest a few "
          "levels: check for unclosed brackets or aliases of aliases");
  }

  TEST_CASE("more values than the bound are refused at the first value past it") {
    std::string many;
    for (int i = 0; i < 150'000; ++i) many += "k" + std::to_string(i) + ": 1\n";
    // The mapping is 1 value and each line 2: 99,999 lines make 199,999, and value 200,001
    // is the value of line 100,000 ("k99999: 1", column 9).
    CHECK(bounds_error(many) ==
          "more than 200,000 values in one file at f.yaml:100000:9; split the file, or write fewer "
          "strategies, sweep values or aliases");
  }

  TEST_CASE("a second document is refused at its start, even an empty one") {
    CHECK(bounds_error("a: 1\n---\nb: 2\n") ==
          "a second YAML document at f.yaml:2:1; gpuplan reads one document per file: remove the '---' "
          "line and what follows, or move it to a file of its own");
    CHECK(bounds_error("a: 1\n---\n") ==
          "a second YAML document at f.yaml:2:1; gpuplan reads one document per file: remove the '---' "
          "line and what follows, or move it to a file of its own");
    CHECK(bounds_error("---\na: 1\n...\n") == "(no error)");
  }

  TEST_CASE("parse_yaml applies the bounds: a cyclic alias never reaches the duplicate-key walk") {
    CHECK(error_of([] { parse_yaml("a: &x {b: *x}\n", "f.yaml"); }) ==
          "alias '*x' refers to the anchor '&x' that contains it at f.yaml:1:11; an anchor cannot contain "
          "itself: write the value out instead");
  }
}

}  // namespace gpuplan::config::testing

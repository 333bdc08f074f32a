#include "core/text_distance.h"

#include <doctest/doctest.h>

using namespace gpuplan::core;

TEST_SUITE("core.text_distance") {
  TEST_CASE("optimal string alignment distance: Levenshtein plus adjacent transpositions") {
    CHECK(edit_distance("", "") == 0);
    CHECK(edit_distance("epoch", "epochs") == 1);   // one insertion
    CHECK(edit_distance("kitten", "sitting") == 3);  // k->s, e->i, +g
    CHECK(edit_distance("num_wrokers", "num_workers") == 1);  // a transposition is one edit
    CHECK(edit_distance("rtx3900", "rtx3090") == 1);
    CHECK(edit_distance("ca", "abc") == 3);  // optimal string alignment: no edit of a transposed pair
  }

  TEST_CASE("closest names: within distance 2 or a shared prefix, nearest first") {
    const std::vector<std::string> gpus = {"a100-40gb", "a100-80gb", "h100-sxm", "t4"};
    CHECK(closest("a100-80", gpus) == std::vector<std::string>{"a100-80gb"});  // prefix; a100-40gb is 3 edits away
    CHECK(closest("H100-SXM", gpus) == std::vector<std::string>{"h100-sxm"});
    CHECK(closest("mi300x", gpus).empty());
  }

  TEST_CASE("did-you-mean text") {
    CHECK(did_you_mean({}).empty());
    CHECK(did_you_mean({"epochs"}) == "; did you mean epochs?");
    CHECK(did_you_mean({"a", "b", "c"}) == "; did you mean a, b or c?");
  }
}

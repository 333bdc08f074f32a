#include "models/collective/builtin.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace gpuplan::models;

TEST_SUITE("models.collective.builtin") {
  TEST_CASE("exactly the built-in names (STYLE.md P4)") {
    CollectiveRegistry registry;
    register_builtin_collectives(registry);
    CHECK(registry.names() == std::vector<std::string>{"hierarchical", "nvls", "pairwise", "ring", "tree"});
    for (const std::string& name : registry.names()) {
      CHECK_FALSE(registry.find(name)->summary().empty());
    }
    CHECK_THROWS_AS(register_builtin_collectives(registry), std::logic_error);
  }
}

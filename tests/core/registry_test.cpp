#include "core/registry.h"

#include <doctest/doctest.h>

#include <memory>
#include <stdexcept>

namespace {
struct IThing {
  virtual ~IThing() = default;
  virtual int value() const = 0;
};
struct Thing : IThing {
  explicit Thing(int v) : v_(v) {}
  int value() const override { return v_; }
  int v_;
};
}  // namespace

TEST_SUITE("core.registry") {
  TEST_CASE("find by name, sorted names, duplicates are a programming error") {
    gpuplan::core::Registry<IThing> r;
    r.add("ring", std::make_unique<Thing>(1));
    r.add("hierarchical", std::make_unique<Thing>(2));
    REQUIRE(r.find("ring") != nullptr);
    CHECK(r.find("ring")->value() == 1);
    CHECK(r.find("tree") == nullptr);
    CHECK(r.names() == std::vector<std::string>{"hierarchical", "ring"});
    CHECK_THROWS_AS(r.add("ring", std::make_unique<Thing>(3)), std::logic_error);
  }
}

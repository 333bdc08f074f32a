#include "core/unit_parse.h"
#include <doctest/doctest.h>
TEST_SUITE("core.unit_parse") {
TEST_CASE("smoke") { CHECK(gpuplan::core::parse_quantity("110 KiB", gpuplan::core::Dimension::kBytes) == doctest::Approx(112640)); }
}

#include "sim/sim_time.h"

#include <doctest/doctest.h>

#include <limits>
#include <stdexcept>

#include "core/units.h"

namespace gpuplan::sim {

TEST_SUITE("sim.sim_time") {
  TEST_CASE("to_sim_time rounds up to the next whole nanosecond") {
    // 1.5e-9 s = 1.5 ns -> rounded up to 2 ns.
    CHECK(to_sim_time(core::nanoseconds(1.5)) == 2);
    // 1e-9 s = 1 ns exactly -> 1 ns, not 2.
    CHECK(to_sim_time(core::nanoseconds(1.0)) == 1);
    // 0.1 ns -> 1 ns: no positive duration becomes zero (ns-3's Time{0.1} pitfall).
    CHECK(to_sim_time(core::nanoseconds(0.1)) == 1);
    // 1.000002 ns: 2e-6 ns above a whole ns, beyond the snap tolerance of 1e-6 ns -> 2 ns.
    CHECK(to_sim_time(core::nanoseconds(1.000002)) == 2);
    CHECK(to_sim_time(0.0) == 0);
  }

  TEST_CASE("floating-point residue does not add a nanosecond") {
    // 3e-9 s x 1e9 = 3.0000000000000004 in binary floating point; it is 3 ns, not 4.
    CHECK(to_sim_time(3e-9) == 3);
    // 1.1e-8 s = 11 ns; 0.3 s = 300'000'000 ns; 1 h = 3600 s = 3.6e12 ns.
    CHECK(to_sim_time(1.1e-8) == 11);
    CHECK(to_sim_time(0.3) == 300'000'000);
    CHECK(to_sim_time(core::hours(1.0)) == 3'600'000'000'000);
    // 1234.567891234 s = 1'234'567'891'234 ns.
    CHECK(to_sim_time(1234.567891234) == 1'234'567'891'234);
  }

  TEST_CASE("to_sim_time rejects negative, NaN, infinite and out-of-range durations") {
    CHECK_THROWS_AS(to_sim_time(-1.0), std::invalid_argument);
    CHECK_THROWS_AS(to_sim_time(-core::nanoseconds(0.5)), std::invalid_argument);
    CHECK_THROWS_AS(to_sim_time(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
    CHECK_THROWS_AS(to_sim_time(std::numeric_limits<double>::infinity()), std::invalid_argument);
    // 300 Julian years = 9.47e18 ns > 2^63 - 1 = 9.22e18 ns.
    CHECK_THROWS_AS(to_sim_time(300.0 * core::kSecondsPerYear), std::invalid_argument);
    // 200 Julian years = 6.31e18 ns still fits.
    CHECK(to_sim_time(200.0 * core::kSecondsPerYear) > 0);
  }

  TEST_CASE("to_seconds is the inverse on whole nanoseconds") {
    // 2'500'000'000 ns = 2.5 s.
    CHECK(to_seconds(2'500'000'000) == doctest::Approx(2.5));
    CHECK(to_seconds(0) == 0.0);
    CHECK(to_sim_time(to_seconds(123'456'789)) == 123'456'789);
  }
}

}  // namespace gpuplan::sim

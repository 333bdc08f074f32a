#include "sim/sim_time.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
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

  TEST_CASE("to_sim_time rounds as std::round and std::ceil would") {
    // to_sim_time rounds from the integer part instead of calling libm; the definition it
    // must match is sim_time.h's: the nearest whole ns if within the snap tolerance (1e-6 ns
    // or 4 ulps), else the ceiling. Checked on halves, near-halves and 2^20 pseudo-random
    // durations from 1e-12 s to 1e6 s (a fixed xorshift stream: deterministic).
    const auto reference = [](double seconds) {
      const double ns = seconds * 1e9;
      const double nearest = std::round(ns);
      const double tolerance = std::max(1e-6, 4.0 * DBL_EPSILON * ns);
      return static_cast<SimTime>(std::fabs(ns - nearest) <= tolerance ? nearest : std::ceil(ns));
    };
    for (const double s : {0.5e-9, 2.5e-9, 1e-9 * (0.5 - 1e-12), 4503599627370495.5e-9, 1e-9 * 9007199254740993.0}) {
      CHECK(to_sim_time(s) == reference(s));
    }
    std::uint64_t x = 88172645463325252ULL;
    int mismatches = 0;
    for (int i = 0; i < (1 << 20); ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      const double unit = static_cast<double>(x >> 11) / 9007199254740992.0;  // [0, 1)
      const double seconds = std::pow(10.0, -12.0 + 18.0 * unit);
      if (to_sim_time(seconds) != reference(seconds)) ++mismatches;
    }
    CHECK(mismatches == 0);
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

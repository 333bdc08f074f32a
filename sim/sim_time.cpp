#include "sim/sim_time.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/units.h"

namespace gpuplan::sim {

namespace {

// Nanoseconds per second is the SI prefix giga (1 / nano); the factor lives in core/units.h
// (STYLE.md U2).
constexpr double kNanosecondsPerSecond = core::kGiga;

// 2^63 as a double: the first nanosecond count that no longer fits in SimTime.
constexpr double kFirstUnrepresentableNs = 9223372036854775808.0;

// Below this distance a product counts as a whole number of nanoseconds (1 femtosecond).
constexpr double kSnapAbsoluteNs = 1e-6;

// Products within this many units in the last place of an integer snap to it: `seconds` and
// the multiplication each carry half an ulp of rounding error.
constexpr double kSnapUlps = 4.0;

}  // namespace

SimTime to_sim_time(double seconds) {
  if (std::isnan(seconds) || seconds < 0.0) {
    throw std::invalid_argument("to_sim_time: duration " + std::to_string(seconds) +
                                " s is negative or NaN; expected a non-negative number of seconds");
  }
  const double ns = seconds * kNanosecondsPerSecond;
  if (!(ns < kFirstUnrepresentableNs)) {
    throw TimeRangeError("to_sim_time: duration " + std::to_string(seconds) +
                                " s exceeds the simulated-time range (about 292 years)");
  }
  const double nearest = std::round(ns);
  const double tolerance = std::max(kSnapAbsoluteNs, kSnapUlps * DBL_EPSILON * ns);
  const double whole = std::fabs(ns - nearest) <= tolerance ? nearest : std::ceil(ns);
  if (!(whole < kFirstUnrepresentableNs)) {
    throw TimeRangeError("to_sim_time: duration " + std::to_string(seconds) +
                                " s exceeds the simulated-time range (about 292 years)");
  }
  return static_cast<SimTime>(whole);
}

double to_seconds(SimTime t) { return static_cast<double>(t) / kNanosecondsPerSecond; }

}  // namespace gpuplan::sim

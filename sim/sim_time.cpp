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
  // std::round and std::ceil from the integer part, without libm's calls (x86-64's baseline
  // has no rounding instruction): 0 <= ns < 2^63, and `ns - below` is exact (Sterbenz), so
  // these are exactly round-half-away and ceil.
  const double below = static_cast<double>(static_cast<SimTime>(ns));
  const double fraction = ns - below;
  const double nearest = fraction >= 0.5 ? below + 1.0 : below;
  const double above = fraction > 0.0 ? below + 1.0 : below;
  const double tolerance = std::max(kSnapAbsoluteNs, kSnapUlps * DBL_EPSILON * ns);
  const double whole = std::fabs(ns - nearest) <= tolerance ? nearest : above;
  if (!(whole < kFirstUnrepresentableNs)) {
    throw TimeRangeError("to_sim_time: duration " + std::to_string(seconds) +
                                " s exceeds the simulated-time range (about 292 years)");
  }
  return static_cast<SimTime>(whole);
}

double to_seconds(SimTime t) { return static_cast<double>(t) / kNanosecondsPerSecond; }

}  // namespace gpuplan::sim

#pragma once
/// \file sim_time.h
/// Simulated time: signed 64-bit nanoseconds (STYLE.md U7). Models compute durations in
/// `double` seconds; `to_sim_time` is the only way into engine time and `to_seconds` the only
/// way out.

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "core/units.h"

namespace gpuplan::sim {

/// A point in or a span of simulated time, in nanoseconds since the engine's origin.
/// int64 nanoseconds last about 292 years, enough for a job-level run (STYLE.md U7).
using SimTime = std::int64_t;

/// The largest representable simulated time (about 292 years after the origin).
inline constexpr SimTime kMaxSimTime = std::numeric_limits<SimTime>::max();

/// A duration or an event time outside SimTime's range (about 292 years of simulated time):
/// the rates, latencies or work a model was given are far out of range. An input problem,
/// not a defect, so the command line reports it as one (exit 2).
class TimeRangeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

namespace detail {

// Nanoseconds per second is the SI prefix giga (1 / nano); the factor lives in core/units.h
// (STYLE.md U2).
inline constexpr double kNanosecondsPerSecond = core::kGiga;

// 2^63 as a double: the first nanosecond count that no longer fits in SimTime.
inline constexpr double kFirstUnrepresentableNs = 9223372036854775808.0;

// Below this distance a product counts as a whole number of nanoseconds (1 femtosecond).
inline constexpr double kSnapAbsoluteNs = 1e-6;

// Products within this many units in the last place of an integer snap to it: `seconds` and
// the multiplication each carry half an ulp of rounding error.
inline constexpr double kSnapUlps = 4.0;

/// Throws to_sim_time's error for `seconds` (out of line, so the conversion inlines).
[[noreturn]] void throw_bad_duration(double seconds);

}  // namespace detail

/// Converts a duration in seconds to simulated nanoseconds, rounding **up** to the next whole
/// nanosecond, so that no positive duration becomes zero (ns-3's warning about `Time t{0.1}`).
/// Floating-point residue does not count: a product `seconds * 1e9` within a few units in the
/// last place (or 1e-6 ns) of a whole number is that number, so 3e-9 s is 3 ns, not 4 ns.
/// Throws std::invalid_argument for a negative or NaN duration, and TimeRangeError (an
/// std::invalid_argument) for an infinite one or one whose nanosecond count does not fit.
/// Inline: the engine's callers convert a time per event.
inline SimTime to_sim_time(double seconds) {
  const double ns = seconds * detail::kNanosecondsPerSecond;
  if (!(seconds >= 0.0) || !(ns < detail::kFirstUnrepresentableNs)) detail::throw_bad_duration(seconds);
  // std::round and std::ceil from the integer part, without libm's calls (x86-64's baseline
  // has no rounding instruction): 0 <= ns < 2^63, and `ns - below` is exact (Sterbenz), so
  // these are exactly round-half-away and ceil.
  const double below = static_cast<double>(static_cast<SimTime>(ns));
  const double fraction = ns - below;
  const double nearest = fraction >= 0.5 ? below + 1.0 : below;
  const double above = fraction > 0.0 ? below + 1.0 : below;
  const double tolerance = std::max(detail::kSnapAbsoluteNs, detail::kSnapUlps * DBL_EPSILON * ns);
  const double whole = std::fabs(ns - nearest) <= tolerance ? nearest : above;
  if (!(whole < detail::kFirstUnrepresentableNs)) detail::throw_bad_duration(seconds);
  return static_cast<SimTime>(whole);
}

/// Converts simulated nanoseconds to seconds (exact up to 2^53 ns, about 104 days; beyond that
/// the relative error stays below 1.2e-16).
inline double to_seconds(SimTime t) { return static_cast<double>(t) / detail::kNanosecondsPerSecond; }

}  // namespace gpuplan::sim

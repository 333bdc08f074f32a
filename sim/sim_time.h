#pragma once
/// \file sim_time.h
/// Simulated time: signed 64-bit nanoseconds (STYLE.md U7). Models compute durations in
/// `double` seconds; `to_sim_time` is the only way into engine time and `to_seconds` the only
/// way out.

#include <cstdint>
#include <limits>
#include <stdexcept>

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

/// Converts a duration in seconds to simulated nanoseconds, rounding **up** to the next whole
/// nanosecond, so that no positive duration becomes zero (ns-3's warning about `Time t{0.1}`).
/// Floating-point residue does not count: a product `seconds * 1e9` within a few units in the
/// last place (or 1e-6 ns) of a whole number is that number, so 3e-9 s is 3 ns, not 4 ns.
/// Throws std::invalid_argument for a negative or NaN duration, and TimeRangeError (an
/// std::invalid_argument) for an infinite one or one whose nanosecond count does not fit.
SimTime to_sim_time(double seconds);

/// Converts simulated nanoseconds to seconds (exact up to 2^53 ns, about 104 days; beyond that
/// the relative error stays below 1.2e-16).
double to_seconds(SimTime t);

}  // namespace gpuplan::sim

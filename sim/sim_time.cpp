#include "sim/sim_time.h"

#include <stdexcept>
#include <string>

namespace gpuplan::sim::detail {

void throw_bad_duration(double seconds) {
  if (std::isnan(seconds) || seconds < 0.0) {
    throw std::invalid_argument("to_sim_time: duration " + std::to_string(seconds) +
                                " s is negative or NaN; expected a non-negative number of seconds");
  }
  throw TimeRangeError("to_sim_time: duration " + std::to_string(seconds) +
                       " s exceeds the simulated-time range (about 292 years)");
}

}  // namespace gpuplan::sim::detail

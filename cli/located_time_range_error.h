#pragma once
/// \file located_time_range_error.h
/// A job past simulated time's range, located at the scenario key that sizes it.

#include "sim/sim_time.h"

namespace gpuplan::cli {

/// models::JobTimeRangeError with the position of the variant's workload.epochs or
/// workload.tokens: what() is the whole message ("<row>: time to train ... at f:l:c
/// (workload.epochs); <fix>"). Still a sim::TimeRangeError for callers that catch that; main
/// prints it as an input error (exit 2).
class LocatedTimeRangeError : public sim::TimeRangeError {
 public:
  using sim::TimeRangeError::TimeRangeError;
};

}  // namespace gpuplan::cli

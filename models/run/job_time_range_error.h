#pragma once
/// \file job_time_range_error.h
/// The error models::run_variant throws for a job whose time to train is past simulated
/// time's range (2^63 ns, about 292 years; sim/sim_time.h).

#include "sim/sim_time.h"

namespace gpuplan::models {

/// A time to train past SimTime's range: a sim::TimeRangeError (so callers that treat any
/// out-of-range time alike, such as `gpuplan fit`'s search, need not tell it apart), which
/// the command line reports at the key that sizes the job (cli/scenario_runner.cpp).
class JobTimeRangeError : public sim::TimeRangeError {
 public:
  using sim::TimeRangeError::TimeRangeError;
};

}  // namespace gpuplan::models

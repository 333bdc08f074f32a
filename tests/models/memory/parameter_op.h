#pragma once
/// \file parameter_op.h
/// Test fixture: a matmul op that holds only parameters (no FLOP, no saved activations), the
/// brick of the round-number workloads the sharded and distributed-optimizer memory tests
/// build by hand.

#include <string>

#include "models/workload/workload.h"

namespace gpuplan::models::testing {

/// An OpClass::kMatmul op named `name` with `parameters` trainable parameters.
inline Op parameter_op(const std::string& name, double parameters) {
  Op op;
  op.name = name;
  op.op_class = OpClass::kMatmul;
  op.parameters = parameters;
  return op;
}

}  // namespace gpuplan::models::testing

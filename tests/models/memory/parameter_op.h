#pragma once
/// \file parameter_op.h
/// Test fixtures of the memory tests: a matmul op that holds only parameters (no FLOP, no
/// saved activations), the brick of the round-number workloads they build by hand, and the
/// memory model's constants without its fixed overheads.

#include <string>

#include "models/memory/footprint.h"
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

/// MemoryModelParams with no CUDA context, workspace or allocator slack: the footprint is its
/// parts alone.
inline MemoryModelParams zero_overheads() {
  MemoryModelParams p;
  p.cuda_context_bytes = 0;
  p.workspace_bytes = 0;
  p.allocator_slack_fraction = 0;
  return p;
}

}  // namespace gpuplan::models::testing

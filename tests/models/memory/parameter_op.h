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

/// An op named `name` of class `c` that saves `saved_elements` for backward from an input of
/// `input_elements` (per sample), with no parameters or FLOP.
inline Op saving_op(const std::string& name, OpClass c, double saved_elements, double input_elements) {
  Op op;
  op.name = name;
  op.op_class = c;
  op.saved_elements = saved_elements;
  op.input_elements = input_elements;
  return op;
}

/// The round-number workload of the activation-offloading tests: embed (saves 100 elements),
/// blocks layers.0 .. layers.3, head (200). Block k: fc saves 1000 + 100 k elements from an
/// input of 50 + 10 k, gelu 400; so the blocks save 1400, 1500, 1600, 1700 elements from
/// inputs of 50, 60, 70, 80. 1e6 parameters.
inline Workload four_block_workload() {
  Workload w;
  w.parameters = 1e6;
  w.ops.push_back(saving_op("embed", OpClass::kEmbedding, 100, 10));
  for (int k = 0; k < 4; ++k) {
    const std::string block = "layers." + std::to_string(k);
    w.ops.push_back(saving_op(block + ".fc", OpClass::kMatmul, 1000 + 100 * k, 50 + 10 * k));
    w.ops.push_back(saving_op(block + ".gelu", OpClass::kElementwise, 400, 1000));
  }
  w.ops.push_back(saving_op("head", OpClass::kMatmul, 200, 20));
  return w;
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

#include "models/memory/optimizer_state.h"

namespace gpuplan::models {
namespace {
constexpr double kFp32Bytes = 4.0;
/// bitsandbytes: one 8-bit code per moment element, one fp32 absmax per 2,048 elements.
constexpr double kQuantizedBytes = 1.0;
constexpr double kBlockwiseBlockSize = 2048.0;
}  // namespace

double elementwise_state_bytes_per_parameter(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd:
      return 0.0;
    case Optimizer::kSgdMomentum:
      return kFp32Bytes;
    case Optimizer::kAdam:
    case Optimizer::kAdamW:
      return 2.0 * kFp32Bytes;
    case Optimizer::kAdamW8bit:
    case Optimizer::kPagedAdamW8bit:
      return 2.0 * (kQuantizedBytes + kFp32Bytes / kBlockwiseBlockSize);
    case Optimizer::kAdafactor:
      return 0.0;
  }
  return 0.0;
}

double optimizer_state_bytes(const Workload& workload, Optimizer optimizer) {
  if (optimizer != Optimizer::kAdafactor) {
    return workload.parameters * elementwise_state_bytes_per_parameter(optimizer);
  }
  double bytes = 0.0;
  for (const Op& op : workload.ops) {
    const double matrix = op.weight_rows * op.weight_columns;
    if (matrix <= 0.0 || matrix > op.parameters) {
      // No matrix of its own (norms, convolutions, a head tied to the embedding): unfactored.
      bytes += op.parameters * kFp32Bytes;
      continue;
    }
    // Factored second moment of the weight matrix; the rest (the bias) unfactored.
    bytes += (op.weight_rows + op.weight_columns) * kFp32Bytes + (op.parameters - matrix) * kFp32Bytes;
  }
  return bytes;
}

}  // namespace gpuplan::models

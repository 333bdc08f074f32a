#include "models/memory/optimizer_state.h"

#include <algorithm>

namespace gpuplan::models {
namespace {
constexpr double kFp32Bytes = 4.0;
constexpr double kBf16Bytes = 2.0;
/// bitsandbytes: one 8-bit code per moment element, one fp32 absmax per 2,048 elements.
constexpr double kQuantizedBytes = 1.0;
constexpr double kBlockwiseBlockSize = 2048.0;
}  // namespace

double optimizer_state_element_bytes(const TrainingSpec& training) {
  switch (training.optimizer_state_precision) {
    case OptimizerStatePrecision::kFp32: return kFp32Bytes;
    case OptimizerStatePrecision::kBf16: return kBf16Bytes;
    case OptimizerStatePrecision::kParam: break;
  }
  // HF's Adafactor makes its state from the gradient cast to fp32, whatever the parameter.
  if (training.optimizer == Optimizer::kAdafactor) {
    return kFp32Bytes;
  }
  return parameter_element_bytes(training.precision);
}

double elementwise_state_bytes_per_parameter(const TrainingSpec& training) {
  const double element = optimizer_state_element_bytes(training);
  switch (training.optimizer) {
    case Optimizer::kSgd:
      return 0.0;
    case Optimizer::kSgdMomentum:
      return element;
    case Optimizer::kAdam:
    case Optimizer::kAdamW:
      return 2.0 * element;
    case Optimizer::kAdamW8bit:
    case Optimizer::kPagedAdamW8bit:
      return 2.0 * (kQuantizedBytes + kFp32Bytes / kBlockwiseBlockSize);
    case Optimizer::kAdafactor:
      return 0.0;
  }
  return 0.0;
}

double optimizer_state_bytes(const Workload& workload, const TrainingSpec& training) {
  if (training.optimizer != Optimizer::kAdafactor) {
    return workload.parameters * elementwise_state_bytes_per_parameter(training);
  }
  const double element = optimizer_state_element_bytes(training);
  double bytes = 0.0;
  for (const Op& op : workload.ops) {
    const double matrix = op.weight_rows * op.weight_columns;
    if (matrix <= 0.0 || matrix > op.parameters) {
      // No matrix of its own (norms, convolutions, a head tied to the embedding): unfactored.
      bytes += op.parameters * element;
      continue;
    }
    // Factored second moment of the weight matrix; the rest (the bias) unfactored.
    bytes += (op.weight_rows + op.weight_columns) * element + (op.parameters - matrix) * element;
  }
  return bytes;
}

double optimizer_step_temporary_bytes(const JobSpec& job, double local_state_bytes) {
  const TrainingSpec& t = job.training;
  const ParallelismSpec& par = job.parallelism;
  const bool torch_adam = t.optimizer == Optimizer::kAdam || t.optimizer == Optimizer::kAdamW;
  if (!torch_adam || par.strategy == ParallelStrategy::kZero || par.distributed_optimizer ||
      par.optimizer_offload != OffloadTarget::kNone) {
    return 0.0;
  }
  switch (optimizer_implementation_of(t)) {
    case OptimizerImplementation::kForeach: return local_state_bytes / 2.0;
    case OptimizerImplementation::kForLoop: {
      double largest = 0.0;
      for (const Op& op : job.workload.ops) largest = std::max(largest, op.parameters);
      return largest * optimizer_state_element_bytes(t);
    }
    case OptimizerImplementation::kFused: break;
  }
  return 0.0;
}

}  // namespace gpuplan::models

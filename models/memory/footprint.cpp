#include "models/memory/footprint.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/units.h"
#include "models/memory/optimizer_state.h"

namespace gpuplan::models {

MemoryModelParams MemoryModelParams::defaults() {
  MemoryModelParams p;
  p.cuda_context_bytes = core::megabytes(1343.0);
  p.workspace_bytes = core::mebibytes(256.0);
  p.allocator_slack_fraction = 0.05;
  return p;
}

namespace {
/// Autocast's cached 16-bit copy of each fp32 weight during the step.
constexpr double kAutocastWeightCopyBytes = 2.0;

double saved_bytes_per_element(const Op& op, Precision precision) {
  if (is_mixed(precision) && op.autocast_fp32) {
    return 4.0;
  }
  return activation_element_bytes(precision);
}
}  // namespace

MemoryBreakdown training_memory(const Workload& workload, const TrainingSpec& training,
                                const MemoryModelParams& params) {
  if (training.batch_size < 1) {
    throw std::invalid_argument("training_memory: batch_size must be at least 1");
  }
  const double n = workload.parameters;
  const double batch = training.batch_size;
  MemoryBreakdown m;
  // Trained parameters at the precision's width, plus a LoRA/QLoRA run's frozen base as it
  // is stored (bf16, int8 or NF4: models/workload/fine_tuning.h).
  m.weights_bytes = n * parameter_element_bytes(training.precision) + workload.frozen_weight_bytes();
  m.gradients_bytes = n * parameter_element_bytes(training.precision);
  m.optimizer_state_bytes = optimizer_state_bytes(workload, training.optimizer);
  if (is_mixed(training.precision)) {
    m.optimizer_state_bytes += n * kAutocastWeightCopyBytes;
  }

  // A block is checkpointed under full checkpointing (all of them) or when {every: N}
  // marked its ops (Op::checkpointed); its ops' saves give way to the block's input.
  double saved = 0.0;
  std::map<std::string, double> block_saved;   // bytes per sample of each checkpointed block
  std::map<std::string, double> block_input;   // bytes per sample of each checkpointed block's input
  for (const Op& op : workload.ops) {
    const std::string block = block_of(op);
    const double bytes = op.saved_elements * saved_bytes_per_element(op, training.precision);
    if (block.empty() || !(training.activation_checkpointing || op.checkpointed)) {
      saved += bytes;
      continue;
    }
    if (block_input.find(block) == block_input.end()) {
      block_input[block] = op.input_elements * activation_element_bytes(training.precision);
    }
    block_saved[block] += bytes;
  }
  double largest = 0.0;
  for (const auto& [block, bytes] : block_saved) {
    largest = std::max(largest, bytes);
  }
  for (const auto& [block, bytes] : block_input) {
    saved += bytes;
  }
  saved += largest;
  m.activations_bytes = saved * batch;
  m.workspace_bytes = params.workspace_bytes;
  m.cuda_context_bytes = params.cuda_context_bytes;
  m.allocator_slack_bytes = params.allocator_slack_fraction * m.activations_bytes;
  return m;
}

}  // namespace gpuplan::models

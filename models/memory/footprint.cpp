#include "models/memory/footprint.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/units.h"
#include "models/memory/activation_offload.h"
#include "models/memory/optimizer_state.h"

namespace gpuplan::models {

MemoryModelParams MemoryModelParams::defaults() {
  MemoryModelParams p;
  p.cuda_context_bytes = core::megabytes(1343.0);
  p.workspace_bytes = core::mebibytes(256.0);
  p.allocator_slack_fraction = 0.05;
  return p;
}

double autocast_weight_copy_bytes(const Workload& workload, Precision precision) {
  return is_mixed(precision) ? workload.parameters * kAutocastWeightCopyBytes : 0.0;
}

namespace {
/// Bytes of one fp8 (E4M3 / E5M2) element.
constexpr double kFp8Bytes = 1.0;

double saved_bytes_per_element(const Op& op, const TrainingSpec& training) {
  const Precision precision = training.precision;
  if (precision == Precision::kFp8) {
    // Transformer Engine keeps the fp8 cast of a linear layer's input for its weight-gradient
    // GEMM (transformer_engine/pytorch/module/linear.py and layernorm_linear.py save the
    // quantized input, not the 16-bit one) where the GEMM runs in fp8 (runs_fp8_gemm). Its
    // norms: saved_bytes_per_sample.
    if (runs_fp8_gemm(op)) return kFp8Bytes;
  }
  if (is_mixed(precision) && runs_fp32_under_autocast(op, training.framework_overhead)) {
    return 4.0;
  }
  const bool unfused = training.framework_overhead == FrameworkOverhead::kEager ||
                       training.framework_overhead == FrameworkOverhead::kCudaGraphs;
  if (unfused && op.upcasts_fp32) return 4.0;  // HF's RMSNorm saves its fp32 tensors
  
  return activation_element_bytes(precision);
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_dropout(const Op& op) { return op.op_class == OpClass::kElementwise && ends_with(op.name, "dropout"); }

// Tensors a TensorFlow 1.x dropout keeps for backward: the scaled input and the float mask
// (saved_bytes_per_sample, footprint.h).
constexpr double kTensorflowDropoutSavedTensors = 2.0;

// A pointwise activation (GELU, SwiGLU, ReLU, tanh) whose saved tensor a fusing compiler can
// rebuild in backward; dropout masks come from the RNG and stay saved.
bool rematerializable(const Op& op) {
  return op.op_class == OpClass::kElementwise && op.saved_elements > 0.0 && !is_dropout(op);
}
}  // namespace

double dequantized_weight_bytes(const Workload& workload, Precision precision) {
  double largest = 0.0;
  for (const Op& op : workload.ops) {
    if (op.frozen_parameters <= 0.0 || op.frozen_element_bytes >= activation_element_bytes(precision)) {
      continue;
    }
    const double matrices = std::max(1, op.forward_kernels);  // one GEMM per weight matrix
    largest = std::max(largest, op.frozen_parameters / matrices);
  }
  return largest * activation_element_bytes(precision);
}

std::vector<double> saved_bytes_per_sample(const Workload& workload, const TrainingSpec& training) {
  std::vector<double> bytes(workload.ops.size(), 0.0);
  const bool compiled = training.framework_overhead == FrameworkOverhead::kCompiled;
  const bool fused_kernels = training.framework_overhead == FrameworkOverhead::kEagerFused;
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const Op& op = workload.ops[i];
    double elements = op.saved_elements;
    double element_bytes = saved_bytes_per_element(op, training);
    if ((compiled || fused_kernels) && rematerializable(op)) {
      // The partitioner keeps the activation's input (GELU: the up projection's output;
      // SwiGLU: gate and up) and recomputes the pointwise result in backward; so do
      // Megatron-Core's fused activations (megatron/core/fusions/fused_bias_swiglu.py and
      // fused_bias_gelu.py save only their input).
      elements = std::min(elements, op.input_elements);
    } else if ((training.precision == Precision::kFp8 || fused_kernels) && op.op_class == OpClass::kNormalization) {
      // Transformer Engine's RMSNorm / LayerNorm and apex's FusedLayerNorm (Megatron's fused
      // kernels) run on 16-bit tensors and save their 16-bit input (and a per-row statistic),
      // not HF's fp32 upcast and normalized copy.
      elements = std::min(elements, op.input_elements);
      element_bytes = activation_element_bytes(training.precision);
    } else if (training.framework == Framework::kTensorflow && is_dropout(op)) {
      // TensorFlow 1.x: x / keep_prob and the float mask, both kept for the Mul gradient.
      elements = kTensorflowDropoutSavedTensors * op.output_elements;
    } else if (compiled && i > 0 && op.op_class == OpClass::kMatmul && rematerializable(workload.ops[i - 1])) {
      // The linear after it needs that result for its weight gradient: recomputed, not saved.
      elements = 0.0;
    }
    bytes[i] = elements * element_bytes;
  }
  return bytes;
}

double loss_backward_transient_bytes_per_sample(const Workload& workload, const TrainingSpec& training) {
  const bool unfused = training.framework_overhead == FrameworkOverhead::kEager ||
                       training.framework_overhead == FrameworkOverhead::kCudaGraphs;
  if (!unfused || training.framework != Framework::kPytorch || workload.ops.empty()) return 0.0;
  const Op& loss = workload.ops.back();
  return loss.backward_transient_elements * saved_bytes_per_element(loss, training);
}

MemoryBreakdown training_memory(const Workload& workload, const TrainingSpec& training,
                                const MemoryModelParams& params) {
  if (training.batch_size < 1) {
    throw std::invalid_argument("training_memory: batch_size must be at least 1");
  }
  const double n = workload.parameters;
  const double batch = training.batch_size;
  MemoryBreakdown m;
  // Trained parameters at the precision's width and, under AMP, autocast's 16-bit copies of
  // them, plus a LoRA/QLoRA run's frozen base as it is stored (bf16, int8 or NF4:
  // models/workload/fine_tuning.h).
  m.weights_bytes = n * parameter_element_bytes(training.precision) +
                    autocast_weight_copy_bytes(workload, training.precision) + workload.frozen_weight_bytes();
  m.gradients_bytes = n * parameter_element_bytes(training.precision);
  m.optimizer_state_bytes = optimizer_state_bytes(workload, training);

  // A block is checkpointed under full checkpointing (all of them) or when {every: N}
  // marked its ops (Op::checkpointed); its ops' saves give way to the block's input.
  const std::vector<double> op_saved = saved_bytes_per_sample(workload, training);
  double saved = 0.0;
  std::map<std::string_view, double> block_saved;  // bytes per sample of each checkpointed block (views into names)
  std::map<std::string_view, double> block_input;  // bytes per sample of each checkpointed block's input
  auto current = block_saved.end();            // the last op's block: a block's ops come one after another
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const Op& op = workload.ops[i];
    const double bytes = op_saved[i];
    const std::string_view block =
        training.activation_checkpointing || op.checkpointed ? block_view(op) : std::string_view();
    if (block.empty()) {
      saved += bytes;
      continue;
    }
    if (current == block_saved.end() || current->first != block) {
      block_input.try_emplace(block, op.input_elements * activation_element_bytes(training.precision));
      current = block_saved.try_emplace(block, 0.0).first;
    }
    current->second += bytes;
  }
  double largest = 0.0;
  for (const auto& [block, bytes] : block_saved) {
    largest = std::max(largest, bytes);
  }
  for (const auto& [block, bytes] : block_input) {
    saved += bytes;
  }
  saved += largest;
  if (training.activation_offloading) {
    // The blocks' saves (or checkpoint inputs) wait in pinned host memory; the GPU holds the
    // ones in flight (activation_offload.h).
    saved = activation_offload(workload, training, op_saved).gpu_bytes();
  }
  m.activations_bytes = saved * batch;
  m.workspace_bytes = params.workspace_bytes + dequantized_weight_bytes(workload, training.precision);
  m.cuda_context_bytes = params.cuda_context_bytes;
  m.allocator_slack_bytes = params.allocator_slack_fraction * m.activations_bytes;
  return m;
}

}  // namespace gpuplan::models

#include "models/workload/workload.h"

namespace gpuplan::models {

std::string_view name_of(OpClass c) {
  switch (c) {
    case OpClass::kConv: return "conv";
    case OpClass::kMatmul: return "matmul";
    case OpClass::kAttention: return "attention";
    case OpClass::kElementwise: return "elementwise";
    case OpClass::kNormalization: return "normalization";
    case OpClass::kSoftmax: return "softmax";
    case OpClass::kPooling: return "pooling";
    case OpClass::kEmbedding: return "embedding";
  }
  return "?";
}

bool replays_forward(const Op& op, bool full_checkpointing) {
  return op.recompute_in_backward || (full_checkpointing && in_block(op));
}

std::string_view block_view(const Op& op) {
  // Blocks are named by the generators with a numeric path component: "layer3.2.conv1",
  // "encoder.layer.7.attn.qkv", "layers.31.mlp.up". The block is the name up to and
  // including the first numeric component that is followed by more; stem, embeddings, head
  // and loss have none.
  // One pass over the characters (the planner asks this of every op of every candidate).
  const std::string_view name = op.name;
  std::size_t begin = 0;     // where the current component starts
  bool digits_only = true;   // the current component so far
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '.') {
      if (digits_only && i > begin) return name.substr(0, i);
      begin = i + 1;
      digits_only = true;
    } else if (c < '0' || c > '9') {
      digits_only = false;
    }
  }
  return {};
}

std::string block_of(const Op& op) { return std::string(block_view(op)); }

bool in_block(const Op& op) { return !block_view(op).empty(); }

bool runs_fp8_gemm(const Op& op) {
  return op.op_class == OpClass::kMatmul && (op.parameters > 0.0 || op.frozen_parameters > 0.0) &&
         in_block(op);
}

bool runs_fp32_under_autocast(const Op& op, FrameworkOverhead mode) {
  if (!op.autocast_fp32) return false;
  if (mode != FrameworkOverhead::kEagerFused) return true;
  const bool fused_norm = op.op_class == OpClass::kNormalization;
  const bool fused_softmax = op.op_class == OpClass::kSoftmax && in_block(op);
  return !fused_norm && !fused_softmax;
}

double Workload::training_flop_per_sample() const {
  double flop = 0.0;
  for (const Op& op : ops) {
    flop += op.forward_flop * (1.0 + op.backward_flop_ratio);
  }
  return flop;
}

double Workload::hardware_flop_per_sample(bool replay_all) const {
  double flop = 0.0;
  for (const Op& op : ops) {
    const double replay = replays_forward(op, replay_all) ? 1.0 : 0.0;
    flop += op.forward_flop * (1.0 + op.backward_flop_ratio + op.backward_recompute_flop_ratio + replay);
  }
  return flop;
}

double Workload::active_parameters() const {
  double active = 0.0;
  for (const Op& op : ops) {
    if (op.op_class == OpClass::kEmbedding) continue;
    double own = op.parameters + op.frozen_parameters;
    if (own == 0.0 && op.op_class == OpClass::kMatmul) {
      own = op.weight_rows * op.weight_columns;  // a tied LM head computes with the embedding's weight
    }
    if (op.experts > 0.0) own *= op.active_experts / op.experts;
    active += own;
  }
  return active;
}

double Workload::forward_flop_per_sample() const {
  double flop = 0.0;
  for (const Op& op : ops) {
    flop += op.forward_flop;
  }
  return flop;
}

double Workload::saved_elements_per_sample() const {
  double elements = 0.0;
  for (const Op& op : ops) {
    elements += op.saved_elements;
  }
  return elements;
}

int Workload::forward_kernels() const {
  int kernels = 0;
  for (const Op& op : ops) {
    kernels += op.forward_kernels;
  }
  return kernels;
}

double Workload::frozen_weight_bytes() const {
  double bytes = 0.0;
  for (const Op& op : ops) {
    bytes += op.frozen_parameters * op.frozen_element_bytes;
  }
  return bytes;
}

}  // namespace gpuplan::models

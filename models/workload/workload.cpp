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

double Workload::training_flop_per_sample() const {
  double flop = 0.0;
  for (const Op& op : ops) {
    flop += op.forward_flop * (1.0 + op.backward_flop_ratio);
  }
  return flop;
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

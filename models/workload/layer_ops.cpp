#include "models/workload/layer_ops.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gpuplan::models {

namespace {
// The fp32 log-sum-exp per row, counted in 16-bit activation elements.
constexpr double kLogSumExpElementsPerRow = 2.0;
// A 1-byte dropout mask next to 2-byte activations (Korthikanti et al. 2022, sec. 4.1).
constexpr double kDropoutMaskElementsPerElement = 0.5;
}  // namespace

Op linear_op(std::string name, double rows, double in_features, double out_features, bool bias,
             bool saves_input, int kernels) {
  const double outputs = rows * out_features;
  return Op{
      .name = std::move(name),
      .op_class = OpClass::kMatmul,
      .forward_flop = kFlopPerMac * rows * in_features * out_features + (bias ? outputs : 0.0),
      .input_elements = rows * in_features,
      .output_elements = outputs,
      .parameters = in_features * out_features + (bias ? out_features : 0.0),
      .weight_rows = out_features,
      .weight_columns = in_features,
      .saved_elements = saves_input ? rows * in_features : 0.0,
      .backward_flop_ratio = 2.0,
      .forward_kernels = kernels,
  };
}

Op elementwise_op(std::string name, double elements, double input_tensors, double flop_per_element,
                  double saved_elements, int kernels) {
  return Op{
      .name = std::move(name),
      .op_class = OpClass::kElementwise,
      .forward_flop = flop_per_element * elements,
      .input_elements = input_tensors * elements,
      .output_elements = elements,
      .parameters = 0.0,
      .saved_elements = saved_elements,
      .backward_flop_ratio = 1.0,
      .forward_kernels = kernels,
  };
}

Op dropout_op(std::string name, double elements) {
  return elementwise_op(std::move(name), elements, 1.0, kDropoutFlopPerElement,
                        kDropoutMaskElementsPerElement * elements);
}

Op residual_add_op(std::string name, double elements) {
  return elementwise_op(std::move(name), elements, 2.0, kAddFlopPerElement, 0.0);
}

Op norm_op(std::string name, double rows, double width, NormKind kind, bool bias) {
  const double elements = rows * width;
  const bool layer_norm = kind != NormKind::kRmsNorm;
  return Op{
      .name = std::move(name),
      .op_class = OpClass::kNormalization,
      .forward_flop = (layer_norm ? kLayerNormFlopPerElement : kRmsNormFlopPerElement) * elements,
      .input_elements = elements,
      .output_elements = elements,
      .parameters = width + (layer_norm && bias ? width : 0.0),
      // HF LlamaRMSNorm: pow saves x, the weight multiply saves x·rsqrt(mean(x²) + ε).
      .saved_elements = (layer_norm ? 1.0 : 2.0) * elements,
      .backward_flop_ratio = 1.0,
      // pow, mean, add ε, rsqrt, multiply, weight multiply.
      .forward_kernels = layer_norm ? 1 : 6,
      // HF LlamaRMSNorm in fp32: pow (read and write), mean (read), x·rsqrt (read and write),
      // weight·x (read and write), 3.5 passes, and in 16-bit training the casts up and down
      // (hidden_states.to(float32), .to(input_dtype)) about one more: 4. LayerNorm and the
      // fused norms are one kernel.
      .eager_passes = layer_norm ? 1.0 : 4.0,
      .autocast_fp32 = kind != NormKind::kLowPrecisionLayerNorm,
      .upcasts_fp32 = !layer_norm,
  };
}

Op embedding_op(std::string name, double rows, double width, double table_rows) {
  return Op{
      .name = std::move(name),
      .op_class = OpClass::kEmbedding,
      .forward_flop = 0.0,
      .input_elements = rows * width,
      .output_elements = rows * width,
      .parameters = table_rows * width,
      .weight_rows = table_rows,
      .weight_columns = width,
      .saved_elements = 0.0,
      .backward_flop_ratio = 1.0,
      .forward_kernels = 1,
  };
}

Op softmax_op(std::string name, double elements) {
  return Op{
      .name = std::move(name),
      .op_class = OpClass::kSoftmax,
      .forward_flop = kSoftmaxFlopPerElement * elements,
      .input_elements = elements,
      .output_elements = elements,
      .parameters = 0.0,
      .saved_elements = elements,
      .backward_flop_ratio = 1.0,
      .forward_kernels = 1,
      .autocast_fp32 = true,
  };
}

Op cross_entropy_op(std::string name, double rows, double classes) {
  const double logits = rows * classes;
  return Op{
      .name = std::move(name),
      .op_class = OpClass::kSoftmax,
      // log_softmax over the logits, then one gather-and-add per row (nll_loss).
      .forward_flop = kSoftmaxFlopPerElement * logits + rows,
      .input_elements = logits,
      .output_elements = rows,
      .parameters = 0.0,
      .saved_elements = logits,
      .backward_flop_ratio = 1.0,
      .forward_kernels = 2,
      // Forward: the cast of the logits to fp32 (autocast, or HF's logits.float()) and
      // log_softmax, each a read and a write of the logits; backward: nll_loss's zero-filled
      // gradient, log_softmax's backward and the cast back. About 3 passes each way.
      .eager_passes = 3.0,
      .autocast_fp32 = true,
      // Every PyTorch LM recipe upcasts the logits before the loss in every precision: HF's
      // ForCausalLMLoss (logits.float()), torchtitan's cross_entropy_loss (pred.float()),
      // Megatron (fp16_lm_cross_entropy false), autocast's fp32 list for log_softmax.
      .upcasts_fp32 = true,
      // nll_loss backward's zero-filled gradient and log_softmax backward's output.
      .backward_transient_elements = 2.0 * logits,
  };
}

Op fused_cross_entropy_op(std::string name, double rows, double classes) {
  Op op = cross_entropy_op(std::move(name), rows, classes);
  op.saved_elements = rows * classes + kLogSumExpElementsPerRow * rows;
  op.forward_kernels = 1;
  op.eager_passes = 1.0;
  op.autocast_fp32 = false;
  op.upcasts_fp32 = false;
  // Its backward writes the logits' gradient in one kernel, in their own dtype (flash-attn's
  // cross_entropy_bwd; inplace_backward off by default).
  op.backward_transient_elements = rows * classes;
  return op;
}

double liger_chunk_rows(double rows, double hidden, double classes) {
  // inc_factor = cdiv(V, H), chunk_size = next_power_of_2(cdiv(BT, inc_factor)), min(., BT).
  const double growth = std::ceil(classes / hidden);
  const double chunk = std::exp2(std::ceil(std::log2(std::ceil(rows / growth))));
  return std::min(chunk, rows);
}

Op fused_linear_cross_entropy_op(std::string name, double rows, double hidden, double classes) {
  Op op = cross_entropy_op(std::move(name), rows, classes);
  op.saved_elements = rows * hidden;  // grad_input; the lm_head input itself is not saved
  op.forward_kernels = static_cast<int>(std::ceil(rows / liger_chunk_rows(rows, hidden, classes)));
  op.eager_passes = 1.0;
  op.autocast_fp32 = false;  // the logits stay in the GEMM's dtype; the kernel upcasts in registers
  op.upcasts_fp32 = false;
  op.backward_transient_elements = 0.0;  // the gradient was written in forward and saved
  return op;
}

double image_classifier_input_bytes(double channels, double image_size) {
  constexpr double kImageBytesPerElement = 4.0;
  constexpr double kLabelBytes = 8.0;
  return channels * image_size * image_size * kImageBytesPerElement + kLabelBytes;
}

}  // namespace gpuplan::models

#pragma once
/// \file workload.h
/// The per-layer op table of a model: what the GPU model, the memory model and the step
/// simulation consume. Produced by the generators in models/workload (one per family).
/// All counts are per sample (one image, or one sequence of `tokens_per_sample` tokens);
/// element counts are precision-independent and become bytes through the precision.

#include <string>
#include <vector>

namespace gpuplan::models {

/// What kind of kernel an op is; selects the compute efficiency in the GPU model.
enum class OpClass {
  kConv,           ///< convolution (implicit GEMM; tensor cores where the precision has them)
  kMatmul,         ///< dense GEMM of a linear layer (tensor cores where available)
  kAttention,      ///< batched matmuls of attention scores and context (QK^T, PV)
  kElementwise,    ///< activations, residual adds, dropout, casts: memory-bound
  kNormalization,  ///< batch/layer/RMS norm: memory-bound
  kSoftmax,        ///< softmax, including the loss's: memory-bound
  kPooling,        ///< max/avg pooling: memory-bound
  kEmbedding,      ///< table lookup (gather): memory-bound
};

std::string_view name_of(OpClass c);

/// One layer-level op of the forward pass.
struct Op {
  std::string name;            ///< e.g. "layer3.2.conv2", "block7.attn.qkv"
  OpClass op_class = OpClass::kElementwise;
  double forward_flop = 0.0;   ///< FLOP per sample in forward (1 multiply-accumulate = 2 FLOP)
  double input_elements = 0.0; ///< activation elements read per sample in forward
  double output_elements = 0.0;///< activation elements written per sample in forward
  double parameters = 0.0;     ///< trainable parameters this op owns (not per sample)
  double saved_elements = 0.0; ///< activation elements kept for backward, per sample
  /// Backward FLOP / forward FLOP: 2 for conv and matmul (grad input + grad weight),
  /// 1 for ops without weights whose backward is one pass (elementwise, norms).
  double backward_flop_ratio = 2.0;
  int forward_kernels = 1;     ///< kernels launched in forward (backward launches about twice)
};

/// A model as an op table plus the facts the job level needs.
struct Workload {
  std::string name;                 ///< catalog name or "inline"
  std::string family;               ///< "resnet", "vit", "transformer_encoder", "transformer_decoder"
  std::vector<Op> ops;              ///< forward order; backward runs in reverse
  double parameters = 0.0;          ///< total trainable parameters (sum over ops)
  double tokens_per_sample = 1.0;   ///< sequence length for language models, else 1
  bool is_language_model = false;   ///< report tokens/s as well as samples/s
  double input_bytes_per_sample = 0.0;  ///< tensor bytes copied H2D per sample (fp32 image, int64 ids)
  /// Model FLOP per sample for one training step (forward + backward, no recomputation):
  /// the numerator of MFU (PaLM, Chowdhery et al. 2022, appendix B).
  double training_flop_per_sample() const;
  double forward_flop_per_sample() const;
};

}  // namespace gpuplan::models

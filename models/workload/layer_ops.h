#pragma once
/// \file layer_ops.h
/// Builders of the Op rows that the workload families share (linear, norms, activations,
/// dropout, residual add, embedding, softmax and cross-entropy), so that every family uses
/// the same FLOP, element, saved-activation and kernel conventions (workload.h, Op).
///
/// FLOP of memory-bound ops are nominal: the count of arithmetic operations per element of
/// the formula each op evaluates. They never bound the op's time on a GPU (arithmetic
/// intensity well under the ridge point) but keep the training FLOP honest; all of them
/// together stay under 1 % of a model's FLOP (tests/models/workload).

#include <string>

#include "models/workload/workload.h"

namespace gpuplan::models {

/// A multiply-accumulate of a GEMM or convolution counts as two FLOP (a multiply and an add),
/// the convention of the roofline and of PaLM's MFU (Chowdhery et al. 2022, appendix B).
inline constexpr double kFlopPerMac = 2.0;
/// max(x, 0), x + y, x·c, x + mask: one operation per element.
inline constexpr double kReluFlopPerElement = 1.0;
inline constexpr double kAddFlopPerElement = 1.0;
inline constexpr double kScaleFlopPerElement = 1.0;
inline constexpr double kMaskFlopPerElement = 1.0;
/// Dropout: compare a uniform draw with p, multiply by mask / (1 − p).
inline constexpr double kDropoutFlopPerElement = 2.0;
/// GELU, tanh form (Hendrycks & Gimpel 2016, eq. 2): x³, two multiply-adds, tanh, add,
/// two multiplies. The erf form costs about the same.
inline constexpr double kGeluFlopPerElement = 8.0;
/// Squared ReLU: max(x, 0), then its square.
inline constexpr double kSquaredReluFlopPerElement = 2.0;
/// tanh (BERT pooler), counted like one transcendental: exp, add, subtract, divide.
inline constexpr double kTanhFlopPerElement = 4.0;
/// σ(x) = 1 / (1 + exp(−x)): exp, add, divide.
inline constexpr double kSigmoidFlopPerElement = 3.0;
/// SiLU x·σ(x) (EfficientNet's activation; Hendrycks & Gimpel 2016): σ(x) (3), multiply (1).
inline constexpr double kSiluFlopPerElement = kSigmoidFlopPerElement + 1.0;
/// SwiGLU per output element (Shazeer 2020, "GLU Variants Improve Transformer"): SiLU on the
/// gate branch, then the product with the up branch (1).
inline constexpr double kSwigluFlopPerElement = kSiluFlopPerElement + 1.0;
/// Rotary embedding (Su et al. 2021, eq. 34): x·cos + rotate_half(x)·sin, negation included.
inline constexpr double kRotaryFlopPerElement = 3.0;
/// Batch norm in training: batch mean and variance (2), then x·scale + shift (2).
inline constexpr double kBatchNormFlopPerElement = 4.0;
/// Layer norm: mean and variance (2), normalise (1), affine weight and bias (2).
inline constexpr double kLayerNormFlopPerElement = 5.0;
/// RMS norm (Zhang & Sennrich 2019): sum of squares (2), normalise (1), weight (1).
inline constexpr double kRmsNormFlopPerElement = 4.0;
/// Softmax: max, subtract, exp, sum, divide. log_softmax costs the same.
inline constexpr double kSoftmaxFlopPerElement = 5.0;

/// Which normalisation a transformer uses.
enum class NormKind {
  kLayerNorm,  ///< Ba et al. 2016; F.layer_norm, one kernel, saves its input
  kRmsNorm,    ///< Zhang & Sennrich 2019, as HF LlamaRMSNorm spells it in eager PyTorch
  /// Layer norm run in the autocast dtype: llm-foundry's (and Composer's) LPLayerNorm casts
  /// its input, weight and bias to the autocast dtype and calls F.layer_norm with autocast
  /// off (llmfoundry/models/layers/norm.py, `low_precision_layernorm`), so under AMP it
  /// saves its 16-bit input (2 B per element) where F.layer_norm, which autocast runs in
  /// fp32, saves 4 B. Same op otherwise; outside AMP it is a plain layer norm.
  kLowPrecisionLayerNorm,
};

/// A linear layer y = x·Wᵀ (+ b) over `rows` rows per sample (tokens, or 1 for a
/// classifier head): 2·rows·in·out FLOP (+ rows·out for the bias), in·out (+ out)
/// parameters, saves its input (rows·in) when `saves_input`; backward ratio 2.
/// `kernels` counts separate GEMMs launched for it (q, k and v as three: 3).
Op linear_op(std::string name, double rows, double in_features, double out_features, bool bias,
             bool saves_input, int kernels = 1);

/// A memory-bound elementwise op over `elements` outputs that reads `input_tensors`
/// tensors of the same size, at `flop_per_element`, saving `saved_elements`; ratio 1.
Op elementwise_op(std::string name, double elements, double input_tensors, double flop_per_element,
                  double saved_elements, int kernels = 1);

/// Dropout over `elements`: saves the 1-byte mask as half an element per element
/// (Korthikanti et al. 2022, sec. 4.1, counts the mask as 1 byte next to 2-byte activations).
Op dropout_op(std::string name, double elements);

/// Residual add of two tensors of `elements`: saves nothing (its backward passes the
/// gradient through).
Op residual_add_op(std::string name, double elements);

/// A layer or RMS norm over `rows` rows of `width`. Layer norm: one kernel, saves its input
/// (rows·width), parameters width (+ width for the bias when `bias`); autocast runs it in
/// fp32 (Op::autocast_fp32) except the low-precision layer norm, which runs in 16 bits. RMS norm as HF
/// LlamaRMSNorm runs eagerly: pow, mean, add ε, rsqrt, multiply, weight multiply =
/// 6 kernels; it saves its input and the normalised tensor (2·rows·width); parameters width.
Op norm_op(std::string name, double rows, double width, NormKind kind, bool bias);

/// An embedding lookup of `rows` rows of `width` from a table of `table_rows` rows
/// (parameters table_rows·width). FLOP 0 (a gather); saves nothing but int64 indices.
Op embedding_op(std::string name, double rows, double width, double table_rows);

/// Softmax over `elements` (attention probabilities): saves its output (PyTorch's softmax
/// backward uses the output); one kernel.
Op softmax_op(std::string name, double elements);

/// Cross-entropy loss over `rows` rows of `classes` logits, as F.cross_entropy runs it:
/// log_softmax then nll_loss (2 kernels). Saves the log-softmax output (rows·classes), in
/// fp32 in every precision (Op::upcasts_fp32: the recipes upcast the logits first); its
/// backward allocates 2·rows·classes at once (Op::backward_transient_elements).
Op cross_entropy_op(std::string name, double rows, double classes);

/// Cross-entropy over `rows` rows of `classes` logits as flash-attn's fused CrossEntropyLoss
/// runs it (flash_attn/ops/triton/cross_entropy.py; llm-foundry's `fused_crossentropy`): one
/// kernel per direction that reads the logits in their own dtype (no fp32 upcast: a custom
/// autograd function, outside autocast's op lists) and saves the logits and the fp32
/// log-sum-exp per row: rows·classes + 2·rows elements (the lse counted as two 16-bit
/// elements, as attention_kernel.h does). Same FLOP as cross_entropy_op.
Op fused_cross_entropy_op(std::string name, double rows, double classes);

/// Rows of one chunk of Liger-Kernel's fused linear cross-entropy over `rows` rows of
/// `hidden` inputs and `classes` logits (src/liger_kernel/ops/fused_linear_cross_entropy.py,
/// fused_linear_cross_entropy_forward): the next power of two of ceil(rows / ceil(classes /
/// hidden)), at most `rows`, so that a chunk's logits (chunk x classes) stay about rows x
/// hidden elements. Llama 3 8B at 131,072 rows: ceil(128,256 / 4,096) = 32, chunk 4,096.
double liger_chunk_rows(double rows, double hidden, double classes);

/// Cross-entropy over `rows` rows of `classes` logits as Liger-Kernel's
/// LigerFusedLinearCrossEntropyLoss runs it with the lm_head projection from `hidden` inputs
/// (src/liger_kernel/ops/fused_linear_cross_entropy.py): chunk by chunk of
/// liger_chunk_rows() rows, the forward computes the chunk's logits, the loss and the logits'
/// gradient in place (liger_cross_entropy_kernel, one launch per chunk: forward_kernels),
/// then the lm_head input gradient (chunk x hidden) and accumulates the weight gradient;
/// backward only scales both by the loss's output gradient (skipped when it is 1).
/// Same FLOP as cross_entropy_op (the lm_head's three GEMMs stay on the lm_head op, whose
/// FLOP they are). Saves the input gradient, rows·hidden elements in the lm_head input's
/// dtype (`grad_input`, ctx.save_for_backward); no logits. The weight gradient (classes x
/// hidden, the weight's dtype) it also keeps is the gradient that backward would allocate
/// anyway, counted with the gradients, not here. The transient logits of one chunk (chunk
/// x classes in the GEMM's dtype, about rows·hidden elements) live only inside the loss's
/// forward and are not counted: at most about one hidden state, against the rows·classes
/// of the unfused loss.
Op fused_linear_cross_entropy_op(std::string name, double rows, double hidden, double classes);

/// Bytes one image-classification sample copies host to device: the image of `channels` x
/// image_size² as fp32 (torchvision's ToTensor) and its int64 label.
double image_classifier_input_bytes(double channels, double image_size);

}  // namespace gpuplan::models

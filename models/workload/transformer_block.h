#pragma once
/// \file transformer_block.h
/// The ops of one transformer layer (Vaswani et al. 2017) as eager PyTorch runs it with
/// unfused attention: the s×s scores are materialised per head, then scaled, masked,
/// softmaxed and (with dropout) dropped out by separate kernels. Shared by the encoder
/// (BERT, post-norm), decoder (GPT-2, Llama, MPT; pre-norm) and ViT (pre-norm) families.
///
/// Per layer, with s tokens, width h, a heads, key/value width h_kv, MLP width f (written for
/// head_dim = h / a; with another head dimension d the attention width a·d takes h's place
/// in the qkv outputs, the scores, the context and the out projection's input):
/// - matmul FLOP: 2·s·h·(h + 2·h_kv) (qkv) + 2·s·h² (out) + 2·s·h·f·(2 or 3 for SwiGLU);
/// - attention FLOP: 2·s²·h (QKᵀ) + 2·s²·h (PV), the 4·s²·h of Kaplan et al. 2020, table 1
///   (no causal halving: unfused attention computes the full square);
/// - saved elements: 17·s·h + 2.5·a·s² for the BERT/GPT-2 layer with dropout, exactly
///   Korthikanti et al. 2022, sec. 4.1, attributed to the ops that save each tensor
///   (norm inputs, qkv input, Q and K, softmax output, dropout masks and output, V, out
///   projection input, fc1 input, GELU input, fc2 input). Without dropout, the softmax
///   output is the PV matmul's saved input, so attention keeps 1·a·s².
/// - kernels, eager PyTorch: qkv 1 (fused GEMM) or 3 (separate q, k, v), rotary 10
///   (HF apply_rotary_pos_emb: mul, neg, cat, mul, add for q and for k), repeat_kv 2 (when
///   h_kv < h), QKᵀ 1, scale 1, ALiBi bias 1, mask 1, softmax 1, dropout 1, PV 1,
///   head merge (transpose + contiguous) 1, out 1, residual 1; MLP: GELU 1, SwiGLU 2 (SiLU,
///   multiply) after 2 GEMMs (gate, up); norms per layer_ops.h.

#include <string>
#include <vector>

#include "models/workload/layer_ops.h"
#include "models/workload/moe_layer.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

/// The feed-forward block.
enum class MlpKind {
  kGelu,    ///< fc1 → GELU → fc2 (BERT, GPT-2, MPT, ViT); GELU is F.gelu, one kernel
  kSwiglu,  ///< (SiLU(x·W_gate) ⊙ x·W_up)·W_down (Llama; Shazeer 2020)
  /// fc1 → ReLU(x)² → fc2 (Nemotron-4; So et al. 2021, "Primer"), as Megatron-Core's
  /// squared_relu runs it: torch.pow(F.relu(x), 2), two kernels; the ReLU output is both
  /// what relu's backward and pow's backward read, so one f-wide tensor is saved. Mixture-of-
  /// experts layers run their experts' activation as GELU's (moe_layer.h).
  kSquaredRelu,
  /// fc1 → GELU → fc2 with HF's NewGELUActivation (GPT-2's "gelu_new"): 0.5·x·(1 +
  /// tanh(√(2/π)·(x + 0.044715·x³))) as eight aten ops in eager. torch.pow autocasts to fp32,
  /// so under AMP the chain runs in fp32 and saves four fp32 tensors (pow's input, tanh's
  /// output and the last multiply's two factors); a compiler fuses it into one kernel.
  kGeluNew,
};

/// Shape and implementation choices of one transformer layer.
struct TransformerBlockShape {
  double tokens = 0.0;      ///< s, tokens per sample
  double hidden = 0.0;      ///< h, model width
  double heads = 0.0;       ///< a, query heads
  double kv_heads = 0.0;    ///< key/value heads (= heads for multi-head attention)
  /// d, dimensions per head; 0 = h / a. Query width a·d and key/value width kv_heads·d; the
  /// out projection maps a·d back to h (Gemma 2: d = 256 while h / a = 224).
  double head_dim = 0.0;
  double ffn_hidden = 0.0;  ///< f, MLP inner width (per branch for SwiGLU)
  MlpKind mlp = MlpKind::kGelu;
  NormKind norm = NormKind::kLayerNorm;
  bool pre_norm = true;       ///< norm before each branch (GPT-2, Llama, ViT); false: BERT
  bool bias = true;           ///< biases in the linears and layer norms
  bool dropout = false;       ///< dropout on attention probabilities and both branch outputs
  bool causal_mask = false;   ///< decoders mask future tokens (one kernel on the scores)
  bool padding_mask = false;  ///< encoders add the attention_mask (one kernel on the scores)
  bool rotary = false;        ///< rotary position embedding of q and k (Su et al. 2021)
  bool alibi = false;         ///< ALiBi bias added to the scores (Press et al. 2022)
  int qkv_kernels = 1;        ///< 1: one fused qkv GEMM; 3: separate q, k, v projections
  /// Attention through nn.MultiheadAttention(batch_first=True) in training, as
  /// F.multi_head_attention_forward runs it (PyTorch 2.x torch/nn/functional.py): the
  /// batch-first input is transposed to (s, b, h), so the in-projection's matmul copies it;
  /// _in_projection_packed reshuffles the packed q, k, v output with .contiguous() and hands
  /// out proj[0], proj[1], proj[2]; backward copies both back, and each select's backward
  /// zero-fills the whole packed gradient, copies its slice in, and autograd sums the three
  /// (op "attn.mha_layout"; the output's permute(2, 0, 1, 3).contiguous() is merge_heads).
  /// torchvision's ViT and nn.TransformerEncoderLayer run it.
  bool torch_multihead_attention = false;
  /// Routed experts in place of the dense MLP when moe.experts > 0 (moe_layer.h).
  MoeShape moe;
};

/// Appends one layer's ops to `ops`, in forward order, named `prefix` + "norm1",
/// "attn.qkv", ..., "mlp.residual".
void append_transformer_block(std::vector<Op>& ops, const std::string& prefix,
                              const TransformerBlockShape& shape);

/// Throws WorkloadError("heads") unless heads divides hidden, suggesting the nearest
/// multiples of heads: "hidden 1000 is not divisible by heads 16 (...); use hidden 992 or
/// 1008, or heads that divide 1000".
void check_heads_divide_hidden(long long hidden, long long heads);

/// Throws WorkloadError("sequence_length") when a learned position table of
/// `max_positions` rows cannot cover `sequence_length` tokens.
void check_sequence_fits_positions(long long sequence_length, long long max_positions);

}  // namespace gpuplan::models

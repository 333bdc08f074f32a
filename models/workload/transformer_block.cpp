#include "models/workload/transformer_block.h"

#include "models/workload/workload_family.h"

namespace gpuplan::models {

namespace {
/// Under a fusing compiler the attention-score chain is one kernel per direction
/// (Op::compiled_traffic_share): pointwise ops on the scores cost nothing of their own, the
/// softmax keeps its read of the scores and write of the probabilities. Megatron-LM's
/// hand-fused kernels (framework_overhead: eager_fused) do the same for the scale (alpha of
/// the QKᵀ baddbmm) and the mask (FusedScaleMaskSoftmax, megatron/model/fused_softmax.py),
/// not for the dropout after it.
constexpr double kFusedIntoSoftmax = 0.0;
constexpr double kFusedSoftmaxKeeps = 1.0;

Op fused_into_softmax(Op op) {
  op.compiled_traffic_share = kFusedIntoSoftmax;
  return op;
}
}  // namespace

void append_transformer_block(std::vector<Op>& ops, const std::string& prefix,
                              const TransformerBlockShape& shape) {
  const double s = shape.tokens;
  const double h = shape.hidden;
  const double a = shape.heads;
  const double f = shape.ffn_hidden;
  // Query width (a·d) and key/value width (h_kv = kv_heads·d); d = h / a unless given.
  const double q = shape.head_dim > 0.0 ? shape.heads * shape.head_dim : h;
  const double kv = q * shape.kv_heads / shape.heads;
  const double sh = s * h;
  const double sq = s * q;  // s·a·d: Q, the context and the out projection's input
  const double scores = a * s * s;  // a·s² attention scores per sample
  const bool layer_norm_bias = shape.bias && shape.norm != NormKind::kRmsNorm;

  if (shape.pre_norm) {
    ops.push_back(norm_op(prefix + "norm1", s, h, shape.norm, layer_norm_bias));
  }
  // Saves its input: the norm output (pre-norm) or the previous layer's output (post-norm).
  ops.push_back(
      linear_op(prefix + "attn.qkv", s, h, q + 2.0 * kv, shape.bias, true, shape.qkv_kernels));
  if (shape.torch_multihead_attention) {
    // Forward: the input copy (s·h) and the packed reshuffle (P = s·(q + 2·kv)), each read
    // and written once. Backward: both copied back (the same 2·E accesses), three zero-fills
    // of P, three slice copies (P read and written in all), two sums of P (2 reads, 1 write
    // each): 2·E + 3·P + 2·P + 6·P. Measured on an H200 (torchvision vit_b_16, batch 128,
    // catalogs/calibrations/h200-2026-12-04.torch-steps-profiled.json): 36 FillFunctor
    // kernels of 35 us a step, 12 layers x 3 zero-fills of the 116 MB packed gradient.
    const double packed = s * (q + 2.0 * kv);
    const double copied = sh + packed;
    Op layout = elementwise_op(prefix + "attn.mha_layout", copied, 1.0, 0.0, 0.0, 2);
    layout.backward_traffic_ratio = (2.0 * copied + 11.0 * packed) / (2.0 * copied);
    ops.push_back(layout);
  }
  if (shape.rotary) {
    // q·cos + rotate_half(q)·sin and the same for k; cos and sin need no gradient, so
    // nothing per sample is saved. Eager (HF apply_rotary_pos_emb), per tensor: neg of one
    // half, cat, two multiplies and the add, 0.5 + 1 + 1 + 1 + 1.5 = 5 passes over it.
    Op rotary = elementwise_op(prefix + "attn.rotary", s * (q + kv), 1.0, kRotaryFlopPerElement, 0.0, 10);
    rotary.eager_passes = 5.0;
    ops.push_back(rotary);
  }
  if (shape.kv_heads < shape.heads) {
    // HF repeat_kv materialises k and v for every query head (expand + reshape copies).
    ops.push_back(elementwise_op(prefix + "attn.repeat_kv", 2.0 * sq, kv / q, 0.0, 0.0, 2));
  }
  // QKᵀ per head: a·s·s·(h/a) MACs; saves Q and K (2·s·h).
  ops.push_back(Op{
      .name = prefix + "attn.scores",
      .op_class = OpClass::kAttention,
      .forward_flop = kFlopPerMac * s * s * q,
      .input_elements = 2.0 * sq,
      .output_elements = scores,
      .parameters = 0.0,
      .saved_elements = 2.0 * sq,
      .backward_flop_ratio = 2.0,
      .forward_kernels = 1,
  });
  ops.push_back(fused_into_softmax(
      elementwise_op(prefix + "attn.scale", scores, 1.0, kScaleFlopPerElement, 0.0)));
  if (shape.alibi) {
    ops.push_back(fused_into_softmax(
        elementwise_op(prefix + "attn.alibi", scores, 1.0, kAddFlopPerElement, 0.0)));
  }
  if (shape.causal_mask || shape.padding_mask) {
    Op mask = fused_into_softmax(elementwise_op(prefix + "attn.mask", scores, 1.0, kMaskFlopPerElement, 0.0));
    // The encoders' extended attention mask is built in the parameters' dtype (HF
    // get_extended_attention_mask(..., dtype=self.dtype); DLE BertModel casts it to the word
    // embedding's dtype): fp32 under autocast, so adding it promotes the 16-bit scores to
    // fp32 (PyTorch type promotion), and the chain stays fp32 into the softmax.
    mask.autocast_fp32 = shape.padding_mask;
    mask.causal = shape.causal_mask && !shape.padding_mask;
    ops.push_back(mask);
  }
  Op softmax = softmax_op(prefix + "attn.softmax", scores);
  softmax.compiled_traffic_share = kFusedSoftmaxKeeps;
  ops.push_back(softmax);
  if (shape.dropout) {
    // Megatron-LM's fused scale-mask-softmax leaves the dropout a torch kernel of its own
    // (framework_overhead: eager_fused); a compiler folds it in.
    Op dropout = fused_into_softmax(dropout_op(prefix + "attn.dropout", scores));
    dropout.fused_by_compiler_only = true;
    ops.push_back(dropout);
  }
  // PV per head: a·s·s·(h/a) MACs; saves V (s·h) and the probabilities, unless they are
  // the softmax output that softmax already saved (no dropout in between).
  ops.push_back(Op{
      .name = prefix + "attn.context",
      .op_class = OpClass::kAttention,
      .forward_flop = kFlopPerMac * s * s * q,
      .input_elements = scores + sq,
      .output_elements = sq,
      .parameters = 0.0,
      .saved_elements = (shape.dropout ? scores : 0.0) + sq,
      .backward_flop_ratio = 2.0,
      .forward_kernels = 1,
  });
  ops.push_back(elementwise_op(prefix + "attn.merge_heads", sq, 1.0, 0.0, 0.0));
  ops.push_back(linear_op(prefix + "attn.out", s, q, h, shape.bias, true));
  if (shape.dropout) {
    ops.push_back(dropout_op(prefix + "attn.out_dropout", sh));
  }
  ops.push_back(residual_add_op(prefix + "attn.residual", sh));
  // Post-norm saves the residual sum; pre-norm saves the residual stream before the MLP.
  ops.push_back(
      norm_op(prefix + (shape.pre_norm ? "norm2" : "norm1"), s, h, shape.norm, layer_norm_bias));

  if (shape.moe.experts > 0.0) {
    append_moe_mlp(ops, prefix, s, h, shape.mlp == MlpKind::kSwiglu, shape.bias, shape.moe);
  } else if (shape.mlp == MlpKind::kGelu) {
    ops.push_back(linear_op(prefix + "mlp.up", s, h, f, shape.bias, true));
    // F.gelu saves its input.
    ops.push_back(elementwise_op(prefix + "mlp.gelu", s * f, 1.0, kGeluFlopPerElement, s * f));
  } else if (shape.mlp == MlpKind::kGeluNew) {
    ops.push_back(linear_op(prefix + "mlp.up", s, h, f, shape.bias, true));
    Op gelu = elementwise_op(prefix + "mlp.gelu", s * f, 1.0, kGeluFlopPerElement, 4.0 * s * f, 8);
    // pow, ·0.044715, +x, ·√(2/π), tanh, +1, 0.5·x, the product: six one-input and two
    // two-input kernels, 1 + 1 + 1.5 + 1 + 1 + 1 + 1 + 1.5 = 9 passes of a read and a write.
    gelu.eager_passes = 9.0;
    gelu.autocast_fp32 = true;
    ops.push_back(gelu);
  } else if (shape.mlp == MlpKind::kSquaredRelu) {
    ops.push_back(linear_op(prefix + "mlp.up", s, h, f, shape.bias, true));
    ops.push_back(elementwise_op(prefix + "mlp.relu2", s * f, 1.0, kSquaredReluFlopPerElement, s * f, 2));
  } else {
    ops.push_back(linear_op(prefix + "mlp.gate_up", s, h, 2.0 * f, shape.bias, true, 2));
    // SiLU saves its input; the product saves both factors (SiLU output and up branch).
    ops.push_back(
        elementwise_op(prefix + "mlp.swiglu", s * f, 2.0, kSwigluFlopPerElement, 3.0 * s * f, 2));
  }
  if (shape.moe.experts == 0.0) {
    ops.push_back(linear_op(prefix + "mlp.down", s, f, h, shape.bias, true));
  }
  if (shape.dropout) {
    ops.push_back(dropout_op(prefix + "mlp.dropout", sh));
  }
  ops.push_back(residual_add_op(prefix + "mlp.residual", sh));
  if (!shape.pre_norm) {
    ops.push_back(norm_op(prefix + "norm2", s, h, shape.norm, layer_norm_bias));
  }
}

void check_heads_divide_hidden(long long hidden, long long heads) {
  if (hidden % heads == 0) {
    return;
  }
  const long long below = hidden / heads * heads;
  const long long above = below + heads;
  const std::string suggestion =
      below > 0 ? std::to_string(below) + " or " + std::to_string(above) : std::to_string(above);
  throw WorkloadError("heads", "hidden " + std::to_string(hidden) + " is not divisible by heads " +
                                   std::to_string(heads) +
                                   " (each head gets hidden / heads dimensions); use hidden " +
                                   suggestion + ", or heads that divide " + std::to_string(hidden));
}

void check_sequence_fits_positions(long long sequence_length, long long max_positions) {
  if (sequence_length <= max_positions) {
    return;
  }
  throw WorkloadError("sequence_length",
                      "sequence_length " + std::to_string(sequence_length) +
                          " exceeds max_positions " + std::to_string(max_positions) +
                          " (rows of the learned position table); use sequence_length at most " +
                          std::to_string(max_positions) + " or raise max_positions");
}

}  // namespace gpuplan::models

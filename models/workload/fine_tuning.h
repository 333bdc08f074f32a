#pragma once
/// \file fine_tuning.h
/// Parameter-efficient fine-tuning as an op-table transform (`training.fine_tuning`): LoRA
/// (Hu et al. 2021) and QLoRA (Dettmers et al. 2023) as HF peft and bitsandbytes run them.
///
/// with_fine_tuning() turns a model's op table into the one a LoRA/QLoRA step plays:
/// - every weight of the model becomes frozen (Op::frozen_parameters): no gradient, no
///   optimizer state, no weight-gradient GEMM. A frozen linear still passes the gradient to
///   its input (dx = dy·W: backward_flop_ratio 1, one GEMM per weight), so gradients flow
///   through frozen layers to every adapter below; a frozen 16-bit linear needs nothing
///   saved for that (PyTorch's linear saves its input only for the weight gradient; the
///   adapter beside it saves the shared input x). A frozen out projection after a fused
///   attention op hands the attention output O, which it saved as its input, back to that
///   op: flash and memory-efficient SDPA keep O for their backward
///   (aten _scaled_dot_product_flash_attention_backward takes `out`);
/// - each targeted projection W (out x in) gets an adapter y += (x·Aᵀ)·Bᵀ·alpha/r with A of
///   r x in and B of out x r, trained: ops "<name>.<target>.lora_a" (2·s·in·r FLOP, saves
///   nothing of its own: x is the base op's saved input), "<name>.<target>.lora_b"
///   (2·s·r·out FLOP, saves x·Aᵀ, s·r) and "<name>.<target>.lora_add" (peft's
///   `result + lora_B(lora_A(x)) * scaling`: a multiply and an add, 2 kernels, saves nothing);
///   peft's default lora_dropout 0 (no dropout op). Parameters r·(in + out) per target;
/// - lora_dropout > 0 (FineTuningSpec::dropout): the adapter reads dropout(x), not x
///   (litgpt lora.py: `self.lora_dropout(x) @ self.lora_A...`; peft's lora_A(lora_dropout(x))):
///   an op "<name>.lora_dropout" saves the 1-byte mask (dropout_op) and the first lora_a of
///   that projection op saves the dropped x (s·in), which it needs for A's gradient. One
///   dropout per base op, as litgpt's fused LoRAQKVLinear draws one for q, k and v; peft's
///   separate q_proj/k_proj/v_proj modules would each draw their own (not modelled);
/// - targets are peft's target_modules of a Llama layer: q, k, v, o, gate, up, down. Models
///   with one fused qkv GEMM (GPT-2 c_attn, MPT Wqkv, BERT/ViT here) carry one adapter on the
///   fused matrix when any of q, k, v is targeted (peft targets the fused module); a GELU MLP
///   has up and down, no gate. In a mixture-of-experts layer gate, up and down adapt each
///   routed expert (E adapters, parameters x E, carrying Op::experts and routed_tokens: each
///   of the k token copies goes through one expert's adapter) and the shared experts as
///   ordinary linears; the router has no target. The output head (lm_head, classifiers) and the embeddings stay
///   frozen and full precision (peft's all-linear excludes the output layer; bitsandbytes
///   keeps lm_head unquantized);
/// - QLoRA (base_precision nf4 or int8): every linear weight inside the repeated blocks
///   (block_of: the attention and MLP projections, and a mixture-of-experts layer's router and
///   expert GEMMs, which bitsandbytes' replacement of each nn.Linear quantizes too) is stored
///   quantized, the head and embeddings not, and each is dequantized to the compute precision before its GEMM, in forward and again
///   in backward (bitsandbytes MatMul4Bit / MatMul8bitLt dequantize for grad input): an op
///   "<name>.dequant" with dequantize_work()'s kernels per weight matrix and Op::pass_bytes =
///   its bytes per weight x the weights, whatever the batch. A quantized projection saves its input x for
///   backward whether or not it carries an adapter: bitsandbytes/autograd/_functions.py,
///   MatMul4Bit.forward and MatMul8bitLt.forward keep `ctx.tensors = (A, B)` when
///   `any(ctx.needs_input_grad[:2])`, and A needs a gradient behind the first adapter. So a
///   QLoRA layer keeps the inputs of o, gate/up and down that a LoRA layer does not (a Llama
///   layer: 2 B x (2 h + f) per token more when only q and v carry adapters). The first
///   layer's q/k/v input, which needs no gradient there, is counted too (1/layers of it).

#include <vector>

#include "models/precision.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

/// `training.fine_tuning` as models read it.
struct FineTuningSpec {
  FineTuningMethod method = FineTuningMethod::kFull;
  /// r, the adapters' rank: peft LoraConfig's default r = 8.
  int rank = 8;
  /// LoRA alpha (scaling alpha / r): changes no FLOP or byte, kept for the resolved scenario.
  /// peft's default lora_alpha = 8.
  double alpha = 8.0;
  /// The projections with adapters; empty = all_linear (every projection of every layer).
  std::vector<LoraTarget> targets;
  BasePrecision base_precision = BasePrecision::kBf16;
  /// NF4 with double quantization of the block constants (the QLoRA paper's recipe; HF's
  /// bnb_4bit_use_double_quant, litgpt's bnb.nf4-dq) or without (litgpt's bnb.nf4, HF's
  /// default). Only read for an nf4 base.
  bool double_quantization = true;
  /// Dropout probability on the adapters' input (peft's lora_dropout, default 0; litgpt's
  /// lora_dropout, 0.05 in its config_hub). Changes memory and a little time only (rules in
  /// the file comment).
  double dropout = 0.0;

  bool operator==(const FineTuningSpec&) const = default;
};

/// NF4 weight: 4 bits plus the quantization constants of double quantization, 0.127 bits
/// per parameter (Dettmers et al. 2023, sec. 3 "Double Quantization": an fp32 absmax per
/// 64 weights, 32/64 = 0.5 bits, quantized to 8 bits with an fp32 constant per 256 of them:
/// 8/64 + 32/(64·256) = 0.127 bits).
inline constexpr double kNf4BitsPerWeight = 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0);
/// NF4 weight without double quantization: 4 bits plus an fp32 absmax per block of 64
/// weights (bitsandbytes quantize_4bit's default blocksize 64): 4.5 bits.
inline constexpr double kNf4SingleQuantBitsPerWeight = 4.0 + 32.0 / 64.0;

/// Bytes of one stored frozen weight of a matrix with `in_features` columns: bf16 2;
/// int8 1 + 4 / in_features (LLM.int8 vector-wise quantization, one fp32 scale per output
/// row: Dettmers et al. 2022, "LLM.int8()", sec. 3.1); nf4 kNf4BitsPerWeight / 8 with
/// `double_quantization`, kNf4SingleQuantBitsPerWeight / 8 without (other bases ignore it).
/// Throws std::invalid_argument for in_features <= 0.
double base_weight_element_bytes(BasePrecision base, double in_features, bool double_quantization);

/// One dequantization of a quantized frozen weight to the compute dtype, as bitsandbytes
/// runs it before each GEMM (MatMul4Bit: `F.dequantize_4bit(B, quant_state)` in forward and
/// again for the input gradient in backward; bitsandbytes/autograd/_functions.py).
struct DequantizeWork {
  double bytes_per_weight = 0.0;  ///< DRAM bytes read and written per weight, one pass
  int kernels_per_matrix = 0;     ///< kernels launched per weight matrix, one pass
};

/// The dequantization of one weight of a matrix with `in_features` columns to
/// `compute_element_bytes` (2 for bf16/fp16), from bitsandbytes' functional.dequantize_4bit:
/// - nf4 without double quantization: one kDequantizeBlockwise kernel reads the packed 4-bit
///   weight (0.5 B) and its fp32 absmax (4 B per 64-weight block) and writes the 16-bit
///   weight: 0.5 + 4/64 + compute bytes;
/// - nf4 with double quantization (quant_state.nested): first dequantize_blockwise of the
///   8-bit absmax (reads 1 B, writes 4 B per block; the fp32 constant per 256 blocks is
///   negligible), then `absmax += offset` (reads and writes 4 B per block), then the 4-bit
///   kernel as above: 3 kernels, 0.5 + (1 + 4 + 8 + 4)/64 + compute bytes;
/// - int8 and bf16: the stored bytes (base_weight_element_bytes) plus the compute bytes,
///   one kernel (bf16 is never dequantized; with_fine_tuning adds no op for it).
/// Throws std::invalid_argument for in_features <= 0.
DequantizeWork dequantize_work(BasePrecision base, double in_features, bool double_quantization,
                               double compute_element_bytes);

/// The targets that exist in `workload` (q, k, v, o and up/down, gate for a SwiGLU MLP or
/// its experts), in
/// LoraTarget order; empty for a model without transformer layers (ResNet).
std::vector<LoraTarget> lora_targets_of(const Workload& workload);

/// The largest rank an adapter of `spec`'s targets can have in `workload`: the smallest
/// min(in, out) over the targeted matrices (a rank above it is no longer low-rank); 0 when
/// no matrix is targeted.
double lora_max_rank(const Workload& workload, const FineTuningSpec& spec);

/// `workload` as `spec` trains it at compute `precision` (rules in the file comment);
/// unchanged for kFull. `parameters` becomes the adapters' count and `frozen_parameters`
/// the base's. Throws std::invalid_argument when rank < 1, when no op is targeted, or when a
/// target is not in the model (config/ checks all three first, at the key).
Workload with_fine_tuning(Workload workload, const FineTuningSpec& spec, Precision precision);

}  // namespace gpuplan::models

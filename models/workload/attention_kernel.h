#pragma once
/// \file attention_kernel.h
/// Which attention kernel runs, and the op table with fused attention (FlashAttention-2 or
/// the memory-efficient kernel) in place of the eager chain of transformer_block.h.
///
/// SDPA dispatch follows PyTorch 2.x aten/src/ATen/native/transformers/cuda/sdp_utils.cpp
/// (select_sdp_backend, priority flash > efficient > math):
/// - flash (use_flash_attention): fp16 or bf16 inputs (check_tensor_dtype), compute
///   capability 8.0 or newer (check_flash_attention_hardware_support, sm80+), head dim at
///   most 256 and a multiple of 8 (check_head_dim_size_flash), no explicit attn_mask
///   (check_for_attn_mask; a causal mask is passed as is_causal and is fine);
/// - memory-efficient (use_mem_efficient_attention): fp32, fp16, or bf16 on sm80+
///   (check_mem_efficient_hardware_support, sm50+), head dim a multiple of 8 for 16-bit and
///   of 4 for fp32 (check_head_dim_size_mem_efficient), an additive mask allowed;
/// - otherwise math, which is the eager chain.
/// SDPA never picks kFlash3: a scenario names it (`attention: flash3`), as Transformer Engine
/// (cuDNN fused attention on Hopper and Blackwell) and flash_attn_interface (FlashAttention-3)
/// callers run it. It needs compute capability 9.0 or newer, 16-bit inputs and flash's head
/// dimensions.

#include <optional>
#include <string>

#include "models/gpu/gpu_spec.h"
#include "models/precision.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

/// What a fused (flash / memory-efficient) attention op saves per query row and head beside
/// Q, K and V: the fp32 log-sum-exp, counted in 16-bit activation elements (2).
inline constexpr double kLogSumExpElements = 2.0;

/// What the dispatch needs to know of a model's attention.
struct AttentionShape {
  double head_dim = 0.0;        ///< hidden / heads
  bool attention_mask = false;  ///< an explicit (padding) mask is passed to SDPA
  /// ALiBi's per-head linear bias (MPT, BLOOM). SDPA has no ALiBi argument: callers pass the
  /// bias as attn_mask, so SDPA cannot pick flash (check_for_attn_mask); FlashAttention-2
  /// called directly takes alibi_slopes, and flash_attn_triton a bias, so those run it.
  bool alibi_bias = false;
  /// The model's attention has a causal mask (a decoder's "attn.mask" op is causal).
  bool causal = false;
  /// That causal mask reaches SDPA as an attn_mask tensor, not as is_causal
  /// (CausalMask::kAttnMask, models/precision.h): flash cannot take it (check_for_attn_mask).
  bool causal_mask_tensor = false;
};

/// The attention of `workload`, read from its first eager attention chain (the
/// "attn.scores" op: forward FLOP 2·s²·h, input 2·s·h, output a·s²), or nullopt for a
/// model without attention (ResNet) or whose attention is already fused. With
/// CausalMask::kAttnMask a causal model's mask is a tensor (AttentionShape::causal_mask_tensor).
std::optional<AttentionShape> attention_shape(const Workload& workload,
                                              CausalMask causal_mask = CausalMask::kIsCausal);

/// Empty when `kernel` can run attention of `shape` at `precision` on `gpu`, else why not,
/// as a sentence for an error message ("flash attention runs in fp16 or bf16, not fp32").
/// kEager and kSdpa always run.
std::string attention_kernel_unsupported(AttentionKernel kernel, Precision precision, const GpuSpec& gpu,
                                         const AttentionShape& shape);

/// The kernel that scaled_dot_product_attention dispatches to (rules in the file comment):
/// kFlash, kMemoryEfficient or kEager (math); never kFlash for ALiBi (AttentionShape::alibi_bias).
AttentionKernel sdpa_backend(Precision precision, const GpuSpec& gpu, const AttentionShape& shape);

/// True for the FlashAttention kernels (kFlash: FlashAttention-2; kFlash3: FlashAttention-3 /
/// cuDNN): flash's head dimensions, no padding mask, and K and V taken grouped as they are
/// (KeyValueHeads::kGrouped) when their caller passes them so.
inline bool is_flash_kernel(AttentionKernel kernel) {
  return kernel == AttentionKernel::kFlash || kernel == AttentionKernel::kFlash3;
}

/// True when `kernel` receives an explicit mask tensor that holds the causal mask
/// (`explicit_mask`): a model's ALiBi bias (AttentionShape::alibi_bias) with the causal mask
/// folded into it, or the causal mask itself passed as attn_mask (CausalMask::kAttnMask).
/// SDPA has no ALiBi argument, and a mask tensor rules flash out, so its memory-efficient
/// kernel (kMemoryEfficient, from `attention: sdpa` or named) is called with the tensor as
/// attn_mask and is_causal=False (scaled_dot_product_attention raises when both are set,
/// PyTorch 2.x docs) and adds the mask to every key tile, skipping none. FlashAttention-2/3
/// (alibi_slopes, causal=True) and flash_attn_triton (a bias with causal=True) apply the mask
/// inside the causal kernel: false for them, and whenever `explicit_mask` is false.
bool fused_kernel_takes_explicit_bias(AttentionKernel kernel, bool explicit_mask);

/// Query rows of one block of a fused attention kernel's grid, and keys of one tile it
/// iterates over: 128 (FlashAttention-2/3's kBlockM for head dims up to 128; cuDNN's fused
/// attention tiles alike). One number for every fused kernel and head dimension.
inline constexpr double kFusedAttentionBlockTokens = 128.0;

/// The query blocks n = ceil(s / 128) of a fused attention op (Op::attention_tokens); 0 for
/// any other op.
double fused_attention_query_blocks(const Op& op);

/// Share of the s x s score tiles that a fused attention op computes: 1 without a causal mask;
/// with one, the kernels skip the key tiles above the diagonal (FlashAttention-2/3's
/// n_block_max per query block; cuDNN and xFormers alike), so n query blocks compute
/// n(n+1)/2 of the n² tiles: (n + 1) / (2n). 1 for any op but a causal fused one. Op's FLOP
/// (forward_flop) stays the whole square, as eager computes it and as MFU and HFU count it
/// (Workload::hardware_flop_per_sample); the kernel's time is for this share of it (op_time.cpp).
double fused_attention_tile_share(const Op& op);

/// FLOP the kernels execute for one sample's forward pass of `op`: Op::forward_flop times
/// fused_attention_tile_share() (a causal fused kernel skips the masked tiles; every other op
/// executes its forward_flop). The one rule for executed FLOP that op time (op_time.cpp) and the
/// plan's lower bound (cli/plan.cpp) share.
double executed_forward_flop(const Op& op);

/// How a fused kernel's caller passes K and V of a grouped-query model (kv_heads < heads).
enum class KeyValueHeads {
  /// Expanded to every query head first (HF's repeat_kv; litgpt's expand before
  /// F.scaled_dot_product_attention): the model's "attn.repeat_kv" op runs and K and V are
  /// saved at the query width.
  kRepeated,
  /// As they are: FlashAttention-2 takes K and V with fewer heads than Q
  /// (flash_attn_interface.py, flash_attn_func: MQA / GQA), as Megatron-Core / Transformer
  /// Engine and HF's flash_attention_2 path call it.
  kGrouped,
};

/// `workload` with each layer's eager chain (attn.scores ... attn.context: QKᵀ, scale,
/// ALiBi, mask, softmax, dropout, PV) replaced by one fused op "attn.fused" of `kernel`
/// (kFlash, kFlash3, kMemoryEfficient or kFlashTriton; kEager returns `workload` unchanged). Per sample, with s
/// tokens, width h and a heads (Dao 2023, "FlashAttention-2", sec. 3.1-3.2):
/// - forward FLOP 4·s²·h (QKᵀ and PV; as eager, no causal halving), backward 2× that (dV,
///   dP, dQ, dK) plus the recomputed QKᵀ (backward_recompute_flop_ratio 0.5): 2.5× forward;
///   under a causal mask (Op::causal, from the chain's mask, unless the kernel takes an
///   explicit mask tensor: fused_kernel_takes_explicit_bias, from ALiBi or `causal_mask`
///   kAttnMask) the kernel's time is for fused_attention_tile_share() of that FLOP
///   (Op::attention_tokens = s); the mask tensor's own reads (b·s² bytes, broadcast over the
///   heads from L2) are not counted;
/// - reads Q, K, V (3·s·h), writes O (s·h); one kernel per direction; with
///   KeyValueHeads::kGrouped and kFlash or kFlash3, K and V are kv_heads / heads of s·h each and the
///   model's "attn.repeat_kv" op before the chain goes;
/// - saves Q, K, V, O (4·s·h; K and V as read) and the fp32 log-sum-exp per row and head (a·s, 4 B = two
///   16-bit elements): no s×s score matrix, no dropout mask (regenerated from the RNG seed).
/// Throws std::invalid_argument for kSdpa (resolve it with sdpa_backend() first).
Workload with_attention_kernel(Workload workload, AttentionKernel kernel,
                               KeyValueHeads key_value_heads = KeyValueHeads::kRepeated,
                               CausalMask causal_mask = CausalMask::kIsCausal);

}  // namespace gpuplan::models

#pragma once
/// \file transformer_decoder_family.h
/// Decoder-only causal language models trained with next-token cross-entropy over all
/// s positions, in eager PyTorch with unfused attention (transformer_block.h). One family
/// covers GPT-2 (Radford et al. 2019), Llama 2/3 (Touvron et al. 2023; Meta 2024) and MPT
/// (MosaicML 2023) through enumerated parameters:
///
/// | parameter       | GPT-2     | Llama 2/3     | MPT       |
/// |-----------------|-----------|---------------|-----------|
/// | mlp             | gelu      | swiglu        | gelu      |
/// | positional      | learned   | rotary        | alibi     |
/// | norm            | layernorm | rmsnorm       | low_precision_layernorm |
/// | bias            | true      | false         | false     |
/// | tied_embeddings | true      | false         | true      |
/// | dropout         | 0.1       | 0             | 0         |
/// | loss            | cross_entropy | cross_entropy | fused_cross_entropy |
///
/// Defaults are the Llama column, so an inline `{family: transformer_decoder, layers: 32,
/// hidden: 4096, heads: 32, ffn_hidden: 11008, vocab: 32000, sequence_length: 4096}` is
/// Llama-2-7B (scenario-format.md). Implementation details follow the reference code of
/// each style: `norm: rmsnorm` selects HF LlamaDecoderLayer, with separate q, k, v
/// projections (3 GEMMs) and the unfused LlamaRMSNorm (6 kernels, layer_ops.h);
/// layer norm models use one fused qkv GEMM (GPT-2 c_attn, MPT Wqkv). GELU is F.gelu, one
/// kernel saving its input (nanoGPT, MPT, Megatron; HF's GPT-2 `gelu_new` written out in
/// Python would launch 8). kv_heads < heads is grouped-query attention (Ainslie et al.
/// 2023): k and v are projected to kv_heads·hidden/heads and expanded (HF repeat_kv) before
/// the score matmul. `norm: low_precision_layernorm` is MPT's LPLayerNorm (layer_ops.h,
/// NormKind::kLowPrecisionLayerNorm); `loss: fused_cross_entropy` is llm-foundry's default
/// loss_fn (ComposerMPTCausalLM), flash-attn's fused kernel (layer_ops.h);
/// `loss: fused_linear_cross_entropy` is Liger-Kernel's LigerFusedLinearCrossEntropyLoss
/// (HF transformers with Liger-Kernel), which fuses the lm_head into the loss: the lm_head
/// saves nothing and the loss saves the input gradient, no logits
/// (layer_ops.h, fused_linear_cross_entropy_op). Learned positions add a max_positions × hidden table and one add;
/// rotary adds 10 kernels per layer; ALiBi one bias add on the scores. Dropout > 0 adds
/// GPT-2's dropouts: embeddings, attention probabilities, both residual branches.
///
/// Training FLOP per token ≈ 6·N + 12·L·h·s (Kaplan et al. 2020, sec. 2.1; Hoffmann et al.
/// 2022, app. F) with N the weights that multiply every token: all parameters except the
/// input embedding and position tables, plus the output projection (the tied embedding
/// when tied_embeddings). Memory-bound ops add under 1 %.
/// Input per sample: input_ids and labels as int64 (16 B/token).

#include <string>
#include <vector>

#include "models/workload/workload_family.h"

namespace gpuplan::models {

/// The `transformer_decoder` workload family. Parameters: layers, hidden, heads,
/// ffn_hidden, vocab, sequence_length (required); kv_heads (= heads), max_positions
/// (= sequence_length; learned positions only), mlp (swiglu), positional (rotary),
/// norm (rmsnorm), bias (false), tied_embeddings (false), loss (cross_entropy), dropout (0);
/// mixture-of-experts (moe_layer.h): experts (0 = dense), experts_per_token, shared_experts
/// (0), expert_ffn_hidden (= ffn_hidden), first_dense_layers (0).
class TransformerDecoderFamily final : public IWorkloadFamily {
 public:
  std::string summary() const override;
  std::vector<ArchitectureParameter> parameters() const override;
  /// Throws WorkloadError("heads") when heads does not divide hidden or a rotary head
  /// dimension is odd, WorkloadError("kv_heads") when kv_heads does not divide heads, and
  /// WorkloadError("sequence_length") when learned positions cannot cover it; a MoE key
  /// without experts, experts without experts_per_token, experts_per_token above experts and
  /// first_dense_layers not below layers each throw at their key.
  Workload build(const ArchitectureValues& values) const override;
};

}  // namespace gpuplan::models

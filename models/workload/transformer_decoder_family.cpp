#include "models/workload/transformer_decoder_family.h"

#include <cstddef>

#include "models/workload/architecture_reader.h"
#include "models/workload/layer_ops.h"
#include "models/workload/moe_layer.h"
#include "models/workload/transformer_block.h"

namespace gpuplan::models {

namespace {

/// input_ids and labels: two int64 tensors per token.
constexpr double kInputBytesPerToken = 2.0 * 8.0;

// Indices of the enumerated parameters' choices, in the order parameters() lists them.
constexpr std::size_t kMlpGelu = 0;
constexpr std::size_t kMlpSwiglu = 1;
constexpr std::size_t kMlpSquaredRelu = 2;
constexpr std::size_t kMlpGeluNew = 3;
constexpr std::size_t kPositionalLearned = 0;
constexpr std::size_t kPositionalRotary = 1;
constexpr std::size_t kPositionalAlibi = 2;
constexpr std::size_t kNormRms = 1;
constexpr std::size_t kNormLowPrecisionLayer = 2;
constexpr std::size_t kLossCrossEntropy = 0;
constexpr std::size_t kLossFusedCrossEntropy = 1;
constexpr std::size_t kLossFusedLinearCrossEntropy = 2;

NormKind norm_kind(std::size_t choice) {
  if (choice == kNormRms) {
    return NormKind::kRmsNorm;
  }
  return choice == kNormLowPrecisionLayer ? NormKind::kLowPrecisionLayerNorm : NormKind::kLayerNorm;
}

/// Largest head_dim accepted: 65536, 256 times the widest head of published decoders
/// (Gemma 2's 256; FlashAttention kernels stop at 256), so any real model fits while a typo
/// such as 1e15 (a 262 PB weight matrix) is refused at the key instead of simulated.
constexpr double kMaxHeadDim = 65536;

/// Largest layer count accepted: 65536, 512 times the deepest published decoders (Llama 3.1
/// 405B: 126 layers, Megatron-LM's 1T model: 128). The op table holds every layer, so a typo
/// such as 1e9 layers would exhaust memory instead of failing at the key.
constexpr double kMaxLayers = 65536;

/// layers: required, 1 to kMaxLayers.
ArchitectureParameter layers_parameter() {
  ArchitectureParameter parameter = required_count("layers", "transformer layers");
  parameter.max_value = kMaxLayers;
  return parameter;
}

/// head_dim: 0 (the default) means hidden / heads.
ArchitectureParameter head_dim_parameter() {
  ArchitectureParameter parameter =
      count_with_default("head_dim",
                         "dimensions per attention head; 0 = hidden / heads (Gemma 2: 256 with hidden "
                         "3584 and 16 heads, the out projection mapping heads x head_dim back to hidden)",
                         0.0, 0.0);
  parameter.max_value = kMaxHeadDim;
  return parameter;
}

/// Divisors of `heads` nearest to `kv_heads` below and above, for the fix hint.
std::string nearest_divisors(long long heads, long long kv_heads) {
  long long below = kv_heads;
  while (below > 1 && heads % below != 0) {
    --below;
  }
  long long above = kv_heads;
  while (above < heads && heads % above != 0) {
    ++above;
  }
  return std::to_string(below) + " or " + std::to_string(above);
}

/// The experts of the model's MoE layers (experts 0: dense), after the checks that tie the
/// MoE keys together. Throws WorkloadError at the key that needs a fix.
MoeShape moe_shape(const ArchitectureReader& reader, const ArchitectureValues& values) {
  MoeShape moe;
  moe.experts = reader.value("experts");
  moe.experts_per_token = reader.value("experts_per_token");
  moe.shared_experts = reader.value("shared_experts");
  moe.expert_ffn_hidden = reader.value("expert_ffn_hidden");
  if (moe.experts == 0.0) {
    for (const char* key : {"experts_per_token", "shared_experts", "expert_ffn_hidden", "first_dense_layers"}) {
      if (values.contains(key)) {
        throw WorkloadError(key, std::string(key) +
                                     " applies to a mixture-of-experts model only; set experts (the routed "
                                     "experts per layer) or remove " +
                                     key);
      }
    }
    return moe;
  }
  const std::string experts = format_architecture_value(moe.experts);
  if (moe.experts_per_token == 0.0) {
    throw WorkloadError("experts_per_token",
                        "a mixture-of-experts model needs experts_per_token, the routed experts each token "
                        "runs through; set it to 1 to " +
                            experts + " (Mixtral: 2 of 8)");
  }
  if (moe.experts_per_token > moe.experts) {
    throw WorkloadError("experts_per_token", "experts_per_token " + format_architecture_value(moe.experts_per_token) +
                                                 " exceeds experts " + experts + "; use at most " + experts);
  }
  if (reader.count("first_dense_layers") >= reader.count("layers")) {
    throw WorkloadError("first_dense_layers",
                        "first_dense_layers " + std::to_string(reader.count("first_dense_layers")) +
                            " leaves no MoE layer of the " + std::to_string(reader.count("layers")) +
                            "; use at most " + std::to_string(reader.count("layers") - 1) +
                            " or remove experts for a dense model");
  }
  return moe;
}

}  // namespace

std::string TransformerDecoderFamily::summary() const {
  return "decoder-only causal LM (GPT-2, Llama, MPT styles) in eager PyTorch with unfused "
         "attention, next-token cross-entropy over the vocabulary";
}

std::vector<ArchitectureParameter> TransformerDecoderFamily::parameters() const {
  return {
      layers_parameter(),
      required_count("hidden", "model width"),
      required_count("heads", "query heads; must divide hidden"),
      count_defaulting_to(
          "kv_heads",
          "key/value heads; fewer than heads is grouped-query attention, must divide heads",
          "heads"),
      head_dim_parameter(),
      required_count("ffn_hidden",
                     "MLP inner width (of each of the gate and up branches for swiglu)"),
      required_count("vocab", "vocabulary size in tokens"),
      required_count("sequence_length", "tokens per sample"),
      count_defaulting_to("max_positions",
                          "rows of the learned position table (positional: learned only)",
                          "sequence_length"),
      choice_parameter(
          "mlp",
          "feed-forward block: gelu (fc, GELU, fc), swiglu (gate and up, SiLU product, down), relu2 "
          "(fc, squared ReLU, fc: Nemotron-4) or gelu_new (fc, GELU as HF's NewGELUActivation, the "
          "tanh formula in eight aten ops, fc: HF GPT-2's activation_function gelu_new)",
          {"gelu", "swiglu", "relu2", "gelu_new"}, kMlpSwiglu),
      choice_parameter("positional",
                       "position encoding: learned table, rotary on q and k, or alibi score bias",
                       {"learned", "rotary", "alibi"}, kPositionalRotary),
      choice_parameter("norm",
                       "layernorm; rmsnorm (also selects Llama's separate q, k, v projections); or "
                       "low_precision_layernorm (MPT's LPLayerNorm: a layer norm in the autocast "
                       "dtype, saving its input in 16 bits under AMP)",
                       {"layernorm", "rmsnorm", "low_precision_layernorm"}, kNormRms),
      flag_parameter("bias", "biases in the linear layers and layer norms", false),
      flag_parameter("tied_embeddings", "the output projection reuses the token embedding", false),
      choice_parameter("loss",
                       "cross_entropy (F.cross_entropy: fp32 log-probabilities under autocast), "
                       "fused_cross_entropy (flash-attn's CrossEntropyLoss, llm-foundry's "
                       "default: saves the 16-bit logits) or fused_linear_cross_entropy "
                       "(Liger-Kernel's LigerFusedLinearCrossEntropyLoss: lm_head and loss in "
                       "chunks of rows, gradients computed in forward; saves the lm_head input "
                       "gradient, no logits)",
                       {"cross_entropy", "fused_cross_entropy", "fused_linear_cross_entropy"}, kLossCrossEntropy),
      real_parameter("dropout", "dropout probability; above 0 adds GPT-2's dropout ops", 0.0, 0.0,
                     1.0),
      count_with_default("experts",
                         "routed experts per MoE layer; 0 = a dense model (Mixtral-8x7B: 8, gpt-oss-120b: 128, "
                         "DeepSeek-V3: 256)",
                         0.0, 0.0),
      count_with_default("experts_per_token",
                         "routed experts each token runs through (top-k, 1 to experts; required with experts)",
                         0.0, 0.0),
      count_with_default("shared_experts", "experts every token runs through beside the routed ones (DeepSeekMoE)",
                         0.0, 0.0),
      count_defaulting_to("expert_ffn_hidden",
                          "one expert's MLP inner width (per SwiGLU branch); experts only (DeepSeek-V3: 2048 "
                          "beside a dense ffn_hidden of 18432)",
                          "ffn_hidden"),
      count_with_default("first_dense_layers",
                         "the first layers keep the dense MLP of ffn_hidden (DeepSeek-V3's first_k_dense_replace: "
                         "3); experts only",
                         0.0, 0.0),
  };
}

Workload TransformerDecoderFamily::build(const ArchitectureValues& values) const {
  const ArchitectureReader reader("transformer_decoder", parameters(), values);
  const MoeShape moe = moe_shape(reader, values);
  const long long layers = reader.count("layers");
  const long long hidden = reader.count("hidden");
  const long long heads = reader.count("heads");
  const long long kv_heads = reader.count("kv_heads");
  const long long sequence_length = reader.count("sequence_length");
  const std::size_t positional = reader.choice("positional");
  const long long explicit_head_dim = reader.count("head_dim");
  if (explicit_head_dim == 0) {
    check_heads_divide_hidden(hidden, heads);
  }
  const long long head_dim = explicit_head_dim > 0 ? explicit_head_dim : hidden / heads;
  if (kv_heads > heads) {
    throw WorkloadError("kv_heads", "kv_heads " + std::to_string(kv_heads) + " exceeds heads " +
                                        std::to_string(heads) + "; use at most " +
                                        std::to_string(heads) +
                                        " (kv_heads = heads is multi-head attention)");
  }
  if (heads % kv_heads != 0) {
    throw WorkloadError("kv_heads",
                        "heads " + std::to_string(heads) + " is not divisible by kv_heads " +
                            std::to_string(kv_heads) +
                            " (grouped-query attention shares each key/value head among heads / "
                            "kv_heads query heads); use kv_heads " +
                            nearest_divisors(heads, kv_heads));
  }
  if (positional == kPositionalRotary && head_dim % 2 != 0) {
    if (explicit_head_dim > 0) {
      throw WorkloadError("head_dim", "rotary embeddings rotate pairs of dimensions, but head_dim " +
                                          std::to_string(head_dim) + " is odd; use an even head_dim");
    }
    throw WorkloadError("heads",
                        "rotary embeddings rotate pairs of dimensions, but the head "
                        "dimension hidden / heads = " +
                            std::to_string(hidden / heads) +
                            " is odd; choose heads so that hidden / heads is even");
  }
  if (positional == kPositionalLearned) {
    check_sequence_fits_positions(sequence_length, reader.count("max_positions"));
  }
  const double s = static_cast<double>(sequence_length);
  const double h = static_cast<double>(hidden);
  const double sh = s * h;
  const double vocab = reader.value("vocab");
  const NormKind norm = norm_kind(reader.choice("norm"));
  const bool bias = reader.flag("bias");
  const bool dropout = reader.value("dropout") > 0.0;

  Workload workload;
  workload.name = "inline";
  workload.family = "transformer_decoder";
  std::vector<Op>& ops = workload.ops.edit();
  ops.push_back(embedding_op("embed.tokens", s, h, vocab));
  if (positional == kPositionalLearned) {
    ops.push_back(embedding_op("embed.positions", s, h, reader.value("max_positions")));
    ops.push_back(residual_add_op("embed.add", sh));
  }
  if (dropout) {
    ops.push_back(dropout_op("embed.dropout", sh));
  }

  TransformerBlockShape shape;
  shape.tokens = s;
  shape.hidden = h;
  shape.heads = static_cast<double>(heads);
  shape.kv_heads = static_cast<double>(kv_heads);
  shape.head_dim = static_cast<double>(head_dim);
  shape.ffn_hidden = reader.value("ffn_hidden");
  const std::size_t mlp = reader.choice("mlp");
  shape.mlp = mlp == kMlpGelu          ? MlpKind::kGelu
              : mlp == kMlpSquaredRelu ? MlpKind::kSquaredRelu
              : mlp == kMlpGeluNew     ? MlpKind::kGeluNew
                                       : MlpKind::kSwiglu;
  shape.norm = norm;
  shape.pre_norm = true;
  shape.bias = bias;
  shape.dropout = dropout;
  shape.causal_mask = true;
  shape.rotary = positional == kPositionalRotary;
  shape.alibi = positional == kPositionalAlibi;
  shape.qkv_kernels = norm == NormKind::kRmsNorm ? 3 : 1;
  const long long first_moe_layer = reader.count("first_dense_layers");
  for (long long layer = 0; layer < layers; ++layer) {
    shape.moe = layer < first_moe_layer ? MoeShape{} : moe;
    append_transformer_block(ops, "layers." + std::to_string(layer) + ".", shape);
  }
  ops.push_back(norm_op("norm", s, h, norm, bias));
  // No bias on the output projection in any of the three reference models.
  Op lm_head = linear_op("lm_head", s, h, vocab, false, true);
  if (reader.flag("tied_embeddings")) {
    lm_head.parameters = 0.0;  // the weight is embed.tokens'
  }
  const std::size_t loss = reader.choice("loss");
  if (loss == kLossFusedLinearCrossEntropy) {
    // Liger-Kernel saves only the gradients it computed in forward, not the lm_head input
    // (src/liger_kernel/ops/fused_linear_cross_entropy.py, LigerFusedLinearCrossEntropyFunction
    // .forward: ctx.save_for_backward(grad_input, grad_weight, grad_bias)); the loss op counts
    // grad_input in its place.
    lm_head.saved_elements = 0.0;
  }
  ops.push_back(lm_head);
  if (loss == kLossFusedLinearCrossEntropy) {
    ops.push_back(fused_linear_cross_entropy_op("loss", s, h, vocab));
  } else {
    ops.push_back(loss == kLossFusedCrossEntropy ? fused_cross_entropy_op("loss", s, vocab)
                                                 : cross_entropy_op("loss", s, vocab));
  }

  for (const Op& op : ops) {
    workload.parameters += op.parameters;
  }
  workload.tokens_per_sample = s;
  workload.is_language_model = true;
  workload.input_bytes_per_sample = s * kInputBytesPerToken;
  return workload;
}

}  // namespace gpuplan::models

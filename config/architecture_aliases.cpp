#include "config/architecture_aliases.h"

namespace gpuplan::config {

namespace {
constexpr std::string_view kHf = "Hugging Face config.json";
constexpr std::string_view kNanoGpt = "nanoGPT";
constexpr std::string_view kMegatron = "Megatron-LM";
constexpr std::string_view kLlama = "Llama params.json";
}  // namespace

const std::vector<ArchitectureAlias>& architecture_aliases() {
  // Names as the sources spell them: transformers' LlamaConfig, GPT2Config, BertConfig,
  // ViTConfig, MixtralConfig, DeepseekV3Config; nanoGPT model.py GPTConfig; Megatron-LM
  // arguments.py; llama-models' ModelArgs.
  static const std::vector<ArchitectureAlias> aliases = {
      {"num_hidden_layers", "layers", kHf},
      {"n_layer", "layers", kNanoGpt},
      {"num_layers", "layers", kMegatron},
      {"n_layers", "layers", kLlama},
      {"hidden_size", "hidden", kHf},
      {"n_embd", "hidden", kNanoGpt},
      {"dim", "hidden", kLlama},
      {"num_attention_heads", "heads", kHf},
      {"n_head", "heads", kNanoGpt},
      {"n_heads", "heads", kLlama},
      {"num_key_value_heads", "kv_heads", kHf},
      {"n_kv_heads", "kv_heads", kLlama},
      {"num_query_groups", "kv_heads", kMegatron},
      {"intermediate_size", "ffn_hidden", kHf},
      {"ffn_hidden_size", "ffn_hidden", kMegatron},
      {"n_inner", "ffn_hidden", kHf},
      {"vocab_size", "vocab", kHf},
      {"padded_vocab_size", "vocab", kMegatron},
      {"max_position_embeddings", "max_positions", kHf},
      {"n_positions", "max_positions", kHf},
      {"block_size", "sequence_length", kNanoGpt},
      {"seq_length", "sequence_length", kMegatron},
      {"max_seq_len", "sequence_length", kLlama},
      {"type_vocab_size", "type_vocab", kHf},
      {"num_labels", "labels", kHf},
      {"tie_word_embeddings", "tied_embeddings", kHf},
      {"num_local_experts", "experts", kHf},
      {"n_routed_experts", "experts", kHf},
      {"num_experts", "experts", kMegatron},
      {"num_experts_per_tok", "experts_per_token", kHf},
      {"n_shared_experts", "shared_experts", kHf},
      {"moe_intermediate_size", "expert_ffn_hidden", kHf},
      {"first_k_dense_replace", "first_dense_layers", kHf},
      {"num_channels", "channels", kHf},
  };
  return aliases;
}

std::string alias_phrase(const ArchitectureAlias& alias) {
  return "'" + std::string(alias.alias) + "' is the " + std::string(alias.source) + " name for " +
         std::string(alias.key);
}

}  // namespace gpuplan::config

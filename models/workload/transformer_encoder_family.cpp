#include "models/workload/transformer_encoder_family.h"

#include "models/workload/architecture_reader.h"
#include "models/workload/layer_ops.h"
#include "models/workload/transformer_block.h"

namespace gpuplan::models {

namespace {
/// input_ids, token_type_ids, attention_mask and labels: four int64 tensors per token.
constexpr double kInputBytesPerToken = 4.0 * 8.0;
/// next_sentence_label: one int64 per sample.
constexpr double kInputBytesPerSequence = 8.0;
/// Next-sentence prediction: is-next or not (Devlin et al. 2019, sec. 3.1).
constexpr double kNextSentenceClasses = 2.0;
}  // namespace

std::string TransformerEncoderFamily::summary() const {
  return "BERT-style encoder pretraining as HF BertForPreTraining runs it eagerly: post-norm "
         "layers with dropout, unfused attention, masked-LM (tied decoder) and NSP heads";
}

std::vector<ArchitectureParameter> TransformerEncoderFamily::parameters() const {
  return {
      required_count("layers", "transformer layers"),
      required_count("hidden", "model width"),
      required_count("heads", "attention heads; must divide hidden"),
      required_count("ffn_hidden", "MLP inner width"),
      required_count("vocab", "vocabulary size in tokens"),
      required_count("sequence_length", "tokens per sample"),
      count_with_default("max_positions",
                         "rows of the learned position table; at least sequence_length", 512),
      count_with_default("type_vocab", "token types (segments)", 2),
  };
}

Workload TransformerEncoderFamily::build(const ArchitectureValues& values) const {
  const ArchitectureReader reader("transformer_encoder", parameters(), values);
  const long long layers = reader.count("layers");
  const long long hidden = reader.count("hidden");
  const long long heads = reader.count("heads");
  const long long sequence_length = reader.count("sequence_length");
  check_heads_divide_hidden(hidden, heads);
  check_sequence_fits_positions(sequence_length, reader.count("max_positions"));
  const double s = static_cast<double>(sequence_length);
  const double h = static_cast<double>(hidden);
  const double sh = s * h;
  const double vocab = reader.value("vocab");

  Workload workload;
  workload.name = "inline";
  workload.family = "transformer_encoder";
  std::vector<Op>& ops = workload.ops;
  ops.push_back(embedding_op("embeddings.word", s, h, vocab));
  ops.push_back(embedding_op("embeddings.token_type", s, h, reader.value("type_vocab")));
  ops.push_back(embedding_op("embeddings.position", s, h, reader.value("max_positions")));
  // words + token types, then += positions: two adds of s·h, each reading two tensors.
  ops.push_back(elementwise_op("embeddings.add", 2.0 * sh, 2.0, kAddFlopPerElement, 0.0, 2));
  ops.push_back(norm_op("embeddings.norm", s, h, NormKind::kLayerNorm, true));
  ops.push_back(dropout_op("embeddings.dropout", sh));
  // get_extended_attention_mask: cast, 1 − mask, × dtype min, on s elements.
  ops.push_back(elementwise_op("attention_mask", s, 1.0, 2.0, 0.0, 3));

  TransformerBlockShape shape;
  shape.tokens = s;
  shape.hidden = h;
  shape.heads = static_cast<double>(heads);
  shape.kv_heads = shape.heads;
  shape.ffn_hidden = reader.value("ffn_hidden");
  shape.mlp = MlpKind::kGelu;
  shape.norm = NormKind::kLayerNorm;
  shape.pre_norm = false;
  shape.bias = true;
  shape.dropout = true;
  shape.padding_mask = true;
  shape.qkv_kernels = 3;  // BertSelfAttention: separate query, key, value linears
  for (long long layer = 0; layer < layers; ++layer) {
    append_transformer_block(ops, "encoder.layer." + std::to_string(layer) + ".", shape);
  }

  // Pooler on the first token: its input is a view of the last layer's output, which the
  // MLM transform saves anyway.
  ops.push_back(linear_op("pooler.dense", 1.0, h, h, true, false));
  ops.push_back(elementwise_op("pooler.tanh", h, 1.0, kTanhFlopPerElement, h));
  // The classifier's input is the tanh output, already saved by tanh.
  ops.push_back(linear_op("nsp.classifier", 1.0, h, kNextSentenceClasses, true, false));
  ops.push_back(cross_entropy_op("nsp.loss", 1.0, kNextSentenceClasses));

  ops.push_back(linear_op("mlm.transform.dense", s, h, h, true, true));
  ops.push_back(elementwise_op("mlm.transform.gelu", sh, 1.0, kGeluFlopPerElement, sh));
  ops.push_back(norm_op("mlm.transform.norm", s, h, NormKind::kLayerNorm, true));
  // Tied to embeddings.word: only the bias (one per token of the vocabulary) is new.
  Op decoder = linear_op("mlm.decoder", s, h, vocab, true, true);
  decoder.parameters = vocab;
  ops.push_back(decoder);
  ops.push_back(cross_entropy_op("mlm.loss", s, vocab));

  for (const Op& op : ops) {
    workload.parameters += op.parameters;
  }
  workload.tokens_per_sample = s;
  workload.is_language_model = true;
  workload.input_bytes_per_sample = s * kInputBytesPerToken + kInputBytesPerSequence;
  return workload;
}

}  // namespace gpuplan::models

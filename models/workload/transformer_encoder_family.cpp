#include "models/workload/transformer_encoder_family.h"

#include <algorithm>

#include "models/workload/architecture_reader.h"
#include "models/workload/layer_ops.h"
#include "models/workload/transformer_block.h"

namespace gpuplan::models {

namespace {
/// One int64 id per token or per sequence.
constexpr double kInt64Bytes = 8.0;
/// input_ids, token_type_ids and attention_mask: three int64 tensors per token.
constexpr double kEncoderInputsPerToken = 3.0;
/// Next-sentence prediction: is-next or not (Devlin et al. 2019, sec. 3.1).
constexpr double kNextSentenceClasses = 2.0;
/// SQuAD span prediction: a start and an end logit per token (Devlin et al. 2019, sec. 4.2;
/// HF BertForQuestionAnswering qa_outputs = Linear(hidden, 2)).
constexpr double kSpanLogitsPerToken = 2.0;

/// The head choices, in the order of the `head` parameter's choices.
enum class EncoderHead { kPretraining, kPretrainingMasked, kQuestionAnswering, kSequenceClassification };

/// Pooler on the first token (dense + tanh). Its input is a view of the last layer's
/// output: the all-token MLM transform saves that tensor anyway; with the other heads the
/// view keeps its s·h elements alive, under 0.1 % of BERT's activations, not counted.
void append_pooler(std::vector<Op>& ops, double h) {
  ops.push_back(linear_op("pooler.dense", 1.0, h, h, true, false));
  ops.push_back(elementwise_op("pooler.tanh", h, 1.0, kTanhFlopPerElement, h));
}

/// The masked-LM head over `rows` positions: transform (dense + GELU + layer norm), the
/// decoder tied to embeddings.word (only its bias is new), cross-entropy over the vocabulary.
void append_masked_lm(std::vector<Op>& ops, double rows, double h, double vocab) {
  const double rh = rows * h;
  ops.push_back(linear_op("mlm.transform.dense", rows, h, h, true, true));
  ops.push_back(elementwise_op("mlm.transform.gelu", rh, 1.0, kGeluFlopPerElement, rh));
  ops.push_back(norm_op("mlm.transform.norm", rows, h, NormKind::kLayerNorm, true));
  Op decoder = linear_op("mlm.decoder", rows, h, vocab, true, true);
  decoder.parameters = vocab;
  ops.push_back(decoder);
  ops.push_back(cross_entropy_op("mlm.loss", rows, vocab));
}

}  // namespace

std::string TransformerEncoderFamily::summary() const {
  return "BERT-style encoder as HF BertForPreTraining runs it eagerly: post-norm layers with "
         "dropout, unfused attention; masked-LM (tied decoder) and NSP heads, or a SQuAD span "
         "or sequence-classification head";
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
      choice_parameter("head",
                       "what runs after the encoder: pretraining (MLM on every position + NSP, HF "
                       "BertForPreTraining), pretraining_masked (MLM only on max_predictions "
                       "gathered positions + NSP, NVIDIA DeepLearningExamples), "
                       "question_answering (SQuAD start/end logits), sequence_classification "
                       "(pooler + classifier)",
                       {"pretraining", "pretraining_masked", "question_answering",
                        "sequence_classification"},
                       0),
      count_defaulting_to("max_predictions",
                          "masked positions per sequence the pretraining_masked head predicts "
                          "(max_predictions_per_seq); at most sequence_length",
                          "sequence_length"),
      count_with_default("labels", "classes of the sequence_classification head", 2),
      count_defaulting_to("mean_padded_length",
                          "tokens per sample the GPU computes on average when the loader pads "
                          "each batch only to its longest sequence (dynamic padding, length "
                          "binning); sequence_length stays the longest batch, which sets the "
                          "memory peak",
                          "sequence_length"),
  };
}

namespace {

// The op table for sequences of `s` tokens (the ops of one sample of a batch padded to s);
// sets `label_bytes_per_sample` for the head.
std::vector<Op> encoder_ops(const ArchitectureReader& reader, double s, double& label_bytes_per_sample) {
  const long long layers = reader.count("layers");
  const double h = reader.value("hidden");
  const double heads = reader.value("heads");
  const double sh = s * h;
  const double vocab = reader.value("vocab");
  std::vector<Op> ops;
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
  shape.heads = heads;
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

  const auto head = static_cast<EncoderHead>(reader.choice("head"));
  // At most the tokens of the batch (a short bin has fewer masked positions).
  const double max_predictions = std::min(reader.value("max_predictions"), s);
  // Labels and targets per sample, int64: MLM labels per token + next_sentence_label;
  // start and end positions; one class label.
  switch (head) {
    case EncoderHead::kPretraining:
    case EncoderHead::kPretrainingMasked: {
      append_pooler(ops, h);
      // The classifier's input is the tanh output, already saved by tanh.
      ops.push_back(linear_op("nsp.classifier", 1.0, h, kNextSentenceClasses, true, false));
      ops.push_back(cross_entropy_op("nsp.loss", 1.0, kNextSentenceClasses));
      double rows = s;
      if (head == EncoderHead::kPretrainingMasked) {
        // DLE BertLMPredictionHead with sequence_output_is_dense: hidden[labels != 0]
        // gathers the masked rows (nonzero + index: 2 kernels; backward scatters into
        // zeros), so the transform, decoder and loss see max_predictions rows, not s.
        rows = max_predictions;
        ops.push_back(elementwise_op("mlm.gather", rows * h, 1.0, 0.0, 0.0, 2));
      }
      append_masked_lm(ops, rows, h, vocab);
      label_bytes_per_sample = (s + 1.0) * kInt64Bytes;
      break;
    }
    case EncoderHead::kQuestionAnswering:
      // qa_outputs over every token; its input (the last layer's output) is saved by it.
      ops.push_back(linear_op("qa.outputs", s, h, kSpanLogitsPerToken, true, true));
      // split into start and end logits (views), then one cross-entropy over the s
      // positions for each.
      ops.push_back(cross_entropy_op("qa.start_loss", 1.0, s));
      ops.push_back(cross_entropy_op("qa.end_loss", 1.0, s));
      label_bytes_per_sample = 2.0 * kInt64Bytes;
      break;
    case EncoderHead::kSequenceClassification: {
      append_pooler(ops, h);
      ops.push_back(dropout_op("classifier.dropout", h));
      const double classes = reader.value("labels");
      // Its input is the dropout output (the mask alone is saved by dropout).
      ops.push_back(linear_op("classifier", 1.0, h, classes, true, true));
      ops.push_back(cross_entropy_op("classifier.loss", 1.0, classes));
      label_bytes_per_sample = kInt64Bytes;
      break;
    }
  }

  return ops;
}

/// The value of `key`, which must not exceed `sequence_length` (`why` says why). Throws
/// WorkloadError naming the key and the largest value allowed.
double at_most_sequence_length(const ArchitectureReader& reader, const std::string& key, long long sequence_length,
                               const std::string& why) {
  const double value = reader.value(key);
  if (value > static_cast<double>(sequence_length)) {
    throw WorkloadError(key, key + " " + format_architecture_value(value) + " exceeds sequence_length " +
                                 std::to_string(sequence_length) + " (" + why + "); use " + key + " at most " +
                                 std::to_string(sequence_length));
  }
  return value;
}

}  // namespace

Workload TransformerEncoderFamily::build(const ArchitectureValues& values) const {
  const ArchitectureReader reader("transformer_encoder", parameters(), values);
  const long long hidden = reader.count("hidden");
  const long long sequence_length = reader.count("sequence_length");
  check_heads_divide_hidden(hidden, reader.count("heads"));
  check_sequence_fits_positions(sequence_length, reader.count("max_positions"));
  const double s = static_cast<double>(sequence_length);
  at_most_sequence_length(reader, "max_predictions", sequence_length,
                          "a sequence cannot have more masked positions than tokens");
  const double mean_padded = at_most_sequence_length(reader, "mean_padded_length", sequence_length,
                                                     "batches are padded to at most sequence_length");

  Workload workload;
  workload.name = "inline";
  workload.family = "transformer_encoder";
  double label_bytes_per_sample = 0.0;
  workload.ops = encoder_ops(reader, mean_padded, label_bytes_per_sample);
  if (mean_padded < s) {
    // Work at the mean padded length, memory at the longest batch: the peak is set by a
    // batch padded to sequence_length (same ops, same order).
    const std::vector<Op> longest = encoder_ops(reader, s, label_bytes_per_sample);
    std::vector<Op>& ops = workload.ops.edit();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      ops[i].saved_elements = longest[i].saved_elements;
    }
  }
  for (const Op& op : workload.ops) {
    workload.parameters += op.parameters;
  }
  workload.tokens_per_sample = s;
  workload.is_language_model = true;
  workload.input_bytes_per_sample = s * kEncoderInputsPerToken * kInt64Bytes + label_bytes_per_sample;
  return workload;
}

}  // namespace gpuplan::models

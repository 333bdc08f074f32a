#pragma once
/// \file transformer_encoder_family.h
/// BERT-style encoder (Devlin et al. 2019) as HF transformers runs it in eager PyTorch:
/// word + position + token-type embeddings, layer norm, dropout; post-norm layers (layer
/// norm with bias, GELU MLP, dropout 0.1 on attention probabilities and both branch
/// outputs, the attention_mask added to the scores); then the `head`, a fact of the recipe:
/// - `pretraining` (default; HF BertForPreTraining): pooler (dense + tanh on the first
///   token) and next-sentence classifier (2 classes); masked-LM head: transform (dense +
///   GELU + layer norm), then the decoder over the vocabulary, whose weight is tied to the
///   word embedding (only its bias is new), and cross-entropy over all s positions (HF
///   computes logits for every position; labels of unmasked positions are ignored, not
///   skipped).
/// - `pretraining_masked` (NVIDIA DeepLearningExamples BERT, run_pretraining.py, dense
///   sequence output on by default): the same heads, but the masked-LM head runs only on
///   the `max_predictions` masked positions it gathers first (max_predictions_per_seq: 20
///   at sequence 128, 80 at 512 in that recipe).
/// - `question_answering` (BertForQuestionAnswering, SQuAD): qa_outputs Linear(hidden, 2)
///   over every token, cross-entropy of the start and of the end logits over s positions;
///   no pooler.
/// - `sequence_classification` (BertForSequenceClassification): pooler, dropout,
///   classifier Linear(hidden, labels), cross-entropy.
///
/// Parameters count the whole BertForPreTraining: BERT-large 336,226,108 = BertModel
/// 335,141,888 (the "335M" of the BERT paper; with pooler) + MLM transform 1,051,648 +
/// decoder bias 30,522 + NSP classifier 2,050. BERT-base: 110,106,428.
/// Per layer, saved activations are exactly Korthikanti et al. 2022, sec. 4.1:
/// 17·s·h + 2.5·a·s² elements (transformer_block.h).
/// Kernels beyond transformer_block.h: three embedding gathers, two adds, the extended
/// attention mask ((1 − mask)·min: cast, subtract, multiply = 3), pooler 2, NSP 1,
/// MLM transform 3, decoder 1, two losses 2 each.
/// Input per sample: input_ids, token_type_ids and attention_mask as int64 per token
/// (24 B/token) and the labels: pretraining int64 MLM labels per token and the
/// next_sentence_label (8·(s + 1) B), question answering start and end positions (16 B),
/// classification one label (8 B).

#include <string>
#include <vector>

#include "models/workload/workload_family.h"

namespace gpuplan::models {

/// The `transformer_encoder` workload family. Parameters: layers, hidden, heads,
/// ffn_hidden, vocab, sequence_length (required), max_positions (512), type_vocab (2),
/// head (pretraining), max_predictions (sequence_length), labels (2).
class TransformerEncoderFamily final : public IWorkloadFamily {
 public:
  std::string summary() const override;
  std::vector<ArchitectureParameter> parameters() const override;
  /// Throws WorkloadError("heads") when heads does not divide hidden,
  /// WorkloadError("sequence_length") when it exceeds max_positions and
  /// WorkloadError("max_predictions") when it exceeds sequence_length.
  Workload build(const ArchitectureValues& values) const override;
};

}  // namespace gpuplan::models

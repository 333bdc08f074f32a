#include "models/workload/transformer_encoder_family.h"

#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "catalog_models.h"
#include "core/units.h"

namespace gpuplan::models {

using testing::build_catalog_model;
using testing::sum_over;

namespace {
double parameters_of(const Workload& workload, const std::string& prefix) {
  return sum_over(workload, prefix, [](const Op& op) { return op.parameters; });
}

/// The parameter named by the WorkloadError that building `values` throws, and its message;
/// fails the test when the encoder is built.
std::pair<std::string, std::string> error_of(const ArchitectureValues& values) {
  try {
    testing::build("transformer_encoder", values);
  } catch (const WorkloadError& error) {
    return {error.parameter(), error.what()};
  }
  FAIL("no error");
  return {};
}
}  // namespace

TEST_SUITE("models.workload.transformer_encoder_family") {
  TEST_CASE("BERT-large: 335 M in the encoder, 336 M with the pretraining heads") {
    // h = 1024, f = 4096, V = 30522, 512 positions, 2 token types.
    // embeddings: 30522·1024 + 512·1024 + 2·1024 + LN 2·1024 = 31,782,912
    // per layer: q, k, v, out 4·(1024² + 1024) = 4,198,400; fc1 1024·4096 + 4096 = 4,198,400;
    //            fc2 4096·1024 + 1024 = 4,195,328; 2 LN 4,096 → 12,596,224; · 24 = 302,309,376
    // pooler 1024² + 1024 = 1,049,600
    // → BertModel 335,141,888 (Devlin et al. 2019: "340M"; HF bert-large-uncased: 335 M)
    // heads (HF BertForPreTraining): MLM transform 1024² + 1024 + LN 2,048 = 1,051,648;
    //   decoder bias 30,522 (weight tied); NSP 1024·2 + 2 = 2,050
    // → 335,141,888 + 1,084,220 = 336,226,108
    const Workload workload = build_catalog_model("bert-large");
    CHECK(workload.parameters == doctest::Approx(335 * core::kMega).epsilon(0.01));
    CHECK(workload.parameters == 336'226'108.0);
    CHECK(workload.parameters - parameters_of(workload, "mlm.") - parameters_of(workload, "nsp.") ==
          335'141'888.0);
  }

  TEST_CASE("BERT-base: 110 M") {
    // embeddings (30522 + 512 + 2)·768 + 1,536 = 23,837,184
    // per layer 4·(768² + 768) + 2·768·3072 + 3072 + 768 + 2·1,536 = 7,087,872; · 12 = 85,054,464
    // pooler 590,592 → BertModel 109,482,240; heads: 592,128 + 30,522 + 1,538 = 624,188
    // → 110,106,428
    const Workload workload = build_catalog_model("bert-base");
    CHECK(workload.parameters == doctest::Approx(110 * core::kMega).epsilon(0.01));
    CHECK(workload.parameters == 110'106'428.0);
  }

  TEST_CASE("a BERT-large layer at s = 512 saves 17·s·h + 2.5·a·s² elements (Korthikanti)") {
    // Korthikanti et al. 2022, sec. 4.1: 34·s·b·h + 5·a·s²·b bytes at 16-bit, masks 1 byte;
    // per sample in 2-byte elements: 17·s·h + 2.5·a·s²
    // = 17·512·1024 + 2.5·16·512² = 8,912,896 + 10,485,760 = 19,398,656
    const Workload workload = build_catalog_model("bert-large");
    const double s = 512.0;
    const double h = 1024.0;
    const double a = 16.0;
    const double expected = 17.0 * s * h + 2.5 * a * s * s;
    CHECK(expected == 19'398'656.0);
    CHECK(sum_over(workload, "encoder.layer.5.", [](const Op& op) { return op.saved_elements; }) ==
          doctest::Approx(expected));
    // Term by term: attention 11·s·h + 5·a·s²/2, MLP 19·s·h/2, norms 2·s·h/2.
    CHECK(sum_over(workload, "encoder.layer.5.attn.", [](const Op& op) {
            return op.saved_elements;
          }) == doctest::Approx(5.5 * s * h + 2.5 * a * s * s));
    CHECK(sum_over(workload, "encoder.layer.5.mlp.",
                   [](const Op& op) { return op.saved_elements; }) == doctest::Approx(9.5 * s * h));
    CHECK(sum_over(workload, "encoder.layer.5.norm",
                   [](const Op& op) { return op.saved_elements; }) == doctest::Approx(2.0 * s * h));
  }

  TEST_CASE("per-layer FLOP and kernels of an eager BERT layer") {
    // Linears 2·s·(4·h² + 2·h·f) + biases s·(4·h + f + h); QKᵀ + PV 4·s²·h.
    const Workload workload = build_catalog_model("bert-large");
    const double s = 512.0;
    const double h = 1024.0;
    const double f = 4096.0;
    double matmul = 0.0;
    double attention = 0.0;
    for (const Op& op : workload.ops) {
      if (op.name.rfind("encoder.layer.0.", 0) == 0) {
        matmul += op.op_class == OpClass::kMatmul ? op.forward_flop : 0.0;
        attention += op.op_class == OpClass::kAttention ? op.forward_flop : 0.0;
      }
    }
    CHECK(matmul == doctest::Approx(2.0 * s * (4.0 * h * h + 2.0 * h * f) + s * (5.0 * h + f)));
    CHECK(attention == doctest::Approx(4.0 * s * s * h));
    // q, k, v 3 + QKᵀ, scale, mask, softmax, dropout, PV, merge 7 + out, dropout, add, LN 4
    // + fc1, GELU, fc2, dropout, add, LN 6 = 20
    CHECK(sum_over(workload, "encoder.layer.0.",
                   [](const Op& op) { return static_cast<double>(op.forward_kernels); }) == 20.0);
  }

  TEST_CASE("head: the masked-LM head on max_predictions gathered rows (DLE dense output)") {
    // bert-large at s = 128 with 20 masked positions: the transform and decoder run on 20
    // rows instead of 128; decoder forward 2·20·1024·30522 + 20·30522 (bias) FLOP.
    const double head = testing::choice("transformer_encoder", "head", "pretraining_masked");
    const Workload all = build_catalog_model("bert-large", {{"sequence_length", 128}});
    const Workload masked = build_catalog_model(
        "bert-large", {{"sequence_length", 128}, {"head", head}, {"max_predictions", 20}});
    auto decoder_flop = [](const Workload& w) {
      return sum_over(w, "mlm.decoder", [](const Op& op) { return op.forward_flop; });
    };
    CHECK(decoder_flop(all) == 2.0 * 128 * 1024 * 30522 + 128 * 30522.0);
    CHECK(decoder_flop(masked) == 2.0 * 20 * 1024 * 30522 + 20 * 30522.0);
    // The gather of 20·1024 elements, two kernels (nonzero, index); same parameters.
    CHECK(sum_over(masked, "mlm.gather", [](const Op& op) { return op.output_elements; }) ==
          20.0 * 1024);
    CHECK(masked.parameters == all.parameters);
    // MLM loss saves the log-softmax of 20 rows of 30522 logits.
    CHECK(sum_over(masked, "mlm.loss", [](const Op& op) { return op.saved_elements; }) ==
          20.0 * 30522);
  }

  TEST_CASE("head: SQuAD span head and sequence classifier") {
    const Workload qa = build_catalog_model(
        "bert-large", {{"sequence_length", 384},
                       {"head", testing::choice("transformer_encoder", "head", "question_answering")}});
    // BertModel without pooler 335,141,888 − 1,049,600 + qa_outputs 1024·2 + 2 = 334,094,338
    CHECK(qa.parameters == 334'094'338.0);
    CHECK(sum_over(qa, "qa.outputs", [](const Op& op) { return op.forward_flop; }) ==
          2.0 * 384 * 1024 * 2 + 384 * 2.0);
    // ids, types, mask: 3·8 B per token; start and end positions 16 B.
    CHECK(qa.input_bytes_per_sample == 3.0 * 8.0 * 384 + 16.0);
    CHECK(sum_over(qa, "mlm.", [](const Op&) { return 1.0; }) == 0.0);

    const Workload cls = build_catalog_model(
        "bert-large",
        {{"head", testing::choice("transformer_encoder", "head", "sequence_classification")}});
    // BertModel 335,141,888 + classifier 1024·2 + 2 = 335,143,938
    CHECK(cls.parameters == 335'143'938.0);
    CHECK(cls.input_bytes_per_sample == 3.0 * 8.0 * 512 + 8.0);
  }

  TEST_CASE("mean_padded_length: work at the mean padded length, saved activations at the longest") {
    const Workload full = build_catalog_model("bert-large");
    const Workload binned = build_catalog_model("bert-large", {{"mean_padded_length", 288}});
    // QKᵀ forward 2·s²·h: 2·288²·1024 instead of 2·512²·1024.
    CHECK(sum_over(binned, "encoder.layer.0.attn.scores", [](const Op& op) { return op.forward_flop; }) ==
          2.0 * 288 * 288 * 1024);
    // The memory peak is a batch padded to 512: 17·s·h + 2.5·a·s² per layer as without binning.
    CHECK(binned.saved_elements_per_sample() == full.saved_elements_per_sample());
    CHECK(binned.tokens_per_sample == 512.0);
    CHECK(binned.parameters == full.parameters);
  }

  TEST_CASE("the padding-mask add promotes the scores to fp32 under autocast; the chain fuses when compiled") {
    // HF get_extended_attention_mask builds the mask in the parameters' dtype (fp32 under
    // autocast): scores + mask is fp32. Under a fusing compiler scale, mask and dropout fold
    // into the softmax kernel (share 0), which keeps its traffic (share 1).
    const Workload bert = build_catalog_model("bert-base", {{"sequence_length", 128}});
    const Workload gpt2 = build_catalog_model("gpt2");
    for (const Op& op : bert.ops) {
      if (op.name == "encoder.layer.0.attn.mask") {
        CHECK(op.autocast_fp32);
        CHECK(op.compiled_traffic_share == 0.0);
      }
      if (op.name == "encoder.layer.0.attn.scale" || op.name == "encoder.layer.0.attn.dropout") {
        CHECK(op.compiled_traffic_share == 0.0);
      }
      if (op.name == "encoder.layer.0.attn.softmax") {
        CHECK(op.compiled_traffic_share == 1.0);
      }
    }
    CHECK(sum_over(bert, "encoder.layer.0.attn.mask", [](const Op&) { return 1.0; }) == 1.0);
    // GPT-2's causal mask (torch.where with a value of the scores' dtype) stays 16-bit.
    bool found = false;
    for (const Op& op : gpt2.ops) {
      if (op.name.find("attn.mask") != std::string::npos) {
        CHECK_FALSE(op.autocast_fp32);
        found = true;
      }
    }
    CHECK(found);
  }

  TEST_CASE("inputs, tokens and flags of a language model") {
    const Workload workload = build_catalog_model("bert-base", {{"sequence_length", 128}});
    // input_ids, token_type_ids, attention_mask, labels: 4·8 B·128 + next_sentence_label 8 B
    CHECK(workload.input_bytes_per_sample == 4.0 * 8.0 * 128.0 + 8.0);
    CHECK(workload.tokens_per_sample == 128.0);
    CHECK(workload.is_language_model);
    CHECK(workload.family == "transformer_encoder");
  }

  TEST_CASE("inconsistent or missing parameters are rejected with a fix") {
    ArchitectureValues values = testing::catalog_model("bert-base").values;
    values["hidden"] = 1000;
    {
      const auto [parameter, message] = error_of(values);
      CHECK(parameter == "heads");
      CHECK(message ==
          "hidden 1000 is not divisible by heads 12 (each head gets hidden / heads dimensions); "
          "use hidden 996 or 1008, or heads that divide 1000");
    }
    values = testing::catalog_model("bert-base").values;
    values["sequence_length"] = 1024;
    {
      const auto [parameter, message] = error_of(values);
      CHECK(parameter == "sequence_length");
      CHECK(message ==
          "sequence_length 1024 exceeds max_positions 512 (rows of the learned position table); "
          "use sequence_length at most 512 or raise max_positions");
    }
    values = testing::catalog_model("bert-base").values;
    values.erase("sequence_length");
    {
      const auto [parameter, message] = error_of(values);
      CHECK(parameter == "sequence_length");
      CHECK(message ==
          "missing parameter 'sequence_length' of transformer_encoder (tokens per sample); add "
          "'sequence_length: <value>' to the model");
    }
    values = testing::catalog_model("bert-base").values;
    values["sequence_length"] = 128;
    values["max_predictions"] = 200;
    {
      const auto [parameter, message] = error_of(values);
      CHECK(parameter == "max_predictions");
      CHECK(message ==
          "max_predictions 200 exceeds sequence_length 128 (a sequence cannot have more masked "
          "positions than tokens); use max_predictions at most 128");
    }
    values.erase("max_predictions");
    values["mean_padded_length"] = 300;
    {
      const auto [parameter, message] = error_of(values);
      CHECK(parameter == "mean_padded_length");
      CHECK(message ==
          "mean_padded_length 300 exceeds sequence_length 128 (batches are padded to at most "
          "sequence_length); use mean_padded_length at most 128");
    }
  }

}  // TEST_SUITE

}  // namespace gpuplan::models

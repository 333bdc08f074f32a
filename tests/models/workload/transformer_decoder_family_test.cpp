#include "models/workload/transformer_decoder_family.h"

#include <doctest/doctest.h>

#include <string>

#include "catalog_models.h"
#include "core/units.h"

namespace gpuplan::models {

using testing::build_catalog_model;
using testing::sum_over;

namespace {

double parameters_of(const Workload& workload, const std::string& prefix) {
  return sum_over(workload, prefix, [](const Op& op) { return op.parameters; });
}

/// The message and parameter of the WorkloadError that building `values` throws.
std::pair<std::string, std::string> error_of(const ArchitectureValues& values) {
  try {
    testing::build("transformer_decoder", values);
  } catch (const WorkloadError& error) {
    return {error.parameter(), error.what()};
  }
  return {"", "no error"};
}

ArchitectureValues llama2_7b_values() { return testing::catalog_model("llama2-7b").values; }

}  // namespace

TEST_SUITE("models.workload.transformer_decoder_family") {
  TEST_CASE("GPT-2 has 124,439,808 parameters with tied embeddings") {
    // wte 50257·768 = 38,597,376; wpe 1024·768 = 786,432
    // per layer: ln_1 1,536 + c_attn 768·2304 + 2304 = 1,771,776 + c_proj 768² + 768 = 590,592
    //            + ln_2 1,536 + c_fc 768·3072 + 3072 = 2,362,368 + c_proj 3072·768 + 768
    //            = 2,360,064 → 7,087,872; · 12 = 85,054,464
    // ln_f 1,536; lm_head tied: 0
    // = 124,439,808 (HF gpt2)
    const Workload workload = build_catalog_model("gpt2");
    CHECK(workload.parameters == doctest::Approx(124'439'808.0).epsilon(0.01));
    CHECK(workload.parameters == 124'439'808.0);
    CHECK(parameters_of(workload, "lm_head") == 0.0);
  }

  TEST_CASE("GPT-2 XL has 1.56 B parameters") {
    // wte 50257·1600 = 80,411,200; wpe 1024·1600 = 1,638,400
    // per layer: LNs 4·1600 = 6,400 + c_attn 1600·4800 + 4800 = 7,684,800
    //            + c_proj 1600² + 1600 = 2,561,600 + c_fc 1600·6400 + 6400 = 10,246,400
    //            + c_proj 6400·1600 + 1600 = 10,241,600 → 30,740,800; · 48 = 1,475,558,400
    // ln_f 3,200 → 1,557,611,200
    const Workload workload = build_catalog_model("gpt2-xl");
    CHECK(workload.parameters == doctest::Approx(1.56 * core::kGiga).epsilon(0.01));
    CHECK(workload.parameters == 1'557'611'200.0);
  }

  TEST_CASE("Llama-2-7B has 6.74 B parameters") {
    // embed_tokens 32000·4096 = 131,072,000; lm_head (untied) the same
    // per layer: q, k, v, o 4·4096² = 67,108,864 + gate, up, down 3·4096·11008 = 135,266,304
    //            + 2 RMSNorm 8,192 → 202,383,360; · 32 = 6,476,267,520
    // final norm 4,096 → 6,738,415,616 (HF meta-llama/Llama-2-7b-hf)
    const Workload workload = build_catalog_model("llama2-7b");
    CHECK(workload.parameters == doctest::Approx(6.74 * core::kGiga).epsilon(0.01));
    CHECK(workload.parameters == 6'738'415'616.0);
  }

  TEST_CASE("Llama-2-13B has 13.0 B parameters") {
    // embeddings 2·32000·5120 = 327,680,000
    // per layer 4·5120² = 104,857,600 + 3·5120·13824 = 212,336,640 + 10,240 = 317,204,480;
    // · 40 = 12,688,179,200; final norm 5,120 → 13,015,864,320
    const Workload workload = build_catalog_model("llama2-13b");
    CHECK(workload.parameters == doctest::Approx(13.0 * core::kGiga).epsilon(0.01));
    CHECK(workload.parameters == 13'015'864'320.0);
  }

  TEST_CASE("Llama-3-8B has 8.03 B parameters with grouped-query attention") {
    // embeddings 2·128256·4096 = 1,050,673,152 (untied)
    // per layer: q, o 2·4096² = 33,554,432; k, v with 8 of 32 heads 2·4096·1024 = 8,388,608;
    //            MLP 3·4096·14336 = 176,160,768; norms 8,192 → 218,112,000; · 32 = 6,979,584,000
    // final norm 4,096 → 8,030,261,248 (HF meta-llama/Meta-Llama-3-8B)
    const Workload workload = build_catalog_model("llama3-8b");
    CHECK(workload.parameters == doctest::Approx(8.03 * core::kGiga).epsilon(0.01));
    CHECK(workload.parameters == 8'030'261'248.0);
    CHECK(parameters_of(workload, "layers.0.attn.qkv") == 4096.0 * (4096.0 + 2.0 * 1024.0));
  }

  TEST_CASE("Nemotron-4 340B: squared-ReLU MLP, its parameters and what relu2 saves") {
    // h = 18,432, 96 heads of 192, 8 key/value heads (1,536 wide), FFN 73,728, vocab 256,000,
    // no biases, untied embeddings, LayerNorm without bias (h per norm).
    // per layer: qkv 18,432·(18,432 + 2·1,536) = 396,361,728; out 18,432² = 339,738,624;
    //            up and down 2·18,432·73,728 = 2,717,908,992; norms 36,864 → 3,454,046,208
    // · 96 = 331,588,435,968; embeddings 2·256,000·18,432 = 9,437,184,000; final norm 18,432
    // → 341,025,638,400 (the report's "340B").
    const Workload w = build_catalog_model("nemotron4-340b");
    CHECK(w.parameters == 341'025'638'400.0);
    CHECK(parameters_of(w, "layers.0.mlp.up") == 18432.0 * 73728.0);
    CHECK(parameters_of(w, "layers.0.mlp.down") == 73728.0 * 18432.0);
    // relu2 at s = 4,096: relu then pow, 2 kernels, 2 FLOP per element of s·f = 301,989,888;
    // one f-wide tensor saved (the ReLU output both backwards read).
    const Op* act = nullptr;
    for (const Op& op : w.ops) {
      if (op.name == "layers.0.mlp.relu2") act = &op;
    }
    REQUIRE(act != nullptr);
    CHECK(act->forward_flop == 2.0 * 301'989'888.0);
    CHECK(act->saved_elements == 301'989'888.0);
    CHECK(act->forward_kernels == 2);
  }

  TEST_CASE("Llama-3-8B at 131,072 tokens: what each loss saves, at the same FLOP") {
    // s = 131,072, h = 4,096, V = 128,256 (one sample, batch 1).
    // cross_entropy: lm_head its input s·h = 536,870,912; the loss the log-probabilities
    //   s·V = 16,810,770,432.
    // fused_cross_entropy: lm_head s·h; the loss the logits and 2 per row for the fp32 lse:
    //   16,810,770,432 + 262,144 = 16,811,032,576.
    // fused_linear_cross_entropy (Liger): lm_head nothing; the loss grad_input s·h = 536,870,912.
    const auto with_loss = [](const std::string& loss) {
      return build_catalog_model("llama3-8b", {{"sequence_length", 131072.0},
                                               {"loss", testing::choice("transformer_decoder", "loss", loss)}});
    };
    const auto saved = [](const Workload& w, const std::string& name) {
      return sum_over(w, name, [](const Op& op) { return op.saved_elements; });
    };
    const Workload plain = with_loss("cross_entropy");
    const Workload fused = with_loss("fused_cross_entropy");
    const Workload liger = with_loss("fused_linear_cross_entropy");
    CHECK(saved(plain, "lm_head") == 536'870'912.0);
    CHECK(saved(plain, "loss") == 16'810'770'432.0);
    CHECK(saved(fused, "lm_head") == 536'870'912.0);
    CHECK(saved(fused, "loss") == 16'811'032'576.0);
    CHECK(saved(liger, "lm_head") == 0.0);
    CHECK(saved(liger, "loss") == 536'870'912.0);
    CHECK(liger.ops.back().forward_kernels == 32);  // 131,072 / 4,096-row chunks
    // The same FLOP: lm_head 2·s·h·V = 137,713,831,378,944 forward and twice that in its
    // backward (Liger runs both gradient GEMMs in forward; the step's total is the same),
    // the loss 5·s·V + s = 84,053,983,232 forward and as much backward.
    const auto flop = [](const Workload& w, const std::string& name) {
      return sum_over(w, name, [](const Op& op) { return op.forward_flop * (1.0 + op.backward_flop_ratio); });
    };
    CHECK(flop(liger, "lm_head") == 3.0 * 137'713'831'378'944.0);
    CHECK(flop(liger, "loss") == 2.0 * 84'053'983'232.0);
    CHECK(liger.training_flop_per_sample() == plain.training_flop_per_sample());
    CHECK(fused.training_flop_per_sample() == plain.training_flop_per_sample());
    CHECK(liger.parameters == plain.parameters);
  }

  TEST_CASE("Gemma-2-9B: head_dim 256 is not hidden / heads; q and the out projection are 16 x 256 wide") {
    // embeddings 256000·3584 = 917,504,000 (tied)
    // per layer: q 3584·(16·256) = 14,680,064; k, v 3584·(8·256) = 7,340,032 each;
    //            o (16·256)·3584 = 14,680,064; MLP 3·3584·14336 = 154,140,672; two RMS norms
    //            7,168 → 198,188,032; · 42 = 8,323,897,344; final norm 3,584
    // → 9,241,404,928 (HF google/gemma-2-9b counts 9,241,705,984: 42·2·3584 = 301,056 more,
    // its post-attention and post-MLP norms, which the family does not have).
    const Workload workload = build_catalog_model("gemma2-9b");
    CHECK(workload.parameters == 9'241'404'928.0);
    CHECK(parameters_of(workload, "layers.0.attn.qkv") == 3584.0 * (4096.0 + 2.0 * 2048.0));
    CHECK(parameters_of(workload, "layers.0.attn.out") == 4096.0 * 3584.0);
    // QKᵀ over the 4096-wide queries: 2·s²·(a·d) FLOP per sample, s = 8192.
    CHECK(sum_over(workload, "layers.0.attn.scores", [](const Op& op) { return op.forward_flop; }) ==
          doctest::Approx(2.0 * 8192.0 * 8192.0 * 4096.0));
    // With head_dim left out, 16 heads of 3584 / 16 = 224: q and o 3584 wide.
    ArchitectureValues derived = testing::catalog_model("gemma2-9b").values;
    derived.erase("head_dim");
    CHECK(parameters_of(testing::build("transformer_decoder", derived), "layers.0.attn.out") == 3584.0 * 3584.0);
    // An explicit odd head_dim cannot rotate pairs.
    ArchitectureValues odd = testing::catalog_model("gemma2-9b").values;
    odd["head_dim"] = 255.0;
    CHECK(error_of(odd) == std::pair<std::string, std::string>{
                               "head_dim", "rotary embeddings rotate pairs of dimensions, but head_dim 255 is odd; "
                                           "use an even head_dim"});
  }

  TEST_CASE("MPT-7B has 6.65 B parameters (ALiBi, no biases, tied)") {
    // wte 50432·4096 = 206,569,472 (tied to the output)
    // per layer: Wqkv 3·4096² = 50,331,648 + out 4096² = 16,777,216
    //            + up, down 2·4096·16384 = 134,217,728 + 2 LN weights 8,192 → 201,334,784
    // · 32 = 6,442,713,088; norm_f 4,096 → 6,649,286,656 (HF mosaicml/mpt-7b)
    const Workload workload = build_catalog_model("mpt-7b");
    CHECK(workload.parameters == doctest::Approx(6.65 * core::kGiga).epsilon(0.01));
    CHECK(workload.parameters == 6'649'286'656.0);
  }

  TEST_CASE("GPT-2 training FLOP per token is 6·N + 12·L·h·s within 2 %") {
    // Kaplan et al. 2020 sec. 2.1 / Hoffmann et al. 2022 app. F: 6·N + 12·L·h·s per token,
    // N = the weights every token multiplies: all parameters but the wte and wpe lookups, plus
    // the output projection (the tied wte, 50257·768):
    // N = 124,439,808 − 786,432 (wpe) = 123,653,376
    // 6·N = 741,920,256; 12·12·768·1024 = 113,246,208 → 855,166,464 FLOP/token
    const Workload workload = build_catalog_model("gpt2");
    const double n = 124'439'808.0 - 1024.0 * 768.0;
    const double expected = 6.0 * n + 12.0 * 12.0 * 768.0 * 1024.0;
    CHECK(expected == 855'166'464.0);
    const double per_token = workload.training_flop_per_sample() / workload.tokens_per_sample;
    CHECK(per_token == doctest::Approx(expected).epsilon(0.02));
  }

  TEST_CASE("Llama-2-7B training FLOP per token is 6·N + 12·L·h·s within 2 %") {
    // N = 6,738,415,616 − 131,072,000 (embed_tokens; lm_head is counted) = 6,607,343,616
    // 6·N = 39,644,061,696; 12·32·4096·4096 = 6,442,450,944 → 46,086,512,640 FLOP/token
    const Workload workload = build_catalog_model("llama2-7b");
    const double expected =
        6.0 * (6'738'415'616.0 - 32000.0 * 4096.0) + 12.0 * 32.0 * 4096.0 * 4096.0;
    CHECK(expected == 46'086'512'640.0);
    const double per_token = workload.training_flop_per_sample() / workload.tokens_per_sample;
    CHECK(per_token == doctest::Approx(expected).epsilon(0.02));
  }

  TEST_CASE("a GPT-2 layer saves 17·s·h + 2.5·a·s² elements, as Korthikanti's") {
    // s = 1024, h = 768, a = 12: 17·1024·768 + 2.5·12·1024² = 13,369,344 + 31,457,280
    const Workload workload = build_catalog_model("gpt2");
    CHECK(sum_over(workload, "layers.11.", [](const Op& op) { return op.saved_elements; }) ==
          doctest::Approx(44'826'624.0));
  }

  TEST_CASE("a Llama layer saves 10·s·h + 4·s·f + a·s²") {
    // No dropout: the PV matmul saves the softmax output softmax already saved (a·s²) and V.
    // RMSNorm (HF, eager) keeps input and normalised tensor: 2·s·h each, two of them = 4·s·h;
    // qkv input s·h; Q, K 2·s·h; V s·h; o_proj input s·h; gate/up input s·h → 10·s·h.
    // SwiGLU keeps gate, SiLU output and up 3·s·f; down_proj input s·f → 4·s·f.
    // s = 4096, h = 4096, f = 11008, a = 32:
    // 167,772,160 + 180,355,072 + 536,870,912 = 885,000,192
    const Workload workload = build_catalog_model("llama2-7b");
    CHECK(sum_over(workload, "layers.0.", [](const Op& op) { return op.saved_elements; }) ==
          doctest::Approx(885'000'192.0));
  }

  TEST_CASE("eager kernels per layer: GPT-2 18, Llama-2 39, Llama-3 (GQA) 41, MPT 16") {
    const auto layer_kernels = [](const std::string& model) {
      return sum_over(build_catalog_model(model), "layers.0.",
                      [](const Op& op) { return static_cast<double>(op.forward_kernels); });
    };
    // GPT-2: ln 1, c_attn 1, QKᵀ 1, scale 1, mask 1, softmax 1, dropout 1, PV 1, merge 1,
    // c_proj 1, dropout 1, add 1, ln 1, c_fc 1, GELU 1, c_proj 1, dropout 1, add 1 = 18
    CHECK(layer_kernels("gpt2") == 18.0);
    // Llama-2: RMSNorm 6, q/k/v 3, rotary 10, QKᵀ 1, scale 1, mask 1, softmax 1, PV 1, merge 1,
    // o_proj 1, add 1, RMSNorm 6, gate/up 2, SiLU·up 2, down 1, add 1 = 39
    CHECK(layer_kernels("llama2-7b") == 39.0);
    // Llama-3 adds repeat_kv for k and v: 41
    CHECK(layer_kernels("llama3-8b") == 41.0);
    // MPT: LN 1, Wqkv 1, QKᵀ 1, scale 1, ALiBi 1, mask 1, softmax 1, PV 1, merge 1, out 1,
    // add 1, LN 1, up 1, GELU 1, down 1, add 1 = 16
    CHECK(layer_kernels("mpt-7b") == 16.0);
  }

  TEST_CASE("the decoder's defaults are Llama's, so an inline llama2-7b needs no style keys") {
    const Workload inline_model =
        testing::build("transformer_decoder", {{"layers", 32},
                                               {"hidden", 4096},
                                               {"heads", 32},
                                               {"ffn_hidden", 11008},
                                               {"vocab", 32000},
                                               {"sequence_length", 4096}});
    const Workload catalog = build_catalog_model("llama2-7b");
    CHECK(inline_model.parameters == catalog.parameters);
    CHECK(inline_model.training_flop_per_sample() == catalog.training_flop_per_sample());
    CHECK(inline_model.ops.size() == catalog.ops.size());
    CHECK(inline_model.name == "inline");
  }

  TEST_CASE("sequence length scales the attention quadratically and the rest linearly") {
    // Attention FLOP per layer 4·s²·h: doubling s quadruples it.
    const auto attention_flop = [](double s) {
      double flop = 0.0;
      for (const Op& op : build_catalog_model("llama2-7b", {{"sequence_length", s}}).ops) {
        flop += op.op_class == OpClass::kAttention ? op.forward_flop : 0.0;
      }
      return flop;
    };
    CHECK(attention_flop(2048.0) == doctest::Approx(4.0 * attention_flop(1024.0)));
    CHECK(attention_flop(1024.0) == doctest::Approx(32.0 * 4.0 * 1024.0 * 1024.0 * 4096.0));
    const Workload short_model = build_catalog_model("llama2-7b", {{"sequence_length", 1024}});
    CHECK(short_model.tokens_per_sample == 1024.0);
    CHECK(short_model.input_bytes_per_sample == 2.0 * 8.0 * 1024.0);  // input_ids + labels
    CHECK(short_model.is_language_model);
  }

  TEST_CASE("learned positions own a table of max_positions rows") {
    // GPT-2 at s = 512 still has n_positions = 1024 rows.
    const Workload workload = build_catalog_model("gpt2", {{"sequence_length", 512}});
    CHECK(parameters_of(workload, "embed.positions") == 1024.0 * 768.0);
    CHECK(workload.parameters == 124'439'808.0);
  }

  TEST_CASE("bad parameters name the key and say how to fix it") {
    ArchitectureValues values = llama2_7b_values();
    values["hidden"] = 1000;
    values["heads"] = 16;
    values["kv_heads"] = 16;
    CHECK(error_of(values) ==
          std::pair<std::string, std::string>{
              "heads",
              "hidden 1000 is not divisible by heads 16 (each head gets hidden / heads "
              "dimensions); use hidden 992 or 1008, or heads that divide 1000"});

    values = llama2_7b_values();
    values.erase("vocab");
    CHECK(error_of(values) ==
          std::pair<std::string, std::string>{
              "vocab",
              "missing parameter 'vocab' of transformer_decoder (vocabulary size in tokens); add "
              "'vocab: <value>' to the model"});

    values = llama2_7b_values();
    values["kv_heads"] = 5;
    CHECK(error_of(values) ==
          std::pair<std::string, std::string>{
              "kv_heads",
              "heads 32 is not divisible by kv_heads 5 (grouped-query attention shares each "
              "key/value head among heads / kv_heads query heads); use kv_heads 4 or 8"});

    values = llama2_7b_values();
    values["kv_heads"] = 64;
    CHECK(error_of(values) ==
          std::pair<std::string, std::string>{
              "kv_heads",
              "kv_heads 64 exceeds heads 32; use at most 32 (kv_heads = heads is multi-head "
              "attention)"});

    values = testing::catalog_model("gpt2").values;
    values["sequence_length"] = 2048;
    CHECK(error_of(values) ==
          std::pair<std::string, std::string>{
              "sequence_length",
              "sequence_length 2048 exceeds max_positions 1024 (rows of the learned position "
              "table); use sequence_length at most 1024 or raise max_positions"});

    values = llama2_7b_values();
    values["hidden"] = 4064;  // 32 heads of 127 dimensions
    CHECK(error_of(values) ==
          std::pair<std::string, std::string>{
              "heads",
              "rotary embeddings rotate pairs of dimensions, but the head dimension hidden / heads "
              "= 127 is odd; choose heads so that hidden / heads is even"});

    values = llama2_7b_values();
    values["hiden"] = 4096;
    CHECK(error_of(values) ==
          std::pair<std::string, std::string>{
              "hiden", "unknown parameter 'hiden' of transformer_decoder; did you mean hidden?"});
  }

}  // TEST_SUITE

}  // namespace gpuplan::models

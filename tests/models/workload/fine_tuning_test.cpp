/// \file fine_tuning_test.cpp
/// LoRA/QLoRA op tables against hand counts: adapter parameters as peft's
/// print_trainable_parameters() reports them, frozen bases, backward FLOP of frozen
/// layers, the dequantization ops of a quantized base, and the memory of a 7 B QLoRA run.

#include "models/workload/fine_tuning.h"

#include <doctest/doctest.h>

#include "../test_gpus.h"
#include "catalog_models.h"
#include "models/gpu/op_time.h"
#include "models/memory/footprint.h"
#include "models/workload/attention_kernel.h"
#include "models/workload/moe_expert_shard.h"

using namespace gpuplan::models;

namespace {
FineTuningSpec lora(int rank, std::vector<LoraTarget> targets = {}) {
  FineTuningSpec spec;
  spec.method = FineTuningMethod::kLora;
  spec.rank = rank;
  spec.targets = std::move(targets);
  return spec;
}
FineTuningSpec qlora(int rank) {
  FineTuningSpec spec = lora(rank);
  spec.method = FineTuningMethod::kQlora;
  spec.base_precision = BasePrecision::kNf4;
  return spec;
}
const Op& op_named(const Workload& w, const std::string& name) {
  for (const Op& op : w.ops) {
    if (op.name == name) {
      return op;
    }
  }
  FAIL("no op " << name);
  return w.ops.front();
}
bool has_op(const Workload& w, const std::string& name) {
  for (const Op& op : w.ops) {
    if (op.name == name) {
      return true;
    }
  }
  return false;
}
/// Llama-2-7B: 6,738,415,616 parameters (HF config.json figures, workload test).
constexpr double kLlama2Parameters = 6'738'415'616.0;
}  // namespace

TEST_SUITE("models.workload.fine_tuning") {
  TEST_CASE("LoRA r=16 on every projection of a Llama-2-7B layer: 1,249,280 adapter parameters") {
    const Workload base = testing::build_catalog_model("llama2-7b");
    const Workload w = with_fine_tuning(base, lora(16), Precision::kBf16Amp);
    // q, k, v, o: 16 x (4096 + 4096) = 131,072 each; gate, up, down: 16 x (4096 + 11008)
    // = 241,664 each; one layer 1,249,280; 32 layers 39,976,960 (peft reports
    // "trainable params: 39,976,960" for this configuration).
    const double layer0 = testing::sum_over(w, "layers.0.", [](const Op& op) { return op.parameters; });
    CHECK(layer0 == doctest::Approx(1'249'280.0));
    CHECK(w.parameters == doctest::Approx(39'976'960.0));
    CHECK(w.frozen_parameters == doctest::Approx(kLlama2Parameters));
    CHECK(op_named(w, "layers.0.attn.qkv.k.lora_a").parameters == doctest::Approx(16.0 * 4096));
    CHECK(op_named(w, "layers.0.mlp.gate_up.gate.lora_b").parameters == doctest::Approx(11008.0 * 16));
    // Full fine-tuning leaves the op table as it was.
    const Workload full = with_fine_tuning(base, FineTuningSpec{}, Precision::kBf16Amp);
    CHECK(full.parameters == doctest::Approx(kLlama2Parameters));
    CHECK(full.ops.size() == base.ops.size());
  }

  TEST_CASE("targets [q, v] at r=8 on Llama-3-8B's grouped-query layers: 3,407,872") {
    // q 8 x (4096 + 4096) = 65,536; v 8 x (4096 + 1024) = 40,960 (8 key/value heads of
    // 128); x 32 layers = 3,407,872, peft's figure for target_modules [q_proj, v_proj].
    const Workload w =
        with_fine_tuning(testing::build_catalog_model("llama3-8b"), lora(8, {LoraTarget::kQ, LoraTarget::kV}),
                         Precision::kBf16Amp);
    CHECK(w.parameters == doctest::Approx(3'407'872.0));
    CHECK_FALSE(has_op(w, "layers.0.attn.qkv.k.lora_a"));
    CHECK_FALSE(has_op(w, "layers.0.attn.out.o.lora_a"));
    // An untargeted frozen linear needs no saved input (dx = dy·W); a targeted one keeps
    // it for its adapter, and the adapter's B saves x·Aᵀ (s x r).
    const double s = 8192.0;
    CHECK(op_named(w, "layers.0.attn.out").saved_elements == 0.0);
    CHECK(op_named(w, "layers.0.mlp.down").saved_elements == 0.0);
    CHECK(op_named(w, "layers.0.attn.qkv").saved_elements == doctest::Approx(s * 4096));
    CHECK(op_named(w, "layers.0.attn.qkv.v.lora_b").saved_elements == doctest::Approx(s * 8));
    CHECK(op_named(w, "layers.0.attn.qkv.v.lora_a").saved_elements == 0.0);
  }

  TEST_CASE("Gemma-2-9B's q is 16 x 256 = 4096 wide and k, v 8 x 256 = 2048, not split from hidden 3584") {
    // r = 8 on [q, k, v, o]: q 8 x (3584 + 4096) = 61,440; k and v 8 x (3584 + 2048) =
    // 45,056 each; o 8 x (4096 + 3584) = 61,440; 212,992 per layer x 42 = 8,945,664.
    const Workload base = testing::build_catalog_model("gemma2-9b", {{"sequence_length", 512}});
    const auto spec = lora(8, {LoraTarget::kQ, LoraTarget::kK, LoraTarget::kV, LoraTarget::kO});
    const Workload eager = with_fine_tuning(base, spec, Precision::kBf16);
    CHECK(op_named(eager, "layers.0.attn.qkv.q.lora_b").parameters == doctest::Approx(8.0 * 4096));
    CHECK(op_named(eager, "layers.0.attn.qkv.k.lora_b").parameters == doctest::Approx(8.0 * 2048));
    CHECK(op_named(eager, "layers.0.attn.out.o.lora_a").parameters == doctest::Approx(4096.0 * 8));
    CHECK(eager.parameters == doctest::Approx(8'945'664.0));
    // The same with flash's fused op in place of the scores (q read from its Q, K, V input).
    const Workload flash = with_fine_tuning(with_attention_kernel(base, AttentionKernel::kFlash), spec, Precision::kBf16);
    CHECK(flash.parameters == doctest::Approx(8'945'664.0));
  }

  TEST_CASE("QLoRA: a quantized projection saves its input, adapter or not (bitsandbytes MatMul4Bit)") {
    const FineTuningSpec spec = [] {
      FineTuningSpec q = lora(8, {LoraTarget::kQ, LoraTarget::kV});
      q.method = FineTuningMethod::kQlora;
      q.base_precision = BasePrecision::kNf4;
      return q;
    }();
    const Workload w = with_fine_tuning(testing::build_catalog_model("llama3-8b"), spec, Precision::kBf16);
    const Workload lora_w = with_fine_tuning(testing::build_catalog_model("llama3-8b"),
                                             lora(8, {LoraTarget::kQ, LoraTarget::kV}), Precision::kBf16);
    // Llama-3-8B, s = 8192 tokens, h = 4096, f = 14336: the o projection keeps its s x h
    // input, the gate/up GEMM its s x h input, down its s x f input; LoRA keeps none of them.
    const double s = 8192.0;
    CHECK(op_named(w, "layers.0.attn.out").saved_elements == doctest::Approx(s * 4096));
    CHECK(op_named(w, "layers.0.mlp.gate_up").saved_elements == doctest::Approx(s * 4096));
    CHECK(op_named(w, "layers.0.mlp.down").saved_elements == doctest::Approx(s * 14336));
    CHECK(op_named(w, "layers.0.attn.qkv").saved_elements == doctest::Approx(s * 4096));
    CHECK(op_named(lora_w, "layers.0.mlp.down").saved_elements == 0.0);
    // Per layer that is (2·4096 + 14336) x 8192 = 184,549,376 elements more than LoRA's.
    double qlora_saved = 0.0;
    double lora_saved = 0.0;
    for (const Op& op : w.ops) qlora_saved += op.saved_elements;
    for (const Op& op : lora_w.ops) lora_saved += op.saved_elements;
    CHECK(qlora_saved - lora_saved == doctest::Approx(32.0 * 184'549'376.0));
    // The frozen head stays 16-bit (bitsandbytes keeps lm_head unquantized): nothing saved.
    CHECK(op_named(w, "lm_head").saved_elements == 0.0);
  }

  TEST_CASE("LoRA with flash attention: a frozen out projection leaves O saved by the fused op") {
    // Llama-2-7B at s = 4096, h = 4096: flash's backward reads its output O (s x h), which the
    // out projection saved as its input; frozen and without an adapter it saves nothing, so
    // the fused op keeps it: 3·s·h + the log-sum-exp + s·h.
    const Workload flash = with_attention_kernel(testing::build_catalog_model("llama2-7b"), AttentionKernel::kFlash);
    const double sh = 4096.0 * 4096.0;
    const double fused = op_named(flash, "layers.0.attn.fused").saved_elements;
    const Workload qv = with_fine_tuning(flash, lora(8, {LoraTarget::kQ, LoraTarget::kV}), Precision::kBf16);
    CHECK(op_named(qv, "layers.0.attn.out").saved_elements == 0.0);
    CHECK(op_named(qv, "layers.31.attn.fused").saved_elements == doctest::Approx(fused + sh));
    // With an adapter on o the projection keeps O as its input: counted there, once.
    const Workload o = with_fine_tuning(flash, lora(8, {LoraTarget::kO}), Precision::kBf16);
    CHECK(op_named(o, "layers.0.attn.out").saved_elements == doctest::Approx(sh));
    CHECK(op_named(o, "layers.0.attn.fused").saved_elements == doctest::Approx(fused));
  }

  TEST_CASE("a fused qkv GEMM carries one adapter: GPT-2 c_attn at r=8 is 294,912") {
    // 8 x (768 + 2304) = 24,576 per layer x 12 (peft, target_modules ["c_attn"]).
    const Workload w = with_fine_tuning(testing::build_catalog_model("gpt2"), lora(8, {LoraTarget::kQ}),
                                        Precision::kBf16Amp);
    CHECK(w.parameters == doctest::Approx(294'912.0));
    CHECK(has_op(w, "layers.11.attn.qkv.qkv.lora_a"));
    // A GELU MLP has no gate projection; lora_targets_of lists what the model has.
    CHECK(lora_targets_of(w) == std::vector<LoraTarget>{LoraTarget::kQ, LoraTarget::kK, LoraTarget::kV,
                                                        LoraTarget::kO, LoraTarget::kUp, LoraTarget::kDown});
    CHECK(lora_targets_of(testing::build_catalog_model("resnet50")).empty());
    CHECK(lora_max_rank(testing::build_catalog_model("gpt2"), lora(8)) == doctest::Approx(768.0));
  }

  TEST_CASE("frozen layers pass gradients to their inputs only") {
    const Workload base = testing::build_catalog_model("llama2-7b");
    const Workload w = with_fine_tuning(base, lora(16), Precision::kBf16Amp);
    for (const char* name : {"layers.3.attn.qkv", "layers.3.mlp.down", "lm_head"}) {
      const Op& frozen = op_named(w, name);
      CHECK(frozen.parameters == 0.0);
      CHECK(frozen.backward_flop_ratio == 1.0);  // grad input, no grad weight
      CHECK(frozen.frozen_parameters == doctest::Approx(op_named(base, name).parameters));
      CHECK(frozen.frozen_element_bytes == 2.0);  // bf16 base
    }
    CHECK(op_named(w, "layers.3.attn.qkv.q.lora_b").backward_flop_ratio == 2.0);
    // Model FLOP per token: the base's 6·N falls to 4·N (no weight gradients), the adapters
    // add 6 x their parameters; at s = 4096 the attention and memory-bound ops are the rest.
    const double s = 4096.0;
    const double linear_flop = [&] {
      double f = 0.0;
      for (const Op& op : base.ops) {
        if (op.op_class == OpClass::kMatmul) f += op.forward_flop;
      }
      return f;
    }();
    const double drop = base.training_flop_per_sample() - w.training_flop_per_sample();
    // Base linears lose one forward's worth (their weight gradient); adapters add 6·P·s.
    CHECK(drop == doctest::Approx(linear_flop - 6.0 * w.parameters * s).epsilon(0.002));
    // The frozen GEMM launches one backward kernel per forward kernel (no weight gradient).
    const GpuSpec a100 = testing::ampere_like();
    TrainingSpec t;
    t.precision = Precision::kBf16Amp;
    const OpWork frozen = op_work(op_named(w, "layers.3.mlp.down"), 1.0, a100, t, GpuEfficiency::defaults(), false);
    CHECK(frozen.backward.kernels == 1);
  }

  TEST_CASE("QLoRA: NF4 layer weights with double quantization, dequantized per pass") {
    CHECK(base_weight_element_bytes(BasePrecision::kNf4, 4096.0, true) == doctest::Approx(4.127 / 8.0).epsilon(1e-4));
    // without double quantization: 4 bits + one fp32 absmax per 64 weights = 4.5 bits.
    CHECK(base_weight_element_bytes(BasePrecision::kNf4, 4096.0, false) == doctest::Approx(4.5 / 8.0));
    CHECK(base_weight_element_bytes(BasePrecision::kInt8, 4096.0, true) == doctest::Approx(1.0 + 4.0 / 4096));
    CHECK(base_weight_element_bytes(BasePrecision::kBf16, 4096.0, false) == 2.0);
    CHECK_THROWS_AS(base_weight_element_bytes(BasePrecision::kNf4, 0.0, true), std::invalid_argument);

    const Workload w = with_fine_tuning(testing::build_catalog_model("llama2-7b"), qlora(16), Precision::kBf16Amp);
    const Op& dequant = op_named(w, "layers.0.mlp.gate_up.dequant");
    const double gate_up = 4096.0 * 2 * 11008;
    // Double quantization: the 8-bit absmax is dequantized (1 B in, 4 B out per 64 weights)
    // and offset (4 B in, 4 B out) before the 4-bit kernel reads 0.5 B + the fp32 absmax
    // (4 B per 64) and writes 2 B: 0.5 + 17/64 + 2 = 2.765625 B per weight, 3 kernels per matrix.
    CHECK(dequant.pass_bytes == doctest::Approx(gate_up * 2.765625));
    CHECK(dequant.forward_kernels == 6);  // gate and up are two weights, 3 kernels each
    CHECK(dequant.forward_flop == 0.0);   // not model FLOP
    // The head and the embeddings stay bf16 (bitsandbytes skips lm_head).
    CHECK_FALSE(has_op(w, "lm_head.dequant"));
    CHECK(op_named(w, "lm_head").frozen_element_bytes == 2.0);
    // The dequantization's traffic does not grow with the batch, and backward repeats it.
    const GpuSpec a100 = testing::ampere_like();
    TrainingSpec t;
    t.precision = Precision::kBf16Amp;
    const OpWork one = op_work(dequant, 1.0, a100, t, GpuEfficiency::defaults(), false);
    const OpWork eight = op_work(dequant, 8.0, a100, t, GpuEfficiency::defaults(), false);
    CHECK(one.forward.bytes == doctest::Approx(dequant.pass_bytes));
    CHECK(eight.forward.bytes == doctest::Approx(one.forward.bytes));
    CHECK(one.backward.bytes == doctest::Approx(dequant.pass_bytes));
  }

  TEST_CASE("QLoRA on Mixtral-8x7B: the experts and router are NF4 too (bitsandbytes replaces every nn.Linear)") {
    // transformers' replace_with_bnb_linear quantizes each expert's w1/w2/w3 and the router
    // gate with the attention projections; the adapters go on q, k, v, o only.
    FineTuningSpec spec = qlora(16);
    spec.targets = {LoraTarget::kQ, LoraTarget::kK, LoraTarget::kV, LoraTarget::kO};
    const Workload w = with_fine_tuning(testing::build_catalog_model("mixtral-8x7b"), spec, Precision::kBf16Amp);
    // Per layer: q, o 4096² each, k, v 4096 x 1024 each, router 4096 x 8, experts 8 x 3 x
    // 4096 x 14336: 1,451,261,952 weights, x 32 layers; embeddings, head and norms stay bf16.
    const double quantized = 32.0 * 1'451'261'952.0;
    CHECK(w.frozen_parameters == doctest::Approx(46'702'792'704.0));
    CHECK(w.frozen_weight_bytes() ==
          doctest::Approx(quantized * kNf4BitsPerWeight / 8.0 + (46'702'792'704.0 - quantized) * 2.0));
    CHECK(w.frozen_weight_bytes() / 1e9 == doctest::Approx(24.49).epsilon(0.005));  // 23.96 + 0.53 GB
    // Each expert's down matrix (14336 -> 4096) is dequantized before its GEMM: 8 matrices,
    // 3 kernels each with double quantization.
    const Op& down = op_named(w, "layers.0.mlp.experts_down.dequant");
    CHECK(down.pass_bytes == doctest::Approx(8.0 * 4096 * 14336 * 2.765625));
    CHECK(down.forward_kernels == 24);
    CHECK(has_op(w, "layers.0.mlp.router.dequant"));
    CHECK_FALSE(has_op(w, "lm_head.dequant"));
    // Over 8 expert-parallel ranks each dequantizes its one expert's matrix: 3 kernels, an
    // eighth of the bytes; the router's (replicated) stays whole.
    const Workload rank = expert_parallel_rank_workload(w, 8, 1.0);
    const Op& rank_down = op_named(rank, "layers.0.mlp.experts_down.dequant");
    CHECK(rank_down.pass_bytes == doctest::Approx(4096.0 * 14336 * 2.765625));
    CHECK(rank_down.forward_kernels == 3);
    CHECK(op_named(rank, "layers.0.mlp.router.dequant").pass_bytes ==
          doctest::Approx(op_named(w, "layers.0.mlp.router.dequant").pass_bytes));
  }

  TEST_CASE("LoRA all_linear on Mixtral-8x7B: an adapter per expert, run on the routed token copies") {
    const Workload base = testing::build_catalog_model("mixtral-8x7b");
    const Workload w = with_fine_tuning(base, lora(16), Precision::kBf16Amp);
    // Per layer: q, o 16 x (4096 + 4096) = 131,072 each, k, v 16 x (4096 + 1024) = 81,920
    // each (425,984); each of 8 experts' w1, w3 16 x (4096 + 14336) = 294,912 and w2 the same
    // (884,736 an expert, 7,077,888 the layer's): 7,503,872 a layer, 240,123,904 over 32. The
    // router (4096 x 8) is not adapted: no LoRA target names it.
    const double layer0 = testing::sum_over(w, "layers.0.", [](const Op& op) { return op.parameters; });
    CHECK(layer0 == doctest::Approx(7'503'872.0));
    CHECK(w.parameters == doctest::Approx(240'123'904.0));
    const Op& gate_a = op_named(w, "layers.0.mlp.experts_gate_up.gate.lora_a");
    CHECK(gate_a.parameters == doctest::Approx(8.0 * 4096 * 16));
    CHECK(gate_a.experts == 8.0);
    CHECK(gate_a.routed_tokens);
    // The 2 routed copies of each token go through one expert's adapter each: 2 x 4096 x 16 MAC
    // per copy, 2 copies a token, 4096 tokens a sample.
    const double tokens = base.ops.front().output_elements / 4096.0;
    CHECK(gate_a.forward_flop == doctest::Approx(2.0 * 2.0 * tokens * 4096 * 16));
    CHECK(op_named(w, "layers.0.mlp.experts_down.down.lora_b").parameters == doctest::Approx(8.0 * 16 * 4096));
    CHECK_FALSE(has_op(w, "layers.0.mlp.router.lora_a"));
    // The experts are valid targets by name: [gate, up, down] adapts them alone.
    const Workload mlp = with_fine_tuning(base, lora(16, {LoraTarget::kGate, LoraTarget::kUp, LoraTarget::kDown}),
                                          Precision::kBf16Amp);
    CHECK(mlp.parameters == doctest::Approx(32.0 * 7'077'888.0));
  }

  TEST_CASE("LoRA on a shared expert (Mixtral's shape with one, DeepSeek-style): an ordinary linear, one adapter") {
    const Workload w = with_fine_tuning(testing::build_catalog_model("mixtral-8x7b", {{"shared_experts", 1}}),
                                        lora(8, {LoraTarget::kDown}), Precision::kBf16Amp);
    // The shared expert's down (14336 -> 4096) at r=8 is 8 x (14336 + 4096) = 147,456; the 8
    // routed experts' 8 x 147,456 = 1,179,648.
    CHECK(testing::sum_over(w, "layers.0.mlp.shared_down.", [](const Op& op) { return op.parameters; }) ==
          doctest::Approx(147'456.0));
    CHECK(testing::sum_over(w, "layers.0.mlp.experts_down.", [](const Op& op) { return op.parameters; }) ==
          doctest::Approx(8.0 * 147'456.0));
    CHECK(op_named(w, "layers.0.mlp.shared_down.down.lora_a").experts == 0.0);
    CHECK_FALSE(op_named(w, "layers.0.mlp.shared_down.down.lora_a").routed_tokens);
  }

  TEST_CASE("dequantize_work: bitsandbytes' kernels and bytes per weight") {
    // nf4 without double quantization: 0.5 B packed + 4/64 B fp32 absmax in, 2 B bf16 out.
    const DequantizeWork single = dequantize_work(BasePrecision::kNf4, 4096.0, false, 2.0);
    CHECK(single.bytes_per_weight == doctest::Approx(2.5625));
    CHECK(single.kernels_per_matrix == 1);
    const DequantizeWork nested = dequantize_work(BasePrecision::kNf4, 4096.0, true, 2.0);
    CHECK(nested.bytes_per_weight == doctest::Approx(2.765625));
    CHECK(nested.kernels_per_matrix == 3);
    // int8: the stored byte and the row scale in, 2 B out.
    CHECK(dequantize_work(BasePrecision::kInt8, 4096.0, false, 2.0).bytes_per_weight ==
          doctest::Approx(3.0 + 4.0 / 4096));
    CHECK_THROWS_AS(dequantize_work(BasePrecision::kNf4, 0.0, false, 2.0), std::invalid_argument);
  }

  TEST_CASE("the dequantization of Llama-2-7B's gate/up on an A10G, by hand: 1,217.1 us per pass") {
    // litgpt's bnb.nf4 (no double quantization), bf16-true. gate and up: 2 x 11008 x 4096 =
    // 90,177,536 weights x 2.5625 B = 231,079,936 B per pass; A10G 600 GB/s (NVIDIA A10G
    // datasheet, catalogs/gpus.yaml) at a streaming share of 0.795 = 477 GB/s, and bitsandbytes'
    // NF4 kernel at 0.4 of that: 190.8 GB/s, 1,211.11 us, plus two kernels at the 3 us fixed
    // cost: 1,217.11 us. The same again in backward.
    FineTuningSpec spec = qlora(32);
    spec.targets = {LoraTarget::kQ, LoraTarget::kV};
    spec.double_quantization = false;
    const Workload w = with_fine_tuning(testing::build_catalog_model("llama2-7b"), spec, Precision::kBf16);
    const Op& dequant = op_named(w, "layers.0.mlp.gate_up.dequant");
    CHECK(dequant.pass_bytes == doctest::Approx(231'079'936.0));
    CHECK(dequant.nf4_dequantize);
    GpuSpec a10g = testing::ampere_like();
    a10g.memory_bytes_per_s = gpuplan::core::gigabytes_per_s(600);
    TrainingSpec t;
    t.batch_size = 2;
    t.precision = Precision::kBf16;
    // The shares are set here, not read from the fitted defaults, so a refit does not move
    // this hand computation.
    GpuEfficiency e = GpuEfficiency::defaults();
    e.memory_bandwidth = 0.795;
    e.nf4_dequantize_relative_to_stream = 0.4;
    REQUIRE(e.kernel_fixed_s == doctest::Approx(gpuplan::core::microseconds(3.0)));
    const OpWork work = op_work(dequant, 2.0, a10g, t, e, false);
    CHECK(work.forward.gpu_time_s == doctest::Approx(gpuplan::core::microseconds(1217.11)).epsilon(1e-4));
    CHECK(work.backward.gpu_time_s == doctest::Approx(gpuplan::core::microseconds(1217.11)).epsilon(1e-4));
    // torch.compile does not fuse bitsandbytes' kernel: the same bytes and time compiled (a
    // trial found the default compiled share halving them).
    TrainingSpec compiled = t;
    compiled.framework_overhead = FrameworkOverhead::kCompiled;
    CHECK(op_work(dequant, 2.0, a10g, compiled, e, false).forward.gpu_time_s ==
          doctest::Approx(work.forward.gpu_time_s));
    // int8's dequantization is not bitsandbytes' NF4 kernel: it streams at the copy rate,
    // 90,177,536 x (3 + 4/4096) B = 270,620,672 B at 477 GB/s, 567.34 us, plus one kernel.
    spec.method = FineTuningMethod::kQlora;
    spec.base_precision = BasePrecision::kInt8;
    const Workload w8 = with_fine_tuning(testing::build_catalog_model("llama2-7b"), spec, Precision::kBf16);
    const Op& int8 = op_named(w8, "layers.0.mlp.gate_up.dequant");
    CHECK_FALSE(int8.nf4_dequantize);
    CHECK(op_work(int8, 2.0, a10g, t, e, false).forward.gpu_time_s ==
          doctest::Approx(gpuplan::core::microseconds(567.34 + 2 * 3.0)).epsilon(1e-4));
  }

  TEST_CASE("memory of a 7 B QLoRA run: NF4 base, bf16 rest, adapters with AdamW") {
    const Workload w = with_fine_tuning(testing::build_catalog_model("llama2-7b"), qlora(16), Precision::kBf16Amp);
    TrainingSpec t;
    t.batch_size = 1;
    t.precision = Precision::kBf16Amp;
    t.optimizer = Optimizer::kAdamW;
    const MemoryBreakdown m = training_memory(w, t, MemoryModelParams::defaults());
    // Layer projections: 32 x (4·4096² + 3·4096·11008) = 6,476,005,376 weights at
    // 4.127 bits; embeddings, lm_head and norms (262,410,240) in bf16; the 39,976,960 fp32
    // adapters.
    const double quantized = 6'476'005'376.0;
    const double bf16_rest = kLlama2Parameters - quantized;
    const double adapters = 39'976'960.0;
    CHECK(bf16_rest == doctest::Approx(262'410'240.0));
    // The adapters: fp32 weights plus autocast's 16-bit copy of them (4 + 2 B).
    const double weights = quantized * kNf4BitsPerWeight / 8.0 + bf16_rest * 2.0 + adapters * (4.0 + 2.0);
    CHECK(m.weights_bytes == doctest::Approx(weights));
    CHECK(m.weights_bytes / 1e9 == doctest::Approx(4.11).epsilon(0.005));  // 3.34 + 0.52 + 0.24 GB
    CHECK(m.gradients_bytes == doctest::Approx(adapters * 4.0));
    // AdamW's two fp32 moments, for the adapters only.
    CHECK(m.optimizer_state_bytes == doctest::Approx(adapters * 8.0));
    // The workspace holds the largest dequantized matrix beside cuBLAS's: gate or up (and
    // down), 11008 x 4096 in bf16 = 90,177,536 B.
    CHECK(dequantized_weight_bytes(w, Precision::kBf16Amp) == doctest::Approx(90'177'536.0));
    CHECK(m.workspace_bytes == doctest::Approx(MemoryModelParams::defaults().workspace_bytes + 90'177'536.0));
    // Without double quantization the projections take 4.5 bits: 6,476,005,376 x 0.375 / 8 B more.
    FineTuningSpec single = qlora(16);
    single.double_quantization = false;
    const Workload w_single = with_fine_tuning(testing::build_catalog_model("llama2-7b"), single, Precision::kBf16Amp);
    CHECK(w_single.frozen_weight_bytes() - w.frozen_weight_bytes() ==
          doctest::Approx(quantized * (4.5 - kNf4BitsPerWeight) / 8.0));
    // A bf16 LoRA base is not dequantized: no extra workspace.
    CHECK(dequantized_weight_bytes(with_fine_tuning(testing::build_catalog_model("llama2-7b"), lora(16),
                                                    Precision::kBf16Amp),
                                   Precision::kBf16Amp) == 0.0);
  }

  TEST_CASE("bad specs are refused") {
    const Workload llama = testing::build_catalog_model("llama2-7b");
    CHECK_THROWS_AS(with_fine_tuning(llama, lora(0), Precision::kBf16Amp), std::invalid_argument);
    CHECK_THROWS_AS(with_fine_tuning(testing::build_catalog_model("resnet50"), lora(8), Precision::kBf16Amp),
                    std::invalid_argument);
    CHECK_THROWS_AS(with_fine_tuning(testing::build_catalog_model("gpt2"), lora(8, {LoraTarget::kGate}),
                                     Precision::kBf16Amp),
                    std::invalid_argument);
  }
}

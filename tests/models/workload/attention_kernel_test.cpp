#include "models/workload/attention_kernel.h"

#include <doctest/doctest.h>

#include "../test_gpus.h"
#include "catalog_models.h"

using namespace gpuplan::models;

namespace {
Workload gpt2() {
  const testing::CatalogModel m = testing::catalog_model("gpt2");
  return testing::build(m.family, m.values);
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
}  // namespace

TEST_SUITE("models.workload.attention_kernel") {
  TEST_CASE("the attention shape is read from the eager chain") {
    const std::optional<AttentionShape> shape = attention_shape(gpt2());
    REQUIRE(shape.has_value());
    CHECK(shape->head_dim == doctest::Approx(64.0));  // 768 / 12
    CHECK_FALSE(shape->attention_mask);               // causal: SDPA's is_causal
    const testing::CatalogModel resnet = testing::catalog_model("resnet50");
    CHECK_FALSE(attention_shape(testing::build(resnet.family, resnet.values)).has_value());
  }

  TEST_CASE("SDPA dispatch: flash, then memory-efficient, then math") {
    const AttentionShape d64{64.0, false};
    CHECK(sdpa_backend(Precision::kBf16Amp, testing::ampere_like(), d64) == AttentionKernel::kFlash);
    CHECK(sdpa_backend(Precision::kBf16, testing::ampere_like(), d64) == AttentionKernel::kFlash);
    CHECK(sdpa_backend(Precision::kFp32, testing::ampere_like(), d64) == AttentionKernel::kMemoryEfficient);
    CHECK(sdpa_backend(Precision::kFp16Amp, testing::volta_like(), d64) == AttentionKernel::kMemoryEfficient);
    // head dim 320 > 256: no flash; a multiple of 8, so memory-efficient.
    CHECK(sdpa_backend(Precision::kBf16Amp, testing::ampere_like(), {320.0, false}) ==
          AttentionKernel::kMemoryEfficient);
    // head dim 100 is not a multiple of 8 (16-bit alignment): math.
    CHECK(sdpa_backend(Precision::kBf16Amp, testing::ampere_like(), {100.0, false}) == AttentionKernel::kEager);
    // an explicit padding mask: no flash.
    CHECK(sdpa_backend(Precision::kBf16Amp, testing::ampere_like(), {64.0, true}) == AttentionKernel::kMemoryEfficient);
    CHECK(attention_kernel_unsupported(AttentionKernel::kFlash, Precision::kTf32, testing::ampere_like(), d64) ==
          "flash attention runs in fp16 or bf16, not tf32");
    CHECK(attention_kernel_unsupported(AttentionKernel::kFlash, Precision::kBf16Amp, testing::ampere_like(),
                                       {320.0, false}) ==
          "flash attention needs a head dimension of at most 256 and a multiple of 8, and this model's is 320");
  }

  TEST_CASE("SDPA with ALiBi: the bias is an attn_mask, so memory-efficient, not flash") {
    const testing::CatalogModel m = testing::catalog_model("mpt-7b");
    const std::optional<AttentionShape> shape = attention_shape(testing::build(m.family, m.values));
    REQUIRE(shape);
    CHECK(shape->alibi_bias);
    CHECK_FALSE(shape->attention_mask);
    CHECK(sdpa_backend(Precision::kBf16Amp, testing::ampere_like(), *shape) == AttentionKernel::kMemoryEfficient);
    // Called directly, FlashAttention-2 takes ALiBi slopes: flash runs it.
    CHECK(attention_kernel_unsupported(AttentionKernel::kFlash, Precision::kBf16Amp, testing::ampere_like(), *shape)
              .empty());
    const std::optional<AttentionShape> gpt2_shape = attention_shape(gpt2());
    REQUIRE(gpt2_shape);
    CHECK_FALSE(gpt2_shape->alibi_bias);
    CHECK(sdpa_backend(Precision::kBf16Amp, testing::ampere_like(), *gpt2_shape) == AttentionKernel::kFlash);
  }

  TEST_CASE("ALiBi: memory-efficient gets it as an explicit mask and computes every tile; flash kernels stay causal") {
    const testing::CatalogModel m = testing::catalog_model("mpt-7b");
    const Workload eager = testing::build(m.family, m.values);
    // MPT-7B: s = 2048 tokens, h = 4096. Forward 4·s²·h = 4 x 4,194,304 x 4,096 =
    // 68,719,476,736 FLOP per sample, the whole square, whichever kernel.
    constexpr double kSquareFlop = 68'719'476'736.0;
    // SDPA resolves ALiBi to the memory-efficient kernel with the bias (causal mask folded in)
    // as attn_mask and is_causal=False: every one of the 16 x 16 tiles, share 1.
    const Op efficient =
        op_named(with_attention_kernel(eager, AttentionKernel::kMemoryEfficient), "layers.0.attn.fused");
    CHECK(efficient.forward_flop == doctest::Approx(kSquareFlop));
    CHECK(efficient.attention_tokens == 2048.0);
    CHECK_FALSE(efficient.causal);
    CHECK(fused_attention_tile_share(efficient) == 1.0);
    // FlashAttention-2/3 (alibi_slopes) and flash_attn_triton (bias, causal=True) run the
    // causal kernel: 16 query blocks of 128 compute 16·17/2 = 136 of the 256 tiles, 17/32:
    // 68,719,476,736 x 17/32 = 36,507,222,016 FLOP.
    for (AttentionKernel k : {AttentionKernel::kFlash, AttentionKernel::kFlash3, AttentionKernel::kFlashTriton}) {
      const Op fused = op_named(with_attention_kernel(eager, k), "layers.0.attn.fused");
      CHECK(fused.causal);
      CHECK(executed_forward_flop(fused) == doctest::Approx(36'507'222'016.0));
    }
    CHECK(executed_forward_flop(efficient) == doctest::Approx(kSquareFlop));
    // Without ALiBi the memory-efficient kernel is called with is_causal and skips tiles too.
    const Op gpt2_efficient =
        op_named(with_attention_kernel(gpt2(), AttentionKernel::kMemoryEfficient), "layers.0.attn.fused");
    CHECK(gpt2_efficient.causal);
    CHECK(fused_attention_tile_share(gpt2_efficient) == doctest::Approx(9.0 / 16.0));
    CHECK(fused_kernel_takes_explicit_bias(AttentionKernel::kMemoryEfficient, true));
    CHECK_FALSE(fused_kernel_takes_explicit_bias(AttentionKernel::kMemoryEfficient, false));
    CHECK_FALSE(fused_kernel_takes_explicit_bias(AttentionKernel::kFlashTriton, true));
  }

  TEST_CASE("a causal mask passed as attn_mask: no flash from SDPA, every tile for the memory-efficient kernel") {
    const Workload eager = gpt2();
    const std::optional<AttentionShape> flag = attention_shape(eager);
    const std::optional<AttentionShape> tensor = attention_shape(eager, CausalMask::kAttnMask);
    REQUIRE(flag);
    REQUIRE(tensor);
    CHECK(flag->causal);
    CHECK_FALSE(flag->causal_mask_tensor);
    CHECK(tensor->causal_mask_tensor);
    CHECK(sdpa_backend(Precision::kBf16Amp, testing::ampere_like(), *flag) == AttentionKernel::kFlash);
    CHECK(sdpa_backend(Precision::kBf16Amp, testing::ampere_like(), *tensor) == AttentionKernel::kMemoryEfficient);
    // GPT-2: 8 query blocks of 128 at 1,024 tokens; is_causal computes 36 of 64 tiles.
    const Op masked = op_named(with_attention_kernel(eager, AttentionKernel::kMemoryEfficient,
                                                     KeyValueHeads::kRepeated, CausalMask::kAttnMask),
                               "layers.0.attn.fused");
    CHECK_FALSE(masked.causal);
    CHECK(executed_forward_flop(masked) == doctest::Approx(masked.forward_flop));
    const Op skipping = op_named(with_attention_kernel(eager, AttentionKernel::kMemoryEfficient), "layers.0.attn.fused");
    CHECK(executed_forward_flop(skipping) == doctest::Approx(masked.forward_flop * 36.0 / 64.0));
    // An encoder has no causal mask to pass: the option leaves its shape as it was.
    const testing::CatalogModel bert = testing::catalog_model("bert-large");
    const std::optional<AttentionShape> encoder =
        attention_shape(testing::build(bert.family, bert.values), CausalMask::kAttnMask);
    REQUIRE(encoder);
    CHECK_FALSE(encoder->causal);
    CHECK_FALSE(encoder->causal_mask_tensor);
  }

  TEST_CASE("flash replaces each layer's eager chain with one fused op") {
    const Workload eager = gpt2();
    const Workload flash = with_attention_kernel(eager, AttentionKernel::kFlash);
    // Per layer the chain scores, scale, mask, softmax, dropout, context (6 ops) becomes 1.
    CHECK(eager.ops.size() - flash.ops.size() == 12 * 5);
    CHECK_FALSE(has_op(flash, "layers.0.attn.scores"));
    CHECK_FALSE(has_op(flash, "layers.0.attn.softmax"));
    const Op& fused = op_named(flash, "layers.0.attn.fused");
    // s = 1024, h = 768, a = 12: forward 4·s²·h = 4 · 1,048,576 · 768 FLOP.
    CHECK(fused.forward_flop == doctest::Approx(3'221'225'472.0));
    CHECK(fused.backward_flop_ratio + fused.backward_recompute_flop_ratio == doctest::Approx(2.5));
    // saves Q, K, V (3·s·h = 2,359,296) and the fp32 LSE (2 · a·s = 24,576 16-bit elements):
    // 2,383,872. Its output O is the tensor attn.out saves as its input (s·h = 786,432): the
    // layer keeps O once, so fused + merge_heads + attn.out save 4·s·h + 2·a·s = 3,170,304.
    CHECK(fused.saved_elements == doctest::Approx(2'383'872.0));
    CHECK(op_named(flash, "layers.0.attn.out").saved_elements == doctest::Approx(786'432.0));
    CHECK(fused.saved_elements + op_named(flash, "layers.0.attn.merge_heads").saved_elements +
              op_named(flash, "layers.0.attn.out").saved_elements ==
          doctest::Approx(3'170'304.0));
    CHECK(fused.input_elements == doctest::Approx(3.0 * 786'432.0));
    CHECK(fused.output_elements == doctest::Approx(786'432.0));
    CHECK(fused.attention_kernel == AttentionKernel::kFlash);
    // GPT-2 masks causally: the kernel computes 9/16 of the tiles of its 8 query blocks of 128.
    CHECK(fused.causal);
    CHECK(fused.attention_tokens == 1024.0);
    CHECK(fused_attention_tile_share(fused) == doctest::Approx(9.0 / 16.0));
    // HFU's FLOP count the whole square, as the published formulas do (HFU >= MFU).
    Workload square = flash;
    for (Op& op : square.ops.edit()) op.causal = false;
    CHECK(square.hardware_flop_per_sample(false) == flash.hardware_flop_per_sample(false));
    CHECK(flash.hardware_flop_per_sample(false) > flash.training_flop_per_sample());
    // Model FLOP are unchanged: the fused op does the same QKᵀ and PV; the recomputation is
    // hardware FLOP only. The memory-bound scale/mask/softmax/dropout FLOP go away.
    CHECK(flash.training_flop_per_sample() < eager.training_flop_per_sample());
    CHECK(flash.training_flop_per_sample() == doctest::Approx(eager.training_flop_per_sample()).epsilon(0.01));
    CHECK(flash.parameters == eager.parameters);
    // eager keeps the table as it is.
    CHECK(with_attention_kernel(eager, AttentionKernel::kEager).ops.size() == eager.ops.size());
    CHECK_THROWS_AS(with_attention_kernel(eager, AttentionKernel::kSdpa), std::invalid_argument);
  }

  TEST_CASE("flash called with grouped K and V drops repeat_kv and saves K and V at their own width") {
    const Workload eager = testing::build_catalog_model("llama3-8b", {{"sequence_length", 8192.0}});
    const Workload repeated = with_attention_kernel(eager, AttentionKernel::kFlash);
    const Workload grouped = with_attention_kernel(eager, AttentionKernel::kFlash, KeyValueHeads::kGrouped);
    // Llama 3 8B: h = 4,096, 32 query heads and 8 K/V heads of 128: K and V are 1,024 wide.
    // s·h = 8,192 x 4,096 = 33,554,432; the lse is 2·a·s = 2 x 32 x 8,192 = 524,288 elements.
    CHECK(has_op(repeated, "layers.0.attn.repeat_kv"));
    CHECK_FALSE(has_op(grouped, "layers.0.attn.repeat_kv"));
    CHECK(repeated.ops.size() - grouped.ops.size() == 32);  // one per layer
    // Repeated: Q, K, V at 3·s·h = 100,663,296 (+ lse); grouped: (1 + 2 x 1/4)·s·h = 50,331,648.
    CHECK(op_named(repeated, "layers.0.attn.fused").saved_elements == doctest::Approx(100'663'296.0 + 524'288.0));
    CHECK(op_named(grouped, "layers.0.attn.fused").saved_elements == doctest::Approx(50'331'648.0 + 524'288.0));
    CHECK(op_named(grouped, "layers.0.attn.fused").input_elements == doctest::Approx(50'331'648.0));
    // The fused op carries the head dimension its kernel's rate depends on: 4,096 / 32 = 128;
    // GPT-2's 768 / 12 = 64.
    CHECK(op_named(grouped, "layers.0.attn.fused").head_dim == doctest::Approx(128.0));
    CHECK(op_named(with_attention_kernel(gpt2(), AttentionKernel::kFlash3), "layers.0.attn.fused").head_dim ==
          doctest::Approx(64.0));
    // The attention FLOP stay: every query head attends over all keys.
    CHECK(op_named(grouped, "layers.0.attn.fused").forward_flop ==
          op_named(repeated, "layers.0.attn.fused").forward_flop);
    // A model without grouped heads (GPT-2) and the memory-efficient kernel are unchanged.
    CHECK(with_attention_kernel(gpt2(), AttentionKernel::kFlash, KeyValueHeads::kGrouped).ops.size() ==
          with_attention_kernel(gpt2(), AttentionKernel::kFlash).ops.size());
    CHECK(has_op(with_attention_kernel(eager, AttentionKernel::kMemoryEfficient, KeyValueHeads::kGrouped),
                 "layers.0.attn.repeat_kv"));
  }
}

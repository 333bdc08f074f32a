// One tensor-parallel rank's op table: Megatron's split and Korthikanti et al. 2022's
// activation memory per layer, by hand.
#include "models/workload/tensor_parallel_shard.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "catalog_models.h"
#include "models/workload/attention_kernel.h"

namespace gpuplan::models {

using testing::build_catalog_model;
using testing::sum_over;

namespace {

double layer0_saved(const Workload& w) {
  return sum_over(w, "layers.0.", [](const Op& op) { return op.saved_elements; });
}
double layer0_parameters(const Workload& w) {
  return sum_over(w, "layers.0.", [](const Op& op) { return op.parameters; });
}

const Op& op_named(const Workload& w, const std::string& name) {
  for (const Op& op : w.ops) {
    if (op.name == name) return op;
  }
  throw std::logic_error("no op " + name);
}

}  // namespace

TEST_SUITE("models.workload.tensor_parallel_shard") {
  TEST_CASE("Megatron's split: column, head-split, row and replicated ops of a GPT-2 block") {
    const Workload w = build_catalog_model("gpt2");
    CHECK(tensor_split_of(op_named(w, "layers.0.attn.qkv")) == TensorSplit::kColumn);
    CHECK(tensor_split_of(op_named(w, "layers.0.mlp.up")) == TensorSplit::kColumn);
    CHECK(tensor_split_of(op_named(w, "layers.0.attn.softmax")) == TensorSplit::kSharded);
    CHECK(tensor_split_of(op_named(w, "layers.0.mlp.gelu")) == TensorSplit::kSharded);
    CHECK(tensor_split_of(op_named(w, "layers.0.attn.out")) == TensorSplit::kRow);
    CHECK(tensor_split_of(op_named(w, "layers.0.mlp.down")) == TensorSplit::kRow);
    CHECK(tensor_split_of(op_named(w, "layers.0.norm1")) == TensorSplit::kReplicated);
    CHECK(tensor_split_of(op_named(w, "layers.0.attn.out_dropout")) == TensorSplit::kReplicated);
    CHECK(tensor_split_of(op_named(w, "embed.tokens")) == TensorSplit::kVocab);
    CHECK(tensor_split_of(op_named(w, "embed.positions")) == TensorSplit::kReplicated);
    CHECK(tensor_split_of(op_named(w, "lm_head")) == TensorSplit::kColumn);
    CHECK(tensor_split_of(op_named(w, "loss")) == TensorSplit::kSharded);
  }

  TEST_CASE("saved activations per layer follow Korthikanti et al. 2022, table 2") {
    // GPT-2 (dropout 0.1, eager attention): s = 1024, h = 768, a = 12. In elements per
    // sample (bytes at 16 bit / 2): no parallelism 17·s·h + 2.5·a·s² (sec. 4.1); tensor
    // parallel over t: 5·s·h + 12·s·h/t + 2.5·a·s²/t (table 2's sbh(10 + 24/t + 5as/(ht)) / 2);
    // with sequence parallelism everything / t: 17·s·h/t + 2.5·a·s²/t.
    const double s = 1024.0;
    const double h = 768.0;
    const double a = 12.0;
    const double sh = s * h;
    const double scores = a * s * s;
    const Workload whole = build_catalog_model("gpt2");
    CHECK(layer0_saved(whole) == doctest::Approx(17.0 * sh + 2.5 * scores));
    for (const int t : {2, 4}) {
      CAPTURE(t);
      const Workload tp = tensor_parallel_rank_workload(whole, t, false);
      // t = 4: 5·786,432 + 3·786,432 + 2.5·12,582,912/4 = 6,291,456 + 7,864,320 = 14,155,776
      CHECK(layer0_saved(tp) == doctest::Approx(5.0 * sh + 12.0 * sh / t + 2.5 * scores / t));
      const Workload sp = tensor_parallel_rank_workload(whole, t, true);
      CHECK(layer0_saved(sp) == doctest::Approx((17.0 * sh + 2.5 * scores) / t));
    }
    CHECK(layer0_saved(tensor_parallel_rank_workload(whole, 4, false)) == doctest::Approx(14'155'776.0));
  }

  TEST_CASE("weights split over the ranks; norms and the position table stay whole") {
    const Workload whole = build_catalog_model("gpt2");
    const Workload tp = tensor_parallel_rank_workload(whole, 4, false);
    // Layer: ln_1 + ln_2 = 3,072 whole; c_attn 1,771,776 + c_proj 590,592 + c_fc 2,362,368 +
    // c_proj 2,360,064 = 7,084,800 / 4 = 1,771,200 -> 1,774,272.
    CHECK(layer0_parameters(tp) == 1'774'272.0);
    // wte 38,597,376 / 4 = 9,649,344; wpe 786,432; 12 layers 21,291,264; ln_f 1,536; tied
    // head 0 -> 31,728,576.
    CHECK(tp.parameters == 31'728'576.0);
    // Forward FLOP of the column-parallel qkv: 2·s·h·3h / 4.
    CHECK(op_named(tp, "layers.0.attn.qkv").forward_flop ==
          doctest::Approx(op_named(whole, "layers.0.attn.qkv").forward_flop / 4.0));
    // The row-parallel output is the whole activation (a partial sum before the all-reduce).
    CHECK(op_named(tp, "layers.0.attn.out").output_elements == 1024.0 * 768.0);
    CHECK(op_named(tp, "layers.0.attn.out").input_elements == 1024.0 * 768.0 / 4.0);
    CHECK(tensor_parallel_rank_workload(whole, 1, true).parameters == whole.parameters);
  }

  TEST_CASE("heads are read from the op table; other families and 0 ranks are refused") {
    const DecoderHeads gpt2 = decoder_heads(build_catalog_model("gpt2"));
    CHECK(gpt2.heads == 12);
    CHECK(gpt2.kv_heads == 12);
    const DecoderHeads llama = decoder_heads(build_catalog_model("llama3-8b"));
    CHECK(llama.heads == 32);
    CHECK(llama.kv_heads == 8);
    // With flash attention the scores are one fused op; the heads come from its log-sum-exp.
    const DecoderHeads llama_flash =
        decoder_heads(with_attention_kernel(build_catalog_model("llama3-8b"), AttentionKernel::kFlash));
    CHECK(llama_flash.heads == 32);
    CHECK(llama_flash.kv_heads == 8);
    CHECK(decoder_heads(build_catalog_model("resnet50")).heads == 0);
    CHECK_THROWS_AS(tensor_parallel_rank_workload(build_catalog_model("resnet50"), 2, false), std::invalid_argument);
    CHECK_THROWS_AS(tensor_parallel_rank_workload(build_catalog_model("gpt2"), 0, false), std::invalid_argument);
  }
}

}  // namespace gpuplan::models

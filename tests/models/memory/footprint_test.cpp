#include "models/memory/footprint.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../workload/catalog_models.h"
#include "models/workload/attention_kernel.h"
#include "models/workload/layer_ops.h"
#include "parameter_op.h"

using namespace gpuplan::models;

namespace {
Workload two_block_workload() {
  Workload w;
  w.parameters = 1e6;
  auto add = [&](const std::string& name, OpClass c, double saved, double input) {
    Op op = testing::saving_op(name, c, saved, input);
    op.autocast_fp32 = c == OpClass::kSoftmax;
    w.ops.push_back(op);
  };
  add("embed", OpClass::kEmbedding, 100, 10);
  add("layers.0.fc", OpClass::kMatmul, 1000, 50);
  add("layers.0.softmax", OpClass::kSoftmax, 500, 50);
  add("layers.1.fc", OpClass::kMatmul, 1000, 60);
  add("layers.1.softmax", OpClass::kSoftmax, 500, 60);
  add("head", OpClass::kMatmul, 200, 20);
  return w;
}
}  // namespace

TEST_SUITE("models.memory.footprint") {
  TEST_CASE("fp32 with Adam: 16 B per parameter plus activations x batch") {
    TrainingSpec t;
    t.batch_size = 8;
    t.optimizer = Optimizer::kAdamW;
    const MemoryBreakdown m = training_memory(two_block_workload(), t, testing::zero_overheads());
    // weights 1e6*4, gradients 1e6*4, Adam m and v 1e6*8
    CHECK(m.weights_bytes == doctest::Approx(4e6));
    CHECK(m.gradients_bytes == doctest::Approx(4e6));
    CHECK(m.optimizer_state_bytes == doctest::Approx(8e6));
    // saved = 100 + 1000 + 500 + 1000 + 500 + 200 = 3300 elements * 4 B * 8 samples = 105600 B
    CHECK(m.activations_bytes == doctest::Approx(105600));
    CHECK(m.total_bytes() == doctest::Approx(16e6 + 105600));
  }

  TEST_CASE("TensorFlow 1.x dropout keeps the scaled input and a float mask, PyTorch a 1-byte mask") {
    Workload w;
    w.parameters = 0;
    Op dropout = dropout_op("layers.0.attn.dropout", 1000);  // saved_elements 500: 1-byte mask
    Op gelu = elementwise_op("layers.0.mlp.gelu", 1000, 1.0, 8.0, 1000);
    w.ops = {dropout, gelu};
    TrainingSpec t;
    t.batch_size = 1;
    t.precision = Precision::kFp32;
    const std::vector<double> pytorch = saved_bytes_per_sample(w, t);
    CHECK(pytorch[0] == doctest::Approx(500 * 4.0));
    t.framework = Framework::kTensorflow;
    const std::vector<double> tensorflow = saved_bytes_per_sample(w, t);
    // x / keep_prob and floor(keep_prob + uniform): two fp32 tensors of 1000 elements.
    CHECK(tensorflow[0] == doctest::Approx(2 * 1000 * 4.0));
    CHECK(tensorflow[1] == pytorch[1]);  // other ops keep what they keep
  }

  TEST_CASE("AMP keeps fp32 master weights, a 16-bit copy, and softmax outputs in fp32") {
    TrainingSpec t;
    t.batch_size = 1;
    t.optimizer = Optimizer::kSgdMomentum;
    t.precision = Precision::kBf16Amp;
    const MemoryBreakdown m = training_memory(two_block_workload(), t, testing::zero_overheads());
    // momentum 4 B per parameter; the weights: fp32 4 B + autocast's 16-bit copy 2 B
    CHECK(m.optimizer_state_bytes == doctest::Approx(4e6));
    CHECK(m.weights_bytes == doctest::Approx(6e6));
    CHECK(autocast_weight_copy_bytes(two_block_workload(), Precision::kBf16Amp) == doctest::Approx(2e6));
    CHECK(autocast_weight_copy_bytes(two_block_workload(), Precision::kBf16) == 0.0);
    // 2 B for 100+1000+1000+200 = 2300 elements, 4 B for the 1000 softmax elements: 4600 + 4000
    CHECK(m.activations_bytes == doctest::Approx(8600));
  }

  TEST_CASE("Megatron's fused softmax and layer norm (eager_fused) save 16-bit tensors under AMP; the loss stays fp32") {
    // GPT-2 124M at s = 1,024: per layer the softmax saves a·s² = 12 x 1,024² = 12,582,912
    // elements, a layer norm s·h = 786,432; the loss its 1,024 x 50,257 log-probabilities.
    const Workload w = testing::build_catalog_model("gpt2", {{"sequence_length", 1024.0}});
    TrainingSpec eager;
    eager.precision = Precision::kFp16Amp;
    TrainingSpec fused = eager;
    fused.framework_overhead = FrameworkOverhead::kEagerFused;
    const std::vector<double> e = saved_bytes_per_sample(w, eager);
    const std::vector<double> f = saved_bytes_per_sample(w, fused);
    int checked = 0;
    for (std::size_t i = 0; i < w.ops.size(); ++i) {
      const std::string& name = w.ops[i].name;
      if (name == "layers.0.attn.softmax") {
        CHECK(e[i] == doctest::Approx(12'582'912.0 * 4.0));  // autocast's fp32 softmax
        CHECK(f[i] == doctest::Approx(12'582'912.0 * 2.0));  // FusedScaleMaskSoftmax's 16-bit output
        ++checked;
      } else if (name == "layers.0.norm1") {
        CHECK(e[i] == doctest::Approx(786'432.0 * 4.0));
        CHECK(f[i] == doctest::Approx(786'432.0 * 2.0));  // apex FusedLayerNorm's 16-bit input
        ++checked;
      } else if (name == "loss") {
        CHECK(f[i] == doctest::Approx(e[i]));  // Megatron upcasts the logits to fp32
        CHECK(f[i] == doctest::Approx(1024.0 * 50'257.0 * 4.0));
        ++checked;
      }
    }
    CHECK(checked == 3);
    CHECK(runs_fp32_under_autocast(w.ops.back(), FrameworkOverhead::kEagerFused));
  }

  TEST_CASE("pure bf16: a 1 B decoder keeps bf16 weights, gradients and torch AdamW moments, no master copy") {
    Workload w = two_block_workload();
    w.parameters = 1e9;
    TrainingSpec t;
    t.batch_size = 1;
    t.optimizer = Optimizer::kAdamW;
    t.precision = Precision::kBf16;
    const MemoryBreakdown m = training_memory(w, t, testing::zero_overheads());
    // weights 1e9 · 2 B, gradients 1e9 · 2 B, torch AdamW's m and v in the parameters' bf16
    // (zeros_like(param)) 1e9 · 2 · 2 B: 8 GB.
    CHECK(m.weights_bytes == doctest::Approx(2e9));
    CHECK(m.gradients_bytes == doctest::Approx(2e9));
    CHECK(m.optimizer_state_bytes == doctest::Approx(4e9));
    // a framework that keeps fp32 moments beside bf16 weights: 1e9 · 8 B.
    t.optimizer_state_precision = OptimizerStatePrecision::kFp32;
    CHECK(training_memory(w, t, testing::zero_overheads()).optimizer_state_bytes == doctest::Approx(8e9));
    t.optimizer_state_precision = OptimizerStatePrecision::kParam;
    // every activation in bf16, softmax included (no autocast): 3300 · 2 B
    CHECK(m.activations_bytes == doctest::Approx(6600));
    // bf16 AMP: fp32 weights and gradients (4 + 4 B), AdamW 8 B, the 16-bit cast copy 2 B: 18 GB.
    t.precision = Precision::kBf16Amp;
    const MemoryBreakdown amp = training_memory(w, t, testing::zero_overheads());
    CHECK(amp.weights_bytes + amp.gradients_bytes + amp.optimizer_state_bytes == doctest::Approx(18e9));
    // with 8-bit AdamW in pure bf16: 2 + 2 + 2.0039 B per parameter.
    t.precision = Precision::kBf16;
    t.optimizer = Optimizer::kAdamW8bit;
    const MemoryBreakdown eight = training_memory(w, t, testing::zero_overheads());
    CHECK(eight.weights_bytes + eight.gradients_bytes + eight.optimizer_state_bytes ==
          doctest::Approx(6.00390625e9));
  }

  TEST_CASE("activation checkpointing keeps block inputs and one block's activations") {
    TrainingSpec t;
    t.batch_size = 2;
    t.optimizer = Optimizer::kSgd;
    t.activation_checkpointing = true;
    const MemoryBreakdown m = training_memory(two_block_workload(), t, testing::zero_overheads());
    // outside blocks: 100 + 200 = 300; block inputs 50 + 60 = 110; largest block 1500
    // (300 + 110 + 1500) * 4 B * 2 samples = 15280 B
    CHECK(m.activations_bytes == doctest::Approx(15280));
    CHECK(block_of(two_block_workload().ops[2]) == "layers.0");
    CHECK(block_of(two_block_workload().ops[0]).empty());
    Op nested;
    nested.name = "encoder.layer.7.attn.qkv";
    CHECK(block_of(nested) == "encoder.layer.7");
    nested.name = "layer3.2.conv1";
    CHECK(block_of(nested) == "layer3.2");
    nested.name = "head.fc";
    CHECK(block_of(nested).empty());
  }

  TEST_CASE("overheads: context, workspace and slack on activations") {
    TrainingSpec t;
    t.batch_size = 1;
    t.optimizer = Optimizer::kSgd;
    const MemoryModelParams p = MemoryModelParams::defaults();
    const MemoryBreakdown m = training_memory(two_block_workload(), t, p);
    CHECK(m.cuda_context_bytes == doctest::Approx(1343e6));
    CHECK(m.workspace_bytes == doctest::Approx(256.0 * 1024 * 1024));
    CHECK(m.allocator_slack_bytes == doctest::Approx(0.05 * 3300 * 4));
  }

  TEST_CASE("a batch below one is a programming error") {
    TrainingSpec t;
    t.batch_size = 0;
    CHECK_THROWS_AS(training_memory(two_block_workload(), t, testing::zero_overheads()), std::invalid_argument);
  }

  TEST_CASE("a fusing compiler keeps a GELU's input once instead of its input and its result") {
    // mlp.up -> mlp.gelu (saves its 400-element input) -> mlp.down (saves its 400-element
    // input, the GELU result). Eager: 100 + 400 + 400 = 900 elements. Compiled: the GELU
    // result is recomputed for mlp.down's weight gradient: 100 + 400 + 0 = 500. A dropout
    // mask is never recomputed.
    Workload w;
    w.parameters = 0.0;
    auto add = [&](const std::string& name, OpClass c, double saved, double input) {
      Op op;
      op.name = name;
      op.op_class = c;
      op.saved_elements = saved;
      op.input_elements = input;
      w.ops.push_back(op);
    };
    add("layers.0.mlp.up", OpClass::kMatmul, 100, 100);
    add("layers.0.mlp.gelu", OpClass::kElementwise, 400, 400);
    add("layers.0.mlp.down", OpClass::kMatmul, 400, 400);
    add("layers.0.mlp.dropout", OpClass::kElementwise, 50, 100);
    TrainingSpec t;
    t.batch_size = 2;
    t.optimizer = Optimizer::kSgd;
    t.precision = Precision::kBf16Amp;
    const MemoryBreakdown eager = training_memory(w, t, testing::zero_overheads());
    CHECK(eager.activations_bytes == doctest::Approx((900 + 50) * 2.0 * 2));
    t.framework_overhead = FrameworkOverhead::kCompiled;
    const MemoryBreakdown compiled = training_memory(w, t, testing::zero_overheads());
    CHECK(compiled.activations_bytes == doctest::Approx((500 + 50) * 2.0 * 2));
    const std::vector<double> per_op = saved_bytes_per_sample(w, t);
    REQUIRE(per_op.size() == 4);
    CHECK(per_op[2] == 0.0);
    CHECK(per_op[3] == doctest::Approx(100.0));
    // SwiGLU saves 3 x its output (SiLU output, both factors) of a 2-wide input: compiled
    // keeps the two inputs only.
    w.ops.edit()[1].saved_elements = 600;
    CHECK(training_memory(w, t, testing::zero_overheads()).activations_bytes == doctest::Approx((100 + 400 + 50) * 2.0 * 2));
  }

  TEST_CASE("an MPT-760M layer with flash attention saves 32·s·h + 4·a·s bytes under bf16 AMP") {
    // llm-foundry's MPT block: LPLayerNorm → Wqkv → flash attention → out_proj → residual →
    // LPLayerNorm → up_proj → GELU → down_proj → residual; no dropout, no biases.
    // Per sample, 2 B per element (LPLayerNorm runs in bf16, so both norms save 2 B):
    //   norm_1 input s·h, Wqkv input s·h                                  → 2·2·s·h
    //   flash: Q, K, V 3·s·h + fp32 log-sum-exp a·s (4 B)                 → 6·s·h + 4·a·s
    //   out_proj input s·h (flash's output O: the same tensor, counted once),
    //   norm_2 input s·h, up_proj input s·h                               → 3·2·s·h
    //   GELU input s·f, down_proj input s·f, f = 4·h                      → 2·2·4·s·h
    //   total 4 + 6 + 6 + 16 = 32·s·h + 4·a·s bytes.
    // s = 2048, h = 1536, a = 12: 32·3,145,728 + 4·12·2048 = 100,663,296 + 98,304.
    // With F.layer_norm (autocast: fp32, 4 B) the two norms add 2·2·s·h: 36·s·h + 4·a·s.
    const Workload mpt = with_attention_kernel(testing::build_catalog_model("mpt-760m"), AttentionKernel::kFlash);
    TrainingSpec t;
    t.precision = Precision::kBf16Amp;
    const auto layer0_bytes = [&t](const Workload& w) {
      const std::vector<double> bytes = saved_bytes_per_sample(w, t);
      double total = 0.0;
      for (std::size_t i = 0; i < w.ops.size(); ++i) {
        if (w.ops[i].name.rfind("layers.0.", 0) == 0) {
          total += bytes[i];
        }
      }
      return total;
    };
    CHECK(layer0_bytes(mpt) == doctest::Approx(100'663'296.0 + 98'304.0));
    testing::CatalogModel fp32_norm = testing::catalog_model("mpt-760m");
    fp32_norm.values["norm"] = testing::choice("transformer_decoder", "norm", "layernorm");
    const Workload layer_norm =
        with_attention_kernel(testing::build("transformer_decoder", fp32_norm.values), AttentionKernel::kFlash);
    CHECK(layer0_bytes(layer_norm) == doctest::Approx(36.0 * 3'145'728.0 + 98'304.0));
  }

  TEST_CASE("MPT's fused cross-entropy saves its bf16 logits: half of F.cross_entropy's fp32 log-probabilities") {
    // s = 2048 tokens, V = 50,368: s·V = 103,153,664 logits per sample.
    // fused_cross_entropy (llm-foundry's default): bf16 logits 2 B + fp32 lse 4 B per row:
    //   206,307,328 + 8,192 = 206,315,520 B. F.cross_entropy under autocast: fp32
    //   log-probabilities 4 B each: 412,614,656 B.
    TrainingSpec t;
    t.precision = Precision::kBf16Amp;
    const auto loss_bytes = [&t](const Workload& w) {
      const std::vector<double> bytes = saved_bytes_per_sample(w, t);
      REQUIRE(w.ops.back().name == "loss");
      return bytes.back();
    };
    CHECK(loss_bytes(testing::build_catalog_model("mpt-760m")) == doctest::Approx(206'315'520.0));
    testing::CatalogModel plain = testing::catalog_model("mpt-760m");
    plain.values["loss"] = testing::choice("transformer_decoder", "loss", "cross_entropy");
    CHECK(loss_bytes(testing::build("transformer_decoder", plain.values)) == doctest::Approx(412'614'656.0));
  }

  TEST_CASE("Liger's fused linear cross-entropy keeps a 16-bit input gradient, not 67 GB of fp32 log-probabilities") {
    // Llama 3 8B, s = 131,072, V = 128,256, h = 4,096, bf16 autocast, one sample.
    // cross_entropy: lm_head input s·h·2 B = 1,073,741,824 B; fp32 log-probabilities
    //   s·V·4 B = 67,243,081,728 B. Liger: lm_head nothing; grad_input s·h·2 B = 1,073,741,824 B.
    TrainingSpec t;
    t.precision = Precision::kBf16Amp;
    const auto head_and_loss_bytes = [&t](const std::string& loss) {
      testing::CatalogModel model = testing::catalog_model("llama3-8b");
      model.values["sequence_length"] = 131072.0;
      model.values["loss"] = testing::choice("transformer_decoder", "loss", loss);
      const Workload w = testing::build("transformer_decoder", model.values);
      const std::vector<double> bytes = saved_bytes_per_sample(w, t);
      REQUIRE(w.ops.back().name == "loss");
      REQUIRE(w.ops[w.ops.size() - 2].name == "lm_head");
      return std::pair{bytes[bytes.size() - 2], bytes.back()};
    };
    const auto [plain_head, plain_loss] = head_and_loss_bytes("cross_entropy");
    CHECK(plain_head == doctest::Approx(1'073'741'824.0));
    CHECK(plain_loss == doctest::Approx(67'243'081'728.0));
    const auto [liger_head, liger_loss] = head_and_loss_bytes("fused_linear_cross_entropy");
    CHECK(liger_head == 0.0);
    CHECK(liger_loss == doctest::Approx(1'073'741'824.0));
  }
}

TEST_CASE("models.memory.footprint: fp8 saves linear inputs in fp8 and TE's norms in 16 bit; fused SwiGLU keeps its input") {
  const Workload w = with_attention_kernel(testing::build_catalog_model("llama3-8b", {{"sequence_length", 8192.0}}),
                                           AttentionKernel::kFlash, KeyValueHeads::kGrouped);
  // Saved bytes per sample of layer 0, in units of S = s·h = 8,192 x 4,096 = 33,554,432.
  auto layer0 = [&](const TrainingSpec& t, const std::string& suffix) {
    const std::vector<double> bytes = saved_bytes_per_sample(w, t);
    for (std::size_t i = 0; i < w.ops.size(); ++i) {
      if (w.ops[i].name == "layers.0." + suffix) return bytes[i] / 33'554'432.0;
    }
    FAIL("no op layers.0." << suffix);
    return 0.0;
  };
  TrainingSpec amp;
  amp.precision = Precision::kBf16Amp;
  TrainingSpec fp8 = amp;
  fp8.precision = Precision::kFp8;
  fp8.framework_overhead = FrameworkOverhead::kEagerFused;
  // HF under bf16 autocast: RMSNorm keeps its fp32 input and normalised copy (2 x 4 B); a
  // linear its 16-bit input; SwiGLU its gate, up and SiLU output (3 x 3.5·S x 2 B).
  CHECK(layer0(amp, "norm1") == doctest::Approx(8.0));
  CHECK(layer0(amp, "attn.qkv") == doctest::Approx(2.0));
  CHECK(layer0(amp, "mlp.swiglu") == doctest::Approx(21.0));
  CHECK(layer0(amp, "mlp.down") == doctest::Approx(7.0));
  // Transformer Engine fp8 with Megatron's fused kernels: the norm's 16-bit input (2 B), each
  // linear's fp8 input (1 B; down: 3.5·S), the fused SwiGLU's input only (gate and up,
  // 2 x 3.5·S x 2 B).
  CHECK(layer0(fp8, "norm1") == doctest::Approx(2.0));
  CHECK(layer0(fp8, "norm2") == doctest::Approx(2.0));
  CHECK(layer0(fp8, "attn.qkv") == doctest::Approx(1.0));
  CHECK(layer0(fp8, "attn.out") == doctest::Approx(1.0));
  CHECK(layer0(fp8, "mlp.gate_up") == doctest::Approx(1.0));
  CHECK(layer0(fp8, "mlp.swiglu") == doctest::Approx(14.0));
  CHECK(layer0(fp8, "mlp.down") == doctest::Approx(3.5));
  // Fused attention keeps Q and grouped K, V in 16 bit (1.5·S x 2 B) and the fp32 lse
  // (2·a·s = 524,288 elements x 2 B = 1,048,576 B = S / 32).
  CHECK(layer0(fp8, "attn.fused") == doctest::Approx(3.0 + 1.0 / 32.0));
  // The output head is a 16-bit GEMM under fp8 (runs_fp8_gemm): it keeps its input, the
  // final norm's output, in 16 bit (S x 2 B), as under bf16 autocast.
  const std::vector<double> amp_bytes = saved_bytes_per_sample(w, amp);
  const std::vector<double> fp8_bytes = saved_bytes_per_sample(w, fp8);
  for (std::size_t i = 0; i < w.ops.size(); ++i) {
    if (w.ops[i].name != "lm_head") continue;
    CHECK(fp8_bytes[i] / 33'554'432.0 == doctest::Approx(2.0));
    CHECK(fp8_bytes[i] == doctest::Approx(amp_bytes[i]));
  }
}


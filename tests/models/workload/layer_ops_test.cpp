#include "models/workload/layer_ops.h"

#include <doctest/doctest.h>

namespace gpuplan::models {

TEST_SUITE("models.workload.layer_ops") {
  TEST_CASE("a linear layer counts 2 FLOP per MAC, its weights and bias, and saves its input") {
    // 4 rows of 3 → 5 features with bias.
    const Op op = linear_op("fc", 4.0, 3.0, 5.0, true, true);
    CHECK(op.op_class == OpClass::kMatmul);
    // 2·4·3·5 = 120 FLOP of MACs + 4·5 = 20 bias adds
    CHECK(op.forward_flop == doctest::Approx(140.0));
    // weights 3·5 = 15 + bias 5
    CHECK(op.parameters == doctest::Approx(20.0));
    CHECK(op.input_elements == doctest::Approx(12.0));
    CHECK(op.output_elements == doctest::Approx(20.0));
    CHECK(op.saved_elements == doctest::Approx(12.0));
    CHECK(op.backward_flop_ratio == doctest::Approx(2.0));
    CHECK(op.forward_kernels == 1);
    const Op shared = linear_op("fc", 4.0, 3.0, 5.0, false, false, 3);
    CHECK(shared.forward_flop == doctest::Approx(120.0));
    CHECK(shared.parameters == doctest::Approx(15.0));
    CHECK(shared.saved_elements == 0.0);
    CHECK(shared.forward_kernels == 3);
  }

  TEST_CASE("dropout saves a 1-byte mask as half an element") {
    const Op op = dropout_op("drop", 1000.0);
    CHECK(op.saved_elements == doctest::Approx(500.0));
    CHECK(op.forward_flop == doctest::Approx(kDropoutFlopPerElement * 1000.0));
    CHECK(op.backward_flop_ratio == doctest::Approx(1.0));
  }

  TEST_CASE("residual adds read two tensors and save nothing") {
    const Op op = residual_add_op("add", 10.0);
    CHECK(op.input_elements == doctest::Approx(20.0));
    CHECK(op.output_elements == doctest::Approx(10.0));
    CHECK(op.saved_elements == 0.0);
  }

  TEST_CASE("layer norm is one kernel saving its input; HF RMSNorm six saving two tensors") {
    const Op layer = norm_op("ln", 8.0, 16.0, NormKind::kLayerNorm, true);
    CHECK(layer.parameters == doctest::Approx(32.0));       // weight 16 + bias 16
    CHECK(layer.saved_elements == doctest::Approx(128.0));  // 8·16
    CHECK(layer.forward_kernels == 1);
    const Op no_bias = norm_op("ln", 8.0, 16.0, NormKind::kLayerNorm, false);
    CHECK(no_bias.parameters == doctest::Approx(16.0));
    const Op rms = norm_op("rms", 8.0, 16.0, NormKind::kRmsNorm, true);
    CHECK(rms.parameters == doctest::Approx(16.0));       // weight only, whatever `bias` says
    CHECK(rms.saved_elements == doctest::Approx(256.0));  // input + normalised: 2·8·16
    CHECK(rms.forward_kernels == 6);
  }

  TEST_CASE("the low-precision layer norm is a layer norm that autocast leaves in 16 bits") {
    const Op layer = norm_op("ln", 8.0, 16.0, NormKind::kLayerNorm, false);
    const Op low = norm_op("ln", 8.0, 16.0, NormKind::kLowPrecisionLayerNorm, false);
    CHECK(layer.autocast_fp32);
    CHECK_FALSE(low.autocast_fp32);  // LPLayerNorm runs F.layer_norm with autocast off on bf16
    CHECK(low.parameters == doctest::Approx(16.0));       // weight only (no bias)
    CHECK(low.saved_elements == doctest::Approx(128.0));  // its input, 8·16, as layer norm
    CHECK(low.forward_kernels == 1);
    CHECK(low.forward_flop == doctest::Approx(layer.forward_flop));
    CHECK(norm_op("ln", 8.0, 16.0, NormKind::kLowPrecisionLayerNorm, true).parameters ==
          doctest::Approx(32.0));  // weight 16 + bias 16
  }

  TEST_CASE("the fused cross-entropy keeps its 16-bit logits and a log-sum-exp per row") {
    const Op plain = cross_entropy_op("loss", 4.0, 10.0);
    const Op fused = fused_cross_entropy_op("loss", 4.0, 10.0);
    CHECK(plain.saved_elements == doctest::Approx(40.0));  // log-probabilities 4·10
    CHECK(plain.autocast_fp32);
    CHECK(plain.forward_kernels == 2);                      // log_softmax, nll_loss
    CHECK(fused.saved_elements == doctest::Approx(48.0));   // logits 4·10 + fp32 lse 2·4
    CHECK_FALSE(fused.autocast_fp32);
    CHECK(fused.forward_kernels == 1);
    CHECK(fused.forward_flop == doctest::Approx(plain.forward_flop));
    CHECK(fused.input_elements == doctest::Approx(40.0));
  }

  TEST_CASE("Liger's fused linear cross-entropy chunks the rows and saves the input gradient, no logits") {
    // Liger's own example (src/liger_kernel/ops/fused_linear_cross_entropy.py): BT 16,384,
    // V 32,000, H 4,096: ceil(V / H) = 8, chunk ceil(16,384 / 8) = 2,048.
    CHECK(liger_chunk_rows(16384.0, 4096.0, 32000.0) == 2048.0);
    // Llama 3 8B at 131,072 rows: ceil(128,256 / 4,096) = 32, 131,072 / 32 = 4,096 (a power of two).
    CHECK(liger_chunk_rows(131072.0, 4096.0, 128256.0) == 4096.0);
    // 100 rows, ceil(10 / 3) = 4: ceil(100 / 4) = 25, rounded up to 32.
    CHECK(liger_chunk_rows(100.0, 3.0, 10.0) == 32.0);
    // Hidden wider than the vocabulary: one chunk of all the rows.
    CHECK(liger_chunk_rows(100.0, 64.0, 10.0) == 100.0);
    const Op plain = cross_entropy_op("loss", 100.0, 10.0);
    const Op liger = fused_linear_cross_entropy_op("loss", 100.0, 3.0, 10.0);
    CHECK(liger.saved_elements == doctest::Approx(300.0));  // grad_input 100·3
    CHECK_FALSE(liger.autocast_fp32);
    CHECK(liger.forward_kernels == 4);                      // ceil(100 / 32) chunks
    CHECK(liger.forward_flop == doctest::Approx(plain.forward_flop));
    CHECK(liger.backward_flop_ratio == plain.backward_flop_ratio);
    CHECK(liger.input_elements == doctest::Approx(1000.0));
  }

  TEST_CASE("embedding gathers rows, owns the table, computes nothing") {
    const Op op = embedding_op("wte", 10.0, 4.0, 100.0);
    CHECK(op.op_class == OpClass::kEmbedding);
    CHECK(op.parameters == doctest::Approx(400.0));
    CHECK(op.output_elements == doctest::Approx(40.0));
    CHECK(op.forward_flop == 0.0);
    CHECK(op.saved_elements == 0.0);
  }

  TEST_CASE("cross-entropy is log_softmax + nll_loss and saves the log-probabilities") {
    const Op op = cross_entropy_op("loss", 3.0, 10.0);
    CHECK(op.op_class == OpClass::kSoftmax);
    CHECK(op.forward_kernels == 2);
    CHECK(op.saved_elements == doctest::Approx(30.0));
    // 5 FLOP per logit (max, subtract, exp, sum, divide) · 30 + one per row
    CHECK(op.forward_flop == doctest::Approx(5.0 * 30.0 + 3.0));
  }

}  // TEST_SUITE

}  // namespace gpuplan::models

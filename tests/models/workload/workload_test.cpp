#include "models/workload/workload.h"

#include <doctest/doctest.h>

namespace gpuplan::models {

TEST_SUITE("models.workload.workload") {
  TEST_CASE("op classes have their snake_case names") {
    CHECK(name_of(OpClass::kConv) == "conv");
    CHECK(name_of(OpClass::kMatmul) == "matmul");
    CHECK(name_of(OpClass::kAttention) == "attention");
    CHECK(name_of(OpClass::kElementwise) == "elementwise");
    CHECK(name_of(OpClass::kNormalization) == "normalization");
    CHECK(name_of(OpClass::kSoftmax) == "softmax");
    CHECK(name_of(OpClass::kPooling) == "pooling");
    CHECK(name_of(OpClass::kEmbedding) == "embedding");
  }

  TEST_CASE("an op's block: its name up to the first all-digit component followed by more") {
    const auto block = [](const char* name) {
      Op op;
      op.name = name;
      return block_of(op);
    };
    CHECK(block("layers.31.mlp.up") == "layers.31");
    CHECK(block("encoder.layer.7.attn.qkv") == "encoder.layer.7");
    CHECK(block("layer2.1.conv1") == "layer2.1");  // layer2 is not all digits
    CHECK(block("h.0.attn") == "h.0");
    CHECK(block("layers.31") == "");      // nothing follows the number
    CHECK(block("embed") == "");
    CHECK(block("lm_head.weight") == "");
    CHECK(block("layers..3.x") == "layers..3");  // an empty component is no number
    CHECK(block("layers.3a.x") == "");
    CHECK(block("") == "");
  }

  TEST_CASE("training FLOP sums forward FLOP times one plus the backward ratio") {
    Workload workload;
    workload.ops.push_back(Op{.name = "fc",
                              .op_class = OpClass::kMatmul,
                              .forward_flop = 100.0,
                              .input_elements = 0.0,
                              .output_elements = 0.0,
                              .parameters = 0.0,
                              .saved_elements = 7.0,
                              .backward_flop_ratio = 2.0,
                              .forward_kernels = 1});
    workload.ops.push_back(Op{.name = "relu",
                              .op_class = OpClass::kElementwise,
                              .forward_flop = 10.0,
                              .input_elements = 0.0,
                              .output_elements = 0.0,
                              .parameters = 0.0,
                              .saved_elements = 3.0,
                              .backward_flop_ratio = 1.0,
                              .forward_kernels = 2});
    // forward: 100 + 10 = 110
    CHECK(workload.forward_flop_per_sample() == doctest::Approx(110.0));
    // training: 100·(1 + 2) + 10·(1 + 1) = 300 + 20 = 320
    CHECK(workload.training_flop_per_sample() == doctest::Approx(320.0));
    // saved: 7 + 3; kernels: 1 + 2
    CHECK(workload.saved_elements_per_sample() == doctest::Approx(10.0));
    CHECK(workload.forward_kernels() == 3);
  }

  TEST_CASE("an empty workload has no FLOP") {
    const Workload workload;
    CHECK(workload.forward_flop_per_sample() == 0.0);
    CHECK(workload.training_flop_per_sample() == 0.0);
  }

  TEST_CASE("a copied op table is shared until one copy is edited, and the edit stays in that copy") {
    Workload a;
    a.ops = std::vector<Op>{Op{.name = "fc", .forward_flop = 100.0}, Op{.name = "relu", .forward_flop = 10.0}};
    const Workload b = a;  // NOLINT(performance-unnecessary-copy-initialization): the copy is the test
    CHECK(&a.ops.vector() == &b.ops.vector());
    a.ops.edit()[0].forward_flop = 1.0;
    CHECK(&a.ops.vector() != &b.ops.vector());
    CHECK(a.ops[0].forward_flop == 1.0);
    CHECK(b.ops[0].forward_flop == 100.0);
    CHECK(b.forward_flop_per_sample() == doctest::Approx(110.0));
    // An unshared table is edited in place.
    const std::vector<Op>* before = &a.ops.vector();
    a.ops.push_back(Op{.name = "loss"});
    CHECK(&a.ops.vector() == before);
    CHECK(a.ops.size() == 3);
    CHECK(b.ops.size() == 2);
    // A default table is empty and becomes a table of its own on the first edit.
    Workload c;
    CHECK(c.ops.empty());
    c.ops.push_back(Op{.name = "x"});
    CHECK(c.ops.back().name == "x");
  }

}  // TEST_SUITE

}  // namespace gpuplan::models

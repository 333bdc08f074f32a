#include "models/workload/moe_layer.h"

#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "catalog_models.h"

namespace gpuplan::models {

using testing::sum_over;

namespace {

/// A two-layer decoder small enough to count by hand: h 8, 2 heads, s 4, vocab 10, SwiGLU,
/// RMS norm, no biases; layer 0 dense (ffn_hidden 16), layer 1 MoE with E = 4 routed
/// experts of width 6, k = 2 per token and one shared expert.
ArchitectureValues tiny_moe() {
  return {{"layers", 2},
          {"hidden", 8},
          {"heads", 2},
          {"ffn_hidden", 16},
          {"vocab", 10},
          {"sequence_length", 4},
          {"experts", 4},
          {"experts_per_token", 2},
          {"shared_experts", 1},
          {"expert_ffn_hidden", 6},
          {"first_dense_layers", 1}};
}

std::pair<std::string, std::string> error_of(const ArchitectureValues& values) {
  try {
    testing::build("transformer_decoder", values);
  } catch (const WorkloadError& error) {
    return {error.parameter(), error.what()};
  }
  return {"", "no error"};
}

}  // namespace

TEST_SUITE("models.workload.moe_layer") {
  TEST_CASE("a tiny MoE decoder: parameters total and active, by hand") {
    // Layer 0 (dense): q, k, v, o 4·8·8 = 256; two RMS norms 16; gate_up 8·32 = 256 and
    // down 16·8 = 128 → 656.
    // Layer 1 (MoE): attention 256 + norms 16; router 8·4 = 32; routed experts 4 x (gate_up
    // 8·12 + down 6·8) = 4 x 144 = 576; shared expert 96 + 48 = 144 → 1,024.
    // Embedding 10·8 = 80, final norm 8, LM head 8·10 = 80. Total 80 + 656 + 1,024 + 8 + 80
    // = 1,848. Active: without the embedding (80) and with 2 of the 4 routed experts (288 of
    // 576): 1,848 - 80 - 288 = 1,480.
    const Workload w = testing::build("transformer_decoder", tiny_moe());
    CHECK(w.parameters == doctest::Approx(1848.0));
    CHECK(w.active_parameters() == doctest::Approx(1480.0));
    CHECK(sum_over(w, "layers.0.mlp", [](const Op& op) { return op.parameters; }) == doctest::Approx(384.0));
    CHECK(sum_over(w, "layers.1.mlp.experts", [](const Op& op) { return op.parameters; }) == doctest::Approx(576.0));
    CHECK(sum_over(w, "layers.1.mlp.experts", [](const Op& op) { return op.experts; }) == doctest::Approx(8.0));
    CHECK(sum_over(w, "layers.1.mlp.shared", [](const Op& op) { return op.parameters; }) == doctest::Approx(144.0));
  }
  TEST_CASE("a tiny MoE layer: only the routed experts' FLOP count") {
    // Per sample (s = 4), forward matmul FLOP of layer 1's MLP: router 2·4·8·4 = 256; routed
    // gate_up 2·(k·s = 8)·8·12 = 1,536 and down 2·8·6·8 = 768 (k = 2 experts per token, so
    // twice one expert over the 4 tokens: 2 x (768 + 384)); shared gate_up 2·4·8·12 = 768 and
    // down 2·4·6·8 = 384. Total 256 + 1,536 + 768 + 768 + 384 = 3,712.
    const Workload w = testing::build("transformer_decoder", tiny_moe());
    const auto matmul_flop = [](const Op& op) { return op.op_class == OpClass::kMatmul ? op.forward_flop : 0.0; };
    CHECK(sum_over(w, "layers.1.mlp.router", matmul_flop) == doctest::Approx(256.0));
    CHECK(sum_over(w, "layers.1.mlp.experts", matmul_flop) == doctest::Approx(2304.0));
    CHECK(sum_over(w, "layers.1.mlp", matmul_flop) == doctest::Approx(3712.0));
    // The dispatched copies: k·s·h = 2·4·8 = 64 elements, saved by the experts' gate_up.
    CHECK(sum_over(w, "layers.1.mlp.experts_gate_up", [](const Op& op) { return op.saved_elements; }) ==
          doctest::Approx(64.0));
  }
  TEST_CASE("MoE keys that do not fit together are refused at their key") {
    ArchitectureValues dense = tiny_moe();
    dense.erase("experts");
    CHECK(error_of(dense) == std::pair<std::string, std::string>{
                                 "experts_per_token",
                                 "experts_per_token applies to a mixture-of-experts model only; set experts "
                                 "(the routed experts per layer) or remove experts_per_token"});
    ArchitectureValues no_k = tiny_moe();
    no_k.erase("experts_per_token");
    CHECK(error_of(no_k) == std::pair<std::string, std::string>{
                                "experts_per_token",
                                "a mixture-of-experts model needs experts_per_token, the routed experts each "
                                "token runs through; set it to 1 to 4 (Mixtral: 2 of 8)"});
    ArchitectureValues too_many = tiny_moe();
    too_many["experts_per_token"] = 5;
    CHECK(error_of(too_many) == std::pair<std::string, std::string>{
                                    "experts_per_token", "experts_per_token 5 exceeds experts 4; use at most 4"});
    ArchitectureValues all_dense = tiny_moe();
    all_dense["first_dense_layers"] = 2;
    CHECK(error_of(all_dense) == std::pair<std::string, std::string>{
                                     "first_dense_layers",
                                     "first_dense_layers 2 leaves no MoE layer of the 2; use at most 1 or remove "
                                     "experts for a dense model"});
  }
}

}  // namespace gpuplan::models

#include "models/workload/vit_family.h"

#include <doctest/doctest.h>

#include <string>

#include "catalog_models.h"
#include "core/units.h"

namespace gpuplan::models {

using testing::build_catalog_model;
using testing::sum_over;

TEST_SUITE("models.workload.vit_family") {
  TEST_CASE("ViT-B/16 has 86.6 M parameters") {
    // patch embedding 768·3·16·16 + 768 = 590,592; class token 768;
    // positions (196 + 1)·768 = 151,296;
    // 12 layers · (2 LN 2·1,536 + qkv 768·2304 + 2304 + out 768² + 768
    //              + fc1 768·3072 + 3072 + fc2 3072·768 + 768) = 12 · 7,087,872 = 85,054,464;
    // final LN 1,536; head 768·1000 + 1000 = 769,000
    // = 86,567,656 (timm vit_base_patch16_224: 86.57 M; torchvision vit_b_16: 86,567,656)
    const Workload workload = build_catalog_model("vit-b16");
    CHECK(workload.parameters == doctest::Approx(86.6 * core::kMega).epsilon(0.01));
    CHECK(workload.parameters == 86'567'656.0);
  }

  TEST_CASE("ViT-B/16 forward is 17.56 G multiply-accumulates at 224²") {
    // s = (224/16)² + 1 = 197 tokens.
    // patch embedding 196·768·768 = 115,605,504 MACs
    // per layer: linears 197·(768·2304 + 768² + 2·768·3072) = 1,394,343,936
    //            + QKᵀ and PV 2·197²·768 = 59,609,472 → 1,453,953,408; · 12 = 17,447,440,896
    // head 768·1000 = 768,000
    // = 17,563,814,400 MACs: torchvision's vit_b_16 "GFLOPS" 17.56 (which counts MACs), i.e.
    // 35.13 GFLOP. Memory-bound ops add 0.4 %.
    const Workload workload = build_catalog_model("vit-b16");
    CHECK(workload.forward_flop_per_sample() ==
          doctest::Approx(2.0 * 17.56 * core::kGiga).epsilon(0.03));
    CHECK(sum_over(workload, "layers.0.attn.scores", [](const Op& op) {
            return op.forward_flop;
          }) == doctest::Approx(2.0 * 197.0 * 197.0 * 768.0));
  }

  TEST_CASE("ViT layers keep 16·s·h + a·s² activations (Korthikanti without dropout)") {
    // Korthikanti et al. 2022 sec. 4.1 per layer: 17·s·h + 2.5·a·s² elements with dropout;
    // without dropout the two 0.5·s·h masks, the 0.5·a·s² mask and the a·s² dropout output
    // vanish (PV saves the softmax output, already counted): 16·s·h + a·s².
    // s = 197, h = 768, a = 12: 16·197·768 + 12·197² = 2,420,736 + 465,708 = 2,886,444
    const Workload workload = build_catalog_model("vit-b16");
    CHECK(sum_over(workload, "layers.3.", [](const Op& op) { return op.saved_elements; }) ==
          doctest::Approx(2'886'444.0));
  }

  TEST_CASE("torchvision's nn.MultiheadAttention: the layout copies, and backward's zero-fills and sums") {
    const Workload timm = build_catalog_model("vit-b16");
    const Workload torchvision = build_catalog_model("vit-b16", {{"attention_module", 1.0}});  // choice 1: torchvision
    CHECK(torchvision.ops.size() == timm.ops.size() + 12);  // one layout op per layer
    CHECK(torchvision.parameters == timm.parameters);
    const Op* layout = nullptr;
    for (const Op& op : torchvision.ops) {
      if (op.name == "layers.0.attn.mha_layout") layout = &op;
      if (op.name.find("mha_layout") != std::string::npos) CHECK(op.saved_elements == 0.0);
    }
    for (const Op& op : timm.ops) CHECK(op.name.find("mha_layout") == std::string::npos);
    REQUIRE(layout != nullptr);
    // s·h = 197·768 = 151,296; the packed q, k, v P = 3·s·h = 453,888. Forward copies the
    // input and P: E = 605,184 elements read and written. Backward: 2·E + 11·P accesses
    // = 1,210,368 + 4,992,768 = 6,203,136, 41/8 of forward's 2·E.
    CHECK(layout->input_elements == 605'184.0);
    CHECK(layout->output_elements == 605'184.0);
    CHECK(layout->backward_traffic_ratio == doctest::Approx(41.0 / 8.0));
    CHECK(layout->forward_flop == 0.0);
  }

  TEST_CASE("image size must be a multiple of the patch size") {
    try {
      testing::build("vit", {{"layers", 12},
                             {"hidden", 768},
                             {"heads", 12},
                             {"ffn_hidden", 3072},
                             {"image_size", 230}});
      FAIL("no error");
    } catch (const WorkloadError& error) {
      CHECK(error.parameter() == "image_size");
      CHECK(std::string(error.what()) ==
            "image_size 230 is not a multiple of patch_size 16; use image_size 224 or 240");
    }
  }

  TEST_CASE("input and flags") {
    const Workload workload = build_catalog_model("vit-b16");
    CHECK(workload.input_bytes_per_sample == 3.0 * 224.0 * 224.0 * 4.0 + 8.0);
    CHECK_FALSE(workload.is_language_model);
    CHECK(workload.family == "vit");
    CHECK(workload.ops.front().backward_flop_ratio == 1.0);  // the image needs no gradient
  }

}  // TEST_SUITE

}  // namespace gpuplan::models

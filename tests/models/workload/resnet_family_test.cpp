#include "models/workload/resnet_family.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "catalog_models.h"
#include "core/units.h"

namespace gpuplan::models {

using testing::build_catalog_model;
using testing::conv_and_linear_macs;
using testing::sum_over;

namespace {

double conv_flop(const Workload& workload) {
  double flop = 0.0;
  for (const Op& op : workload.ops) {
    if (op.op_class == OpClass::kConv) {
      flop += op.forward_flop;
    }
  }
  return flop;
}

}  // namespace

TEST_SUITE("models.workload.resnet_family") {
  TEST_CASE("ResNet-50 has torchvision's 25,557,032 parameters") {
    // conv1 7·7·3·64 = 9,408 + bn1 2·64 = 128
    // + layer1 215,808 + layer2 1,219,584 + layer3 7,098,368 + layer4 14,964,736
    //   (e.g. layer1.0: 1×1 64→64 4,096 + 3×3 64→64 36,864 + 1×1 64→256 16,384
    //    + downsample 64→256 16,384 + BN 2·(64 + 64 + 256 + 256) = 1,280 → 75,008;
    //    layer1.1 and .2: 256→64 16,384 + 36,864 + 16,384 + BN 768 = 70,400 each)
    // + fc 2048·1000 + 1000 = 2,049,000
    // = 25,557,032 (torchvision docs, ResNet50_Weights.IMAGENET1K_V1, num_params)
    const Workload workload = build_catalog_model("resnet50");
    CHECK(workload.parameters == doctest::Approx(25'557'032.0).epsilon(0.02));
    CHECK(workload.parameters == 25'557'032.0);  // exact, in fact
    CHECK(sum_over(workload, "layer1.", [](const Op& op) { return op.parameters; }) ==
          75'008.0 + 2.0 * 70'400.0);
  }

  TEST_CASE("ResNet-50 forward is 4.09 G multiply-accumulates at 224²") {
    // conv1: 112²·7·7·3·64 = 118,013,952 MACs
    // + stages: 667,942,912 + 1,027,604,480 + 1,464,336,384 + 809,238,528
    // + fc: 2048·1000 = 2,048,000
    // = 4,089,184,256 ≈ 4.09 G (torchvision docs "GFLOPS" 4.09, which counts MACs)
    const Workload workload = build_catalog_model("resnet50");
    CHECK(conv_and_linear_macs(workload) == doctest::Approx(4.09 * core::kGiga).epsilon(0.02));
    // With BN, ReLU, pooling, adds and the loss (nominal FLOP, layer_ops.h), the whole
    // forward stays within 2 % of 2 · 4.09 G = 8.18 GFLOP.
    CHECK(workload.forward_flop_per_sample() ==
          doctest::Approx(2.0 * 4.09 * core::kGiga).epsilon(0.02));
    CHECK(sum_over(workload, "conv1", [](const Op& op) { return op.forward_flop; }) ==
          doctest::Approx(2.0 * 112.0 * 112.0 * 7.0 * 7.0 * 3.0 * 64.0));
  }

  TEST_CASE("the other depths match torchvision's parameter counts and MACs") {
    // torchvision docs, *_Weights.IMAGENET1K_V1: num_params and GFLOPS (MACs).
    struct Reference {
      const char* name;
      double parameters;
      double macs;
    };
    for (const Reference& reference : {Reference{"resnet18", 11'689'512.0, 1.81 * core::kGiga},
                                       Reference{"resnet34", 21'797'672.0, 3.66 * core::kGiga},
                                       Reference{"resnet101", 44'549'160.0, 7.80 * core::kGiga},
                                       Reference{"resnet152", 60'192'808.0, 11.51 * core::kGiga}}) {
      CAPTURE(reference.name);
      const Workload workload = build_catalog_model(reference.name);
      CHECK(workload.parameters == doctest::Approx(reference.parameters).epsilon(0.02));
      CHECK(conv_and_linear_macs(workload) == doctest::Approx(reference.macs).epsilon(0.02));
    }
  }

  TEST_CASE("convolution FLOP scale with image_size²") {
    // 448 halves to 224, 112, 56, 28, 14: every feature map is exactly 2× per side, so each
    // conv does exactly (448/224)² = 4× the MACs. The fc and loss do not grow.
    const Workload small = build_catalog_model("resnet50");
    const Workload large = build_catalog_model("resnet50", {{"image_size", 448}});
    CHECK(conv_flop(large) == doctest::Approx(4.0 * conv_flop(small)));
    CHECK(large.parameters == small.parameters);
    CHECK(sum_over(large, "fc", [](const Op& op) { return op.forward_flop; }) ==
          sum_over(small, "fc", [](const Op& op) { return op.forward_flop; }));
    // More pixels is never less work (T3).
    const Workload medium = build_catalog_model("resnet50", {{"image_size", 288}});
    CHECK(medium.forward_flop_per_sample() > small.forward_flop_per_sample());
    CHECK(medium.forward_flop_per_sample() < large.forward_flop_per_sample());
  }

  TEST_CASE("saved activations count each tensor once") {
    // Stem at 224²: conv1 saves the image 3·224² = 150,528; bn1 saves conv1's output
    // 64·112² = 802,816; the in-place ReLU saves its output 802,816; max pool saves only its
    // indices 64·56² = 200,704 (its input is the ReLU output, already counted).
    const Workload workload = build_catalog_model("resnet50");
    const auto saved = [&](const std::string& name) {
      for (const Op& op : workload.ops) {
        if (op.name == name) {
          return op.saved_elements;
        }
      }
      return -1.0;
    };
    CHECK(saved("conv1") == 150'528.0);
    CHECK(saved("bn1") == 802'816.0);
    CHECK(saved("relu") == 802'816.0);
    CHECK(saved("maxpool") == 200'704.0);
    // layer1.0.conv1 saves the max-pool output 64·56² (new); the downsample conv reads the
    // same tensor and saves nothing more; the residual add saves nothing.
    CHECK(saved("layer1.0.conv1") == 200'704.0);
    CHECK(saved("layer1.0.downsample.0") == 0.0);
    CHECK(saved("layer1.0.add") == 0.0);
    // layer1.1.conv1 reads layer1.0's final ReLU output, which that ReLU saved.
    CHECK(saved("layer1.1.conv1") == 0.0);
    CHECK(saved("layer1.0.relu3") == 256.0 * 56.0 * 56.0);
    // The fc saves the pooled 2048 features; the loss its 1000 log-probabilities.
    CHECK(saved("fc") == 2048.0);
    CHECK(saved("loss") == 1000.0);
  }

  TEST_CASE("the stem conv needs no input gradient; the others need both") {
    const Workload workload = build_catalog_model("resnet18");
    CHECK(workload.ops.front().name == "conv1");
    CHECK(workload.ops.front().backward_flop_ratio == 1.0);
    CHECK(workload.ops[4].name == "layer1.0.conv1");
    CHECK(workload.ops[4].backward_flop_ratio == 2.0);
  }

  TEST_CASE("input, kernels and flags of an image classifier") {
    const Workload workload = build_catalog_model("resnet50");
    // fp32 image 3·224²·4 B = 602,112 B + int64 label 8 B
    CHECK(workload.input_bytes_per_sample == 602'120.0);
    CHECK(workload.tokens_per_sample == 1.0);
    CHECK_FALSE(workload.is_language_model);
    CHECK(workload.family == "resnet");
    // 53 convs (conv1 + 16 blocks · 3 + 4 downsamples) + 53 BNs + 49 ReLUs + 16 adds
    // + maxpool + avgpool + fc = 174 one-kernel ops, + the loss's 2 kernels = 176.
    CHECK(workload.forward_kernels() == 176);
    CHECK(workload.ops.back().name == "loss");
  }

  TEST_CASE("bad depth and image size are rejected with a fix") {
    try {
      testing::build("resnet", {{"depth", 42}});
      FAIL("no error");
    } catch (const WorkloadError& error) {
      CHECK(error.parameter() == "depth");
      CHECK(std::string(error.what()) ==
            "depth 42 is not a ResNet depth; use one of 18, 34, 50, 101, 152 (He et al. 2016, "
            "table 1)");
    }
    try {
      testing::build("resnet", {{"depth", 50}, {"image_size", 16}});
      FAIL("no error");
    } catch (const WorkloadError& error) {
      CHECK(error.parameter() == "image_size");
      CHECK(std::string(error.what()) == "image_size must be at least 32, got 16");
    }
    try {
      testing::build("resnet", {});
      FAIL("no error");
    } catch (const WorkloadError& error) {
      CHECK(error.parameter() == "depth");
      CHECK(std::string(error.what()) ==
            "missing parameter 'depth' of resnet (layers with weights: 18, 34 (basic blocks), "
            "50, 101 or 152 (bottlenecks)); add 'depth: <value>' to the model");
    }
  }

  TEST_CASE("ResNeXt-50 32x4d has torchvision's 25,028,904 parameters and 4.23 G MACs") {
    // Xie et al. 2017, table 1: the bottleneck's 3x3 convolution in 32 groups, inner width
    // planes x 4 / 64 x 32 = 2 x planes (128 at the first stage). torchvision docs,
    // ResNeXt50_32X4D_Weights.IMAGENET1K_V1: num_params 25,028,904, GFLOPS 4.23 (MACs).
    // layer1.0 by hand: 1x1 64->128 8,192 + grouped 3x3 128->128 (4 inputs per group) 4,608
    // + 1x1 128->256 32,768 + downsample 16,384 + BN 2 x (128 + 128 + 256 + 256) = 1,536.
    const Workload workload = build_catalog_model("resnext50-32x4d");
    CHECK(workload.parameters == 25'028'904.0);
    CHECK(conv_and_linear_macs(workload) == doctest::Approx(4.23 * core::kGiga).epsilon(0.01));
    CHECK(sum_over(workload, "layer1.0.", [](const Op& op) { return op.parameters; }) ==
          8'192.0 + 4'608.0 + 32'768.0 + 16'384.0 + 1'536.0);
    for (const Op& op : workload.ops) {
      CAPTURE(op.name);
      // Only the 3x3 convolutions are grouped: 4 inputs per group at the first stage, 32 at the last.
      const bool grouped = op.name.find(".conv2") != std::string::npos;
      CHECK(op.conv_group_input_channels == (grouped ? 4.0 * std::pow(2.0, op.name[5] - '1') : 0.0));
    }
  }

  TEST_CASE("squeeze-and-excitation adds 2 C^2 / r + C / r + C parameters per block") {
    // SE-ResNeXt-101 32x4d (Hu et al. 2018, r = 16) over ResNeXt-101 32x4d, by hand:
    // C = 256 (3 blocks): 2 x 256 x 16 + 16 + 256 = 8,464; C = 512 (4): 33,312;
    // C = 1,024 (23): 132,160; C = 2,048 (3): 526,464; total 4,777,712.
    const Workload plain = build_catalog_model("resnext101-32x4d");
    const Workload se = build_catalog_model("se-resnext101-32x4d");
    CHECK(se.parameters - plain.parameters == 4'777'712.0);
    // timm's resnext101_32x4d: 44,177,704 parameters; the SE variant 48.96 M (Hu et al.'s
    // table 2 lists 49.0 M for SE-ResNeXt-101).
    CHECK(plain.parameters == 44'177'704.0);
    // The pool saves the block output (its BN's output: new), the sigmoid its 1 x 1 gate (C
    // elements), and the multiply reads both, saving nothing more.
    const auto saved = [&](const std::string& name) {
      for (const Op& op : se.ops) {
        if (op.name == name) return op.saved_elements;
      }
      return -1.0;
    };
    CHECK(saved("layer1.0.se.avgpool") == 256.0 * 56.0 * 56.0);
    CHECK(saved("layer1.0.se.gate") == 256.0);
    CHECK(saved("layer1.0.se.scale") == 0.0);
    CHECK(saved("layer1.0.add") == 0.0);
  }

  TEST_CASE("ResNeXt options are refused where torchvision has no such model") {
    try {
      testing::build("resnet", {{"depth", 18}, {"groups", 32}});
      FAIL("no error");
    } catch (const WorkloadError& error) {
      CHECK(error.parameter() == "groups");
      CHECK(std::string(error.what()) ==
            "ResNet-18 has basic blocks, which torchvision builds only with groups 1 and width_per_group 64; remove "
            "groups and width_per_group, or use depth 50, 101 or 152 (bottleneck blocks)");
    }
    try {
      testing::build("resnet", {{"depth", 50}, {"se_reduction", 300}});
      FAIL("no error");
    } catch (const WorkloadError& error) {
      CHECK(error.parameter() == "se_reduction");
      CHECK(std::string(error.what()) ==
            "se_reduction 300 leaves the first stage's squeeze (256 channels) with none; use se_reduction 256 or less "
            "(Hu et al. 2018: 16)");
    }
  }

}  // TEST_SUITE

}  // namespace gpuplan::models

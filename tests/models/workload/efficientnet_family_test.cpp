#include "models/workload/efficientnet_family.h"

#include <doctest/doctest.h>

#include <string>

#include "catalog_models.h"
#include "core/units.h"

namespace gpuplan::models {

using testing::build_catalog_model;
using testing::conv_and_linear_macs;
using testing::sum_over;

namespace {

double saved(const Workload& workload, const std::string& name) {
  for (const Op& op : workload.ops) {
    if (op.name == name) return op.saved_elements;
  }
  return -1.0;
}

}  // namespace

TEST_SUITE("models.workload.efficientnet_family") {
  TEST_CASE("B0, B3 and B4 have torchvision's parameter counts and MACs") {
    // torchvision docs, EfficientNet_B*_Weights.IMAGENET1K_V1: num_params and GFLOPS (MACs) at
    // the weights' resolution (224, 300, 380).
    struct Reference {
      const char* name;
      double parameters;
      double macs;
    };
    for (const Reference& reference : {Reference{"efficientnet-b0", 5'288'548.0, 0.39 * core::kGiga},
                                       Reference{"efficientnet-b3", 12'233'232.0, 1.83 * core::kGiga},
                                       Reference{"efficientnet-b4", 19'341'616.0, 4.39 * core::kGiga}}) {
      CAPTURE(reference.name);
      const Workload workload = build_catalog_model(reference.name);
      CHECK(workload.parameters == reference.parameters);
      CHECK(conv_and_linear_macs(workload) == doctest::Approx(reference.macs).epsilon(0.02));
      CHECK(workload.family == "efficientnet");
    }
  }

  TEST_CASE("B0's first MBConv6 block, by hand") {
    // blocks.1: 16 -> 24 channels, expand 6 (96), 3x3 depthwise at stride 2 (112 -> 56),
    // squeeze to 16 / 4 = 4. Parameters: expand 16 x 96 = 1,536, BN 192, depthwise 96 x 9 =
    // 864, BN 192, SE 96 x 4 + 4 + 4 x 96 + 96 = 868, project 96 x 24 = 2,304, BN 48: 6,004.
    const Workload b0 = build_catalog_model("efficientnet-b0");
    CHECK(sum_over(b0, "blocks.1.", [](const Op& op) { return op.parameters; }) == 6'004.0);
    // Depthwise: one input channel per group; the 1x1 convolutions are dense.
    CHECK(sum_over(b0, "blocks.1.dw.conv", [](const Op& op) { return op.conv_group_input_channels; }) == 1.0);
    CHECK(sum_over(b0, "blocks.1.expand.conv", [](const Op& op) { return op.conv_group_input_channels; }) == 0.0);
    CHECK(sum_over(b0, "blocks.1.dw.conv", [](const Op& op) { return op.forward_flop; }) ==
          2.0 * 96.0 * 9.0 * 56.0 * 56.0);
    // Saved, elements per sample: the expand conv its input, 16 x 112² = 200,704 (the previous
    // block's project BN output: new); BN and SiLU their inputs, 96 x 112² = 1,204,224 each;
    // the depthwise conv the SiLU output, another 1,204,224; at 56²: the BN and SiLU 301,056
    // each, the pool the SiLU output 301,056, the sigmoid its 96-wide gate, the project conv the scaled
    // tensor 301,056, its BN 24 x 56² = 75,264. No residual: the channels change.
    CHECK(saved(b0, "blocks.1.expand.conv") == 200'704.0);
    CHECK(saved(b0, "blocks.1.expand.bn") == 1'204'224.0);
    CHECK(saved(b0, "blocks.1.expand.act") == 1'204'224.0);
    CHECK(saved(b0, "blocks.1.dw.conv") == 1'204'224.0);
    CHECK(saved(b0, "blocks.1.dw.act") == 301'056.0);
    CHECK(saved(b0, "blocks.1.se.avgpool") == 301'056.0);
    CHECK(saved(b0, "blocks.1.se.gate") == 96.0);   // the sigmoid saves its output,
    CHECK(saved(b0, "blocks.1.se.scale") == 0.0);   // which the multiply reads too
    CHECK(saved(b0, "blocks.1.project.conv") == 301'056.0);
    CHECK(saved(b0, "blocks.1.project.bn") == 75'264.0);
    CHECK(saved(b0, "blocks.1.add") == -1.0);
    CHECK(saved(b0, "blocks.2.add") == 0.0);  // 24 -> 24 at stride 1: a residual, saving nothing
  }

  TEST_CASE("compound scaling: channels to multiples of 8, blocks rounded up") {
    // B4: width 1.4, depth 1.8: stem round(32 x 1.4 = 44.8) = 48, head 4 x round(448) = 1,792,
    // blocks per stage ceil(1.8 x [1, 2, 2, 3, 3, 4, 1]) = [2, 4, 4, 6, 6, 8, 2]: 32 blocks.
    const Workload b4 = build_catalog_model("efficientnet-b4");
    CHECK(b4.ops.front().output_elements == 48.0 * 190.0 * 190.0);
    CHECK(sum_over(b4, "fc", [](const Op& op) { return op.input_elements; }) == 1'792.0);
    CHECK(saved(b4, "blocks.31.project.conv") > 0.0);
    CHECK(saved(b4, "blocks.32.project.conv") == -1.0);
    // Input: the fp32 image 3 x 380² x 4 B and the int64 label.
    CHECK(b4.input_bytes_per_sample == 3.0 * 380.0 * 380.0 * 4.0 + 8.0);
  }

  TEST_CASE("bad values are refused with a fix") {
    try {
      testing::build("efficientnet", {{"image_size", 16}});
      FAIL("no error");
    } catch (const WorkloadError& error) {
      CHECK(error.parameter() == "image_size");
      CHECK(std::string(error.what()) == "image_size must be at least 32, got 16");
    }
    try {
      testing::build("efficientnet", {{"width_multiplier", 0.1}});
      FAIL("no error");
    } catch (const WorkloadError& error) {
      CHECK(error.parameter() == "width_multiplier");
    }
  }
}

}  // namespace gpuplan::models

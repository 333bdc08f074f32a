#include "models/workload/efficientnet_family.h"

#include <array>
#include <cmath>

#include "models/workload/architecture_reader.h"
#include "models/workload/conv_net_builder.h"

namespace gpuplan::models {

namespace {

/// B0's stem width and the head's widening of the last stage (torchvision efficientnet.py:
/// lastconv_output_channels = 4 × lastconv_input_channels).
constexpr double kStemChannels = 32.0;
constexpr double kHeadWidening = 4.0;
/// Squeeze-and-excitation reduces to a quarter of the block's input channels (Tan & Le 2019,
/// sec. 4: "squeeze-and-excitation optimization", ratio 0.25).
constexpr double kSqueezeRatio = 0.25;

/// One stage of B0 (Tan & Le 2019, table 1).
struct MbConvStage {
  double expand_ratio;
  double kernel;
  double stride;
  double channels;
  int blocks;
};
constexpr std::array<MbConvStage, 7> kB0Stages = {{
    {1.0, 3.0, 1.0, 16.0, 1},
    {6.0, 3.0, 2.0, 24.0, 2},
    {6.0, 5.0, 2.0, 40.0, 2},
    {6.0, 3.0, 2.0, 80.0, 3},
    {6.0, 5.0, 1.0, 112.0, 3},
    {6.0, 5.0, 2.0, 192.0, 4},
    {6.0, 3.0, 1.0, 320.0, 1},
}};

/// torchvision's _make_divisible(v, 8): v rounded to the nearest multiple of 8, at least 8,
/// and never more than 10 % below v.
double round_channels(double v) {
  constexpr double kDivisor = 8.0;
  double rounded = std::max(kDivisor, std::floor((v + kDivisor / 2.0) / kDivisor) * kDivisor);
  if (rounded < 0.9 * v) rounded += kDivisor;
  return rounded;
}

}  // namespace

std::string EfficientnetFamily::summary() const {
  return "EfficientNet-B0..B7 image classifier (Tan & Le 2019) as torchvision/timm build it: MBConv blocks with "
         "depthwise convolutions, squeeze-and-excitation and SiLU, compound-scaled by width and depth";
}

std::vector<ArchitectureParameter> EfficientnetFamily::parameters() const {
  return {
      real_parameter("width_multiplier",
                     "channel multiplier over B0's (Tan & Le 2019, sec. 3.3): B0 1.0, B1 1.0, B2 1.1, B3 1.2, B4 1.4, "
                     "B5 1.6, B6 1.8, B7 2.0",
                     1.0, 0.25, 8.0),
      real_parameter("depth_multiplier",
                     "block-count multiplier over B0's: B0 1.0, B1 1.1, B2 1.2, B3 1.4, B4 1.8, B5 2.2, B6 2.6, B7 3.1",
                     1.0, 0.25, 8.0),
      count_with_default("image_size", "input height = width, pixels (B0 224, B3 300 or timm's 288, B4 380)", 224, 32),
      count_with_default("classes", "output classes of the fc layer", 1000),
      count_with_default("channels", "input image channels", 3),
  };
}

Workload EfficientnetFamily::build(const ArchitectureValues& values) const {
  const ArchitectureReader reader("efficientnet", parameters(), values);
  const double width = reader.value("width_multiplier");
  const double depth = reader.value("depth_multiplier");
  const double image_size = reader.value("image_size");
  const double classes = reader.value("classes");
  const double channels = reader.value("channels");

  Workload workload;
  workload.name = "inline";
  workload.family = "efficientnet";
  ConvNetBuilder b(workload.ops.edit());

  ConvTensor image{channels, image_size, false};
  ConvTensor x = b.conv("stem.conv", image, round_channels(kStemChannels * width), 3.0, 2.0, 1.0, 1.0, false, true);
  x = b.batch_norm("stem.bn", x);
  x = b.silu("stem.act", x);
  int block_index = 0;
  for (std::size_t stage = 0; stage < kB0Stages.size(); ++stage) {
    const MbConvStage& s = kB0Stages[stage];
    const double out_channels = round_channels(s.channels * width);
    const int blocks = static_cast<int>(std::ceil(s.blocks * depth));
    for (int i = 0; i < blocks; ++i, ++block_index) {
      const std::string prefix = "blocks." + std::to_string(block_index) + ".";
      const double stride = i == 0 ? s.stride : 1.0;
      const double in_channels = x.channels;
      const double mid = round_channels(in_channels * s.expand_ratio);
      ConvTensor y = x;
      if (s.expand_ratio != 1.0) {
        y = b.conv(prefix + "expand.conv", x, mid, 1.0, 1.0, 0.0);
        y = b.batch_norm(prefix + "expand.bn", y);
        y = b.silu(prefix + "expand.act", y);
      }
      y = b.conv(prefix + "dw.conv", y, mid, s.kernel, stride, (s.kernel - 1.0) / 2.0, mid);
      y = b.batch_norm(prefix + "dw.bn", y);
      y = b.silu(prefix + "dw.act", y);
      y = b.squeeze_excitation(prefix + "se.", y, std::max(1.0, std::floor(in_channels * kSqueezeRatio)), true);
      y = b.conv(prefix + "project.conv", y, out_channels, 1.0, 1.0, 0.0);
      y = b.batch_norm(prefix + "project.bn", y);
      if (stride == 1.0 && in_channels == out_channels) y = b.add(prefix + "add", y);
      x = y;
    }
  }
  if (x.size < 1.0) {
    throw WorkloadError("image_size", "image_size " + format_architecture_value(image_size) +
                                          " leaves no pixel after the five stride-2 stages; use image_size 32 or more");
  }
  x = b.conv("head.conv", x, kHeadWidening * x.channels, 1.0, 1.0, 0.0);
  x = b.batch_norm("head.bn", x);
  x = b.silu("head.act", x);
  b.classifier_head(x, classes, true);
  finish_image_classifier(workload, channels, image_size);
  return workload;
}

}  // namespace gpuplan::models

#include "models/workload/resnet_family.h"

#include <array>
#include <cmath>

#include "models/workload/architecture_reader.h"
#include "models/workload/conv_net_builder.h"

namespace gpuplan::models {

namespace {

/// The largest groups and width_per_group accepted: 32 x 1024 = 32,768 channels in the first
/// stage's bottleneck, 32x the widest published ResNeXt (Xie et al. 2017, 64x4d; WRN-style
/// 1x2048d variants stay inside). A bound on nonsense input, not on any model.
constexpr double kMaxGroups = 1024.0;

/// `parameter` with an upper bound.
ArchitectureParameter with_max(ArchitectureParameter parameter, double max_value) {
  parameter.max_value = max_value;
  return parameter;
}

/// Bottleneck blocks widen their output 4× (He et al. 2016, fig. 5).
constexpr double kBottleneckExpansion = 4.0;

/// Blocks per stage and block type per depth (He et al. 2016, table 1).
struct ResnetLayout {
  int depth;
  bool bottleneck;
  std::array<int, 4> blocks;
};
constexpr std::array<ResnetLayout, 5> kLayouts = {{
    {18, false, {2, 2, 2, 2}},
    {34, false, {3, 4, 6, 3}},
    {50, true, {3, 4, 6, 3}},
    {101, true, {3, 4, 23, 3}},
    {152, true, {3, 8, 36, 3}},
}};

/// The blocks of a ResNet, ResNeXt or SE-ResNeXt on the shared conv-net builder.
class ResnetBlocks {
 public:
  /// `groups` and `width_per_group`: ResNeXt's cardinality and bottleneck width per group
  /// (Xie et al. 2017; 1 and 64 for ResNet); `se_reduction`: the squeeze-and-excitation
  /// reduction ratio after each block's last batch norm (Hu et al. 2018; 0 for none).
  ResnetBlocks(ConvNetBuilder& builder, double groups, double width_per_group, double se_reduction)
      : b_(builder), groups_(groups), width_per_group_(width_per_group), se_reduction_(se_reduction) {}

  /// torchvision BasicBlock: 3×3 conv (stride) → BN → ReLU → 3×3 conv → BN, + identity
  /// (1×1 conv + BN downsample when the shape changes), ReLU.
  ConvTensor basic_block(const std::string& prefix, ConvTensor x, double planes, double stride) {
    ConvTensor out = b_.conv(prefix + "conv1", x, planes, 3.0, stride, 1.0);
    out = b_.batch_norm(prefix + "bn1", out);
    out = b_.relu(prefix + "relu1", out);
    out = b_.conv(prefix + "conv2", out, planes, 3.0, 1.0, 1.0);
    out = b_.batch_norm(prefix + "bn2", out);
    out = excite(prefix, out);
    downsample(prefix, x, planes, stride);
    out = b_.add(prefix + "add", out);
    return b_.relu(prefix + "relu2", out);
  }

  /// torchvision Bottleneck (v1.5): 1×1 conv → BN → ReLU → 3×3 conv (stride, `groups`) → BN →
  /// ReLU → 1×1 conv (4× planes) → BN [→ squeeze-and-excitation], + identity (downsample when
  /// needed), ReLU. The inner width is planes × width_per_group / 64 × groups (torchvision's
  /// `width`; ResNeXt-50 32x4d's first stage: 128).
  ConvTensor bottleneck_block(const std::string& prefix, ConvTensor x, double planes, double stride) {
    const double width = std::floor(planes * width_per_group_ / 64.0) * groups_;
    ConvTensor out = b_.conv(prefix + "conv1", x, width, 1.0, 1.0, 0.0);
    out = b_.batch_norm(prefix + "bn1", out);
    out = b_.relu(prefix + "relu1", out);
    out = b_.conv(prefix + "conv2", out, width, 3.0, stride, 1.0, groups_);
    out = b_.batch_norm(prefix + "bn2", out);
    out = b_.relu(prefix + "relu2", out);
    out = b_.conv(prefix + "conv3", out, planes * kBottleneckExpansion, 1.0, 1.0, 0.0);
    out = b_.batch_norm(prefix + "bn3", out);
    out = excite(prefix, out);
    downsample(prefix, x, planes * kBottleneckExpansion, stride);
    out = b_.add(prefix + "add", out);
    return b_.relu(prefix + "relu3", out);
  }

 private:
  ConvTensor excite(const std::string& prefix, ConvTensor& out) {
    if (se_reduction_ <= 0.0) return out;
    return b_.squeeze_excitation(prefix + "se.", out, std::floor(out.channels / se_reduction_), false);
  }

  void downsample(const std::string& prefix, ConvTensor& x, double out_channels, double stride) {
    if (stride == 1.0 && x.channels == out_channels) {
      return;
    }
    ConvTensor identity = b_.conv(prefix + "downsample.0", x, out_channels, 1.0, stride, 0.0);
    b_.batch_norm(prefix + "downsample.1", identity);
  }

  ConvNetBuilder& b_;
  double groups_;
  double width_per_group_;
  double se_reduction_;
};

}  // namespace

std::string ResnetFamily::summary() const {
  return "ResNet-18/34/50/101/152 image classifier as torchvision builds it (He et al. 2016, "
         "v1.5 bottleneck), with ResNeXt's grouped 3x3 convolutions (groups, width_per_group) and "
         "squeeze-and-excitation (se_reduction) as options; batch norm in training mode, cross-entropy loss";
}

std::vector<ArchitectureParameter> ResnetFamily::parameters() const {
  return {
      required_count("depth",
                     "layers with weights: 18, 34 (basic blocks), 50, 101 or 152 (bottlenecks)"),
      count_with_default("image_size", "input height = width, pixels", 224, 32),
      count_with_default("classes", "output classes of the fc layer", 1000),
      count_with_default("channels", "input image channels", 3),
      with_max(count_with_default("groups",
                                  "bottleneck 3x3 convolution groups (ResNeXt's cardinality, Xie et al. 2017): 32 for "
                                  "ResNeXt 32x4d; 1 for ResNet; at most 1024",
                                  1),
               kMaxGroups),
      with_max(count_with_default("width_per_group",
                                  "bottleneck width per group at the first stage, doubling per stage: 4 for ResNeXt "
                                  "32x4d; 64 for ResNet; at most 1024",
                                  64),
               kMaxGroups),
      count_with_default("se_reduction",
                         "squeeze-and-excitation after each block's last batch norm, reduction ratio r "
                         "(Hu et al. 2018: 16); 0 for none",
                         0, 0),
  };
}

Workload ResnetFamily::build(const ArchitectureValues& values) const {
  const ArchitectureReader reader("resnet", parameters(), values);
  const long long depth = reader.count("depth");
  const ResnetLayout* layout = nullptr;
  for (const ResnetLayout& candidate : kLayouts) {
    if (candidate.depth == depth) {
      layout = &candidate;
    }
  }
  if (layout == nullptr) {
    throw WorkloadError("depth", "depth " + std::to_string(depth) +
                                     " is not a ResNet depth; use one of 18, 34, 50, 101, 152 "
                                     "(He et al. 2016, table 1)");
  }
  const double image_size = reader.value("image_size");
  const double classes = reader.value("classes");
  const double channels = reader.value("channels");
  const double groups = reader.value("groups");
  const double width_per_group = reader.value("width_per_group");
  if (!layout->bottleneck && (groups != 1.0 || width_per_group != 64.0)) {
    throw WorkloadError(groups != 1.0 ? "groups" : "width_per_group",
                        "ResNet-" + std::to_string(depth) +
                            " has basic blocks, which torchvision builds only with groups 1 and width_per_group 64; "
                            "remove groups and width_per_group, or use depth 50, 101 or 152 (bottleneck blocks)");
  }
  // The narrowest block output is the first stage's: 64 channels (basic) or 256 (bottleneck).
  const double se_reduction = reader.value("se_reduction");
  const double narrowest = layout->bottleneck ? 64.0 * kBottleneckExpansion : 64.0;
  if (se_reduction > narrowest) {
    throw WorkloadError("se_reduction", "se_reduction " + format_architecture_value(se_reduction) +
                                            " leaves the first stage's squeeze (" + format_architecture_value(narrowest) +
                                            " channels) with none; use se_reduction " +
                                            format_architecture_value(narrowest) + " or less (Hu et al. 2018: 16)");
  }

  Workload workload;
  workload.name = "inline";
  workload.family = "resnet";
  ConvNetBuilder builder(workload.ops.edit());
  ResnetBlocks blocks(builder, groups, width_per_group, se_reduction);

  ConvTensor image{channels, image_size, false};
  ConvTensor x = builder.conv("conv1", image, 64.0, 7.0, 2.0, 3.0, 1.0, false, true);
  x = builder.batch_norm("bn1", x);
  x = builder.relu("relu", x);
  x = builder.max_pool("maxpool", x);
  for (int stage = 0; stage < 4; ++stage) {
    const double planes = 64.0 * std::pow(2.0, stage);
    for (int block = 0; block < layout->blocks[stage]; ++block) {
      const std::string prefix =
          "layer" + std::to_string(stage + 1) + "." + std::to_string(block) + ".";
      const double stride = (stage > 0 && block == 0) ? 2.0 : 1.0;
      x = layout->bottleneck ? blocks.bottleneck_block(prefix, x, planes, stride)
                             : blocks.basic_block(prefix, x, planes, stride);
    }
  }
  builder.classifier_head(x, classes, false);
  finish_image_classifier(workload, channels, image_size);
  return workload;
}

}  // namespace gpuplan::models

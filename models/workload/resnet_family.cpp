#include "models/workload/resnet_family.h"

#include <array>
#include <cmath>

#include "models/workload/architecture_reader.h"
#include "models/workload/layer_ops.h"

namespace gpuplan::models {

namespace {

constexpr double kFlopPerMac = 2.0;
/// The image travels as fp32 (torchvision ToTensor), the label as int64.
constexpr double kImageBytesPerElement = 4.0;
constexpr double kLabelBytes = 8.0;
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

/// An activation tensor of `channels` × size × size, and whether some op already saves it.
struct Tensor {
  double channels;
  double size;
  bool saved;
  double elements() const { return channels * size * size; }
};

/// Appends the ops of a ResNet to `ops`, tracking which tensors are already saved.
class ResnetBuilder {
 public:
  explicit ResnetBuilder(std::vector<Op>& ops) : ops_(ops) {}

  /// Convolution without bias; output size floor((size + 2·pad − kernel) / stride) + 1.
  /// Saves its input unless it is already saved. `first`: the input is the image, which
  /// needs no gradient, so backward computes only the weight gradient (ratio 1).
  Tensor conv(const std::string& name, Tensor& x, double out_channels, double kernel, double stride,
              double pad, bool first = false) {
    const double out_size = std::floor((x.size + 2.0 * pad - kernel) / stride) + 1.0;
    const double weights = out_channels * x.channels * kernel * kernel;
    const Tensor y{out_channels, out_size, false};
    ops_.push_back(Op{
        .name = name,
        .op_class = OpClass::kConv,
        .forward_flop = kFlopPerMac * weights * out_size * out_size,
        .input_elements = x.elements(),
        .output_elements = y.elements(),
        .parameters = weights,
        .saved_elements = x.saved ? 0.0 : x.elements(),
        .backward_flop_ratio = first ? 1.0 : 2.0,
        .forward_kernels = 1,
    });
    x.saved = true;
    return y;
  }

  /// Batch norm in training mode: saves its input; weight and bias per channel.
  Tensor batch_norm(const std::string& name, Tensor& x) {
    ops_.push_back(Op{
        .name = name,
        .op_class = OpClass::kNormalization,
        .forward_flop = kBatchNormFlopPerElement * x.elements(),
        .input_elements = x.elements(),
        .output_elements = x.elements(),
        .parameters = 2.0 * x.channels,
        .saved_elements = x.saved ? 0.0 : x.elements(),
        .backward_flop_ratio = 1.0,
        .forward_kernels = 1,
        .batch_norm_channels = x.channels,
    });
    x.saved = true;
    return Tensor{x.channels, x.size, false};
  }

  /// In-place ReLU: saves its output (threshold_backward needs it).
  Tensor relu(const std::string& name, const Tensor& x) {
    ops_.push_back(elementwise_op(name, x.elements(), 1.0, kReluFlopPerElement, x.elements()));
    return Tensor{x.channels, x.size, true};
  }

  /// In-place `out += identity`: saves nothing; the result is a new, unsaved tensor.
  Tensor add(const std::string& name, const Tensor& x) {
    ops_.push_back(residual_add_op(name, x.elements()));
    return Tensor{x.channels, x.size, false};
  }

  /// Max pool 3×3, stride 2, padding 1: saves its input and one index per output.
  Tensor max_pool(const std::string& name, Tensor& x) {
    constexpr double kWindow = 3.0;
    const double out_size = std::floor((x.size + 2.0 - kWindow) / 2.0) + 1.0;
    const Tensor y{x.channels, out_size, false};
    ops_.push_back(Op{
        .name = name,
        .op_class = OpClass::kPooling,
        .forward_flop = kWindow * kWindow * y.elements(),  // one comparison per window element
        .input_elements = x.elements(),
        .output_elements = y.elements(),
        .parameters = 0.0,
        .saved_elements = (x.saved ? 0.0 : x.elements()) + y.elements(),
        .backward_flop_ratio = 1.0,
        .forward_kernels = 1,
    });
    x.saved = true;
    return y;
  }

  /// Adaptive average pool to 1×1: sums each channel, divides once. Saves its input.
  Tensor global_avg_pool(const std::string& name, Tensor& x) {
    ops_.push_back(Op{
        .name = name,
        .op_class = OpClass::kPooling,
        .forward_flop = x.elements() + x.channels,
        .input_elements = x.elements(),
        .output_elements = x.channels,
        .parameters = 0.0,
        .saved_elements = x.saved ? 0.0 : x.elements(),
        .backward_flop_ratio = 1.0,
        .forward_kernels = 1,
    });
    x.saved = true;
    return Tensor{x.channels, 1.0, false};
  }

  /// torchvision BasicBlock: 3×3 conv (stride) → BN → ReLU → 3×3 conv → BN, + identity
  /// (1×1 conv + BN downsample when the shape changes), ReLU.
  Tensor basic_block(const std::string& prefix, Tensor x, double planes, double stride) {
    Tensor out = conv(prefix + "conv1", x, planes, 3.0, stride, 1.0);
    out = batch_norm(prefix + "bn1", out);
    out = relu(prefix + "relu1", out);
    out = conv(prefix + "conv2", out, planes, 3.0, 1.0, 1.0);
    out = batch_norm(prefix + "bn2", out);
    downsample(prefix, x, planes, stride);
    out = add(prefix + "add", out);
    return relu(prefix + "relu2", out);
  }

  /// torchvision Bottleneck (v1.5): 1×1 conv → BN → ReLU → 3×3 conv (stride) → BN → ReLU →
  /// 1×1 conv (4× planes) → BN, + identity (downsample when needed), ReLU.
  Tensor bottleneck_block(const std::string& prefix, Tensor x, double planes, double stride) {
    Tensor out = conv(prefix + "conv1", x, planes, 1.0, 1.0, 0.0);
    out = batch_norm(prefix + "bn1", out);
    out = relu(prefix + "relu1", out);
    out = conv(prefix + "conv2", out, planes, 3.0, stride, 1.0);
    out = batch_norm(prefix + "bn2", out);
    out = relu(prefix + "relu2", out);
    out = conv(prefix + "conv3", out, planes * kBottleneckExpansion, 1.0, 1.0, 0.0);
    out = batch_norm(prefix + "bn3", out);
    downsample(prefix, x, planes * kBottleneckExpansion, stride);
    out = add(prefix + "add", out);
    return relu(prefix + "relu3", out);
  }

 private:
  void downsample(const std::string& prefix, Tensor& x, double out_channels, double stride) {
    if (stride == 1.0 && x.channels == out_channels) {
      return;
    }
    Tensor identity = conv(prefix + "downsample.0", x, out_channels, 1.0, stride, 0.0);
    batch_norm(prefix + "downsample.1", identity);
  }

  std::vector<Op>& ops_;
};

}  // namespace

std::string ResnetFamily::summary() const {
  return "ResNet-18/34/50/101/152 image classifier as torchvision builds it (He et al. 2016, "
         "v1.5 bottleneck), batch norm in training mode, cross-entropy loss";
}

std::vector<ArchitectureParameter> ResnetFamily::parameters() const {
  return {
      required_count("depth",
                     "layers with weights: 18, 34 (basic blocks), 50, 101 or 152 (bottlenecks)"),
      count_with_default("image_size", "input height = width, pixels", 224, 32),
      count_with_default("classes", "output classes of the fc layer", 1000),
      count_with_default("channels", "input image channels", 3),
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

  Workload workload;
  workload.name = "inline";
  workload.family = "resnet";
  ResnetBuilder builder(workload.ops.edit());

  Tensor image{channels, image_size, false};
  Tensor x = builder.conv("conv1", image, 64.0, 7.0, 2.0, 3.0, true);
  x = builder.batch_norm("bn1", x);
  x = builder.relu("relu", x);
  x = builder.max_pool("maxpool", x);
  for (int stage = 0; stage < 4; ++stage) {
    const double planes = 64.0 * std::pow(2.0, stage);
    for (int block = 0; block < layout->blocks[stage]; ++block) {
      const std::string prefix =
          "layer" + std::to_string(stage + 1) + "." + std::to_string(block) + ".";
      const double stride = (stage > 0 && block == 0) ? 2.0 : 1.0;
      x = layout->bottleneck ? builder.bottleneck_block(prefix, x, planes, stride)
                             : builder.basic_block(prefix, x, planes, stride);
    }
  }
  x = builder.global_avg_pool("avgpool", x);
  workload.ops.push_back(linear_op("fc", 1.0, x.channels, classes, true, !x.saved));
  workload.ops.push_back(cross_entropy_op("loss", 1.0, classes));

  for (const Op& op : workload.ops) {
    workload.parameters += op.parameters;
  }
  workload.tokens_per_sample = 1.0;
  workload.is_language_model = false;
  workload.input_bytes_per_sample =
      channels * image_size * image_size * kImageBytesPerElement + kLabelBytes;
  return workload;
}

}  // namespace gpuplan::models

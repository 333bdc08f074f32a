#include "models/workload/conv_net_builder.h"

#include <cmath>

#include "models/workload/layer_ops.h"

namespace gpuplan::models {

ConvTensor ConvNetBuilder::conv(const std::string& name, ConvTensor& x, double out_channels, double kernel,
                                double stride, double pad, double groups, bool bias, bool first) {
  const double out_size = std::floor((x.size + 2.0 * pad - kernel) / stride) + 1.0;
  const double weights = out_channels * (x.channels / groups) * kernel * kernel;
  const ConvTensor y{out_channels, out_size, false};
  Op op{
      .name = name,
      .op_class = OpClass::kConv,
      .forward_flop = kFlopPerMac * weights * out_size * out_size + (bias ? y.elements() : 0.0),
      .input_elements = x.elements(),
      .output_elements = y.elements(),
      .parameters = weights + (bias ? out_channels : 0.0),
      .saved_elements = x.saved ? 0.0 : x.elements(),
      .backward_flop_ratio = first ? 1.0 : 2.0,
      .forward_kernels = 1,
  };
  if (groups > 1.0) op.conv_group_input_channels = x.channels / groups;
  ops_.push_back(op);
  x.saved = true;
  return y;
}

ConvTensor ConvNetBuilder::batch_norm(const std::string& name, ConvTensor& x) {
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
  return ConvTensor{x.channels, x.size, false};
}

ConvTensor ConvNetBuilder::relu(const std::string& name, const ConvTensor& x) {
  ops_.push_back(elementwise_op(name, x.elements(), 1.0, kReluFlopPerElement, x.elements()));
  return ConvTensor{x.channels, x.size, true};
}

ConvTensor ConvNetBuilder::silu(const std::string& name, ConvTensor& x) {
  ops_.push_back(elementwise_op(name, x.elements(), 1.0, kSiluFlopPerElement, x.saved ? 0.0 : x.elements()));
  x.saved = true;
  return ConvTensor{x.channels, x.size, false};
}

ConvTensor ConvNetBuilder::sigmoid(const std::string& name, const ConvTensor& x) {
  ops_.push_back(elementwise_op(name, x.elements(), 1.0, kSigmoidFlopPerElement, x.elements()));
  return ConvTensor{x.channels, x.size, true};
}

ConvTensor ConvNetBuilder::add(const std::string& name, const ConvTensor& x) {
  ops_.push_back(residual_add_op(name, x.elements()));
  return ConvTensor{x.channels, x.size, false};
}

ConvTensor ConvNetBuilder::max_pool(const std::string& name, ConvTensor& x) {
  constexpr double kWindow = 3.0;
  const double out_size = std::floor((x.size + 2.0 - kWindow) / 2.0) + 1.0;
  const ConvTensor y{x.channels, out_size, false};
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

ConvTensor ConvNetBuilder::global_avg_pool(const std::string& name, ConvTensor& x) {
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
  return ConvTensor{x.channels, 1.0, false};
}

ConvTensor ConvNetBuilder::squeeze_excitation(const std::string& prefix, ConvTensor& x, double reduced, bool silu_act) {
  ConvTensor pooled = global_avg_pool(prefix + "avgpool", x);
  ConvTensor s = conv(prefix + "fc1", pooled, reduced, 1.0, 1.0, 0.0, 1.0, true);
  s = silu_act ? silu(prefix + "act", s) : relu(prefix + "act", s);
  s = conv(prefix + "fc2", s, x.channels, 1.0, 1.0, 0.0, 1.0, true);
  const ConvTensor gate = sigmoid(prefix + "gate", s);
  // x · gate: reads x (the gate is x.channels per sample), writes x's size; both tensors it
  // keeps for backward are saved already (x by the pool, the gate by the sigmoid).
  ops_.push_back(elementwise_op(prefix + "scale", x.elements(), 1.0, kScaleFlopPerElement, gate.saved ? 0.0 : gate.elements()));
  return ConvTensor{x.channels, x.size, false};
}

void ConvNetBuilder::classifier_head(ConvTensor& x, double classes, bool dropout) {
  x = global_avg_pool("avgpool", x);
  if (dropout) {
    ops_.push_back(dropout_op("dropout", x.channels));
    x.saved = false;  // the dropout's output, which the fc saves
  }
  ops_.push_back(linear_op("fc", 1.0, x.channels, classes, true, !x.saved));
  ops_.push_back(cross_entropy_op("loss", 1.0, classes));
}

void finish_image_classifier(Workload& workload, double channels, double image_size) {
  for (const Op& op : workload.ops) {
    workload.parameters += op.parameters;
  }
  workload.tokens_per_sample = 1.0;
  workload.is_language_model = false;
  workload.input_bytes_per_sample = image_classifier_input_bytes(channels, image_size);
}

}  // namespace gpuplan::models

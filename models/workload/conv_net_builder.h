#pragma once
/// \file conv_net_builder.h
/// The ops of convolutional image classifiers (ResNet, ResNeXt, SE-ResNeXt: resnet_family.h;
/// EfficientNet: efficientnet_family.h), built one layer at a time with the saved-tensor
/// bookkeeping of workload.h: each activation tensor is counted once, at the first op that
/// saves it. One place for the conv-net conventions (FLOP, parameters, saved tensors,
/// kernels) that the families share.

#include <string>
#include <vector>

#include "models/workload/workload.h"

namespace gpuplan::models {

/// An activation tensor of `channels` x size x size per sample, and whether an op already
/// saves it for backward.
struct ConvTensor {
  double channels = 0.0;
  double size = 0.0;
  bool saved = false;
  double elements() const { return channels * size * size; }
};

/// Appends the ops of a convolutional network to a table, tracking which tensors are saved.
class ConvNetBuilder {
 public:
  explicit ConvNetBuilder(std::vector<Op>& ops) : ops_(ops) {}

  /// Convolution of x into `out_channels`, square `kernel`, `stride`, `pad`, over `groups`
  /// groups (1: dense; x.channels: depthwise), with a bias when `bias`. Output size
  /// floor((size + 2·pad − kernel) / stride) + 1; FLOP 2 x out_channels x (x.channels / groups)
  /// x kernel² per output position; saves its input unless already saved. `first`: the input is
  /// the image, which needs no gradient, so backward computes only the weight gradient (ratio 1).
  /// Sets Op::conv_group_input_channels for a grouped convolution.
  ConvTensor conv(const std::string& name, ConvTensor& x, double out_channels, double kernel, double stride,
                  double pad, double groups = 1.0, bool bias = false, bool first = false);

  /// Batch norm in training mode: saves its input; weight and bias per channel.
  ConvTensor batch_norm(const std::string& name, ConvTensor& x);

  /// In-place ReLU: saves its output (threshold_backward needs it), which the next op that
  /// saves it then does not count again.
  ConvTensor relu(const std::string& name, const ConvTensor& x);

  /// SiLU x·σ(x) (Swish, Ramachandran et al. 2017; nn.SiLU): its backward needs the input,
  /// so it saves x (in place, autograd keeps a copy of the original); the output is new.
  ConvTensor silu(const std::string& name, ConvTensor& x);

  /// Sigmoid: saves its output (sigmoid_backward uses it).
  ConvTensor sigmoid(const std::string& name, const ConvTensor& x);

  /// In-place `out += identity`: saves nothing; the result is a new, unsaved tensor.
  ConvTensor add(const std::string& name, const ConvTensor& x);

  /// Max pool 3×3, stride 2, padding 1: saves its input and one index per output.
  ConvTensor max_pool(const std::string& name, ConvTensor& x);

  /// Adaptive average pool to 1×1: sums each channel, divides once. Saves its input.
  ConvTensor global_avg_pool(const std::string& name, ConvTensor& x);

  /// Squeeze-and-excitation (Hu et al. 2018, "Squeeze-and-Excitation Networks", fig. 3):
  /// global average pool, a `reduced`-wide 1×1 layer with bias, the activation (ReLU, or SiLU
  /// where `silu`), a 1×1 layer back to x.channels with bias, sigmoid, and x scaled by the
  /// per-channel gate (one broadcast multiply whose saved tensors, x and the gate, the pool and
  /// the sigmoid saved already). The squeeze layers run on 1×1 tensors, as torchvision's and timm's 1×1
  /// convolutions or DLE's Linear layers do (same FLOP and parameters).
  ConvTensor squeeze_excitation(const std::string& prefix, ConvTensor& x, double reduced, bool silu);

  /// The classifier head of a conv net over features x: global average pool, a dropout where
  /// `dropout` (EfficientNet's), the fc layer with bias to `classes`, the cross-entropy loss.
  void classifier_head(ConvTensor& x, double classes, bool dropout);

 private:
  std::vector<Op>& ops_;
};

/// Fills an image classifier's totals from its ops: parameters (their sum), one sample per
/// "token", not a language model, and the host-to-device bytes of an image of `channels` x
/// image_size² with its label (image_classifier_input_bytes, layer_ops.h).
void finish_image_classifier(Workload& workload, double channels, double image_size);

}  // namespace gpuplan::models

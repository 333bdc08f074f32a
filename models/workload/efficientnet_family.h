#pragma once
/// \file efficientnet_family.h
/// EfficientNet-B0 and its compound-scaled variants (Tan & Le 2019, "EfficientNet: Rethinking
/// Model Scaling for Convolutional Neural Networks", table 1 and sec. 3.3) as
/// torchvision.models.efficientnet_b0..b7 and timm's efficientnet_b0..b7 build them.
///
/// Ops: stem 3×3/2 conv → BN → SiLU; seven stages of MBConv blocks (Sandler et al. 2018's
/// inverted residual with squeeze-and-excitation): [1×1 expand conv → BN → SiLU, where the
/// expand ratio is 6] → k×k depthwise conv (stride) → BN → SiLU → squeeze-and-excitation
/// (reduction to a quarter of the block's input channels, SiLU, sigmoid gate) → 1×1 project
/// conv → BN, + identity where the stride is 1 and the channels match; head 1×1 conv to
/// 4 × the last stage's channels → BN → SiLU, global average pool, dropout, fc, loss.
/// B0's stages (expand ratio, kernel, stride, channels, blocks): (1, 3, 1, 16, 1),
/// (6, 3, 2, 24, 2), (6, 5, 2, 40, 2), (6, 3, 2, 80, 3), (6, 5, 1, 112, 3), (6, 5, 2, 192, 4),
/// (6, 3, 1, 320, 1); stem 32 channels. Channels scale by width_multiplier rounded to a
/// multiple of 8 (never below 90 % of the scaled value: torchvision's _make_divisible),
/// blocks per stage by depth_multiplier rounded up. Stochastic depth (drop path) is left
/// out: timm's benchmark runs without it; DeepLearningExamples' recipes add one
/// per-sample scale per residual block, under 2 % of the traffic.
/// Convolutions have no bias except the squeeze-and-excitation ones; BN owns 2 parameters
/// per channel. At 224² B0 has torchvision's 5,288,548 parameters and 0.39 G
/// multiply-accumulates (torchvision model docs, "GFLOPS" column, which counts MACs).
///
/// Saved activations follow workload.h and conv_net_builder.h: conv and BN save their
/// inputs, SiLU its input, sigmoid its output, the pool its input, which the gate's multiply
/// saves too (counted once). Kernels: one per op; 2 for the loss.
/// Input: the fp32 image and its int64 label.

#include <string>
#include <vector>

#include "models/workload/workload_family.h"

namespace gpuplan::models {

/// The `efficientnet` workload family. Parameters: width_multiplier (1.0), depth_multiplier
/// (1.0), image_size (224 px), classes (1000), channels (3). B3: 1.2, 1.4 (timm trains it at
/// 288 px, torchvision at 300); B4: 1.4, 1.8 at 380 px.
class EfficientnetFamily final : public IWorkloadFamily {
 public:
  std::string summary() const override;
  std::vector<ArchitectureParameter> parameters() const override;
  /// Throws WorkloadError for the generic problems of ArchitectureReader, and for an
  /// image_size that the five stride-2 stages reduce below one pixel.
  Workload build(const ArchitectureValues& values) const override;
};

}  // namespace gpuplan::models

#pragma once
/// \file resnet_family.h
/// ResNet-18/34/50/101/152 (He et al. 2016, "Deep Residual Learning for Image Recognition",
/// table 1) as torchvision builds them (torchvision.models.resnet, "ResNet v1.5": the
/// stride of a bottleneck's downsampling sits on its 3×3 convolution), trained with
/// cross-entropy over `classes`.
///
/// Ops: conv1 7×7/2 → bn1 → relu → maxpool 3×3/2, four stages of basic (18, 34) or
/// bottleneck (50, 101, 152) blocks with a 1×1 conv + BN downsample where the shape
/// changes, global average pool, fc, loss. Convolutions have no bias; BN owns 2 parameters
/// per channel. At 224² this reproduces torchvision's parameter counts exactly
/// (ResNet-50: 25,557,032) and its 4.09 G multiply-accumulates for ResNet-50
/// (torchvision model docs, "GFLOPS" column, which counts MACs).
///
/// Saved activations follow workload.h: conv saves its input, BN its input, the in-place
/// ReLU its output (which the next conv then does not count again), max pool its input
/// (already saved by the ReLU) plus one index per output, the residual add nothing.
/// Kernels: one per conv, BN, ReLU, pool, add and fc; 2 for the loss.
/// Input: the fp32 image (channels·image_size² · 4 B) and its int64 label.

#include <string>
#include <vector>

#include "models/workload/workload_family.h"

namespace gpuplan::models {

/// The `resnet` workload family. Parameters: depth (required; 18, 34, 50, 101 or 152),
/// image_size (224 px), classes (1000), channels (3), and for ResNeXt (Xie et al. 2017) and
/// SE-ResNeXt (Hu et al. 2018): groups (1) and width_per_group (64) of the bottleneck's 3×3
/// convolution, se_reduction (0: no squeeze-and-excitation). ResNeXt-50 32x4d has
/// torchvision's 25,028,904 parameters, ResNeXt-101 32x4d timm's 44,177,704.
class ResnetFamily final : public IWorkloadFamily {
 public:
  std::string summary() const override;
  std::vector<ArchitectureParameter> parameters() const override;
  /// Throws WorkloadError("depth") for a depth that is not in He et al.'s table 1,
  /// WorkloadError("groups" / "width_per_group") for ResNeXt options on basic blocks,
  /// WorkloadError("se_reduction") for a reduction wider than the first stage, and for the
  /// generic problems of ArchitectureReader.
  Workload build(const ArchitectureValues& values) const override;
};

}  // namespace gpuplan::models

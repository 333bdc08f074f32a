#pragma once
/// \file vit_family.h
/// Vision Transformer (Dosovitskiy et al. 2021, "An Image is Worth 16x16 Words") as
/// torchvision.models.vit_b_16 and timm's vit_base_patch16_224 build it: a patch_size²
/// stride-patch_size convolution embeds (image_size / patch_size)² patches, a class token
/// is prepended and learned position embeddings added (s = patches + 1 tokens), then
/// pre-norm transformer layers (layer norm with bias, GELU MLP, no dropout: both default
/// to p = 0), a final layer norm, a linear head on the class token, cross-entropy.
///
/// Attention is unfused (transformer_block.h); torchvision and timm call PyTorch's fused
/// scaled_dot_product_attention where it is available, which saves the a·s² scores.
/// ViT-B/16 at 224²: 86,567,656 parameters (timm) and 17.56 G multiply-accumulates
/// (torchvision docs "GFLOPS" column, which counts MACs) = 35.1 GFLOP forward.
/// Input: the fp32 image and its int64 label.

#include <string>
#include <vector>

#include "models/workload/workload_family.h"

namespace gpuplan::models {

/// The `vit` workload family. Parameters: layers, hidden, heads, ffn_hidden (required),
/// patch_size (16 px), image_size (224 px), classes (1000), channels (3).
class VitFamily final : public IWorkloadFamily {
 public:
  std::string summary() const override;
  std::vector<ArchitectureParameter> parameters() const override;
  /// Throws WorkloadError("heads") when heads does not divide hidden and
  /// WorkloadError("image_size") when patch_size does not divide image_size.
  Workload build(const ArchitectureValues& values) const override;
};

}  // namespace gpuplan::models

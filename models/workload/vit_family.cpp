#include "models/workload/vit_family.h"

#include "models/workload/architecture_reader.h"
#include "models/workload/layer_ops.h"
#include "models/workload/transformer_block.h"

namespace gpuplan::models {

namespace {
/// `attention_module` choices: timm's Attention (one qkv Linear, reshape and permute views,
/// SDPA, one copy of the context) or torchvision's nn.MultiheadAttention.
constexpr std::size_t kAttentionTimm = 0;
constexpr std::size_t kAttentionTorchvision = 1;
}  // namespace

std::string VitFamily::summary() const {
  return "Vision Transformer image classifier (Dosovitskiy et al. 2021) as torchvision/timm "
         "build it: patch-embedding conv, class token, pre-norm layers, unfused attention";
}

std::vector<ArchitectureParameter> VitFamily::parameters() const {
  return {
      required_count("layers", "transformer layers"),
      required_count("hidden", "model width (embedding dimension)"),
      required_count("heads", "attention heads; must divide hidden"),
      required_count("ffn_hidden", "MLP inner width"),
      count_with_default("patch_size", "patch height = width, pixels", 16),
      count_with_default("image_size", "input height = width, pixels; a multiple of patch_size",
                         224),
      count_with_default("classes", "output classes of the head", 1000),
      count_with_default("channels", "input image channels", 3),
      choice_parameter("attention_module",
                       "timm (its Attention: one qkv Linear, views, one context copy) or torchvision "
                       "(nn.MultiheadAttention: the transposed input and packed q, k, v copied, three "
                       "zero-filled gradients of the packed tensor in backward)",
                       {"timm", "torchvision"}, kAttentionTimm),
  };
}

Workload VitFamily::build(const ArchitectureValues& values) const {
  const ArchitectureReader reader("vit", parameters(), values);
  const long long layers = reader.count("layers");
  const long long hidden = reader.count("hidden");
  const long long heads = reader.count("heads");
  const long long patch_size = reader.count("patch_size");
  const long long image_size = reader.count("image_size");
  check_heads_divide_hidden(hidden, heads);
  if (image_size % patch_size != 0) {
    const long long below = image_size / patch_size * patch_size;
    const std::string suggestion =
        below > 0 ? std::to_string(below) + " or " + std::to_string(below + patch_size)
                  : std::to_string(patch_size);
    throw WorkloadError("image_size", "image_size " + std::to_string(image_size) +
                                          " is not a multiple of patch_size " +
                                          std::to_string(patch_size) + "; use image_size " +
                                          suggestion);
  }
  const double h = static_cast<double>(hidden);
  const double channels = reader.value("channels");
  const double classes = reader.value("classes");
  const double side = static_cast<double>(image_size / patch_size);
  const double patches = side * side;
  const double s = patches + 1.0;  // + class token
  const double p = static_cast<double>(patch_size);
  const double image_elements =
      channels * static_cast<double>(image_size) * static_cast<double>(image_size);

  Workload workload;
  workload.name = "inline";
  workload.family = "vit";
  std::vector<Op>& ops = workload.ops.edit();
  // The patch embedding conv saves the image; the image needs no gradient (ratio 1).
  const double patch_weights = h * channels * p * p;
  ops.push_back(Op{
      .name = "patch_embed",
      .op_class = OpClass::kConv,
      .forward_flop = kFlopPerMac * patch_weights * patches + patches * h,
      .input_elements = image_elements,
      .output_elements = patches * h,
      .parameters = patch_weights + h,
      .saved_elements = image_elements,
      .backward_flop_ratio = 1.0,
      .forward_kernels = 1,
  });
  // torch.cat of the expanded class token with the patch tokens: one copy kernel.
  Op class_token = elementwise_op("embed.class_token", s * h, 1.0, 0.0, 0.0);
  class_token.parameters = h;
  ops.push_back(class_token);
  Op position = elementwise_op("embed.position", s * h, 1.0, kAddFlopPerElement, 0.0);
  position.parameters = s * h;  // learned position embedding, one row per token
  ops.push_back(position);

  TransformerBlockShape shape;
  shape.tokens = s;
  shape.hidden = h;
  shape.heads = static_cast<double>(heads);
  shape.kv_heads = shape.heads;
  shape.ffn_hidden = reader.value("ffn_hidden");
  shape.mlp = MlpKind::kGelu;
  shape.norm = NormKind::kLayerNorm;
  shape.pre_norm = true;
  shape.bias = true;
  shape.dropout = false;
  shape.qkv_kernels = 1;  // one in-projection GEMM (torchvision MHA in_proj, timm qkv)
  shape.torch_multihead_attention = reader.choice("attention_module") == kAttentionTorchvision;
  for (long long layer = 0; layer < layers; ++layer) {
    append_transformer_block(ops, "layers." + std::to_string(layer) + ".", shape);
  }
  ops.push_back(norm_op("norm", s, h, NormKind::kLayerNorm, true));
  // The head reads the class token x[:, 0], a view that keeps the whole final-norm output
  // (s·h) alive for backward.
  Op head = linear_op("head", 1.0, h, classes, true, false);
  head.saved_elements = s * h;
  ops.push_back(head);
  ops.push_back(cross_entropy_op("loss", 1.0, classes));

  for (const Op& op : ops) {
    workload.parameters += op.parameters;
  }
  workload.tokens_per_sample = 1.0;
  workload.is_language_model = false;
  workload.input_bytes_per_sample = image_classifier_input_bytes(channels, static_cast<double>(image_size));
  return workload;
}

}  // namespace gpuplan::models

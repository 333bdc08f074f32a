#include "models/workload/attention_kernel.h"

#include <cmath>
#include <stdexcept>

#include "models/workload/architecture_reader.h"
#include "models/workload/layer_ops.h"

namespace gpuplan::models {
namespace {

/// FlashAttention-2's backward recomputes S = QKᵀ, one of the forward's two matmuls.
constexpr double kFlashRecomputeFlopRatio = 0.5;
/// sdp_utils.cpp: check_head_dim_size_flash (<= 256), alignment of the last dimension.
constexpr double kFlashMaxHeadDim = 256.0;
/// FlashAttention-3 is written for sm90 (TMA, WGMMA; hopper/ in Dao-AILab/flash-attention);
/// cuDNN's fused attention runs on sm90 and sm100 (Transformer Engine's FusedAttention).
constexpr int kFlash3MinMajor = 9;
/// flash_attn_triton.py asserts head dimensions up to 128.
constexpr double kFlashTritonMaxHeadDim = 128.0;
constexpr double kHalfAlignment = 8.0;
constexpr double kFloatAlignment = 4.0;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_16_bit(Precision p) { return activation_element_bytes(p) == 2.0; }

bool divisible(double value, double by) { return std::fmod(value, by) == 0.0; }

/// s, s·h and a of an eager "attn.scores" op (forward 2·s²·h FLOP, input Q and K 2·s·h,
/// output a·s² scores; transformer_block.cpp).
struct ScoresShape {
  double tokens = 0.0;
  double tokens_by_hidden = 0.0;
  double heads = 0.0;
};
ScoresShape scores_shape(const Op& scores) {
  ScoresShape shape;
  shape.tokens_by_hidden = scores.input_elements / 2.0;
  shape.tokens = scores.forward_flop / kFlopPerMac / shape.tokens_by_hidden;
  shape.heads = scores.output_elements / (shape.tokens * shape.tokens);
  return shape;
}

}  // namespace

std::optional<AttentionShape> attention_shape(const Workload& workload, CausalMask causal_mask) {
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const Op& op = workload.ops[i];
    if (op.op_class != OpClass::kAttention || op.attention_kernel != AttentionKernel::kEager ||
        !ends_with(op.name, "attn.scores")) {
      continue;
    }
    const ScoresShape scores = scores_shape(op);
    AttentionShape shape;
    shape.head_dim = scores.tokens_by_hidden / scores.tokens / scores.heads;
    // The padding mask of the encoders is the mask op that autocast keeps in fp32
    // (transformer_block.cpp); a causal mask becomes SDPA's is_causal.
    for (std::size_t j = i + 1; j < workload.ops.size() && !ends_with(workload.ops[j].name, "attn.context"); ++j) {
      if (ends_with(workload.ops[j].name, "attn.mask") && workload.ops[j].autocast_fp32) {
        shape.attention_mask = true;
      }
      if (ends_with(workload.ops[j].name, "attn.alibi")) shape.alibi_bias = true;
      if (workload.ops[j].causal) shape.causal = true;
    }
    shape.causal_mask_tensor = shape.causal && causal_mask == CausalMask::kAttnMask;
    return shape;
  }
  return std::nullopt;
}

std::string attention_kernel_unsupported(AttentionKernel kernel, Precision precision, const GpuSpec& gpu,
                                         const AttentionShape& shape) {
  const std::string precision_name(name_of(precision));
  const std::string cc =
      std::to_string(gpu.compute_capability_major) + "." + std::to_string(gpu.compute_capability_minor);
  const std::string head_dim = format_architecture_value(shape.head_dim);
  if (is_flash_kernel(kernel)) {
    const std::string what = kernel == AttentionKernel::kFlash ? "flash attention" : "flash3 attention";
    if (!is_16_bit(precision)) {
      return what + " runs in fp16 or bf16, not " + precision_name;
    }
    if (kernel == AttentionKernel::kFlash && !gpu.has_tf32_bf16()) {
      return what + " needs a GPU of compute capability 8.0 or newer, and " + gpu.name + " has " + cc;
    }
    if (kernel == AttentionKernel::kFlash3 && (gpu.is_amd() || gpu.compute_capability_major < kFlash3MinMajor)) {
      const std::string has = gpu.is_amd() ? std::string(" is an AMD GPU") : " has " + cc;
      return what + " (FlashAttention-3, cuDNN fused attention) needs an NVIDIA GPU of compute capability 9.0 or "
             "newer (Hopper, Blackwell), and " + gpu.name + has;
    }
    if (shape.head_dim > kFlashMaxHeadDim || !divisible(shape.head_dim, kHalfAlignment)) {
      return what + " needs a head dimension of at most 256 and a multiple of 8, and this model's is " + head_dim;
    }
    if (shape.attention_mask) {
      return what + " takes no padding mask, and this model passes one";
    }
    if (shape.causal_mask_tensor) {
      return what + " takes no attn_mask tensor (it applies causal=True itself), and this model passes its causal "
             "mask as one";
    }
  } else if (kernel == AttentionKernel::kFlashTriton) {
    const std::string what = "flash_triton attention";
    if (!is_16_bit(precision)) {
      return what + " runs in fp16 or bf16, not " + precision_name;
    }
    if (!gpu.has_tf32_bf16() || gpu.is_amd()) {
      return what + " (flash_attn_triton) needs an NVIDIA GPU of compute capability 8.0 or newer, and " + gpu.name +
             (gpu.is_amd() ? std::string(" is an AMD GPU") : " has " + cc);
    }
    if (shape.head_dim > kFlashTritonMaxHeadDim || !divisible(shape.head_dim, kHalfAlignment)) {
      return what + " needs a head dimension of at most 128 and a multiple of 8, and this model's is " + head_dim;
    }
    if (shape.attention_mask) {
      return what + " takes no padding mask here, and this model passes one";
    }
    if (shape.causal_mask_tensor) {
      return what + " takes no attn_mask tensor here, and this model passes its causal mask as one";
    }
  } else if (kernel == AttentionKernel::kMemoryEfficient) {
    if ((precision == Precision::kBf16Amp || precision == Precision::kBf16) && !gpu.has_tf32_bf16()) {
      return "memory-efficient attention in bf16 needs compute capability 8.0 or newer, and " + gpu.name + " has " + cc;
    }
    if (!divisible(shape.head_dim, is_16_bit(precision) ? kHalfAlignment : kFloatAlignment)) {
      return std::string("memory-efficient attention needs a head dimension that is a multiple of ") +
             (is_16_bit(precision) ? "8" : "4") + " at " + precision_name + ", and this model's is " + head_dim;
    }
  }
  return "";
}

AttentionKernel sdpa_backend(Precision precision, const GpuSpec& gpu, const AttentionShape& shape) {
  for (AttentionKernel k : {AttentionKernel::kFlash, AttentionKernel::kMemoryEfficient}) {
    if (k == AttentionKernel::kFlash && shape.alibi_bias) continue;  // the bias is an attn_mask to SDPA
    if (attention_kernel_unsupported(k, precision, gpu, shape).empty()) {
      return k;
    }
  }
  return AttentionKernel::kEager;
}

bool fused_kernel_takes_explicit_bias(AttentionKernel kernel, bool explicit_mask) {
  return explicit_mask && kernel == AttentionKernel::kMemoryEfficient;
}

double fused_attention_query_blocks(const Op& op) {
  if (op.attention_kernel == AttentionKernel::kEager || op.attention_tokens <= 0.0) {
    return 0.0;
  }
  return std::ceil(op.attention_tokens / kFusedAttentionBlockTokens);
}

double fused_attention_tile_share(const Op& op) {
  const double n = fused_attention_query_blocks(op);
  if (!op.causal || n <= 0.0) {
    return 1.0;
  }
  return (n + 1.0) / (2.0 * n);
}

double executed_forward_flop(const Op& op) { return op.forward_flop * fused_attention_tile_share(op); }

Workload with_attention_kernel(Workload workload, AttentionKernel kernel, KeyValueHeads key_value_heads,
                               CausalMask causal_mask) {
  if (kernel == AttentionKernel::kSdpa) {
    throw std::invalid_argument("with_attention_kernel: resolve sdpa with sdpa_backend() first");
  }
  if (kernel == AttentionKernel::kEager) {
    return workload;
  }
  std::vector<Op> ops;
  ops.reserve(workload.ops.size());
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const Op& scores = workload.ops[i];
    if (scores.op_class != OpClass::kAttention || !ends_with(scores.name, "attn.scores")) {
      ops.push_back(scores);
      continue;
    }
    std::size_t end = i + 1;
    while (end < workload.ops.size() && !ends_with(workload.ops[end].name, "attn.context")) {
      ++end;
    }
    if (end == workload.ops.size()) {
      throw std::logic_error("with_attention_kernel: " + scores.name + " without its attn.context");
    }
    const ScoresShape shape = scores_shape(scores);
    bool causal = false;
    bool alibi = false;
    for (std::size_t j = i; j < end; ++j) {
      causal = causal || workload.ops[j].causal;
      alibi = alibi || ends_with(workload.ops[j].name, "attn.alibi");
    }
    const double sh = shape.tokens_by_hidden;
    // K and V per query element: 1, or kv_heads / heads when the kernel takes them grouped
    // and the model's repeat_kv goes (KeyValueHeads, attention_kernel.h).
    double kv_share = 1.0;
    if (is_flash_kernel(kernel) && key_value_heads == KeyValueHeads::kGrouped && !ops.empty() &&
        ends_with(ops.back().name, "attn.repeat_kv")) {
      kv_share = ops.back().input_elements / ops.back().output_elements;
      ops.pop_back();
    }
    Op fused;
    fused.name = scores.name.substr(0, scores.name.size() - std::string("scores").size()) + "fused";
    fused.op_class = OpClass::kAttention;
    fused.forward_flop = 2.0 * scores.forward_flop;  // QKᵀ and PV
    fused.input_elements = (1.0 + 2.0 * kv_share) * sh;
    fused.output_elements = sh;
    fused.parameters = 0.0;
    // Saves Q, K, V and the per-row log-sum-exp. It saves its output O too, but that is the
    // storage the output projection saves as its input: flash and memory-efficient SDPA
    // allocate O as (B, T, H, D) and return a transposed view, so merge_heads'
    // transpose(1, 2).contiguous() is that same tensor (PyTorch
    // aten/src/ATen/native/transformers/cuda/attention.cu, _scaled_dot_product_flash_attention);
    // attn.out's saved input counts it once.
    fused.saved_elements = (1.0 + 2.0 * kv_share) * sh + kLogSumExpElements * shape.heads * shape.tokens;
    fused.backward_flop_ratio = 2.0;
    fused.backward_recompute_flop_ratio = kFlashRecomputeFlopRatio;
    fused.forward_kernels = 1;
    fused.attention_kernel = kernel;
    fused.head_dim = sh / shape.tokens / shape.heads;
    fused.causal =
        causal && !fused_kernel_takes_explicit_bias(kernel, alibi || causal_mask == CausalMask::kAttnMask);
    fused.attention_tokens = shape.tokens;
    ops.push_back(fused);
    i = end;
  }
  workload.ops = std::move(ops);
  return workload;
}

}  // namespace gpuplan::models

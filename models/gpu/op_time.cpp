#include "models/gpu/op_time.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "core/units.h"
#include "models/gpu/gemm_tiles.h"
#include "models/gpu/pcie_link.h"
#include "models/workload/attention_kernel.h"
#include "models/memory/optimizer_state.h"

namespace gpuplan::models {
namespace {

bool is_math(OpClass c) {
  return c == OpClass::kConv || c == OpClass::kMatmul || c == OpClass::kAttention;
}

double tensor_peak(OpClass op_class, Precision precision, const GpuSpec& gpu) {
  switch (precision) {
    case Precision::kFp32:
      return 0.0;
    case Precision::kTf32:
      return gpu.has_tf32_bf16() ? gpu.peak_tf32_flop_per_s : 0.0;
    case Precision::kFp16Amp:
      return gpu.has_tensor_cores_fp16() ? gpu.peak_fp16_flop_per_s : 0.0;
    case Precision::kBf16Amp:
    case Precision::kBf16:
      return gpu.has_tf32_bf16() ? gpu.peak_bf16_flop_per_s : 0.0;
    case Precision::kFp8:
      if (op_class == OpClass::kConv) {
        return gpu.has_tf32_bf16() ? gpu.peak_bf16_flop_per_s : 0.0;
      }
      return gpu.has_fp8() ? gpu.peak_fp8_flop_per_s : 0.0;
  }
  return 0.0;
}

// Element size of activations as the kernels read and write them.
double element_bytes(Precision p) { return activation_element_bytes(p); }

// Bytes per weight element as kernels read it: AMP reads the 16-bit cast copy.
double weight_bytes(Precision p) { return is_mixed(p) ? 2.0 : parameter_element_bytes(p); }

double memory_rate(const GpuSpec& gpu, const GpuEfficiency& e) { return achieved_memory_bytes_per_s(gpu, e); }

// Fixed GPU time per kernel: the profile's measured empty-kernel latency, else the default.
double kernel_fixed(const GpuSpec& gpu, const GpuEfficiency& e) {
  if (gpu.calibration && gpu.calibration->launch_latency_s > 0.0) {
    return gpu.calibration->launch_latency_s;
  }
  return e.kernel_fixed_s;
}

// Datasheet peaks are quoted at the boost clock; GPU Boost cards hold a higher clock under
// sustained load while the power limit allows, and some datacenter parts a lower one under
// theirs (GpuSpec::observed_load_clock_hz): math runs at the peaks scaled by that clock.
double sustained_clock_factor(const GpuSpec& gpu) {
  if (gpu.boost_clock_hz <= 0.0 || gpu.observed_load_clock_hz <= 0.0) {
    return 1.0;
  }
  return gpu.observed_load_clock_hz / gpu.boost_clock_hz;
}

/// The SM clock a GPU holds under load (Hz): the observed load clock where the catalog has
/// one, else the boost clock its peaks are quoted at (required in catalogs/gpus.yaml); 0 for a
/// spec that states neither.
double sm_clock_hz(const GpuSpec& gpu) {
  return gpu.observed_load_clock_hz > 0.0 ? gpu.observed_load_clock_hz : gpu.boost_clock_hz;
}

}  // namespace

double memory_bound_traffic_share(const Op& op, FrameworkOverhead mode, const GpuEfficiency& e) {
  const bool own_share = op.compiled_traffic_share >= 0.0;
  switch (mode) {
    case FrameworkOverhead::kCompiled:
      return own_share ? op.compiled_traffic_share : e.compiled_memory_bound_share;
    case FrameworkOverhead::kEagerFused:
      return own_share && !op.fused_by_compiler_only ? op.compiled_traffic_share : 1.0;
    case FrameworkOverhead::kEager:
    case FrameworkOverhead::kCudaGraphs:
      return 1.0;
  }
  return 1.0;
}

double achieved_memory_bytes_per_s(const GpuSpec& gpu, const GpuEfficiency& e) {
  if (gpu.calibration && gpu.calibration->memory) {
    return gpu.calibration->memory->rate_per_s;
  }
  return gpu.memory_bytes_per_s * e.memory_bandwidth;
}

bool uses_tensor_cores(OpClass op_class, Precision precision, const GpuSpec& gpu) {
  return is_math(op_class) && tensor_peak(op_class, precision, gpu) > 0.0;
}

double math_peak_flop_per_s(OpClass op_class, Precision precision, const GpuSpec& gpu) {
  if (!is_math(op_class)) {
    return gpu.peak_fp32_flop_per_s;
  }
  const double tc = tensor_peak(op_class, precision, gpu);
  if (tc > 0.0) {
    return tc;
  }
  if (precision == Precision::kFp16Amp && gpu.peak_fp16_flop_per_s > 0.0) {
    // Pre-Volta: whatever the fp16 path delivers (GP102: 1/64 rate natively; cuBLAS may
    // fall back to fp32 math). The catalog stores the rate that path achieves.
    return std::min(gpu.peak_fp16_flop_per_s, gpu.peak_fp32_flop_per_s);
  }
  return gpu.peak_fp32_flop_per_s;
}

namespace {

// The rate of math on the CUDA cores (no tensor cores): the FP32 peak at the sustained clock
// times matmul_cuda_core. A depthwise convolution runs at it; an NCHW convolution's CUDA-core
// alternative at it times conv_relative_to_gemm.
double cuda_core_math_flop_per_s(const GpuSpec& gpu, const GpuEfficiency& e) {
  return gpu.peak_fp32_flop_per_s * e.matmul_cuda_core * sustained_clock_factor(gpu);
}

// The measured GEMM line of the math path an op takes (the one math_peak_flop_per_s picks),
// or nullptr without a profile or when the profile did not measure that path.
const HockneyLine* calibrated_gemm(OpClass op_class, Precision precision, const GpuSpec& gpu) {
  if (!gpu.calibration) {
    return nullptr;
  }
  const GpuCalibration& c = *gpu.calibration;
  if (!uses_tensor_cores(op_class, precision, gpu)) {
    // Pre-Volta fp16_amp runs the GPU's fp16 path when the profile measured it.
    const HockneyLine* fp16 = precision == Precision::kFp16Amp ? c.gemm(Precision::kFp16Amp) : nullptr;
    return fp16 != nullptr ? fp16 : c.gemm(Precision::kFp32);
  }
  if (precision == Precision::kFp8 && op_class == OpClass::kConv) {
    return c.gemm(Precision::kBf16Amp);  // fp8 convs run bf16 (tensor_peak)
  }
  return c.gemm(precision);
}

// cuBLAS's fast tensor-core kernels need every leading dimension to be a multiple of 16
// bytes (cuBLAS docs, "Tensor Core Usage"); for y = x W^T those are the inner dimension k and
// the output dimension n of the weight. fp8 GEMMs count 1-byte elements, tf32 4-byte ones.
bool gemm_aligned(const Op& op, Precision math_precision) {
  const double element = math_precision == Precision::kFp8 ? 1.0
                         : math_precision == Precision::kTf32 ? 4.0
                                                               : 2.0;
  const double multiple = 16.0 / element;
  const auto aligned = [multiple](double d) { return d <= 0.0 || std::fmod(d, multiple) == 0.0; };
  return aligned(op.weight_rows) && aligned(op.weight_columns);
}

}  // namespace

LinearGemmEfficiency linear_gemm_efficiency(const Op& op, double batch, const GpuSpec& gpu, bool tensor_cores) {
  LinearGemmEfficiency out;
  if (op.op_class != OpClass::kMatmul || op.weight_rows <= 0.0 || op.weight_columns <= 0.0 || batch <= 0.0) {
    return out;
  }
  // y (m x n) = x (m x k) W^T: m tokens of the micro-batch, n outputs per kernel, k inputs.
  const double m = batch * op.input_elements / op.weight_columns;
  const double n = op.weight_rows / std::max(1, op.forward_kernels);
  const double k = op.weight_columns;
  out.forward = gemm_shape_efficiency({m, n, k}, gpu, tensor_cores);
  // dx (m x k) = dy (m x n) W: depth n. dW (n x k) = dy^T x: depth m, the tokens.
  const double grad_input = gemm_shape_efficiency({m, k, n}, gpu, tensor_cores);
  const double grad_weight = gemm_shape_efficiency({n, k, m}, gpu, tensor_cores);
  // Backward FLOP split evenly between the two GEMMs (backward_flop_ratio 2); a frozen
  // weight (ratio 1) has only the grad-input GEMM. The time of equal FLOP at two rates:
  // the harmonic mean.
  out.backward = op.backward_flop_ratio >= 2.0 ? 2.0 / (1.0 / grad_input + 1.0 / grad_weight) : grad_input;
  return out;
}

OpWork op_work(const Op& op, double batch, const GpuSpec& gpu, const TrainingSpec& training,
               const GpuEfficiency& e, bool input_fp32) {
  if (batch <= 0.0) {
    throw std::invalid_argument("op_work: batch must be positive");
  }
  const Precision p = training.precision;
  const bool unfused = training.framework_overhead == FrameworkOverhead::kEager ||
                       training.framework_overhead == FrameworkOverhead::kCudaGraphs;
  const bool fp32_tensors = runs_fp32_under_autocast(op, training.framework_overhead) ||
                            (input_fp32 && !is_math(op.op_class)) || (unfused && op.upcasts_fp32);
  const double act_bytes =
      (is_mixed(p) && fp32_tensors) || (unfused && op.upcasts_fp32) ? 4.0 : element_bytes(p);
  // An unfused chain of aten kernels (HF's RMSNorm, rotary embedding, loss) passes over its
  // tensors once per kernel in eager and under CUDA graphs (the same kernels, replayed).
  const double passes = unfused && !is_math(op.op_class) ? op.eager_passes : 1.0;
  const double activation_traffic = (op.input_elements + op.output_elements) * batch * act_bytes * passes;
  // Frozen weights (LoRA/QLoRA base) are read like trained ones; pass_bytes is a
  // dequantization's traffic, once per pass (models/workload/fine_tuning.h).
  const double weight_traffic = (op.parameters + op.frozen_parameters) * weight_bytes(p) + op.pass_bytes;
  // bitsandbytes' NF4 dequantization streams below a copy kernel's rate (gpu_efficiency.h).
  const double mem_rate = memory_rate(gpu, e) * (op.nf4_dequantize ? e.nf4_dequantize_relative_to_stream : 1.0);

  OpWork w;
  // Executed FLOP: a causal fused attention kernel skips the tiles above the diagonal, and
  // its backward also recomputes part of the forward.
  w.forward.flop = executed_forward_flop(op) * batch;
  w.backward.flop = w.forward.flop * (op.backward_flop_ratio + op.backward_recompute_flop_ratio);
  w.forward.kernels = op.forward_kernels;
  // Ops with weights launch grad-input and grad-weight kernels.
  w.backward.kernels = op.forward_kernels * (op.parameters > 0.0 ? 2 : 1);
  // Backward reads the output gradient and the saved input and writes the input gradient
  // (about twice the forward activation traffic: Op::backward_traffic_ratio), plus the weight
  // gradient (fp32, bf16 in pure bf16).
  w.forward.bytes = activation_traffic + weight_traffic;
  w.backward.bytes =
      op.backward_traffic_ratio * activation_traffic + weight_traffic + op.parameters * parameter_element_bytes(p);

  double compute_rate = 0.0;
  // The op's shape relative to the best-shape GEMM, per phase (linear layers only: the
  // other classes carry no GEMM shape).
  LinearGemmEfficiency shape;
  // Layout transposes of NCHW tensor-core convolutions and fp8 casts of a linear's operands:
  // their own memory-bound kernels, added to the op's time rather than hidden under it.
  KernelWork transpose_forward;
  KernelWork transpose_backward;
  if (is_math(op.op_class)) {
    // Under fp8 only the blocks' linear layers run fp8 GEMMs; attention, the output head and
    // convolutions run on the 16-bit path (runs_fp8_gemm, workload.h).
    const bool fp8_gemm = p == Precision::kFp8 && runs_fp8_gemm(op);
    const Precision math_p = p == Precision::kFp8 && !fp8_gemm ? Precision::kBf16Amp : p;
    // A depthwise convolution (one input channel per group: EfficientNet's) has no GEMM to
    // give tensor cores: cuDNN's depthwise kernels and PyTorch's conv_depthwise2d compute it
    // directly on the CUDA cores, in either layout without transposes, and at k² FLOP per
    // element read it is bound by memory traffic (roofline below).
    const bool depthwise = op.op_class == OpClass::kConv && op.conv_group_input_channels == 1.0;
    const bool tc = !depthwise && uses_tensor_cores(op.op_class, math_p, gpu);
    double eff = tc ? e.matmul_tensor_core(gpu.efficiency_generation(), fp8_gemm) : e.matmul_cuda_core;
    double relative = 1.0;  // the op class relative to a GEMM of the same FLOP and path
    if (op.op_class == OpClass::kConv && !depthwise) {
      eff *= e.conv_relative_to_gemm;
      relative *= e.conv_relative_to_gemm;
      if (tc && training.memory_format == MemoryFormat::kChannelsFirst) {
        // cuDNN's tensor-core kernels are NHWC: an NCHW convolution transposes its input
        // and output around the kernel (nchwToNhwc / nhwcToNchw, one read and one write
        // each); backward transposes dy and x in and dx back out. NVIDIA "Convolutional
        // Layers User's Guide", section "Tensor Layouts In Memory: NCHW vs NHWC".
        const double in = op.input_elements * batch * act_bytes;
        const double out = op.output_elements * batch * act_bytes;
        transpose_forward.bytes = 2.0 * (in + out);
        transpose_forward.kernels = 2;
        transpose_backward.bytes = 2.0 * (2.0 * in + out);
        transpose_backward.kernels = 3;
      }
    } else if (op.op_class == OpClass::kMatmul) {
      if (fp8_gemm) {
        // Transformer Engine's fp8 Linear quantizes its 16-bit input with one fused kernel that
        // writes the fp8 tensor and its transpose for the weight-gradient GEMM
        // (fp8_cast_transpose_fused: read 2 B, write 1 + 1 B per element), and in backward its
        // output gradient the same way (fp8_cast_transpose_bgrad_fused); both are memory-bound
        // kernels of their own (transformer_engine/pytorch/module/linear.py).
        transpose_forward.bytes = 4.0 * op.input_elements * batch;
        transpose_forward.kernels = 1;
        transpose_backward.bytes = 4.0 * op.output_elements * batch;
        transpose_backward.kernels = 1;
      }
      eff *= e.matmul_relative_to_gemm;
      relative *= e.matmul_relative_to_gemm;
      if (tc && training.framework_overhead != FrameworkOverhead::kCompiled && !gemm_aligned(op, math_p)) {
        eff *= e.unaligned_gemm_relative;
        relative *= e.unaligned_gemm_relative;
      }
      if (!calibrated_gemm(op.op_class, math_p, gpu)) {
        // Calibrated GEMM lines already measure the size effect (rate_at below).
        shape = linear_gemm_efficiency(op, batch, gpu, tc);
      }
    } else if (op.op_class == OpClass::kAttention) {
      double attention = e.attention_relative_to_matmul;
      if (op.attention_kernel == AttentionKernel::kFlash) {
        attention = e.flash_attention_relative_to(gpu.efficiency_generation());
      } else if (op.attention_kernel == AttentionKernel::kFlash3) {
        attention = e.flash3_attention_relative_to(op.head_dim);
      } else if (op.attention_kernel == AttentionKernel::kFlashTriton) {
        attention = e.flash_attention_relative_to(gpu.efficiency_generation()) * e.flash_triton_attention_relative_to_flash;
      } else if (op.attention_kernel == AttentionKernel::kMemoryEfficient) {
        attention = e.flash_attention_relative_to(gpu.efficiency_generation()) *
                    e.memory_efficient_attention_relative_to_flash;
      }
      if (op.attention_kernel != AttentionKernel::kEager) {
        // Per-tile rate, less each query block's fixed cost (fused_attention_block_share).
        // An op that states no sequence (attention_tokens 0) runs at the per-tile rate.
        const double n = fused_attention_query_blocks(op);
        if (n > 0.0) {
          attention *= e.fused_attention_block_share(n * fused_attention_tile_share(op) /
                                                     std::max(1, op.attention_key_splits));
        }
      }
      eff *= attention;
      relative *= attention;
    }
    if (depthwise) {
      // The CUDA-core rate, without a GEMM's class factor or calibrated GEMM line.
      compute_rate = cuda_core_math_flop_per_s(gpu, e);
    } else if (const HockneyLine* measured = calibrated_gemm(op.op_class, math_p, gpu)) {
      // Calibrated: the measured GEMM rate at this op's FLOP per kernel (Hockney curve,
      // gpu_calibration.h) replaces peak x matmul efficiency; the class factors still apply.
      const double flop_per_kernel = w.forward.flop / std::max(1, op.forward_kernels);
      compute_rate = measured->rate_at(flop_per_kernel) * relative;
    } else {
      compute_rate = math_peak_flop_per_s(op.op_class, math_p, gpu) * eff * sustained_clock_factor(gpu);
    }
    if (is_mixed(p) && op.parameters > 0.0) {
      // autocast casts the fp32 weight to 16 bit once per forward (cached for backward).
      w.forward.kernels += 1;
      w.forward.bytes += op.parameters * 6.0;
    }
    if (is_mixed(p) && input_fp32 && training.framework_overhead == FrameworkOverhead::kEager) {
      // fp32 -> 16-bit cast of the input: read 4 B, write 2 B per element; backward casts the
      // input gradient back.
      w.forward.kernels += 1;
      w.forward.bytes += op.input_elements * batch * 6.0;
      w.backward.kernels += 1;
      w.backward.bytes += op.input_elements * batch * 6.0;
    }
  } else {
    compute_rate = gpu.peak_fp32_flop_per_s * e.matmul_cuda_core;
    const double share = memory_bound_traffic_share(op, training.framework_overhead, e);
    if (share < 1.0) {
      w.forward.bytes *= share;
      w.backward.bytes *= share;
      w.forward.kernels = static_cast<int>(std::ceil(w.forward.kernels * share));
      w.backward.kernels = static_cast<int>(std::ceil(w.backward.kernels * share));
    }
  }
  auto time_of = [&](const KernelWork& k, double shape_efficiency) {
    const double compute_s = compute_rate > 0.0 ? k.flop / (compute_rate * shape_efficiency) : 0.0;
    const double memory_s = k.bytes / mem_rate;
    return std::max(compute_s, memory_s) + k.kernels * kernel_fixed(gpu, e);
  };
  w.forward.gpu_time_s = time_of(w.forward, shape.forward);
  w.backward.gpu_time_s = time_of(w.backward, shape.backward);
  if (op.batch_norm_channels > 0.0 && training.memory_format == MemoryFormat::kChannelsFirst && !gpu.is_amd() &&
      sm_clock_hz(gpu) > 0.0) {
    // cuDNN's NCHW batch norm: one block per channel streams that channel's N·H·W elements,
    // 2 passes forward and 4 backward, at nchw_batch_norm_passes_per_cycle each cycle.
    const double channel_passes_per_s = e.nchw_batch_norm_passes_per_cycle * sm_clock_hz(gpu);
    const double per_channel = op.input_elements * batch / op.batch_norm_channels;
    w.forward.gpu_time_s = std::max(w.forward.gpu_time_s, 2.0 * per_channel / channel_passes_per_s +
                                                               w.forward.kernels * kernel_fixed(gpu, e));
    w.backward.gpu_time_s = std::max(w.backward.gpu_time_s, 4.0 * per_channel / channel_passes_per_s +
                                                                w.backward.kernels * kernel_fixed(gpu, e));
  }
  // cuDNN also has NCHW kernels on the CUDA cores, which need no transposes; with
  // cudnn.benchmark (and its heuristics) it runs whichever is faster. A narrow convolution
  // (EfficientNet's 1x1 layers over 16-320 channels) moves more bytes in its transposes than
  // its tensor-core math saves, so it runs there; ResNet's wide ones stay on tensor cores.
  const bool nchw_tensor_core_conv = transpose_forward.kernels > 0 && op.op_class == OpClass::kConv;
  const double cuda_core_rate = cuda_core_math_flop_per_s(gpu, e) * e.conv_relative_to_gemm;
  for (auto [phase, transpose] : {std::pair{&w.forward, &transpose_forward}, std::pair{&w.backward, &transpose_backward}}) {
    const double with_transposes =
        phase->gpu_time_s + transpose->bytes / mem_rate + transpose->kernels * kernel_fixed(gpu, e);
    const double on_cuda_cores =
        nchw_tensor_core_conv && cuda_core_rate > 0.0
            ? std::max(phase->flop / cuda_core_rate, phase->bytes / mem_rate) + phase->kernels * kernel_fixed(gpu, e)
            : with_transposes;
    if (on_cuda_cores < with_transposes) {
      phase->gpu_time_s = on_cuda_cores;
      continue;
    }
    phase->gpu_time_s = with_transposes;
    phase->bytes += transpose->bytes;
    phase->kernels += transpose->kernels;
  }
  return w;
}

KernelWork optimizer_work(double parameters, int parameter_tensors, const GpuSpec& gpu,
                          const TrainingSpec& training, const GpuEfficiency& e) {
  const double parameter_bytes = parameter_element_bytes(training.precision);
  const double state_bytes = optimizer_state_element_bytes(training);
  // A fused update reads and writes the parameter and reads the gradient once; the state it
  // reads and writes is the one rule of optimizer_state.h.
  double bytes_per_parameter = 2.0 * parameter_bytes + parameter_bytes +
                               2.0 * elementwise_state_bytes_per_parameter(training);
  int elementwise_ops = 0;
  // torch.optim's own SGD and Adam(W) unfused (optimizer_implementation_of, job_spec.h): each
  // step of the update is one aten op over every tensor (foreach, multi_tensor_apply
  // launches; for_loop runs the same ops per tensor), and each op reads and writes whole
  // arrays. Fused kernels (fused=True, apex/DeepSpeed FusedAdam, a compiled step) make one pass.
  const OptimizerImplementation implementation = optimizer_implementation_of(training);
  const bool unfused_torch_optim = implementation != OptimizerImplementation::kFused;
  bool per_tensor_kernels = implementation == OptimizerImplementation::kForLoop;
  switch (training.optimizer) {
    case Optimizer::kSgd: elementwise_ops = 1; break;
    case Optimizer::kSgdMomentum:
      elementwise_ops = 2;
      if (unfused_torch_optim) {
        // torch/optim/sgd.py _multi_tensor_sgd: mul_(buf, momentum), add_(buf, g),
        // add_(p, buf, -lr) without weight decay: buf 5, g 1 and p 2 arrays.
        elementwise_ops = 3;
        bytes_per_parameter = 5.0 * state_bytes + parameter_bytes + 2.0 * parameter_bytes;
      }
      break;
    case Optimizer::kAdam:
    case Optimizer::kAdamW:
      elementwise_ops = 6;
      if (unfused_torch_optim) {
        // torch/optim/adam.py _multi_tensor_adam (AdamW is Adam with decoupled weight
        // decay): [mul_(p, 1 - lr·wd), AdamW only], lerp_(m, g), mul_(v, β2),
        // addcmul_(v, g, g), s = sqrt(v), div_(s, ·), add_(s, ε), addcdiv_(p, m, s):
        // p 4 (AdamW) or 2, g 2, m 3, v 5 and the temporary s 6 arrays; fp32 AdamW moves
        // 80 B per parameter, not a fused kernel's 28. Checked on an H200: Llama-3.2-1B's
        // 1.24 B fp32 parameters take 26.3 ms in 480 multi_tensor_apply launches
        // (catalogs/calibrations/h200-2026-12-04.torch-steps-profiled.json), 99 GB at 3.8 TB/s.
        const bool decoupled = training.optimizer == Optimizer::kAdamW;
        elementwise_ops = decoupled ? 8 : 7;
        bytes_per_parameter = (decoupled ? 4.0 : 2.0) * parameter_bytes + 2.0 * parameter_bytes +
                              (3.0 + 5.0 + 6.0) * state_bytes;
      }
      break;
    case Optimizer::kAdamW8bit:
    case Optimizer::kPagedAdamW8bit:
      // bitsandbytes runs one fused kernel per tensor (optimizer_update_8bit_blockwise:
      // dequantize, update, requantize in registers), in every framework mode.
      elementwise_ops = 1;
      per_tensor_kernels = true;
      break;
    case Optimizer::kAdafactor:
      // HF Adafactor.step, a Python loop per tensor: g² (+ eps), the row and column means
      // and their two moving averages, the approximate rsqrt, the update, its RMS clip,
      // the learning rate and weight decay: about 12 kernels, reading g twice (g² and the
      // update); the factored state is O(r + c), negligible traffic.
      elementwise_ops = 12;
      per_tensor_kernels = true;
      bytes_per_parameter += parameter_bytes;
      break;
  }
  // multi_tensor_apply launches hold up to ~64 tensors and 320 chunks of 65,536 elements
  // (aten/src/ATen/native/cuda/MultiTensorApply.cuh: kChunkSize, depth_to_max_blocks).
  constexpr double kElementsPerLaunch = 320.0 * 65536.0;
  const int fused_chunks = std::max({1, static_cast<int>(std::ceil(parameter_tensors / 64.0)),
                                     static_cast<int>(std::ceil(parameters / kElementsPerLaunch))});
  const int chunks = per_tensor_kernels ? std::max(1, parameter_tensors) : fused_chunks;
  int fused_ops = 0;
  if (training.precision == Precision::kFp16Amp) {
    // fp16 AMP's GradScaler.unscale_ reads and writes the fp32 gradients with one fused
    // multi-tensor kernel that also checks for inf/NaN (_amp_foreach_non_finite_check_and_unscale_);
    // bf16 and fp8 recipes run without a loss scaler (step_plan.cpp, host_sync_before_optimizer).
    bytes_per_parameter += 8.0;
    fused_ops = 1;
  }
  KernelWork k;
  k.bytes = parameters * bytes_per_parameter;
  k.flop = 0.0;
  k.kernels = elementwise_ops * chunks + fused_ops * fused_chunks;
  k.gpu_time_s = k.bytes / memory_rate(gpu, e) + k.kernels * kernel_fixed(gpu, e);
  return k;
}

double optimizer_tensor_host_time_s(int parameter_tensors, const TrainingSpec& training,
                                    const GpuEfficiency& e) {
  if (optimizer_implementation_of(training) == OptimizerImplementation::kFused) return 0.0;
  switch (training.optimizer) {
    case Optimizer::kSgd:
    case Optimizer::kSgdMomentum:
    case Optimizer::kAdam:
    case Optimizer::kAdamW:
      return std::max(0, parameter_tensors) * e.eager_optimizer_tensor_s;
    case Optimizer::kAdamW8bit:
    case Optimizer::kPagedAdamW8bit:
    case Optimizer::kAdafactor:
      break;  // per-tensor loops whose launches optimizer_dispatch_time_s already counts
  }
  return 0.0;
}

double optimizer_dispatch_time_s(const TrainingSpec& training, const GpuEfficiency& e) {
  const FrameworkOverhead mode = training.framework_overhead;
  const bool python_loop = optimizer_implementation_of(training) != OptimizerImplementation::kFused;
  return python_loop || mode == FrameworkOverhead::kEager ? e.eager_optimizer_dispatch_s
                                                          : dispatch_time_s(mode, false, e);
}

double dispatch_time_s(FrameworkOverhead mode, bool backward, const GpuEfficiency& e, Precision precision) {
  switch (mode) {
    case FrameworkOverhead::kEager:
    case FrameworkOverhead::kEagerFused:
      return (backward ? e.eager_backward_dispatch_s : e.eager_forward_dispatch_s) *
             (is_mixed(precision) ? e.eager_autocast_dispatch_factor : 1.0);
    case FrameworkOverhead::kCompiled:
      return e.compiled_dispatch_s;
    case FrameworkOverhead::kCudaGraphs:
      return e.cuda_graphs_dispatch_s;
  }
  return e.eager_forward_dispatch_s;
}

double h2d_bytes_per_s(const GpuSpec& gpu, bool pinned, const GpuEfficiency& e) {
  if (gpu.calibration) {
    // Calibrated: the asymptotic rate of the measured H2D line (batches are MB-sized).
    const std::optional<HockneyLine>& line = pinned ? gpu.calibration->h2d_pinned : gpu.calibration->h2d_pageable;
    if (line) {
      return line->rate_per_s;
    }
  }
  const double raw = pcie_link_bytes_per_s(gpu);
  const double pinned_rate = raw * e.pcie_pinned;
  return pinned ? pinned_rate : pinned_rate * e.pcie_pageable_relative;
}

}  // namespace gpuplan::models

#pragma once
/// \file op_time.h
/// Tier-1 GPU time of one op (pure: specs in, seconds out; STYLE.md E2). Roofline per op
/// class and precision (DESIGN.md "Models"; Williams, Waterman & Patterson, "Roofline",
/// CACM 2009):
///   t = max(FLOP / (peak[path] * efficiency[class]), bytes / (memory_bandwidth * efficiency))
///       + kernels * kernel_fixed_s
/// With a calibration profile (GpuSpec::calibration) the measured figures replace the
/// datasheet ones where measured: peak[path] * matmul efficiency becomes the measured GEMM
/// rate of the path at the op's FLOP per forward kernel (Hockney curve r(n) = r_inf n /
/// (n + n_1/2), gpu_calibration.h; linear-layer, conv, attention and layout factors still
/// apply),
/// memory_bandwidth * efficiency the streaming rate, kernel_fixed_s the empty-kernel latency,
/// and h2d_bytes_per_s the asymptotic H2D rate.
/// Backward of conv and matmul is about twice the forward FLOP (grad input + grad weight).

#include "models/gpu/gpu_efficiency.h"
#include "models/gpu/gpu_spec.h"
#include "models/job_spec.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

/// GPU work of one phase of one op, for a whole micro-batch.
struct KernelWork {
  double gpu_time_s = 0.0;  ///< kernel time on the GPU, including per-kernel fixed cost
  double flop = 0.0;        ///< FLOP executed: fused attention's recomputed QKᵀ included,
                            ///< activation-checkpointing recomputation counted separately
  double bytes = 0.0;       ///< device memory traffic
  int kernels = 0;          ///< kernels launched
};

/// Forward and backward work of one op.
struct OpWork {
  KernelWork forward;
  KernelWork backward;
};

/// The dense peak FLOP/s of the math path an op class takes at a precision on a GPU:
/// conv/matmul/attention use tensor cores where the GPU has them for the precision (fp16
/// from cc 7.0, tf32 and bf16 from 8.0, fp8 from 8.9; fp8 applies to matmuls only, convs run
/// bf16), otherwise the FP32 CUDA cores, or the GPU's fp16 path for fp16_amp on pre-Volta
/// GPUs (slow on GeForce Pascal). Memory-bound classes return the FP32 peak.
double math_peak_flop_per_s(OpClass op_class, Precision precision, const GpuSpec& gpu);

/// True when `math_peak_flop_per_s` uses tensor cores.
bool uses_tensor_cores(OpClass op_class, Precision precision, const GpuSpec& gpu);

/// A linear layer's GEMM-shape efficiency (gemm_tiles.h) per phase, relative to the
/// best-shape GEMM of its path.
struct LinearGemmEfficiency {
  double forward = 1.0;   ///< y = x W^T: m = batch x tokens, n = outputs per kernel, k = inputs
  double backward = 1.0;  ///< grad-input (depth n) and grad-weight (depth m) at equal FLOP
};

/// The shapes of `op`'s GEMMs for `batch` samples (m = batch x input_elements /
/// weight_columns rows, n = weight_rows / forward_kernels, k = weight_columns) through
/// gemm_shape_efficiency(). 1 for both phases when the op is not OpClass::kMatmul or has no
/// weight shape (Op::weight_rows, weight_columns 0).
LinearGemmEfficiency linear_gemm_efficiency(const Op& op, double batch, const GpuSpec& gpu, bool tensor_cores);

/// The share of a memory-bound op's traffic and kernels that runs under `mode`, in [0, 1]:
/// eager and CUDA graphs 1 (every op its own kernels); compiled the op's own
/// Op::compiled_traffic_share where it sets one, else GpuEfficiency::compiled_memory_bound_share
/// (a compiler fuses pointwise ops into neighbours); eager_fused (precision.h: a framework's
/// hand-written fused kernels) the op's own share unless Op::fused_by_compiler_only, else 1
/// (a layer norm, GeLU or dropout that is not in the fused attention-score chain runs as one
/// kernel of the same traffic).
double memory_bound_traffic_share(const Op& op, FrameworkOverhead mode, const GpuEfficiency& efficiency);

/// The rate memory-bound kernels stream at, B/s: a calibration profile's measured streaming
/// rate, else the datasheet bandwidth x GpuEfficiency::memory_bandwidth.
double achieved_memory_bytes_per_s(const GpuSpec& gpu, const GpuEfficiency& efficiency);

/// Forward and backward work of `op` for `batch` samples. Bytes: activations read and
/// written at the precision's element size, weights once per kernel; channels_first convs on
/// tensor cores add cuDNN's layout transposes as memory-bound kernels of their own (forward:
/// input and output, one read and one write each, 2 kernels; backward: dy and x to NHWC, dx
/// back, 3 kernels); a depthwise convolution (Op::conv_group_input_channels 1) runs on the
/// CUDA cores at the FP32 peak x matmul_cuda_core, without transposes, so memory-bound in
/// practice (a grouped convolution with more channels per group runs as a dense one);
/// linear layers (OpClass::kMatmul) run at
/// `matmul_relative_to_gemm` of the GEMM figure times their shape efficiency
/// (linear_gemm_efficiency: tiles, waves, per-tile cost; not with a calibrated GEMM line,
/// which measures size itself), attention matmuls at
/// `attention_relative_to_matmul`; `compiled`/`cuda_graphs` do not change the kernels, but
/// `compiled` and `eager_fused` fuse memory-bound ops: memory_bound_traffic_share() of their
/// traffic and kernels is left.
/// AMP adds one weight-cast kernel per weighted op in forward and, when `input_fp32` (the
/// input is an fp32 tensor: it comes from an op autocast runs in fp32, or from elementwise ops
/// on one), one cast of the input to 16 bit for matmuls and convolutions; other ops on an fp32
/// input, and ops autocast runs in fp32 (runs_fp32_under_autocast, workload.h), move 4-byte
/// elements.
OpWork op_work(const Op& op, double batch, const GpuSpec& gpu, const TrainingSpec& training,
               const GpuEfficiency& efficiency, bool input_fp32 = false);

/// The optimizer step over `parameters` held in `parameter_tensors` tensors: memory-bound.
/// Eager runs the per-tensor loop (one launch per tensor per elementwise op: torch.optim with
/// foreach=False, HF/apex-era Python optimizers); compiled and CUDA-graph modes use fused
/// multi-tensor kernels (one launch per ~64 tensors per op: torch.optim foreach). Bytes per
/// parameter: p read and written, g read, the state (optimizer_state.h) read and written: in
/// fp32 SGD 12, SGD momentum 20, Adam/AdamW 28, 8-bit AdamW about 16 (one bitsandbytes kernel
/// per tensor), Adafactor 16 (g read twice; about 12 kernels per tensor); pure bf16 halves the
/// p and g bytes; AMP adds the GradScaler unscale pass (8 B/param) and its inf check.
KernelWork optimizer_work(double parameters, int parameter_tensors, const GpuSpec& gpu,
                          const TrainingSpec& training, const GpuEfficiency& efficiency);

/// Host CPU time of the optimizer step's Python per parameter tensor, besides the launches:
/// `parameter_tensors` x eager_optimizer_tensor_s for torch.optim's unfused SGD and Adam(W)
/// (foreach or for_loop: the ones optimizer_work counts pass by pass), 0 otherwise.
double optimizer_tensor_host_time_s(int parameter_tensors, const TrainingSpec& training,
                                    const GpuEfficiency& efficiency);

/// Host CPU time to dispatch one kernel of the optimizer step: an unfused torch.optim step (a
/// compiled model's too: torch.compile(model) leaves the optimizer eager) and any step of an
/// eager script are plain aten calls from Python (`eager_optimizer_dispatch_s`, outside
/// autocast); a fused step in another mode as `dispatch_time_s`.
double optimizer_dispatch_time_s(const TrainingSpec& training, const GpuEfficiency& efficiency);

/// Host CPU time to dispatch one kernel in forward (`backward` false) or backward; eager
/// dispatch under AMP is scaled by `eager_autocast_dispatch_factor`.
double dispatch_time_s(FrameworkOverhead mode, bool backward, const GpuEfficiency& efficiency,
                       Precision precision = Precision::kFp32);

/// Achieved H2D bandwidth, B/s, over the GPU's PCIe link: raw rate of the generation
/// (Gen3 0.985, Gen4 1.969, Gen5 3.938 GB/s per lane: PCI-SIG) x lanes x pinned efficiency,
/// halved again for pageable memory.
double h2d_bytes_per_s(const GpuSpec& gpu, bool pinned, const GpuEfficiency& efficiency);

}  // namespace gpuplan::models

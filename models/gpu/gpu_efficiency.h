#pragma once
/// \file gpu_efficiency.h
/// The model parameters of GPU time that are not datasheet facts: achieved fractions of
/// peak per op class and math path, the fixed cost of a kernel, and the host-side cost of
/// launching one. ONE set for every scenario and GPU (no per-case tuning); a calibration
/// profile (calibration issue) replaces the GEMM and bandwidth figures with measured ones.
/// Defaults and their sources: `GpuEfficiency::defaults()` (gpu_efficiency.cpp); six of
/// them are fitted by `gpuplan fit` (cli/model_fit.h: `fitted_parameters()`).

#include <algorithm>

#include "models/precision.h"

namespace gpuplan::models {

struct GpuEfficiency {
  /// Large-GEMM fraction of the dense tensor-core peak, by architecture (compute capability
  /// major 7 = Volta/Turing, 8 = Ampere/Ada, 9 = Hopper, 10 and later = Blackwell) and, from
  /// Hopper on, for fp8 GEMMs apart. Measured "maximum achievable matmul FLOPS" (MAMF, the
  /// best shape of a torch.matmul sweep; stas00/ml-engineering compute/accelerator/README.md
  /// @744d01e1, "Maximum Achievable Matmul FLOPS comparison table"): bf16 A100 SXM 271.2 of
  /// 312 (0.87), H100 SXM 794.5 of 989 (0.80), B200 SXM 1745 of 2250 (0.776); fp8 H100 SXM
  /// 1402.6 of 1979 (0.709), B200 SXM 3432.5 of 4500 (0.763). Rows V095, V097 of
  /// shared/data/published-measurements.csv hold the A100 and H100 bf16 figures. Volta's
  /// tensor cores reach about two thirds of their peak in cuBLAS HGEMM (Jia et al.,
  /// "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking", arXiv:1804.06826,
  /// 2018). Ada's fp8 (compute capability 8.9) has no published MAMF: it takes the 16-bit
  /// fraction of its generation. One figure per architecture, not per GPU: a part that runs
  /// its GEMMs at a lower clock than its datasheet peak says so in the catalog
  /// (observed_load_clock, GpuSpec).
  double matmul_tensor_core_cc7 = 0.0;
  double matmul_tensor_core_cc8 = 0.0;
  double matmul_tensor_core_cc9 = 0.0;
  double matmul_tensor_core_cc10 = 0.0;
  double matmul_tensor_core_fp8_cc9 = 0.0;
  double matmul_tensor_core_fp8_cc10 = 0.0;
  /// The tensor-core fraction for a GPU of compute capability `major`; `fp8` for an fp8 GEMM.
  double matmul_tensor_core(int major, bool fp8 = false) const {
    if (major >= 10) return fp8 ? matmul_tensor_core_fp8_cc10 : matmul_tensor_core_cc10;
    if (major == 9) return fp8 ? matmul_tensor_core_fp8_cc9 : matmul_tensor_core_cc9;
    return major == 8 ? matmul_tensor_core_cc8 : matmul_tensor_core_cc7;
  }
  /// Large SGEMM fraction of the FP32 CUDA-core peak (cuBLAS SGEMM is typically 85-95 %).
  double matmul_cuda_core = 0.0;
  /// Convolution (cuDNN implicit GEMM) relative to a GEMM of the same FLOP on the same path:
  /// ONE figure for tensor cores and FP32 CUDA cores (the path's own peak and GEMM fraction
  /// already differ; the implicit-GEMM kernel's share of its path's GEMM rate is taken as the
  /// same). FITTED, like matmul_relative_to_gemm, attention_relative_to_matmul and
  /// memory_bandwidth, by `gpuplan fit` over the validation cases (cli/model_fit.h); the
  /// values and what they were fitted on: gpu_efficiency.cpp. NCHW layout transposes are not
  /// in this fraction (op_time.h adds them as kernels).
  double conv_relative_to_gemm = 0.0;
  /// Linear layers of a training step (nn.Linear forward, grad-input and grad-weight GEMMs)
  /// relative to the large-GEMM figures above: those are the best shape a sweep finds,
  /// while a model's linears have one dimension at the width (1024-4096), transposed
  /// operands in backward and the bias as an extra pass (addmm copies the bias into the
  /// output, then reads it back with beta = 1; its gradient is a reduction over the rows).
  double matmul_relative_to_gemm = 1.0;
  /// A tensor-core linear layer whose inner or output dimension is not a multiple of 16 bytes
  /// of its element (8 at 16-bit: HF GPT-2's 50,257-token head) relative to the same GEMM
  /// aligned: cuBLAS falls back to align1 kernels. torch.compile pads such GEMMs (Inductor
  /// pad_mm), so the factor applies outside framework_overhead: compiled only.
  double unaligned_gemm_relative = 1.0;
  /// Batched attention matmuls (QK^T, PV per head: small k = head_dim) relative to a GEMM.
  double attention_relative_to_matmul = 0.0;
  /// Fused FlashAttention-2 (Op::attention_kernel kFlash) relative to a GEMM, counting the
  /// backward's recomputed QKᵀ (2.5× forward FLOP, as the FlashAttention-2 benchmarks do).
  double flash_attention_relative_to_matmul = 0.0;
  /// The same on compute capability 9 and later (Hopper, Blackwell). FlashAttention-2's
  /// kernels use the Ampere warp-level mma.sync instructions, not Hopper's asynchronous
  /// warpgroup wgmma and TMA, and reach about 35 % of an H100's dense peak where a GEMM
  /// reaches 80 % (Shah et al. 2024, "FlashAttention-3", arXiv:2407.08608, abstract and
  /// section 1). `attention: flash` is FlashAttention-2 (precision.h); the Hopper-native
  /// kernels are `attention: flash3`, below.
  double flash_attention_relative_to_matmul_cc9 = 0.0;
  /// Hopper-native fused attention (Op::attention_kernel kFlash3: FlashAttention-3, cuDNN's
  /// fused attention; compute capability 9 and later) relative to a GEMM, FLOP counted as for
  /// FlashAttention-2, at head dimension 64 and at 128 and more. From published kernel
  /// benchmarks, not fitted on the validation cases.
  double flash3_attention_relative_to_matmul_d64 = 0.0;
  double flash3_attention_relative_to_matmul_d128 = 0.0;
  /// The flash3 fraction at `head_dim`: linear in the head dimension between the two
  /// published points, held at the nearer one outside [64, 128] (smaller heads do less math
  /// per tile of K and V loaded; 256 was not published for the backward pass).
  double flash3_attention_relative_to(double head_dim) const {
    const double t = std::clamp((head_dim - 64.0) / 64.0, 0.0, 1.0);
    return flash3_attention_relative_to_matmul_d64 +
           t * (flash3_attention_relative_to_matmul_d128 - flash3_attention_relative_to_matmul_d64);
  }
  /// The FlashAttention-2 fraction for a GPU of compute capability `major`.
  double flash_attention_relative_to(int major) const {
    return major >= 9 ? flash_attention_relative_to_matmul_cc9 : flash_attention_relative_to_matmul;
  }
  /// The memory-efficient (xFormers/CUTLASS) kernel relative to FlashAttention-2.
  double memory_efficient_attention_relative_to_flash = 0.0;
  /// FlashAttention in Triton (flash_attn_triton.py; Op::attention_kernel kFlashTriton)
  /// relative to FlashAttention-2.
  double flash_triton_attention_relative_to_flash = 0.0;
  /// Fixed cost of one query block of a fused attention kernel (load Q, final rescale, write
  /// O and the log-sum-exp; the diagonal tile's masking), in units of one key tile's time.
  /// The fused rates above are per tile: at t tiles per query block a kernel reaches
  /// fused_attention_block_share(t) of them.
  double fused_attention_block_overhead_tiles = 0.0;
  /// Share of the per-tile rate that a fused attention kernel reaches when each 128-row
  /// query block computes `tiles_per_block` key tiles on average: t / (t + overhead).
  double fused_attention_block_share(double tiles_per_block) const {
    return tiles_per_block / (tiles_per_block + fused_attention_block_overhead_tiles);
  }
  /// Achieved fraction of datasheet memory bandwidth for streaming kernels (STREAM-like copy
  /// reaches 0.8-0.9 on HBM GPUs). One share for every memory type: a share per family (HBM,
  /// GDDR) was fitted and dropped, 2026-12-01: with two GDDR GPUs in the validation cases,
  /// holding one out fits the GDDR share on the other alone, and the held-out RTX 3090 went
  /// from 8.3 to 21.9 %, the TITAN RTX from 13.1 to 20.7 % (tests/validation/README.md).
  double memory_bandwidth = 0.0;
  /// bitsandbytes' blockwise NF4 dequantization kernel (kDequantizeBlockwise, the QLoRA base's
  /// `dequant` ops: Op::nf4_dequantize) relative to a streaming kernel: the share of the
  /// memory-bound rate (memory_bandwidth x datasheet, or a profile's streaming rate) at
  /// which it moves its packed weights, absmax and 16-bit output.
  double nf4_dequantize_relative_to_stream = 0.0;
  /// cuDNN's batch norm on NCHW tensors in training (bn_fw_tr_1C11 / bn_bw_1C11 kernels)
  /// reduces each channel's N·H·W elements in one thread block, latency-bound whatever the
  /// element's width: element passes (the model's 2 forward, 4 backward) per SM clock cycle
  /// and channel. The channels run side by side, so a large N·H·W with few channels is slow
  /// on a GPU of high bandwidth (op_time.cpp takes the slower of this and the bandwidth).
  double nchw_batch_norm_passes_per_cycle = 0.0;
  /// Fixed GPU time per kernel (launch latency on the device, ramp-up and tail): a few us.
  double kernel_fixed_s = 0.0;
  /// Host CPU time to dispatch one kernel, by framework mode, forward / backward.
  double eager_forward_dispatch_s = 0.0;
  double eager_backward_dispatch_s = 0.0;
  double compiled_dispatch_s = 0.0;
  /// Host time per kernel of an eager optimizer's per-tensor loop: bare aten calls from
  /// Python, without model code around them.
  double eager_optimizer_dispatch_s = 0.0;
  /// Host time per parameter tensor of torch.optim's unfused step in eager scripts: the Python
  /// of _init_group (grad and state lookups per tensor), the foreach grouping and, under fp16
  /// AMP, GradScaler's per-tensor bookkeeping; exposed when the host waits for the GPU first.
  double eager_optimizer_tensor_s = 0.0;
  /// Eager dispatch under autocast costs more per kernel: the autocast dispatch key, cast-cache
  /// lookups and the casts' own launches (multiplier on the eager figures).
  double eager_autocast_dispatch_factor = 1.0;
  double cuda_graphs_dispatch_s = 0.0;
  /// Share of memory-bound (elementwise/normalization) traffic and kernels left after a
  /// compiler fuses them into neighbours (torch.compile / fused-kernel frameworks).
  double compiled_memory_bound_share = 0.0;
  /// Achieved pinned H2D bandwidth as a share of the PCIe link's raw rate (x16 Gen3 ~12 GB/s of
  /// 15.75: report R12; Gen4 25.13 GB/s of 31.5: row V089) and pageable relative to pinned
  /// (about half: R12, V092).
  double pcie_pinned = 0.0;
  double pcie_pageable_relative = 0.0;

  /// The documented defaults (gpu_efficiency.cpp cites each).
  static GpuEfficiency defaults();
};

}  // namespace gpuplan::models

#pragma once
/// \file gpu_efficiency.h
/// The model parameters of GPU time that are not datasheet facts: achieved fractions of
/// peak per op class and math path, the fixed cost of a kernel, and the host-side cost of
/// launching one. ONE set for every scenario and GPU (no per-case tuning); a calibration
/// profile (calibration issue) replaces the GEMM and bandwidth figures with measured ones.
/// Defaults and their sources: `GpuEfficiency::defaults()` (gpu_efficiency.cpp).

#include "models/precision.h"

namespace gpuplan::models {

struct GpuEfficiency {
  /// Large-GEMM fraction of the dense tensor-core peak. Measured "maximum achievable matmul
  /// FLOPS": A100 SXM bf16 271.2 of 312 (0.87), H100 SXM 794.5 of 989 (0.80)
  /// (stas00/ml-engineering compute/accelerator/README.md; rows V095, V097 of
  /// shared/data/published-measurements.csv).
  double matmul_tensor_core = 0.0;
  /// Large SGEMM fraction of the FP32 CUDA-core peak (cuBLAS SGEMM is typically 85-95 %).
  double matmul_cuda_core = 0.0;
  /// Convolution (cuDNN implicit GEMM) relative to a GEMM of the same FLOP on the same path:
  /// ResNet-50 layers reach well below GEMM peaks (small channel counts, 1x1 and 3x3 shapes).
  double conv_relative_to_matmul = 0.0;
  /// Batched attention matmuls (QK^T, PV per head: small k = head_dim) relative to a GEMM.
  double attention_relative_to_matmul = 0.0;
  /// Achieved fraction of datasheet memory bandwidth for streaming kernels (STREAM-like copy
  /// reaches 0.8-0.9 on HBM GPUs).
  double memory_bandwidth = 0.0;
  /// Fixed GPU time per kernel (launch latency on the device, ramp-up and tail): a few us.
  double kernel_fixed_s = 0.0;
  /// Host CPU time to dispatch one kernel, by framework mode, forward / backward.
  double eager_forward_dispatch_s = 0.0;
  double eager_backward_dispatch_s = 0.0;
  double compiled_dispatch_s = 0.0;
  double cuda_graphs_dispatch_s = 0.0;
  /// Share of memory-bound (elementwise/normalization) traffic and kernels left after a
  /// compiler fuses them into neighbours (torch.compile / fused-kernel frameworks).
  double compiled_memory_bound_share = 0.0;
  /// NCHW convolutions on tensor cores pay for layout transposes: efficiency multiplier.
  double channels_first_tensor_core_penalty = 0.0;
  /// Achieved pinned H2D bandwidth as a share of the PCIe link's raw rate (x16 Gen3 ~12 GB/s of
  /// 15.75: report R12; Gen4 25.13 GB/s of 31.5: row V089) and pageable relative to pinned
  /// (about half: R12, V092).
  double pcie_pinned = 0.0;
  double pcie_pageable_relative = 0.0;

  /// The documented defaults (gpu_efficiency.cpp cites each).
  static GpuEfficiency defaults();
};

}  // namespace gpuplan::models

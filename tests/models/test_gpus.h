#pragma once
/// Hand-made GPU specs for model tests: round figures close to the datasheets, so that the
/// expected values in the tests can be derived by hand.

#include "core/units.h"
#include "models/gpu/gpu_efficiency.h"
#include "models/gpu/gpu_spec.h"

namespace gpuplan::models::testing {

/// An A100-like GPU: cc 8.0, fp32 20, tf32 160, fp16/bf16 320 TFLOP/s, 2000 GB/s, PCIe4 x16.
inline GpuSpec ampere_like() {
  GpuSpec g;
  g.name = "ampere-like";
  g.compute_capability_major = 8;
  g.compute_capability_minor = 0;
  g.peak_fp32_flop_per_s = core::teraflop_per_s(20);
  g.peak_tf32_flop_per_s = core::teraflop_per_s(160);
  g.peak_fp16_flop_per_s = core::teraflop_per_s(320);
  g.peak_bf16_flop_per_s = core::teraflop_per_s(320);
  g.memory_bytes = core::gigabytes(80);
  g.memory_bytes_per_s = core::gigabytes_per_s(2000);
  g.pcie_generation = 4;
  g.pcie_lanes = 16;
  g.tdp_w = 400;
  g.idle_w = 50;
  return g;
}

/// A V100-like GPU: cc 7.0, fp32 16, fp16 tensor 128 TFLOP/s, no tf32/bf16, 900 GB/s, PCIe3.
inline GpuSpec volta_like() {
  GpuSpec g = ampere_like();
  g.name = "volta-like";
  g.compute_capability_major = 7;
  g.peak_fp32_flop_per_s = core::teraflop_per_s(16);
  g.peak_tf32_flop_per_s = 0;
  g.peak_fp16_flop_per_s = core::teraflop_per_s(128);
  g.peak_bf16_flop_per_s = 0;
  g.memory_bytes = core::gigabytes(16);
  g.memory_bytes_per_s = core::gigabytes_per_s(900);
  g.pcie_generation = 3;
  return g;
}

/// A GTX 1080 Ti-like Pascal GPU: cc 6.1, fp32 11, fp16 path 0.17 TFLOP/s (1/64 rate).
inline GpuSpec pascal_like() {
  GpuSpec g = volta_like();
  g.name = "pascal-like";
  g.compute_capability_major = 6;
  g.compute_capability_minor = 1;
  g.peak_fp32_flop_per_s = core::teraflop_per_s(11);
  g.peak_fp16_flop_per_s = core::teraflop_per_s(0.17);
  g.memory_bytes_per_s = core::gigabytes_per_s(480);
  return g;
}

/// GpuEfficiency::defaults() with the fitted fractions (`gpuplan fit`, cli/model_fit.h)
/// pinned to round values, so the hand-computed op times of the tests do not move when the
/// fit is rerun: conv relative 0.70 (tensor cores) / 0.95 (CUDA cores), linear layers 0.75,
/// attention 0.60, memory bandwidth 0.80.
inline GpuEfficiency hand_efficiency() {
  GpuEfficiency e = GpuEfficiency::defaults();
  e.conv_relative_to_gemm = 0.70;
  e.matmul_relative_to_gemm = 0.75;
  e.attention_relative_to_matmul = 0.60;
  e.memory_bandwidth = 0.80;
  return e;
}

}  // namespace gpuplan::models::testing

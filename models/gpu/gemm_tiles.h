#pragma once
/// \file gemm_tiles.h
/// Why a GEMM of a given shape falls short of the best-shape rate: a GEMM kernel computes its
/// m x n output in tiles, one thread block per tile, and the thread blocks run in waves of
/// one per SM (NVIDIA, "Matrix Multiplication Background User's Guide", sections "Tile
/// Quantization" and "Wave Quantization", docs.nvidia.com/deeplearning/performance). Two
/// terms, each a function below:
///   - tile quantization: partial edge tiles compute padding (m x n of ceil(m/tm)tm x ceil(n/tn)tn);
///   - wave quantization and occupancy: the last wave, or a grid smaller than the GPU, leaves
///     SMs idle (tiles / (waves x SMs)); a grid of fewer tiles than SMs is split along k
///     (cuBLAS/CUTLASS split-K) while each split keeps at least kSplitKMinDepth of k.
/// A third term, a fixed cost per tile as extra depth (k / (k + k0)), was fitted and dropped:
/// with the two above the fit drove k0 to 5 elements (no effect); alone it moved the fitted
/// throughput MAPE from 11.9 to 11.7 % (tests/validation, 2026-12-01).
/// Pure functions of the shape and the GPU (STYLE.md E2); no I/O.

#include "models/gpu/gpu_spec.h"

namespace gpuplan::models {

/// One GEMM: C (m x n) = A (m x k) B (k x n), in elements.
struct GemmShape {
  double m = 0.0;
  double n = 0.0;
  double k = 0.0;
};

/// The output tile a cuBLAS kernel computes per thread block, in elements.
struct GemmTile {
  double m = 0.0;
  double n = 0.0;
};

/// The tile of the large-GEMM kernels cuBLAS runs on the math path: tensor cores 256 x 128
/// (kernel names as profilers list them: volta_h884gemm_256x128, turing_fp16_s1688gemm_
/// fp16_256x128, ampere_bf16_s16816gemm_bf16_256x128; Hopper's sm90_xmma_gemm_..._
/// tilesize128x256x64 has the same area), FP32 CUDA cores 128 x 128 (volta_sgemm_128x128,
/// ampere_sgemm_128x128). One such thread block per SM at a time (their shared memory and
/// registers fill one SM).
GemmTile gemm_tile(bool tensor_cores);

/// The smallest depth of k one split of a split-K GEMM keeps: four 64-deep k-steps of the
/// tensor-core mainloop (CUTLASS's 64-element k tile). An assumption of this model, not a
/// cuBLAS constant.
inline constexpr double kSplitKMinDepth = 256.0;

/// Share of the computed output that is real: m n / (ceil(m/tm) tm ceil(n/tn) tn), in (0, 1].
double tile_quantization_efficiency(const GemmShape& shape, const GemmTile& tile);

/// The k splits of a grid of `tiles` thread blocks on `sm_count` SMs: 1 when the grid fills
/// the GPU, else as many as idle SMs allow, each at least kSplitKMinDepth deep.
int split_k_factor(double tiles, double k, int sm_count);

/// Busy share of the SMs over the waves: work / (ceil(work / SMs) x SMs), work = tiles x
/// splits, in (0, 1]. Below one wave this is the occupancy of a grid that cannot fill the GPU.
double wave_efficiency(double work_units, int sm_count);

/// The product of the two for one GEMM on `gpu` (the math path as `tensor_cores`): its rate
/// relative to a GEMM with full tiles in full waves. A tile larger than the output is taken
/// at the output's size (cuBLAS has narrow-tile kernels for skinny GEMMs). A shape with a
/// non-positive dimension, or a GPU without an SM count, returns 1 (no shape known).
double gemm_shape_efficiency(const GemmShape& shape, const GpuSpec& gpu, bool tensor_cores);

}  // namespace gpuplan::models

#include "models/gpu/gemm_tiles.h"

#include <doctest/doctest.h>

#include "../test_gpus.h"
#include "models/gpu/op_time.h"
#include "models/workload/layer_ops.h"

using namespace gpuplan::models;

namespace {
// An A100's 108 SMs on the hand-made Ampere spec.
GpuSpec a100_sms() {
  GpuSpec g = testing::ampere_like();
  g.sm_count = 108;
  return g;
}
}  // namespace

TEST_SUITE("models.gpu.gemm_tiles") {
  TEST_CASE("the tile of the math path: 256 x 128 on tensor cores, 128 x 128 on CUDA cores") {
    CHECK(gemm_tile(true).m == 256.0);
    CHECK(gemm_tile(true).n == 128.0);
    CHECK(gemm_tile(false).m == 128.0);
    CHECK(gemm_tile(false).n == 128.0);
  }

  TEST_CASE("tile quantization: the padded edge tiles compute nothing useful") {
    // m = 300 takes two 256-row tiles (512 rows computed for 300): 300 / 512.
    CHECK(tile_quantization_efficiency({300, 128, 64}, {256, 128}) == doctest::Approx(300.0 / 512.0));
    CHECK(tile_quantization_efficiency({512, 256, 64}, {256, 128}) == 1.0);
  }

  TEST_CASE("wave quantization: the last partial wave and a grid smaller than the GPU") {
    // 192 tiles on 108 SMs: 2 waves, 216 slots -> 192 / 216.
    CHECK(wave_efficiency(192, 108) == doctest::Approx(192.0 / 216.0));
    // 64 tiles: one wave that leaves 44 SMs idle.
    CHECK(wave_efficiency(64, 108) == doctest::Approx(64.0 / 108.0));
    CHECK(wave_efficiency(216, 108) == 1.0);
  }

  TEST_CASE("split-K fills idle SMs while each split keeps 256 of k") {
    CHECK(split_k_factor(200, 4096, 108) == 1);  // the grid fills the GPU
    CHECK(split_k_factor(64, 4096, 108) == 1);   // floor(108 / 64) = 1
    CHECK(split_k_factor(16, 1024, 108) == 4);   // min(floor(108 / 16) = 6, 1024 / 256 = 4)
    CHECK(split_k_factor(16, 200, 108) == 1);    // too shallow to split
  }

  TEST_CASE("GEMM shape efficiency on 108 SMs: a small GEMM wastes SMs, a large one does not") {
    const GpuSpec gpu = a100_sms();
    // 2048 x 1024 output: 8 x 8 = 64 tiles of 256 x 128, no split (108 / 64 = 1): 64 / 108.
    CHECK(gemm_shape_efficiency({2048, 1024, 1024}, gpu, true) == doctest::Approx(64.0 / 108.0));
    // 65536 x 4096: 256 x 32 = 8192 tiles, ceil(8192 / 108) = 76 waves: 8192 / 8208.
    CHECK(gemm_shape_efficiency({65536, 4096, 4096}, gpu, true) == doctest::Approx(8192.0 / 8208.0));
    // A 1-row classifier head (1 x 1000, k 1024): tiles shrink to 1 x 128, 8 of them, split 4
    // (min(13, 4)): 32 / 108 busy; 1000 of 1024 columns real.
    CHECK(gemm_shape_efficiency({1, 1000, 1024}, gpu, true) == doctest::Approx(32.0 / 108.0 * 1000.0 / 1024.0));
    // CUDA cores: 128 x 128 tiles, 2048 x 1024 -> 16 x 8 = 128 tiles, 2 waves: 128 / 216.
    CHECK(gemm_shape_efficiency({2048, 1024, 1024}, gpu, false) == doctest::Approx(128.0 / 216.0));
  }

  TEST_CASE("no shape or no SM count: efficiency 1") {
    CHECK(gemm_shape_efficiency({0, 1024, 1024}, a100_sms(), true) == 1.0);
    CHECK(gemm_shape_efficiency({2048, 1024, 1024}, testing::ampere_like(), true) == 1.0);  // sm_count 0
  }

  TEST_CASE("a linear layer's three GEMMs: forward y = x W^T, grad-input depth n, grad-weight depth m") {
    const GpuSpec gpu = a100_sms();
    // 1024 tokens per sample x batch 2 = m 2048, 1024 -> 4096 (n 4096, k 1024).
    const Op up = linear_op("mlp.up", 1024, 1024, 4096, false, true);
    const LinearGemmEfficiency e = linear_gemm_efficiency(up, 2, gpu, true);
    // forward 2048 x 4096: 8 x 32 = 256 tiles, 3 waves (324 slots): 256 / 324.
    CHECK(e.forward == doctest::Approx(256.0 / 324.0));
    // grad-input 2048 x 1024 (depth 4096): 64 tiles, one wave: 64 / 108. grad-weight
    // 4096 x 1024 (depth 2048): 16 x 8 = 128 tiles, 2 waves: 128 / 216. Equal FLOP: the
    // harmonic mean.
    CHECK(e.backward == doctest::Approx(2.0 / (108.0 / 64.0 + 216.0 / 128.0)));
    // A frozen weight (backward_flop_ratio 1) runs only the grad-input GEMM.
    Op frozen = up;
    frozen.backward_flop_ratio = 1.0;
    CHECK(linear_gemm_efficiency(frozen, 2, gpu, true).backward == doctest::Approx(64.0 / 108.0));
    // Not a linear layer (no weight shape): 1.
    Op elementwise = up;
    elementwise.op_class = OpClass::kElementwise;
    CHECK(linear_gemm_efficiency(elementwise, 2, gpu, true).forward == 1.0);
  }

  TEST_CASE("op_work runs a linear layer at the GEMM rate times its shape efficiency") {
    GpuEfficiency e = testing::hand_efficiency();
    e.kernel_fixed_s = 0.0;
    const GpuSpec gpu = a100_sms();
    TrainingSpec t;
    t.batch_size = 2;
    t.precision = Precision::kBf16;
    const Op up = linear_op("mlp.up", 1024, 1024, 4096, false, true);
    const OpWork w = op_work(up, 2, gpu, t, e);
    // 2 x 2048 x 1024 x 4096 FLOP at 320 TFLOP/s x 0.87 (Ampere GEMM) x 0.75 (linear layer)
    // x 256 / 324 (waves): compute-bound (its 29 MB of traffic take 18 us at 1.6 TB/s).
    const double flop = 2.0 * 2048 * 1024 * 4096;
    CHECK(w.forward.gpu_time_s == doctest::Approx(flop / (320e12 * 0.87 * 0.75 * 256.0 / 324.0)));
  }
}

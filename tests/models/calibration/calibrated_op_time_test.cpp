// op_time with a calibration profile: measured rates replace datasheet peak x efficiency
// where measured, and nothing else changes.

#include <doctest/doctest.h>

#include "../test_gpus.h"
#include "models/gpu/op_time.h"

using namespace gpuplan;
using namespace gpuplan::models;

namespace {

Op matmul(double flop, double elements) {
  Op op;
  op.name = "fc";
  op.op_class = OpClass::kMatmul;
  op.forward_flop = flop;
  op.input_elements = elements;
  op.output_elements = elements;
  return op;
}

TrainingSpec training(Precision p) {
  TrainingSpec t;
  t.batch_size = 1;
  t.precision = p;
  return t;
}

GpuSpec calibrated_ampere() {
  GpuSpec g = testing::ampere_like();
  GpuCalibration c;
  c.gemm_tf32 = HockneyLine{10e-6, 100e12};  // n_1/2 = 1e9 FLOP
  c.memory = HockneyLine{4e-6, 1.5e12};
  c.h2d_pinned = HockneyLine{8e-6, 20e9};
  c.launch_latency_s = 2e-6;
  g.calibration = c;
  g.calibrated = true;
  return g;
}

}  // namespace

TEST_SUITE("models.calibration.op_time") {
  TEST_CASE("a calibrated matmul runs at the measured GEMM rate at its FLOP per kernel") {
    const GpuEfficiency e = testing::hand_efficiency();
    const OpWork w = op_work(matmul(1e9, 1e3), 1, calibrated_ampere(), training(Precision::kTf32), e);
    // rate at n = 1e9 FLOP: 100e12 * 1e9 / (1e9 + 1e9) = 50e12 FLOP/s, times 0.75 for a linear
    // layer (GpuEfficiency::matmul_relative_to_gemm) = 37.5e12 -> 1e9 / 37.5e12 = 26.667e-6 s;
    // memory 2e3 * 4 B / 1.5e12 is negligible; + 1 kernel * 2e-6 s (measured launch latency)
    CHECK(w.forward.gpu_time_s == doctest::Approx(26.6667e-6 + 2e-6).scale(0).epsilon(1e-5));
    // backward: 2e9 FLOP at the same rate (forward kernel size) = 53.333e-6 s; 1 kernel
    CHECK(w.backward.gpu_time_s == doctest::Approx(53.3333e-6 + 2e-6).scale(0).epsilon(1e-5));
  }

  TEST_CASE("an unmeasured path keeps the datasheet figure") {
    const GpuEfficiency e = testing::hand_efficiency();
    const OpWork w = op_work(matmul(1e12, 1e3), 1, calibrated_ampere(), training(Precision::kBf16Amp), e);
    // bf16 not in the profile: 1e12 / (320e12 * 0.87 * 0.75) + AMP has no weights here -> 1 kernel
    // of 2e-6 s
    CHECK(w.forward.gpu_time_s == doctest::Approx(1e12 / (320e12 * 0.87 * 0.75) + 2e-6).scale(0));
  }

  TEST_CASE("memory-bound ops use the measured streaming rate") {
    const GpuEfficiency e = testing::hand_efficiency();
    Op relu;
    relu.op_class = OpClass::kElementwise;
    relu.input_elements = 1e8;
    relu.output_elements = 1e8;
    relu.backward_flop_ratio = 1.0;
    const OpWork w = op_work(relu, 1, calibrated_ampere(), training(Precision::kFp32), e);
    // (1e8 + 1e8) * 4 B = 8e8 B / 1.5e12 B/s = 5.333e-4 s; + 2e-6 s
    CHECK(w.forward.gpu_time_s == doctest::Approx(8e8 / 1.5e12 + 2e-6));
  }

  TEST_CASE("H2D uses the measured pinned rate, the datasheet path for pageable when unmeasured") {
    const GpuEfficiency e = testing::hand_efficiency();
    CHECK(h2d_bytes_per_s(calibrated_ampere(), true, e) == doctest::Approx(20e9));
    // pageable: PCIe4 x16 1.969e9 * 16 * 0.78 * 0.5
    CHECK(h2d_bytes_per_s(calibrated_ampere(), false, e) == doctest::Approx(1.969e9 * 16 * 0.78 * 0.5));
  }

  TEST_CASE("without a calibration nothing changes") {
    const GpuEfficiency e = testing::hand_efficiency();
    GpuSpec plain = testing::ampere_like();
    const OpWork w = op_work(matmul(1e12, 1e3), 1, plain, training(Precision::kTf32), e);
    CHECK(w.forward.gpu_time_s == doctest::Approx(1e12 / (160e12 * 0.87 * 0.75) + 3e-6).scale(0));
  }

  TEST_CASE("a faster measured GEMM is never slower (monotonic in the rate)") {
    const GpuEfficiency e = testing::hand_efficiency();
    GpuSpec slow = calibrated_ampere();
    GpuSpec fast = calibrated_ampere();
    fast.calibration->gemm_tf32->rate_per_s *= 2.0;
    const Op op = matmul(1e11, 1e3);
    CHECK(op_work(op, 1, fast, training(Precision::kTf32), e).forward.gpu_time_s <
          op_work(op, 1, slow, training(Precision::kTf32), e).forward.gpu_time_s);
  }
}

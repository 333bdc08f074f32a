// The Hockney fits of models/calibration: known lines in, the same lines out (within 1 %
// where the data carry a perturbation, to rounding where they do not).

#include "models/calibration/calibration_fit.h"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

using namespace gpuplan::models;

namespace {

// The perturbation pattern of tests/fixtures/calibration/make_fixtures.py (at most 0.4 %).
constexpr double kPerturbation[] = {0.004, -0.004, 0.002, -0.002, 0.0, 0.003, -0.003, 0.001, -0.001, 0.0};

std::vector<ProbePoint> series(double fixed_s, double rate_per_s, const std::vector<double>& sizes,
                               bool perturb = true) {
  std::vector<ProbePoint> out;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double t = (fixed_s + sizes[i] / rate_per_s) * (1.0 + (perturb ? kPerturbation[i % 10] : 0.0));
    out.push_back({sizes[i], t, t, t});
  }
  return out;
}

std::vector<double> gemm_sizes() {
  std::vector<double> v;
  for (double n : {256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0}) v.push_back(2.0 * n * n * n);
  return v;
}

std::vector<double> copy_sizes() {  // 4 KiB .. 1 GiB by x4
  std::vector<double> v;
  for (double b = 4096.0; b <= 1073741824.0; b *= 4.0) v.push_back(b);
  return v;
}

}  // namespace

TEST_SUITE("models.calibration.fit") {
  TEST_CASE("an exact line is recovered to rounding") {
    // t = 8e-6 + n / 24.5e9 at 4 KiB .. 1 GiB, no noise: the weighted system is consistent.
    const LineFit f = fit_hockney(series(8e-6, 24.5e9, copy_sizes(), false));
    CHECK(f.line.fixed_s == doctest::Approx(8e-6).epsilon(1e-9));
    CHECK(f.line.rate_per_s == doctest::Approx(24.5e9).epsilon(1e-9));
    CHECK(f.max_relative_residual < 1e-9);
  }

  TEST_CASE("a perturbed copy line is recovered within 1 %") {
    const LineFit f = fit_hockney(series(15e-6, 11e9, copy_sizes()));
    CHECK(f.line.fixed_s == doctest::Approx(15e-6).epsilon(0.01));
    CHECK(f.line.rate_per_s == doctest::Approx(11e9).epsilon(0.01));
    CHECK(f.max_relative_residual < 0.01);
  }

  TEST_CASE("a GEMM efficiency curve is recovered within 1 %: r_inf and n_1/2") {
    // fp16: t = 15 us + flop / 275 TFLOP/s -> n_1/2 = 15e-6 * 275e12 = 4.125e9 FLOP; at the
    // 1024^3 GEMM (2.147e9 FLOP) the achieved rate is 275e12 * 2.147 / (2.147 + 4.125) = 94.1e12.
    const LineFit f = fit_hockney(series(15e-6, 275e12, gemm_sizes()));
    CHECK(f.line.rate_per_s == doctest::Approx(275e12).epsilon(0.01));
    CHECK(f.line.half_size() == doctest::Approx(4.125e9).epsilon(0.01));
    const double n = 2.0 * 1024.0 * 1024.0 * 1024.0;
    CHECK(f.line.rate_at(n) == doctest::Approx(275e12 * n / (n + 4.125e9)).epsilon(0.01));
  }

  TEST_CASE("the rate approaches r_inf with size and is half of it at n_1/2") {
    const HockneyLine l{10e-6, 100e9};  // n_1/2 = 1e6
    CHECK(l.half_size() == doctest::Approx(1e6));
    CHECK(l.rate_at(1e6) == doctest::Approx(50e9));
    CHECK(l.rate_at(1e6) < l.rate_at(1e7));
    CHECK(l.rate_at(1e12) == doctest::Approx(100e9).epsilon(1e-5));
    CHECK(l.rate_at(0.0) == 0.0);
  }

  TEST_CASE("a series without fixed cost is fitted through the origin, never with t_0 < 0") {
    // t = n / 1e9 with alternating noise would give a tiny negative t_0 in a free fit.
    std::vector<ProbePoint> pts = series(0.0, 1e9, {1e3, 1e4, 1e5, 1e6});
    pts[0].median_s *= 0.99;
    const LineFit f = fit_hockney(pts);
    CHECK(f.line.fixed_s >= 0.0);
    CHECK(f.line.rate_per_s == doctest::Approx(1e9).epsilon(0.01));
  }

  TEST_CASE("too few sizes, non-positive times and falling times are refused") {
    CHECK_THROWS_AS(fit_hockney({{1e6, 1e-3, 1e-3, 1e-3}}), std::invalid_argument);
    CHECK_THROWS_AS(fit_hockney({{1e6, 1e-3, 1e-3, 1e-3}, {1e6, 2e-3, 2e-3, 2e-3}}), std::invalid_argument);
    CHECK_THROWS_AS(fit_hockney({{1e6, 0.0, 0.0, 0.0}, {2e6, 1e-3, 1e-3, 1e-3}}), std::invalid_argument);
    CHECK_THROWS_AS(fit_hockney({{1e6, 2e-3, 2e-3, 2e-3}, {2e6, 1e-3, 1e-3, 1e-3}}), std::invalid_argument);
  }

  TEST_CASE("fit_calibration fits every series and derives busbw") {
    ProbeResults p;
    p.provenance.gpu_name = "NVIDIA A100-SXM4-80GB";
    p.gemm["fp16"] = series(15e-6, 275e12, gemm_sizes());
    p.gemm["tf32"] = series(12e-6, 140e12, gemm_sizes());
    p.memory_stream = series(4e-6, 1.75e12, {2e6, 8e6, 3.2e7, 1.28e8});
    p.memory_copy = series(6e-6, 1.6e12, {2e6, 8e6, 3.2e7, 1.28e8});
    p.h2d_pinned = series(8e-6, 24.5e9, copy_sizes());
    p.h2d_pageable = series(15e-6, 11e9, copy_sizes());
    p.launch_latency_s = 2.5e-6;
    p.small_kernel_dispatch_s = 3e-6;
    p.p2p.push_back({0, 1, series(10e-6, 250e9, {1e6, 4e6, 1.6e7, 6.4e7})});
    p.all_reduce_gpus = 4;
    p.all_reduce = series(30e-6, 150e9, {1e6, 4e6, 1.6e7, 6.4e7});
    const CalibrationProfile c = fit_calibration(p, "a100-80gb", "fixture");
    CHECK(c.gpu == "a100-80gb");
    CHECK(c.provenance.gpu_name == "NVIDIA A100-SXM4-80GB");
    CHECK(c.rates.profile == "fixture");
    REQUIRE(c.rates.gemm_fp16);
    CHECK(c.rates.gemm_fp16->rate_per_s == doctest::Approx(275e12).epsilon(0.01));
    REQUIRE(c.rates.gemm_tf32);
    CHECK(c.rates.gemm_tf32->rate_per_s == doctest::Approx(140e12).epsilon(0.01));
    CHECK_FALSE(c.rates.gemm_bf16);
    CHECK_FALSE(c.rates.gemm_fp8);
    REQUIRE(c.rates.memory);  // the streaming kernel wins over the copy
    CHECK(c.rates.memory->rate_per_s == doctest::Approx(1.75e12).epsilon(0.01));
    REQUIRE(c.rates.h2d_pinned);
    CHECK(c.rates.h2d_pinned->rate_per_s == doctest::Approx(24.5e9).epsilon(0.01));
    CHECK(c.rates.h2d_pageable->fixed_s == doctest::Approx(15e-6).epsilon(0.01));
    CHECK_FALSE(c.rates.d2h_pinned);
    CHECK(c.rates.launch_latency_s == 2.5e-6);
    CHECK(c.rates.small_kernel_dispatch_s == 3e-6);
    REQUIRE(c.rates.p2p.size() == 1);
    CHECK(c.rates.p2p[0].line.rate_per_s == doctest::Approx(250e9).epsilon(0.01));
    REQUIRE(c.rates.all_reduce);
    // busbw = algbw * 2 (n - 1) / n = 150e9 * 2 * 3 / 4 = 225e9 (nccl-tests PERFORMANCE.md)
    CHECK(c.rates.all_reduce->busbw_bytes_per_s == doctest::Approx(225e9).epsilon(0.01));
    // one quality entry per fitted series: fp16, tf32, memory, h2d x2, p2p, all_reduce
    CHECK(c.fits.size() == 7);
    for (const FitQuality& q : c.fits) {
      CAPTURE(q.series);
      CHECK(q.max_relative_residual < 0.01);
    }
  }
}

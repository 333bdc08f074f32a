#pragma once
/// \file calibration_fit.h
/// Fits cuda_probe series into Hockney lines (gpu_calibration.h) by weighted linear least
/// squares (Eigen, column-pivoting QR). Pure tier-1 code: data in, fits out (STYLE.md E2).
///
/// The model t(n) = t_0 + n / r_inf is linear in (t_0, 1 / r_inf). Each point is weighted by
/// 1 / t_measured, so the fit minimises the sum of squared *relative* residuals
///   sum_i ((t_0 + n_i / r_inf - t_i) / t_i)^2,
/// which gives a 4 KiB copy the same say as a 1 GiB one (unweighted least squares would fit
/// the largest sizes only and leave t_0 undetermined). t_0 is constrained to be >= 0: when
/// the free fit gives a negative t_0 (a noisy series with no visible fixed cost), the line is
/// refitted through the origin, t(n) = n / r_inf, with the same weights.

#include <vector>

#include "models/calibration/calibration_profile.h"
#include "models/calibration/probe_results.h"

namespace gpuplan::models {

/// A fitted line and its worst relative residual.
struct LineFit {
  HockneyLine line;
  double max_relative_residual = 0.0;
};

/// Fits t(n) = t_0 + n / r_inf to the medians of `points`. Throws std::invalid_argument
/// when there are fewer than two distinct positive sizes, a non-positive size or time, or
/// the fitted rate is not positive (times that fall with size); config/probe_results.h
/// checks the first conditions on input, so a valid probe file never throws for them.
LineFit fit_hockney(const std::vector<ProbePoint>& points);

/// Fits every series of `probe` that has points: GEMM per precision, memory (the streaming
/// kernel; the device-to-device copy when there is no stream series), H2D/D2H pinned and
/// pageable, P2P per pair, all-reduce (busbw = algbw x 2 (n - 1) / n, nccl-tests
/// doc/PERFORMANCE.md). Launch latency and dispatch cost are copied (medians, no fit).
/// `gpu` is the catalog name written into the profile; `source` goes to rates.profile.
CalibrationProfile fit_calibration(const ProbeResults& probe, const std::string& gpu, const std::string& source);

}  // namespace gpuplan::models

#include "models/calibration/calibration_fit.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace gpuplan::models {
namespace {

double max_residual(const HockneyLine& line, const std::vector<ProbePoint>& points) {
  double worst = 0.0;
  for (const ProbePoint& p : points) {
    worst = std::max(worst, std::abs(line.time_s(p.size) - p.median_s) / p.median_s);
  }
  return worst;
}

std::optional<HockneyLine> fit_into(const std::vector<ProbePoint>& points, const std::string& series,
                                    CalibrationProfile& profile) {
  if (points.empty()) {
    return std::nullopt;
  }
  LineFit fit;
  try {
    fit = fit_hockney(points);
  } catch (const std::invalid_argument& e) {
    // Name the series: the caller reports it as an error in the probe file.
    std::string reason = e.what();
    if (reason.starts_with("fit_hockney: ")) reason = reason.substr(13);
    throw std::invalid_argument("series " + series + ": " + reason);
  }
  profile.fits.push_back({series, static_cast<int>(points.size()), fit.max_relative_residual});
  return fit.line;
}

}  // namespace

LineFit fit_hockney(const std::vector<ProbePoint>& points) {
  std::set<double> sizes;
  double largest = 0.0;
  for (const ProbePoint& p : points) {
    if (!(p.size > 0.0) || !(p.median_s > 0.0) || !std::isfinite(p.size) || !std::isfinite(p.median_s)) {
      throw std::invalid_argument("fit_hockney: sizes and times must be positive and finite");
    }
    sizes.insert(p.size);
    largest = std::max(largest, p.size);
  }
  if (sizes.size() < 2) {
    throw std::invalid_argument("fit_hockney: needs at least two distinct sizes");
  }
  // Row i, weighted by 1 / t_i: [1 / t_i, (n_i / N) / t_i] . [t_0, N / r_inf] = 1. Sizes are
  // scaled by the largest, N, so that both columns are of order one (GEMM sizes reach 1e13).
  const auto rows = static_cast<Eigen::Index>(points.size());
  Eigen::MatrixXd a(rows, 2);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const ProbePoint& p = points[static_cast<std::size_t>(i)];
    a(i, 0) = 1.0 / p.median_s;
    a(i, 1) = (p.size / largest) / p.median_s;
  }
  const Eigen::Vector2d x = a.colPivHouseholderQr().solve(b);
  HockneyLine line;
  double fixed_s = x(0);
  double seconds_per_unit = x(1) / largest;
  if (fixed_s < 0.0) {
    // Through the origin: minimise sum ((n_i s - t_i) / t_i)^2 over s.
    const Eigen::VectorXd column = a.col(1);
    fixed_s = 0.0;
    seconds_per_unit = column.dot(b) / column.squaredNorm() / largest;
  }
  if (!(seconds_per_unit > 0.0)) {
    throw std::invalid_argument("fit_hockney: the fitted rate is not positive (times fall with size)");
  }
  line.fixed_s = fixed_s;
  line.rate_per_s = 1.0 / seconds_per_unit;
  return {line, max_residual(line, points)};
}

CalibrationProfile fit_calibration(const ProbeResults& probe, const std::string& gpu, const std::string& source) {
  CalibrationProfile profile;
  profile.gpu = gpu;
  profile.provenance = probe.provenance;
  GpuCalibration& r = profile.rates;
  r.profile = source;
  const auto gemm = [&](const char* precision) -> std::optional<HockneyLine> {
    const auto it = probe.gemm.find(precision);
    if (it == probe.gemm.end()) {
      return std::nullopt;
    }
    return fit_into(it->second, std::string("gemm.") + precision, profile);
  };
  r.gemm_fp32 = gemm("fp32");
  r.gemm_tf32 = gemm("tf32");
  r.gemm_fp16 = gemm("fp16");
  r.gemm_bf16 = gemm("bf16");
  r.gemm_fp8 = gemm("fp8");
  if (!probe.memory_stream.empty()) {
    r.memory = fit_into(probe.memory_stream, "memory_stream", profile);
  } else {
    r.memory = fit_into(probe.memory_copy, "memory_copy", profile);
  }
  r.h2d_pinned = fit_into(probe.h2d_pinned, "h2d_pinned", profile);
  r.h2d_pageable = fit_into(probe.h2d_pageable, "h2d_pageable", profile);
  r.d2h_pinned = fit_into(probe.d2h_pinned, "d2h_pinned", profile);
  r.d2h_pageable = fit_into(probe.d2h_pageable, "d2h_pageable", profile);
  r.launch_latency_s = probe.launch_latency_s;
  r.small_kernel_dispatch_s = probe.small_kernel_dispatch_s;
  for (const P2pSeries& s : probe.p2p) {
    if (auto line = fit_into(s.points, "p2p." + std::to_string(s.src) + "-" + std::to_string(s.dst), profile)) {
      r.p2p.push_back({s.src, s.dst, *line});
    }
  }
  if (probe.all_reduce_gpus >= 2) {
    if (auto line = fit_into(probe.all_reduce, "all_reduce", profile)) {
      const double n = probe.all_reduce_gpus;
      // nccl-tests doc/PERFORMANCE.md: all-reduce busbw = algbw * 2 (n - 1) / n.
      r.all_reduce = AllReduceLine{probe.all_reduce_gpus, *line, line->rate_per_s * 2.0 * (n - 1.0) / n};
    }
  }
  return profile;
}

}  // namespace gpuplan::models

#include "models/diagnosis/gpu_usage.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace gpuplan::models {

namespace {

/// Minimum autocorrelation for a sawtooth to count as periodic. 0.3 separates a regular
/// stall pattern from noise on a few dozen readings (the 95 % band of white noise is about
/// 2/sqrt(n): 0.28 for 50 readings).
constexpr double kMinPeriodCorrelation = 0.3;

std::vector<double> field(const GpuSeries& s, const std::function<double(const GpuReading&)>& get) {
  std::vector<double> out;
  for (const auto& r : s.readings) {
    const double v = get(r);
    if (!std::isnan(v)) out.push_back(v);
  }
  return out;
}

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return kNotMeasured;
  double sum = 0.0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double max_of(const std::vector<double>& v) {
  return v.empty() ? kNotMeasured : *std::max_element(v.begin(), v.end());
}

}  // namespace

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return kNotMeasured;
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
}

Periodicity find_period(const std::vector<double>& values, double min_correlation) {
  const std::size_t n = values.size();
  if (n < 8) return {};
  const double m = mean_of(values);
  double denominator = 0.0;
  for (double x : values) denominator += (x - m) * (x - m);
  if (denominator <= 0.0) return {};
  auto r = [&](std::size_t k) {
    double sum = 0.0;
    for (std::size_t i = 0; i + k < n; ++i) sum += (values[i] - m) * (values[i + k] - m);
    return sum / denominator;
  };
  const std::size_t max_lag = n / 2;
  for (std::size_t k = 2; k <= max_lag; ++k) {
    const double here = r(k);
    if (here >= min_correlation && here >= r(k - 1) && (k == max_lag || here >= r(k + 1))) {
      return {k, here};
    }
  }
  return {};
}

GpuUsage summarize_usage(const GpuSeries& series, const GpuFacts& facts) {
  GpuUsage u;
  u.source = series.source;
  u.format = series.format;
  u.index = series.index;
  u.name = series.name;
  u.facts = facts;
  u.samples = series.readings.size();
  u.interval_s = series.interval_s;
  if (!std::isnan(u.interval_s)) u.duration_s = u.interval_s * static_cast<double>(u.samples);

  const auto util = field(series, [](const GpuReading& r) { return r.utilization; });
  u.utilization_mean = mean_of(util);
  u.utilization_p10 = quantile(util, 0.1);
  u.utilization_p50 = quantile(util, 0.5);
  u.utilization_p90 = quantile(util, 0.9);
  if (!util.empty()) {
    const auto idle = std::count_if(util.begin(), util.end(), [](double x) { return x <= kIdleUtilization; });
    u.idle_share = static_cast<double>(idle) / static_cast<double>(util.size());
  }
  const Periodicity p = find_period(util, kMinPeriodCorrelation);
  u.period_samples = p.lag;
  u.period_correlation = p.correlation;
  if (p.lag > 0 && !std::isnan(u.interval_s)) u.period_s = u.interval_s * static_cast<double>(p.lag);

  u.memory_used_peak_bytes = max_of(field(series, [](const GpuReading& r) { return r.memory_used_bytes; }));
  u.memory_capacity_bytes = max_of(field(series, [](const GpuReading& r) { return r.memory_total_bytes; }));
  if (std::isnan(u.memory_capacity_bytes)) u.memory_capacity_bytes = facts.memory_bytes;
  u.memory_utilization_mean = mean_of(field(series, [](const GpuReading& r) { return r.memory_utilization; }));
  u.power_mean_w = mean_of(field(series, [](const GpuReading& r) { return r.power_w; }));
  u.power_limit_w = max_of(field(series, [](const GpuReading& r) { return r.power_limit_w; }));
  if (std::isnan(u.power_limit_w)) u.power_limit_w = facts.tdp_w;
  u.pcie_rx_mean_bytes_per_s = mean_of(field(series, [](const GpuReading& r) { return r.pcie_rx_bytes_per_s; }));
  u.pcie_tx_mean_bytes_per_s = mean_of(field(series, [](const GpuReading& r) { return r.pcie_tx_bytes_per_s; }));
  u.nvlink_mean_bytes_per_s = mean_of(field(series, [](const GpuReading& r) {
    if (std::isnan(r.nvlink_rx_bytes_per_s) && std::isnan(r.nvlink_tx_bytes_per_s)) return kNotMeasured;
    return (std::isnan(r.nvlink_rx_bytes_per_s) ? 0.0 : r.nvlink_rx_bytes_per_s) +
           (std::isnan(r.nvlink_tx_bytes_per_s) ? 0.0 : r.nvlink_tx_bytes_per_s);
  }));
  u.sm_active_mean = mean_of(field(series, [](const GpuReading& r) { return r.sm_active; }));
  u.tensor_active_mean = mean_of(field(series, [](const GpuReading& r) { return r.tensor_active; }));
  u.dram_active_mean = mean_of(field(series, [](const GpuReading& r) { return r.dram_active; }));
  return u;
}

}  // namespace gpuplan::models

#pragma once
/// \file gpu_usage.h
/// Tier-1 statistics of one GPU's monitoring readings (pure: readings in, figures out).
/// utilization.gpu is nvidia-smi's "percent of time over the past sample period during which
/// one or more kernels was executing" (nvidia-smi(1), `--help-query-gpu`), not MFU.

#include <cstddef>
#include <string>
#include <vector>

#include "models/diagnosis/monitor_trace.h"

namespace gpuplan::models {

/// What the catalog says of the logged GPU; NaN where the GPU is not in the catalog.
struct GpuFacts {
  std::string catalog_name;                             ///< empty when unknown
  double memory_bytes = kNotMeasured;
  double tdp_w = kNotMeasured;
  double idle_w = kNotMeasured;
  double pcie_bytes_per_s_per_direction = kNotMeasured;  ///< x16 link, one direction
};

/// A utilization reading at or below this share counts as idle: nvidia-smi reports whole
/// percent, and a waiting training process still shows a few percent from its own polls.
inline constexpr double kIdleUtilization = 0.05;

/// Figures of one GPU over a log. Means skip NaN readings; a figure with no reading is NaN.
struct GpuUsage {
  std::string source;
  std::string format;
  int index = 0;
  std::string name;
  GpuFacts facts;
  std::size_t samples = 0;
  double interval_s = kNotMeasured;
  double duration_s = kNotMeasured;             ///< samples x interval
  double utilization_mean = kNotMeasured;
  double utilization_p10 = kNotMeasured;
  double utilization_p50 = kNotMeasured;
  double utilization_p90 = kNotMeasured;
  double idle_share = kNotMeasured;             ///< share of readings at or below kIdleUtilization
  std::size_t period_samples = 0;               ///< sawtooth period (readings); 0 = none found
  double period_s = kNotMeasured;               ///< period_samples x interval_s
  double period_correlation = kNotMeasured;     ///< autocorrelation at that lag, [-1, 1]
  double memory_used_peak_bytes = kNotMeasured;
  double memory_capacity_bytes = kNotMeasured;  ///< memory.total from the log, else the catalog
  double memory_utilization_mean = kNotMeasured;
  double power_mean_w = kNotMeasured;
  double power_limit_w = kNotMeasured;          ///< power.limit from the log, else the catalog TDP
  double pcie_rx_mean_bytes_per_s = kNotMeasured;
  double pcie_tx_mean_bytes_per_s = kNotMeasured;
  double nvlink_mean_bytes_per_s = kNotMeasured;  ///< rx + tx
  double sm_active_mean = kNotMeasured;
  double tensor_active_mean = kNotMeasured;
  double dram_active_mean = kNotMeasured;
};

/// The smallest lag k in [2, n/2] at which the autocorrelation of `values` is a local
/// maximum of at least `min_correlation`, with its value; {0, NaN} when there is none (fewer
/// than 8 values, a constant series). A data-loader stall every k steps shows as such a
/// sawtooth: busy while prefetched batches last, idle while the workers refill the queue.
/// Autocorrelation r(k) = sum (x_i - m)(x_{i+k} - m) / sum (x_i - m)^2 (Box & Jenkins).
struct Periodicity {
  std::size_t lag = 0;
  double correlation = kNotMeasured;
};
Periodicity find_period(const std::vector<double>& values, double min_correlation);

/// The q-quantile of `values` (q in [0, 1], linear interpolation between order statistics);
/// NaN for an empty vector.
double quantile(std::vector<double> values, double q);

/// The figures of `series` with the catalog `facts` of its GPU.
GpuUsage summarize_usage(const GpuSeries& series, const GpuFacts& facts);

}  // namespace gpuplan::models

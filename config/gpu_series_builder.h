#pragma once
/// \file gpu_series_builder.h
/// Collects the readings of a GPU log into one series per GPU, in order of first appearance,
/// and sets each series' interval from its times: what every GPU-log reader does alike.

#include <map>
#include <string>
#include <vector>

#include "models/diagnosis/monitor_trace.h"

namespace gpuplan::config {

class GpuSeriesBuilder {
 public:
  /// Series read from `source` in `format` (models::GpuSeries::format).
  GpuSeriesBuilder(std::string source, std::string format) : source_(std::move(source)), format_(std::move(format)) {}

  /// Appends `reading` to the series of the GPU `key` (index, bus id, ...), creating it with
  /// `index` and `name` when it is new.
  void add(const std::string& key, int index, const std::string& name, const models::GpuReading& reading);

  /// The series; each interval is the median step of its times, else `default_interval_s`
  /// (NaN when the tool has no default).
  std::vector<models::GpuSeries> finish(double default_interval_s) &&;

 private:
  std::string source_;
  std::string format_;
  std::map<std::string, std::size_t> position_of_;
  std::vector<models::GpuSeries> series_;
};

}  // namespace gpuplan::config

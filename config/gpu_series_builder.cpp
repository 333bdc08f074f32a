#include "config/gpu_series_builder.h"

#include <cmath>

#include "config/log_text.h"

namespace gpuplan::config {

void GpuSeriesBuilder::add(const std::string& key, int index, const std::string& name, const models::GpuReading& reading) {
  auto [it, inserted] = position_of_.try_emplace(key, series_.size());
  if (inserted) {
    models::GpuSeries s;
    s.source = source_;
    s.format = format_;
    s.index = index;
    s.name = name;
    series_.push_back(std::move(s));
  }
  series_[it->second].readings.push_back(reading);
}

std::vector<models::GpuSeries> GpuSeriesBuilder::finish(double default_interval_s) && {
  for (auto& s : series_) {
    std::vector<double> times;
    for (const auto& r : s.readings) times.push_back(r.time_s);
    s.interval_s = median_interval_s(times);
    if (std::isnan(s.interval_s)) s.interval_s = default_interval_s;
  }
  return std::move(series_);
}

}  // namespace gpuplan::config

#include "models/spot/preemption.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/job/job_time.h"

namespace gpuplan::models {

CheckpointTimes checkpoint_times(const JobSpec& job) {
  CheckpointTimes t;
  t.bytes = checkpoint_bytes(job);
  const double write = checkpoint_write_bytes_per_s(job);
  if (!(write > 0.0)) {
    return t;
  }
  const double storage_s = t.bytes / write;
  if (job.checkpointing.async) {
    t.blocking_s = t.bytes / kCheckpointHostCopyBytesPerS;
    t.background_s = storage_s;
  } else {
    t.blocking_s = storage_s;
  }
  return t;
}

double restore_time_s(const JobSpec& job) {
  const double read = checkpoint_read_bytes_per_s(job);
  return read > 0.0 ? checkpoint_bytes(job) / read : 0.0;
}

double young_daly_interval_s(double delta_s, double mtbf_s) {
  if (delta_s < 0.0 || std::isnan(delta_s)) {
    throw std::invalid_argument("young_daly_interval_s: negative checkpoint cost");
  }
  if (!std::isfinite(mtbf_s) || !(mtbf_s > 0.0)) {
    return 0.0;
  }
  return std::sqrt(2.0 * delta_s * mtbf_s);
}

double expected_time_exponential_s(double work_s, double interval_s, double checkpoint_s, double rate_per_s,
                                   double downtime_s) {
  if (!(rate_per_s > 0.0) || !(work_s > 0.0)) {
    throw std::invalid_argument("expected_time_exponential_s: rate and work must be positive");
  }
  const auto segment = [&](double a) { return (1.0 / rate_per_s + downtime_s) * std::expm1(rate_per_s * a); };
  if (!(interval_s > 0.0) || interval_s >= work_s) {
    return segment(work_s);
  }
  const double full = std::floor(work_s / interval_s);
  const double rest = work_s - full * interval_s;
  if (rest > 0.0) {
    return full * segment(interval_s + checkpoint_s) + segment(rest);
  }
  return (full - 1.0) * segment(interval_s + checkpoint_s) + segment(interval_s);
}

double nearest_rank_quantile(std::vector<double>& samples, double q) {
  if (samples.empty()) {
    throw std::invalid_argument("nearest_rank_quantile: no samples");
  }
  std::sort(samples.begin(), samples.end());
  const auto n = static_cast<double>(samples.size());
  auto rank = static_cast<std::size_t>(std::ceil(q * n));
  rank = std::clamp<std::size_t>(rank, 1, samples.size());
  return samples[rank - 1];
}

}  // namespace gpuplan::models

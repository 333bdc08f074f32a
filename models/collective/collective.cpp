#include "models/collective/collective.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gpuplan::models {

const char* collective_name(Collective collective) {
  switch (collective) {
    case Collective::kAllReduce:
      return "all_reduce";
    case Collective::kAllGather:
      return "all_gather";
    case Collective::kReduceScatter:
      return "reduce_scatter";
    case Collective::kAllToAll:
      return "all_to_all";
  }
  return "?";
}

double bus_factor(Collective collective, int ranks) {
  if (ranks < 1) {
    throw std::invalid_argument("bus_factor: ranks must be >= 1, got " + std::to_string(ranks));
  }
  const double n = ranks;
  const double share = (n - 1.0) / n;
  return collective == Collective::kAllReduce ? 2.0 * share : share;
}

double algbw_bytes_per_s(double payload_bytes, double time_s) {
  check_payload(payload_bytes);
  if (!std::isfinite(time_s) || time_s <= 0.0) {
    throw std::invalid_argument("algbw: time must be finite and > 0");
  }
  return payload_bytes / time_s;
}

double busbw_bytes_per_s(Collective collective, int ranks, double payload_bytes, double time_s) {
  return algbw_bytes_per_s(payload_bytes, time_s) * bus_factor(collective, ranks);
}

void check_payload(double payload_bytes) {
  if (!std::isfinite(payload_bytes) || payload_bytes < 0.0) {
    throw std::invalid_argument("collective payload must be finite and >= 0 bytes");
  }
}

}  // namespace gpuplan::models

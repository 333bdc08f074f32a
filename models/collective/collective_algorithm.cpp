#include "models/collective/collective_algorithm.h"

#include <limits>
#include <stdexcept>

namespace gpuplan::models {

ProtocolTime fastest_protocol(const ICollectiveAlgorithm& algorithm, Collective collective,
                              double payload_bytes, const Topology& topology) {
  ProtocolTime best;
  best.time_s = std::numeric_limits<double>::infinity();
  bool any = false;
  for (Protocol p : kProtocols) {
    if (!algorithm.supports_protocol(p)) {
      continue;
    }
    const double t = algorithm.time_s(collective, payload_bytes, topology, p);
    if (!any || t < best.time_s) {
      best = {p, t};
      any = true;
    }
  }
  if (!any) {
    throw std::logic_error("collective algorithm supports no protocol");
  }
  return best;
}

}  // namespace gpuplan::models

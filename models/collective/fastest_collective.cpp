#include "models/collective/fastest_collective.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace gpuplan::models {

CollectiveChoice fastest_collective(const CollectiveRegistry& registry, Collective collective,
                                    double payload_bytes, const Topology& topology) {
  validate_topology(topology);
  check_payload(payload_bytes);
  std::vector<std::string> names = registry.names();
  const auto ring = std::find(names.begin(), names.end(), "ring");
  if (ring != names.end()) {
    std::rotate(names.begin(), ring, ring + 1);  // "ring" first, the rest stay sorted
  }
  CollectiveChoice best;
  bool any = false;
  for (const std::string& name : names) {
    const ICollectiveAlgorithm* algorithm = registry.find(name);
    if (algorithm == nullptr || !algorithm->supports(collective, topology)) {
      continue;
    }
    const ProtocolTime pt = fastest_protocol(*algorithm, collective, payload_bytes, topology);
    if (!any || pt.time_s < best.time_s) {
      best = {name, pt.protocol, pt.time_s};
      any = true;
    }
  }
  if (!any) {
    throw std::invalid_argument(std::string("no registered collective algorithm supports ") +
                                collective_name(collective) + " on this topology");
  }
  return best;
}

}  // namespace gpuplan::models

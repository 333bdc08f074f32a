#include "models/collective/pairwise_algorithm.h"

#include <algorithm>

#include "models/collective/algorithm_terms.h"

namespace gpuplan::models {

std::string PairwiseAlgorithm::summary() const {
  return "all-to-all as grouped point-to-point sends to every peer at once: (g-1)/n of the "
         "buffer over the GPU's link, g(n-g)/n over the node's NICs, one hop latency per level";
}

bool PairwiseAlgorithm::supports(Collective collective, const Topology& /*topology*/) const {
  return collective == Collective::kAllToAll;
}

double PairwiseAlgorithm::time_s(Collective collective, double payload_bytes, const Topology& topology,
                                 Protocol protocol) const {
  check_call("pairwise", supports(collective, topology), collective, payload_bytes, topology);
  const int n = topology.ranks();
  if (n == 1 || payload_bytes == 0.0) {
    return 0.0;
  }
  const double g = topology.gpus_per_node;
  double transfer_s = 0.0;
  if (g > 1) {
    transfer_s = (g - 1.0) / n * payload_bytes / intra_bytes_per_s(topology, protocol);
  }
  if (topology.nodes > 1) {
    const double node_bytes = g * (n - g) / n * payload_bytes;
    transfer_s = std::max(transfer_s, node_bytes / node_network_bytes_per_s(topology, protocol));
  }
  return line_time_s(intra_hop_latency_s(topology, protocol) + inter_hop_latency_s(topology, protocol), transfer_s);
}

}  // namespace gpuplan::models

#include "models/collective/hierarchical_algorithm.h"

#include <algorithm>

#include "models/collective/algorithm_terms.h"

namespace gpuplan::models {

std::string HierarchicalAlgorithm::summary() const {
  return "reduce-scatter in each node, all-reduce across nodes over the NICs, all-gather in "
         "each node; stages pipelined (slowest stage sets the rate)";
}

bool HierarchicalAlgorithm::supports(Collective collective, const Topology& /*topology*/) const {
  return collective != Collective::kAllToAll;
}

double HierarchicalAlgorithm::time_s(Collective collective, double payload_bytes,
                                     const Topology& topology, Protocol protocol) const {
  check_call("hierarchical", supports(collective, topology), collective, payload_bytes,
             topology);
  if (topology.ranks() == 1 || payload_bytes == 0.0) {
    return 0.0;
  }
  const int g = topology.gpus_per_node;
  const int m = topology.nodes;
  // All-reduce runs each level twice (reduce-scatter + all-gather); the others once.
  const double passes = collective == Collective::kAllReduce ? 2.0 : 1.0;
  const double latency_s = passes * ((g - 1) * intra_hop_latency_s(topology, protocol) +
                                     (m - 1) * inter_hop_latency_s(topology, protocol));
  double transfer_s = 0.0;
  if (g > 1) {
    transfer_s = passes * (g - 1.0) / g * payload_bytes / intra_bytes_per_s(topology, protocol);
  }
  if (m > 1) {
    const double node_bytes = passes * (m - 1.0) / m * payload_bytes;
    transfer_s = std::max(transfer_s, node_bytes / node_network_bytes_per_s(topology, protocol));
  }
  return line_time_s(latency_s, transfer_s);
}

}  // namespace gpuplan::models

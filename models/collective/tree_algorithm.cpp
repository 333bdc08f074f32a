#include "models/collective/tree_algorithm.h"

#include <algorithm>

#include "models/collective/algorithm_terms.h"

namespace gpuplan::models {

std::string TreeAlgorithm::summary() const {
  return "NCCL double binary tree across nodes, chain inside a node: log2(nodes) network "
         "latencies, pipelined, all-reduce only";
}

bool TreeAlgorithm::supports(Collective collective, const Topology& /*topology*/) const {
  return collective == Collective::kAllReduce;
}

double TreeAlgorithm::time_s(Collective collective, double payload_bytes,
                             const Topology& topology, Protocol protocol) const {
  check_call("tree", supports(collective, topology), collective, payload_bytes, topology);
  if (topology.ranks() == 1 || payload_bytes == 0.0) {
    return 0.0;
  }
  const int g = topology.gpus_per_node;
  const int m = topology.nodes;
  const double latency_s = 2.0 * ((g - 1) * intra_hop_latency_s(topology, protocol) +
                                  ceil_log2(m) * inter_hop_latency_s(topology, protocol));
  double transfer_s = 0.0;
  if (g > 1) {
    transfer_s =
        2.0 * payload_bytes / (kTreeBandwidthFactor * intra_bytes_per_s(topology, protocol));
  }
  if (m > 1) {
    const double node_bytes = 2.0 * (m - 1.0) / m * payload_bytes;
    transfer_s = std::max(transfer_s, node_bytes / (kTreeBandwidthFactor *
                                                     node_network_bytes_per_s(topology, protocol)));
  }
  return line_time_s(latency_s, transfer_s);
}

}  // namespace gpuplan::models

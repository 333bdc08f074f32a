#include "models/collective/algorithm_terms.h"

#include <stdexcept>

namespace gpuplan::models {

void check_call(const std::string& algorithm, bool supported, Collective collective,
                double payload_bytes, const Topology& topology) {
  validate_topology(topology);
  check_payload(payload_bytes);
  if (!supported) {
    throw std::invalid_argument("collective algorithm '" + algorithm + "' cannot run " +
                                collective_name(collective) + " on " +
                                std::to_string(topology.nodes) + " node(s) x " +
                                std::to_string(topology.gpus_per_node) + " GPU(s) over '" +
                                topology.intra_node.name + "'");
  }
}

double line_time_s(double hop_latency_s, double transfer_s) {
  return kCollectiveBaseLatencyS + hop_latency_s + transfer_s;
}

double intra_bytes_per_s(const Topology& topology, Protocol protocol) {
  return effective_bytes_per_s(topology.intra_node, protocol);
}

double intra_hop_latency_s(const Topology& topology, Protocol protocol) {
  return topology.gpus_per_node > 1 ? protocol_params(topology.intra_node, protocol).hop_latency_s
                                    : 0.0;
}

double inter_hop_latency_s(const Topology& topology, Protocol protocol) {
  return topology.nodes > 1 && topology.inter_node
             ? protocol_params(*topology.inter_node, protocol).hop_latency_s
             : 0.0;
}

int ceil_log2(int n) {
  if (n < 1) {
    throw std::invalid_argument("ceil_log2: n must be >= 1");
  }
  int depth = 0;
  long long reach = 1;
  while (reach < n) {
    reach *= 2;
    ++depth;
  }
  return depth;
}

}  // namespace gpuplan::models

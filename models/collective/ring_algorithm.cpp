#include "models/collective/ring_algorithm.h"

#include <algorithm>
#include <limits>

#include "models/collective/algorithm_terms.h"

namespace gpuplan::models {

std::string RingAlgorithm::summary() const {
  return "NCCL ring over all ranks: 2(n-1) hop latencies (all-reduce), 2(n-1)/n of the bytes "
         "over the slowest link at its bus bandwidth";
}

bool RingAlgorithm::supports(Collective collective, const Topology& /*topology*/) const {
  return collective != Collective::kAllToAll;
}

double RingAlgorithm::time_s(Collective collective, double payload_bytes,
                             const Topology& topology, Protocol protocol) const {
  check_call("ring", supports(collective, topology), collective, payload_bytes, topology);
  const int n = topology.ranks();
  if (n == 1 || payload_bytes == 0.0) {
    return 0.0;
  }
  const bool all_reduce = collective == Collective::kAllReduce;
  const int steps = all_reduce ? 2 * (n - 1) : n - 1;
  int inter_steps = 0;
  if (topology.nodes > 1) {
    inter_steps = topology.gpus_per_node == 1
                      ? steps
                      : std::min(steps, all_reduce ? 2 * topology.nodes : topology.nodes - 1);
  }
  const double latency_s = (steps - inter_steps) * intra_hop_latency_s(topology, protocol) +
                           inter_steps * inter_hop_latency_s(topology, protocol);
  double slowest_bytes_per_s = std::numeric_limits<double>::infinity();
  if (topology.gpus_per_node > 1) {
    slowest_bytes_per_s = intra_bytes_per_s(topology, protocol);
  }
  if (topology.nodes > 1) {
    slowest_bytes_per_s =
        std::min(slowest_bytes_per_s, node_network_bytes_per_s(topology, protocol));
  }
  const double link_bytes = bus_factor(collective, n) * payload_bytes;
  return line_time_s(latency_s, link_bytes / slowest_bytes_per_s);
}

}  // namespace gpuplan::models

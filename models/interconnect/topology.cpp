#include "models/interconnect/topology.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gpuplan::models {
namespace {

void validate_link(const LinkSpec& link, const std::string& field) {
  if (!std::isfinite(link.bytes_per_s_per_direction) || link.bytes_per_s_per_direction <= 0.0) {
    throw std::invalid_argument("topology." + field + " ('" + link.name +
                                "'): bandwidth per direction must be > 0");
  }
  for (Protocol p : kProtocols) {
    const ProtocolParams& params = protocol_params(link, p);
    if (!(params.efficiency > 0.0 && params.efficiency <= 1.0) ||
        !std::isfinite(params.hop_latency_s) || params.hop_latency_s < 0.0) {
      throw std::invalid_argument("topology." + field + " ('" + link.name + "'): protocol " +
                                  protocol_name(p) +
                                  " needs an efficiency in (0, 1] and a hop latency >= 0");
    }
  }
}

}  // namespace

void validate_topology(const Topology& topology) {
  if (topology.gpus_per_node < 1) {
    throw std::invalid_argument("topology.gpus_per_node must be >= 1, got " +
                                std::to_string(topology.gpus_per_node));
  }
  if (topology.nodes < 1) {
    throw std::invalid_argument("topology.nodes must be >= 1, got " +
                                std::to_string(topology.nodes));
  }
  if (topology.gpus_per_node > 1) {
    validate_link(topology.intra_node, "intra_node");
  }
  if (topology.nodes > 1) {
    if (!topology.inter_node) {
      throw std::invalid_argument("topology.inter_node is required when nodes > 1 (" +
                                  std::to_string(topology.nodes) + " nodes)");
    }
    validate_link(*topology.inter_node, "inter_node");
    if (topology.nics_per_node < 1) {
      throw std::invalid_argument("topology.nics_per_node must be >= 1 when nodes > 1, got " +
                                  std::to_string(topology.nics_per_node));
    }
  }
}

double node_network_bytes_per_s(const Topology& topology, Protocol protocol) {
  if (!topology.inter_node) {
    throw std::logic_error("node_network_bytes_per_s: single-node topology has no network");
  }
  return effective_bytes_per_s(*topology.inter_node, protocol) * topology.nics_per_node;
}

}  // namespace gpuplan::models

#pragma once
/// \file topology.h
/// Where the ranks of a data-parallel job sit: `nodes` nodes of `gpus_per_node` GPUs each,
/// one intra-node link type between the GPUs of a node, and `nics_per_node` NICs of one
/// network link type between nodes. A plain struct; config/ fills it from the scenario and
/// catalogs (gpu_interconnect, instance Interconnect/Network columns). Homogeneous: every
/// node is alike, and every GPU of a node reaches every other one over `intra_node`.

#include <optional>

#include "models/interconnect/link_spec.h"

namespace gpuplan::models {

/// The placement of the ranks and the links between them (see the file comment).
struct Topology {
  int gpus_per_node = 1;
  int nodes = 1;
  LinkSpec intra_node;                 ///< GPU-to-GPU inside a node (per-GPU egress bandwidth)
  std::optional<LinkSpec> inter_node;  ///< ONE NIC; required when nodes > 1
  int nics_per_node = 0;               ///< NICs a node's GPUs share; >= 1 when nodes > 1

  /// All ranks: gpus_per_node x nodes.
  int ranks() const { return gpus_per_node * nodes; }
};

/// Throws std::invalid_argument unless gpus_per_node >= 1 and nodes >= 1; when gpus_per_node
/// > 1, intra_node has a bandwidth > 0 and efficiencies in (0, 1]; when nodes > 1, inter_node
/// is set with the same conditions and nics_per_node >= 1. The message names the field.
void validate_topology(const Topology& topology);

/// A network NIC's Simple/low-latency bandwidth times the NICs of a node: what one node can
/// send to the others, B/s. Requires a validated multi-node topology.
double node_network_bytes_per_s(const Topology& topology, Protocol protocol);

}  // namespace gpuplan::models

#pragma once
/// \file hierarchical_algorithm.h
/// Two-level collective across nodes (Horovod's hierarchical all-reduce; NCCL's CollNet and
/// NVLS-tree follow the same plan): all-reduce = reduce-scatter inside each node, all-reduce
/// of each GPU's 1/g shard across nodes over the node's NICs (ring among the m nodes), and
/// all-gather inside each node. With g GPUs per node and m nodes:
///   all-reduce latency = 2(g-1) x hop_intra + 2(m-1) x hop_net
///   all-reduce transfer = max(2(g-1)/g x S / intra bus bandwidth,
///                             2(m-1)/m x S / NIC bandwidth of a node)
///   all-gather, reduce-scatter: half the hops; (g-1)/g x S and (m-1)/m x S
///   t = kCollectiveBaseLatencyS + latency + transfer
/// PIPELINING ASSUMPTION: the stages work on successive chunks at the same time (as NCCL's
/// chunked pipelines do), so the transfer is the slowest stage's, not the sum; the latency
/// of every stage is paid once. On one node it is exactly the ring (tested).

#include "models/collective/collective_algorithm.h"

namespace gpuplan::models {

/// Registered as "hierarchical"; the model in the file comment above.
class HierarchicalAlgorithm final : public ICollectiveAlgorithm {
 public:
  /// One line for `gpuplan list` (STYLE.md P2).
  std::string summary() const override;
  /// All-reduce, all-gather and reduce-scatter (not all-to-all), any valid topology.
  bool supports(Collective collective, const Topology& topology) const override;
  /// The formula of the file comment; errors as ICollectiveAlgorithm::time_s.
  double time_s(Collective collective, double payload_bytes, const Topology& topology,
                Protocol protocol) const override;
};

}  // namespace gpuplan::models

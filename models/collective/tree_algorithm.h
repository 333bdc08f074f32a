#pragma once
/// \file tree_algorithm.h
/// NCCL tree all-reduce (NCCL >= 2.4): inside each node the GPUs form a chain; across nodes
/// two complementary binary trees each carry half the data (the "double binary tree" of
/// Sanders, Speck, Traeff, "Two-tree algorithms for full bandwidth broadcast, reduction and
/// scan", Parallel Computing 35(12), 2009; NVIDIA blog "Massively Scale Your Deep Learning
/// Training with NCCL 2.4", 2019). Reduce goes up, broadcast comes down, pipelined in chunks.
///   latency = 2 x ((g-1) x hop_intra + ceil(log2 m) x hop_net)     (NCCL tuning.cc)
///   t = kCollectiveBaseLatencyS + latency
///       + max(2S / intra bus bandwidth,              an inner chain GPU sends S up and S down
///             2(m-1)/m x S / NIC bandwidth of a node) per node over the network: S for
///                                                     m = 2, tending to 2S (NCCL's 0.5 ratio)
/// with g GPUs per node and m nodes, both bandwidths times kTreeBandwidthFactor. Only the
/// log2(m) network latency makes it win: for small messages on many nodes; on one node the
/// ring is never slower. All-reduce only.

#include "models/collective/collective_algorithm.h"

namespace gpuplan::models {

/// Share of the ring's bus bandwidth a tree reaches: NCCL's tuner multiplies the tree's bus
/// bandwidth by 0.92 (src/graph/tuning.cc, `busBw * .92` for NCCL_ALGO_TREE).
inline constexpr double kTreeBandwidthFactor = 0.92;

/// Registered as "tree"; the model in the file comment above.
class TreeAlgorithm final : public ICollectiveAlgorithm {
 public:
  /// One line for `gpuplan list` (STYLE.md P2).
  std::string summary() const override;
  /// All-reduce only.
  bool supports(Collective collective, const Topology& topology) const override;
  /// The formula of the file comment; errors as ICollectiveAlgorithm::time_s.
  double time_s(Collective collective, double payload_bytes, const Topology& topology,
                Protocol protocol) const override;
};

}  // namespace gpuplan::models

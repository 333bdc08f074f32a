#pragma once
/// \file ring_algorithm.h
/// NCCL ring: all ranks in one ring (several channels in parallel, spread over the links and
/// NICs). Model (NCCL src/graph/tuning.cc; nccl-tests doc/PERFORMANCE.md):
///   all-reduce:  steps = 2(n-1), bytes per link = 2(n-1)/n x S
///   all-gather, reduce-scatter: steps = n-1, bytes per link = (n-1)/n x S
///   t = kCollectiveBaseLatencyS + (steps - inter) x hop_intra + inter x hop_net
///       + bytes per link / (bus bandwidth of the slowest link)
/// `inter`, the sequential network hops, is NCCL's count: 2 x nodes for all-reduce,
/// nodes - 1 for the others (every hop when each node has one GPU). The slowest link is the
/// per-GPU intra-node bandwidth or, across nodes, the NICs of one node together (each ring
/// crosses out of every node once, on one NIC; channels spread over the NICs), each times
/// the protocol's efficiency.

#include "models/collective/collective_algorithm.h"

namespace gpuplan::models {

/// Registered as "ring"; the model in the file comment above.
class RingAlgorithm final : public ICollectiveAlgorithm {
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

#pragma once
/// \file pairwise_algorithm.h
/// All-to-all as NCCL runs it: every rank sends S/n of its S-byte buffer to each of the
/// other ranks at once, as grouped point-to-point sends and receives (ncclAllToAll;
/// nccl-tests alltoall_perf, busbw = algbw x (n-1)/n, doc/PERFORMANCE.md). With g GPUs per
/// node on m nodes (n = g·m):
///   intra-node bytes of one GPU = (g-1)/n x S over its NVLink (or PCIe) bandwidth;
///   bytes leaving one node      = g x (n-g)/n x S over the node's NICs together;
///   t = kCollectiveBaseLatencyS + hop_intra + hop_net + max(intra time, network time)
/// (all peers are sent to in parallel, so one hop latency per level). On one node this is
/// the nccl-tests identity t = S·(n-1)/n / busbw with busbw the link's bus bandwidth.

#include "models/collective/collective_algorithm.h"

namespace gpuplan::models {

/// Registered as "pairwise"; the model in the file comment above.
class PairwiseAlgorithm final : public ICollectiveAlgorithm {
 public:
  /// One line for `gpuplan list` (STYLE.md P2).
  std::string summary() const override;
  /// All-to-all only, any valid topology.
  bool supports(Collective collective, const Topology& topology) const override;
  /// The formula of the file comment; errors as ICollectiveAlgorithm::time_s.
  double time_s(Collective collective, double payload_bytes, const Topology& topology,
                Protocol protocol) const override;
};

}  // namespace gpuplan::models

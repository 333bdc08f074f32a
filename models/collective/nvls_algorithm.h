#pragma once
/// \file nvls_algorithm.h
/// NVLink SHARP ("NVLS", NCCL >= 2.17): all-reduce reduced inside a third-generation
/// NVSwitch. Each GPU pulls its 1/g shard reduced by the switch (multimem.ld_reduce) and
/// pushes it back once to be multicast (multimem.st), so a GPU sends and receives about
/// (1 + 1/g) x S instead of the ring's 2(g-1)/g x S: busbw may exceed the link's
/// per-direction bandwidth (allreduce-8xH200.csv: 482 GB/s against 450 GB/s).
///   t = kCollectiveBaseLatencyS + 2 x nvls stage latency
///       + (1 + 1/g) x S / (nvls efficiency x per-direction NVLink bandwidth)
/// One node, g >= 2, an intra-node link with in_switch_reduction, Simple protocol,
/// all-reduce only. (NCCL's NVLS-tree across nodes is not modelled.)

#include "models/collective/collective_algorithm.h"

namespace gpuplan::models {

/// Registered as "nvls"; the model in the file comment above.
class NvlsAlgorithm final : public ICollectiveAlgorithm {
 public:
  /// One line for `gpuplan list` (STYLE.md P2).
  std::string summary() const override;
  /// All-reduce on one node whose intra-node link reduces in the switch.
  bool supports(Collective collective, const Topology& topology) const override;
  /// Simple only.
  bool supports_protocol(Protocol protocol) const override;
  /// The formula of the file comment; errors as ICollectiveAlgorithm::time_s.
  double time_s(Collective collective, double payload_bytes, const Topology& topology,
                Protocol protocol) const override;
};

}  // namespace gpuplan::models

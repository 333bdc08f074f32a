#pragma once
/// \file collective_algorithm.h
/// ICollectiveAlgorithm: the extension point for collective algorithms (STYLE.md N2, P1).
/// Each algorithm gives, per NCCL protocol, the time of one collective as an affine line
/// "kCollectiveBaseLatencyS + sum of hop latencies + bytes on the busiest link / its
/// effective bandwidth" (NCCL src/graph/tuning.cc structure). Like NCCL's tuner, a caller
/// takes the fastest protocol (fastest_protocol) and the fastest algorithm
/// (fastest_collective.h). The minimum of affine lines is what reproduces the ramp of the
/// measured busbw curves.

#include <string>

#include "models/collective/collective.h"
#include "models/interconnect/link_spec.h"
#include "models/interconnect/topology.h"

namespace gpuplan::models {

/// A collective algorithm (ring, tree, ...): the time of one call per protocol. Stateless;
/// implementations are immutable and safe to share.
class ICollectiveAlgorithm {
 public:
  virtual ~ICollectiveAlgorithm() = default;

  /// One line for `gpuplan list`/`explain`: what the algorithm assumes (STYLE.md P2).
  virtual std::string summary() const = 0;

  /// Whether the algorithm can run `collective` on `topology` (e.g. tree: all-reduce only;
  /// nvls: one node with in-switch reduction).
  virtual bool supports(Collective collective, const Topology& topology) const = 0;

  /// Whether it can run with `protocol` (nvls: Simple only).
  virtual bool supports_protocol(Protocol protocol) const {
    (void)protocol;
    return true;
  }

  /// Seconds for one `collective` of `payload_bytes` (nccl-tests convention, collective.h)
  /// on `topology` with `protocol`. 0 for one rank or an empty payload. Throws
  /// std::invalid_argument for an invalid topology or payload, or when the algorithm does not
  /// support the collective, topology or protocol.
  virtual double time_s(Collective collective, double payload_bytes, const Topology& topology,
                        Protocol protocol) const = 0;
};

/// The protocol an algorithm is fastest with, and its time.
struct ProtocolTime {
  Protocol protocol = Protocol::kSimple;
  double time_s = 0.0;
};

/// The fastest supported protocol of `algorithm` for this call (ties: kLowLatency first).
/// Throws like ICollectiveAlgorithm::time_s.
ProtocolTime fastest_protocol(const ICollectiveAlgorithm& algorithm, Collective collective,
                              double payload_bytes, const Topology& topology);

}  // namespace gpuplan::models

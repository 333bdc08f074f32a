#pragma once
/// \file algorithm_terms.h
/// Terms the built-in algorithms share: the checks every call makes, the effective
/// bandwidths of the two link levels, and the affine line itself. Pure (STYLE.md E2).

#include <string>

#include "models/collective/collective.h"
#include "models/interconnect/topology.h"

namespace gpuplan::models {

/// Validates `topology` (validate_topology) and `payload_bytes` (check_payload); throws
/// std::invalid_argument naming `algorithm` when `supported` is false.
void check_call(const std::string& algorithm, bool supported, Collective collective,
                double payload_bytes, const Topology& topology);

/// kCollectiveBaseLatencyS + hop_latency_s + transfer_s: one NCCL-style cost line, seconds.
double line_time_s(double hop_latency_s, double transfer_s);

/// Bus bandwidth one GPU reaches on the intra-node link with `protocol`, B/s.
double intra_bytes_per_s(const Topology& topology, Protocol protocol);

/// Hop latency of the intra-node link (0 with one GPU per node) and of the network link
/// (0 on one node) for `protocol`, seconds.
double intra_hop_latency_s(const Topology& topology, Protocol protocol);
double inter_hop_latency_s(const Topology& topology, Protocol protocol);

/// ceil(log2(n)) for n >= 1: the depth of NCCL's binary trees over n nodes.
int ceil_log2(int n);

}  // namespace gpuplan::models

#pragma once
/// \file fastest_collective.h
/// The automatic choice, as NCCL's tuner makes it (src/enqueue.cc topoGetAlgoInfo: the
/// (algorithm, protocol) pair with the lowest predicted time): every registered algorithm
/// that supports the call, with each protocol it supports; the fastest wins. Ties go to
/// "ring", then to the other names in sorted order.

#include <string>

#include "models/collective/builtin.h"

namespace gpuplan::models {

/// The winning algorithm (its registry name), protocol and time.
struct CollectiveChoice {
  std::string algorithm;
  Protocol protocol = Protocol::kSimple;
  double time_s = 0.0;
};

/// The fastest (algorithm, protocol) for one call. Throws std::invalid_argument for an
/// invalid topology or payload, or when no registered algorithm supports the call.
CollectiveChoice fastest_collective(const CollectiveRegistry& registry, Collective collective,
                                    double payload_bytes, const Topology& topology);

}  // namespace gpuplan::models

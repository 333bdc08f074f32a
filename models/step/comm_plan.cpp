#include "models/step/comm_plan.h"

#include <stdexcept>

#include "models/collective/builtin.h"
#include "models/collective/fastest_collective.h"
#include "models/step/step_plan.h"

namespace gpuplan::models {

double CommPlan::all_reduce_s() const {
  double total = 0.0;
  for (const GradientBucket& b : buckets) total += b.all_reduce_s;
  return total;
}

CommPlan plan_ddp_communication(const std::vector<DispatchUnit>& backward, double bucket_bytes,
                                const Topology& topology) {
  CommPlan comm = plan_gradient_buckets(backward, bucket_bytes, topology, Collective::kAllReduce);
  comm.strategy = ParallelStrategy::kDdp;
  return comm;
}

CommPlan plan_gradient_buckets(const std::vector<DispatchUnit>& backward, double bucket_bytes,
                               const Topology& topology, Collective collective) {
  if (!(bucket_bytes > 0.0)) {
    throw std::invalid_argument("plan_ddp_communication: bucket_size must be > 0");
  }
  validate_topology(topology);
  if (topology.ranks() < 2) {
    throw std::invalid_argument("plan_ddp_communication: DDP needs at least 2 ranks");
  }
  CommPlan comm;
  comm.bucket_collective = collective;
  comm.ranks = topology.ranks();
  comm.overlap_compute_slowdown = kCommOverlapComputeSlowdown;
  std::size_t last_with_grads = 0;
  for (std::size_t i = 0; i < backward.size(); ++i) {
    if (backward[i].grad_bytes > 0.0) last_with_grads = i;
  }
  double cap = kDdpFirstBucketBytes;
  double filled = 0.0;
  for (std::size_t i = 0; i <= last_with_grads && i < backward.size(); ++i) {
    filled += backward[i].grad_bytes;
    if (filled > 0.0 && (filled >= cap || i == last_with_grads)) {
      comm.buckets.push_back({i, filled, 0.0});
      filled = 0.0;
      cap = bucket_bytes;
    }
  }
  const CollectiveRegistry& registry = builtin_collective_registry();
  double largest = -1.0;
  for (GradientBucket& b : comm.buckets) {
    const CollectiveChoice choice = fastest_collective(registry, collective, b.bytes, topology);
    b.all_reduce_s = choice.time_s;
    if (b.bytes > largest) {
      largest = b.bytes;
      comm.algorithm = choice.algorithm + "/" + protocol_name(choice.protocol);
    }
  }
  return comm;
}

}  // namespace gpuplan::models

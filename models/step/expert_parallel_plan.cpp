#include "models/step/expert_parallel_plan.h"

#include <algorithm>
#include <string_view>

#include "models/collective/builtin.h"
#include "models/collective/fastest_collective.h"
#include "models/gpu/op_time.h"
#include "models/step/step_plan.h"

namespace gpuplan::models {
namespace {

/// `groups` groups of one node talk across nodes at once: each keeps nics_per_node / groups
/// NICs, or, with fewer NICs than groups, one NIC at its share of their bandwidth.
void share_node_nics(Topology& group, int groups) {
  if (group.nodes < 2 || !group.inter_node || groups <= 1) return;
  if (group.nics_per_node % groups == 0) {
    group.nics_per_node /= groups;
    return;
  }
  group.inter_node->bytes_per_s_per_direction *= static_cast<double>(group.nics_per_node) / groups;
  group.nics_per_node = 1;
}

/// The expert projections the all-to-alls wrap (moe_layer.cpp names).
bool expert_up(const Op& op) {
  return op.experts > 0.0 && (op.name.ends_with("experts_gate_up") || op.name.ends_with("experts_up"));
}
bool expert_down(const Op& op) { return op.experts > 0.0 && op.name.ends_with("experts_down"); }

}  // namespace

Topology expert_parallel_topology(const JobSpec& job, const Topology& data_parallel) {
  const int e = job.parallelism.expert_parallel;
  Topology group = data_parallel;
  if (e <= data_parallel.gpus_per_node) {
    group.gpus_per_node = e;
    group.nodes = 1;
  } else {
    group.nodes = e / data_parallel.gpus_per_node;
  }
  return group;
}

Topology expert_data_parallel_topology(const JobSpec& job, const Topology& data_parallel) {
  const int e = job.parallelism.expert_parallel;
  Topology group = data_parallel;
  if (e <= data_parallel.gpus_per_node) {
    group.gpus_per_node = data_parallel.gpus_per_node / e;
    share_node_nics(group, e);
  } else {
    group.gpus_per_node = 1;
    group.nodes = data_parallel.ranks() / e;
    share_node_nics(group, data_parallel.gpus_per_node);
  }
  return group;
}

CommPlan plan_expert_parallel_ddp(const std::vector<DispatchUnit>& backward, double bucket_bytes,
                                  const Topology& data_parallel, const Topology& expert_data_parallel,
                                  Collective collective) {
  std::vector<DispatchUnit> dense = backward;
  std::vector<DispatchUnit> experts = backward;
  for (std::size_t i = 0; i < backward.size(); ++i) {
    (backward[i].expert_grads ? dense : experts)[i].grad_bytes = 0.0;
  }
  CommPlan comm = plan_gradient_buckets(dense, bucket_bytes, data_parallel, collective);
  comm.strategy = ParallelStrategy::kDdp;
  if (expert_data_parallel.ranks() > 1) {
    const CommPlan expert_comm = plan_gradient_buckets(experts, bucket_bytes, expert_data_parallel, collective);
    comm.buckets.insert(comm.buckets.end(), expert_comm.buckets.begin(), expert_comm.buckets.end());
    std::stable_sort(comm.buckets.begin(), comm.buckets.end(), [](const GradientBucket& a, const GradientBucket& b) {
      return a.ready_after_unit < b.ready_after_unit;
    });
  }
  return comm;
}

ExpertParallelPlan::ExpertParallelPlan(const JobSpec& job, const GpuEfficiency& efficiency,
                                       const Topology& data_parallel)
    : ranks_(job.parallelism.expert_parallel) {
  if (ranks_ <= 1) return;
  const TrainingSpec& t = job.training;
  element_bytes_ = activation_element_bytes(t.precision);
  forward_dispatch_s_ = dispatch_time_s(t.framework_overhead, false, efficiency, t.precision);
  backward_dispatch_s_ = dispatch_time_s(t.framework_overhead, true, efficiency, t.precision);
  topology_ = expert_parallel_topology(job, data_parallel);
  validate_topology(topology_);
}

double ExpertParallelPlan::all_to_all_s(double payload_bytes) const {
  return fastest_collective(builtin_collective_registry(), Collective::kAllToAll, payload_bytes, topology_).time_s;
}

void ExpertParallelPlan::add(std::vector<DispatchUnit>& units, const Op& op, TensorParallelPoint point,
                             double micro_batch) const {
  using P = TensorParallelPoint;
  if (!active()) return;
  const bool dispatch = expert_up(op) && (point == P::kBeforeForward || point == P::kAfterBackward);
  const bool combine = expert_down(op) && (point == P::kAfterForward || point == P::kBeforeBackward);
  if (!dispatch && !combine) return;
  // The routed token copies (k·s·h per sample, x the imbalance on this rank): the up
  // projection's input, the down projection's output.
  const double elements = dispatch ? op.input_elements : op.output_elements;
  const bool backward = point == P::kBeforeBackward || point == P::kAfterBackward;
  DispatchUnit u;
  u.label =
      op.name + (backward ? " bwd " : " fwd ") + (dispatch ? "dispatch" : "combine") + " all_to_all (expert parallel)";
  u.dispatch_s = backward ? backward_dispatch_s_ : forward_dispatch_s_;
  u.gpu_s = all_to_all_s(elements * micro_batch * element_bytes_);
  u.communication = true;
  units.push_back(u);
}

}  // namespace gpuplan::models

#include "models/step/tensor_parallel_plan.h"

#include <algorithm>

#include "models/collective/builtin.h"
#include "models/collective/fastest_collective.h"
#include "models/gpu/op_time.h"
#include "models/step/step_plan.h"

namespace gpuplan::models {

bool tensor_parallel_collective(TensorSplit split, bool sequence_parallel, TensorParallelPoint point,
                                Collective& collective) {
  using P = TensorParallelPoint;
  switch (split) {
    case TensorSplit::kColumn:
      // f: identity forward, all-reduce backward; with SP all-gather forward, reduce-scatter backward.
      if (point == P::kBeforeForward && sequence_parallel) {
        collective = Collective::kAllGather;
        return true;
      }
      if (point == P::kAfterBackward) {
        collective = sequence_parallel ? Collective::kReduceScatter : Collective::kAllReduce;
        return true;
      }
      return false;
    case TensorSplit::kRow:
    case TensorSplit::kVocab:
      // g: all-reduce forward, identity backward; with SP reduce-scatter forward, all-gather backward.
      if (point == P::kAfterForward) {
        collective = sequence_parallel ? Collective::kReduceScatter : Collective::kAllReduce;
        return true;
      }
      if (point == P::kBeforeBackward && sequence_parallel) {
        collective = Collective::kAllGather;
        return true;
      }
      return false;
    case TensorSplit::kReplicated:
    case TensorSplit::kSharded: return false;
  }
  return false;
}

Topology tensor_parallel_topology(const JobSpec& job) {
  const int t = job.parallelism.tensor_parallel;
  const int node_gpus = job.hardware.gpus_per_node;
  if (t > node_gpus && node_gpus > 0) {
    // Whole nodes: the group's GPUs fill them and use all of each node's NICs.
    Topology group = job.hardware.topology;
    group.gpus_per_node = node_gpus;
    group.nodes = t / node_gpus;
    return group;
  }
  Topology group;
  group.gpus_per_node = t;
  group.nodes = 1;
  group.intra_node = job.hardware.topology.intra_node;
  return group;
}

double async_exposed_s(int ranks, double collective_s, double gemm_s) {
  if (ranks <= 1) return collective_s;
  return std::max(0.0, collective_s - gemm_s * (ranks - 1) / ranks);
}

Topology data_parallel_topology(const JobSpec& job) {
  Topology group = job.hardware.topology;
  const int t = job.parallelism.tensor_parallel;
  if (t <= 1) return group;
  const int node_gpus = job.hardware.gpus_per_node;
  // The node's groups: t of them inside a node; across nodes one per GPU of the node.
  const int groups_per_node = std::min(t, node_gpus);
  group.gpus_per_node = std::max(1, node_gpus / t);
  if (t > node_gpus) group.nodes = std::max(1, group.nodes / (t / node_gpus));
  if (group.nodes > 1 && group.inter_node) {
    if (group.nics_per_node % groups_per_node == 0) {
      group.nics_per_node /= groups_per_node;
    } else {
      // Fewer NICs than groups: one NIC at the group's share of the node's NIC bandwidth.
      group.inter_node->bytes_per_s_per_direction *= static_cast<double>(group.nics_per_node) / groups_per_node;
      group.nics_per_node = 1;
    }
  }
  return group;
}

TensorParallelPlan::TensorParallelPlan(const JobSpec& job, const GpuEfficiency& efficiency, bool labels)
    : ranks_(job.parallelism.tensor_parallel),
      sequence_parallel_(job.parallelism.sequence_parallel),
      async_(job.parallelism.async_tensor_parallel),
      labels_(labels) {
  if (ranks_ <= 1) return;
  const TrainingSpec& t = job.training;
  element_bytes_ = activation_element_bytes(t.precision);
  forward_dispatch_s_ = dispatch_time_s(t.framework_overhead, false, efficiency, t.precision);
  backward_dispatch_s_ = dispatch_time_s(t.framework_overhead, true, efficiency, t.precision);
  topology_ = tensor_parallel_topology(job);
  validate_topology(topology_);
}

double TensorParallelPlan::collective_s(Collective collective, double payload_bytes) const {
  for (const Timed& t : timed_) {
    if (t.collective == collective && t.payload_bytes == payload_bytes) return t.time_s;
  }
  const double time_s = fastest_collective(builtin_collective_registry(), collective, payload_bytes, topology_).time_s;
  timed_.push_back({collective, payload_bytes, time_s});
  return time_s;
}

void TensorParallelPlan::add(std::vector<DispatchUnit>& units, const Op& op, TensorParallelPoint point,
                             double micro_batch, double gemm_s) const {
  Collective collective = Collective::kAllReduce;
  if (!active() || !tensor_parallel_collective(tensor_split_of(op), sequence_parallel_, point, collective)) {
    return;
  }
  // The whole activation (or its gradient) of the op's input or output side: a column-
  // parallel linear's input, a row-parallel linear's or the embedding's output. For
  // all-gather and reduce-scatter the payload is the gathered tensor (nccl-tests' size).
  const bool input_side = point == TensorParallelPoint::kBeforeForward || point == TensorParallelPoint::kAfterBackward;
  const double elements = input_side ? op.input_elements : op.output_elements;
  const double payload_bytes = elements * micro_batch * element_bytes_;
  const bool backward = point == TensorParallelPoint::kBeforeBackward || point == TensorParallelPoint::kAfterBackward;
  DispatchUnit u;
  if (labels_) u.label = op.name + (backward ? " bwd " : " fwd ") + collective_name(collective) + " (tensor parallel)";
  u.dispatch_s = backward ? backward_dispatch_s_ : forward_dispatch_s_;
  u.gpu_s = collective_s(collective, payload_bytes);
  if (async_ && op.op_class == OpClass::kMatmul && collective != Collective::kAllReduce) {
    u.gpu_s = async_exposed_s(ranks_, u.gpu_s, gemm_s);  // decomposed with the linear's GEMM
    if (labels_) u.label += " async";
  }
  u.communication = true;
  units.push_back(u);
}

}  // namespace gpuplan::models

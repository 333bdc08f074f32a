#include "models/step/tensor_parallel_plan.h"

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
  Topology group;
  group.gpus_per_node = job.parallelism.tensor_parallel;
  group.nodes = 1;
  group.intra_node = job.hardware.topology.intra_node;
  return group;
}

Topology data_parallel_topology(const JobSpec& job) {
  Topology group = job.hardware.topology;
  const int t = job.parallelism.tensor_parallel;
  if (t <= 1) return group;
  group.gpus_per_node = job.hardware.gpus_per_node / t;
  if (group.nodes > 1 && group.inter_node) {
    if (group.nics_per_node % t == 0) {
      group.nics_per_node /= t;
    } else {
      // Fewer NICs than groups: one NIC at the group's share of the node's NIC bandwidth.
      group.inter_node->bytes_per_s_per_direction *= static_cast<double>(group.nics_per_node) / t;
      group.nics_per_node = 1;
    }
  }
  return group;
}

TensorParallelPlan::TensorParallelPlan(const JobSpec& job, const GpuEfficiency& efficiency)
    : ranks_(job.parallelism.tensor_parallel), sequence_parallel_(job.parallelism.sequence_parallel) {
  if (ranks_ <= 1) return;
  const TrainingSpec& t = job.training;
  element_bytes_ = activation_element_bytes(t.precision);
  forward_dispatch_s_ = dispatch_time_s(t.framework_overhead, false, efficiency, t.precision);
  backward_dispatch_s_ = dispatch_time_s(t.framework_overhead, true, efficiency, t.precision);
  topology_ = tensor_parallel_topology(job);
  validate_topology(topology_);
}

double TensorParallelPlan::collective_s(Collective collective, double payload_bytes) const {
  return fastest_collective(builtin_collective_registry(), collective, payload_bytes, topology_).time_s;
}

void TensorParallelPlan::add(std::vector<DispatchUnit>& units, const Op& op, TensorParallelPoint point,
                             double micro_batch) const {
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
  u.label = op.name + (backward ? " bwd " : " fwd ") + collective_name(collective) + " (tensor parallel)";
  u.dispatch_s = backward ? backward_dispatch_s_ : forward_dispatch_s_;
  u.gpu_s = collective_s(collective, payload_bytes);
  u.communication = true;
  units.push_back(u);
}

}  // namespace gpuplan::models

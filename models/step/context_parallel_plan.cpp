#include "models/step/context_parallel_plan.h"

#include <algorithm>
#include <string>
#include <utility>

#include "models/gpu/op_time.h"
#include "models/step/pipeline_parallel_plan.h"
#include "models/step/step_plan.h"

namespace gpuplan::models {

double ring_exposed_s(int ranks, double block_compute_s, double step_send_s) {
  if (ranks <= 1) return 0.0;
  return (ranks - 1) * std::max(0.0, step_send_s - block_compute_s);
}

double key_value_elements_per_layer(const Workload& rank) {
  double qkv = -1.0;
  double q = -1.0;
  for (const Op& op : rank.ops) {
    if (qkv < 0.0 && op.name.ends_with("attn.qkv")) qkv = op.output_elements;
    if (q < 0.0 && op.name.ends_with("attn.out")) q = op.input_elements;
  }
  return qkv < 0.0 || q < 0.0 ? 0.0 : std::max(0.0, qkv - q);
}

namespace {

/// The ring's slowest hop of `job` and the rank's share of it (see the file comment).
std::pair<LinkSpec, double> ring_link(const JobSpec& job) {
  const HardwareSpec& hw = job.hardware;
  const int span = job.parallelism.tensor_parallel * job.parallelism.context_parallel;
  if (span > hw.gpus_per_node && hw.nodes > 1 && hw.topology.inter_node) {
    // Every GPU sends at once: each gets its share of the node's NICs, at most one NIC.
    return {*hw.topology.inter_node,
            std::min(1.0, static_cast<double>(hw.topology.nics_per_node) / hw.gpus_per_node)};
  }
  return {hw.topology.intra_node, 1.0};
}

}  // namespace

double context_parallel_send_s(const JobSpec& job, double payload_bytes) {
  const auto link = ring_link(job);
  return point_to_point_s(link.first, payload_bytes, link.second);
}

ContextParallelPlan::ContextParallelPlan(const JobSpec& job, const Workload& rank, const GpuEfficiency& efficiency)
    : ranks_(job.parallelism.context_parallel) {
  if (ranks_ <= 1) return;
  const TrainingSpec& t = job.training;
  block_bytes_per_sample_ = key_value_elements_per_layer(rank) * activation_element_bytes(t.precision);
  dispatch_s_ = dispatch_time_s(t.framework_overhead, false, efficiency, t.precision);
  const auto link = ring_link(job);
  link_ = link.first;
  link_share_ = link.second;
}

double ContextParallelPlan::step_send_s(bool backward, double micro_batch) const {
  // Backward sends the K and V block with its gradient dK, dV: twice the bytes.
  const double bytes = block_bytes_per_sample_ * micro_batch * (backward ? 2.0 : 1.0);
  return point_to_point_s(link_, bytes, link_share_);
}

void ContextParallelPlan::add(std::vector<DispatchUnit>& units, const Op& op, const DispatchUnit& attention,
                              bool backward, double micro_batch) const {
  if (!active() || op.op_class != OpClass::kAttention || op.attention_kernel == AttentionKernel::kEager) return;
  DispatchUnit u;
  u.label = op.name + (backward ? " bwd" : " fwd") + " key/value ring (context parallel)";
  u.dispatch_s = (ranks_ - 1) * dispatch_s_;
  u.gpu_s = ring_exposed_s(ranks_, attention.gpu_s / ranks_, step_send_s(backward, micro_batch));
  u.communication = true;
  units.push_back(u);
}

}  // namespace gpuplan::models

#include "models/step/pipeline_parallel_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "models/interconnect/link_spec.h"
#include "models/step/pipeline_schedule.h"

namespace gpuplan::models {

double point_to_point_s(const LinkSpec& link, double bytes, double share) {
  double best = std::numeric_limits<double>::infinity();
  for (const Protocol protocol : kProtocols) {
    const ProtocolParams& pp = protocol_params(link, protocol);
    const double bytes_per_s = effective_bytes_per_s(link, protocol) * share;
    if (pp.efficiency <= 0.0 || bytes_per_s <= 0.0) continue;
    best = std::min(best, pp.hop_latency_s + bytes / bytes_per_s);
  }
  if (!std::isfinite(best)) throw std::invalid_argument("point-to-point send: link " + link.name + " has no bandwidth");
  return best;
}

Topology pipeline_data_parallel_topology(const JobSpec& job) {
  const HardwareSpec& hw = job.hardware;
  const int gpus = hw.gpus_per_node * hw.nodes;
  const int d = job.parallelism.gradient_ranks(gpus);
  const int p = job.parallelism.pipeline_parallel;
  Topology group = hw.topology;
  // Stage s on node s mod nodes: a stage spans nodes / p nodes, or one node.
  group.nodes = hw.nodes % p == 0 ? hw.nodes / p : 1;
  group.gpus_per_node = std::max(1, d / group.nodes);
  if (group.nodes == 1) {
    group.inter_node.reset();
    group.nics_per_node = 0;
    return group;
  }
  const int groups_per_node = hw.gpus_per_node / group.gpus_per_node;
  if (group.inter_node && groups_per_node > 1) {
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

double pipeline_send_elements(const Workload& rank, const std::vector<int>& op_chunk,
                              const ParallelismSpec& parallelism) {
  double elements = 0.0;
  for (std::size_t i = 0; i < rank.ops.size() && op_chunk[i] == 0; ++i) elements = rank.ops[i].output_elements;
  return parallelism.sequence_parallel ? elements : elements / parallelism.tensor_parallel;
}

double pipeline_send_s(const JobSpec& job, double payload_bytes) {
  const HardwareSpec& hw = job.hardware;
  if (hw.nodes > 1 && hw.topology.inter_node) {
    // Every GPU sends at once: each gets its share of the node's NICs, at most one NIC.
    const double share = std::min(1.0, static_cast<double>(hw.topology.nics_per_node) / hw.gpus_per_node);
    return point_to_point_s(*hw.topology.inter_node, payload_bytes, share);
  }
  return point_to_point_s(hw.topology.intra_node, payload_bytes, 1.0);
}

PipelineStagePlan plan_pipeline_stage(const JobSpec& job, const std::vector<double>& chunk_forward_s,
                                      const std::vector<double>& chunk_backward_s, double send_bytes, int stage) {
  const int stages = job.parallelism.pipeline_parallel;
  if (stage < 0 || stage >= stages) {
    throw std::invalid_argument("plan_pipeline_stage: stage " + std::to_string(stage) + " of " +
                                std::to_string(stages));
  }
  return plan_pipeline_stages(job, chunk_forward_s, chunk_backward_s, send_bytes)[static_cast<std::size_t>(stage)];
}

std::vector<PipelineStagePlan> plan_pipeline_stages(const JobSpec& job, const std::vector<double>& chunk_forward_s,
                                                    const std::vector<double>& chunk_backward_s, double send_bytes) {
  const ParallelismSpec& par = job.parallelism;
  PipelineStagePlan plan;
  plan.stages = par.pipeline_parallel;
  if (plan.stages <= 1) {
    plan.roles = {0};
    return {plan};
  }
  PipelineInput in;
  in.schedule = par.pipeline_schedule;
  in.stages = par.pipeline_parallel;
  in.micro_batches = job.training.gradient_accumulation;
  in.virtual_stages = par.virtual_stages;
  in.forward_s = chunk_forward_s;
  in.backward_s = chunk_backward_s;
  in.send_s = pipeline_send_s(job, send_bytes);
  const PipelineResult r = simulate_pipeline(in);
  plan.send_s = in.send_s;
  plan.sends = r.sends;
  plan.makespan_s = r.makespan_s;
  plan.bubble_fraction = r.bubble_fraction;
  // Forward only: n micro-batches take fill + n x period (GPipe's forward half: Huang et al.
  // 2019, sec. 2.2), the period the slowest stage's forward.
  std::vector<double> stage_forward_s(static_cast<std::size_t>(plan.stages), 0.0);
  double through_s = in.send_s * static_cast<double>(chunk_forward_s.size() - 1);
  for (std::size_t c = 0; c < chunk_forward_s.size(); ++c) {
    stage_forward_s[c % static_cast<std::size_t>(plan.stages)] += chunk_forward_s[c];
    through_s += chunk_forward_s[c];
  }
  plan.forward_period_s = *std::max_element(stage_forward_s.begin(), stage_forward_s.end());
  plan.forward_fill_s = std::max(0.0, through_s - plan.forward_period_s);
  // Middle stages run the same ops; the one that ends last stands for them.
  const int p = plan.stages;
  plan.roles.push_back(0);
  if (p > 2) {
    int middle = 1;
    for (int s = 2; s < p - 1; ++s) {
      if (r.last_end_s[s] > r.last_end_s[middle]) middle = s;
    }
    plan.roles.push_back(middle);
  }
  plan.roles.push_back(p - 1);
  std::vector<PipelineStagePlan> out(static_cast<std::size_t>(p), plan);
  for (int s = 0; s < p; ++s) {
    out[static_cast<std::size_t>(s)].stage = s;
    out[static_cast<std::size_t>(s)].wait_s = std::max(0.0, r.last_end_s[s] - r.busy_s[s]);
  }
  return out;
}

}  // namespace gpuplan::models

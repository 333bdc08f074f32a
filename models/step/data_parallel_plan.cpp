#include "models/step/data_parallel_plan.h"

#include <stdexcept>

namespace gpuplan::models {

DataParallelCosts data_parallel_costs(const JobSpec& job, int parameter_tensors, double output_bytes_per_sample,
                                      double memory_bytes_per_s) {
  const HardwareSpec& hw = job.hardware;
  if (job.parallelism.strategy != ParallelStrategy::kDataParallel || hw.nodes != 1 || hw.gpus_per_node < 2) {
    throw std::invalid_argument("data_parallel_costs: DataParallel runs on one node with at least 2 GPUs");
  }
  if (!(memory_bytes_per_s > 0.0)) {
    throw std::invalid_argument("data_parallel_costs: memory bandwidth must be > 0");
  }
  validate_topology(hw.topology);
  const double n = hw.gpus_per_node;
  const LinkSpec& link = hw.topology.intra_node;
  const double link_bytes_per_s = effective_bytes_per_s(link, Protocol::kSimple);
  const double hop_s = link.simple.hop_latency_s;
  const double params_bytes = job.workload.parameters * 4.0;  // fp32 parameters and gradients (AMP too)
  const double micro = job.training.batch_size;
  DataParallelCosts c;
  c.dispatch_ranks = hw.gpus_per_node;
  c.dispatch_factor = 1.0 + kDataParallelGilShareOfDispatch * (n - 1);
  // Broadcast: pipelined through the GPUs, so about one copy's time on GPU 0's link.
  c.replicate_s = hop_s * (n - 1) + params_bytes / link_bytes_per_s;
  c.replicate_host_s = kDataParallelReplicateHostSPerTensor * parameter_tensors * n;
  // Scatter: GPU 0 sends the other n-1 chunks over its one link; gather receives n-1 outputs.
  c.scatter_s = hop_s + (n - 1) * job.workload.input_bytes_per_sample * micro / link_bytes_per_s;
  c.gather_s = hop_s + (n - 1) * output_bytes_per_sample * micro / link_bytes_per_s;
  // Reduce: n-1 gradient copies into GPU 0, then n-1 additions reading two and writing one.
  c.reduce_grads_s = hop_s + (n - 1) * params_bytes / link_bytes_per_s +
                     (n - 1) * 3.0 * params_bytes / memory_bytes_per_s;
  return c;
}

namespace {

DispatchUnit transfer_unit(const char* label, double host_s, double gpu_s) {
  DispatchUnit u;
  u.label = label;
  u.dispatch_s = host_s;
  u.gpu_s = gpu_s;
  u.communication = true;
  return u;
}

}  // namespace

void apply_data_parallel(const DataParallelCosts& c, StepPlan& plan) {
  for (DispatchUnit& u : plan.forward) {
    u.dispatch_s *= c.dispatch_factor;
  }
  std::vector<DispatchUnit> forward;
  forward.reserve(plan.forward.size() + 3);
  forward.push_back(transfer_unit("data_parallel.replicate", c.replicate_host_s, c.replicate_s));
  forward.push_back(transfer_unit("data_parallel.scatter", 0.0, c.scatter_s));
  forward.insert(forward.end(), plan.forward.begin(), plan.forward.end());
  forward.push_back(transfer_unit("data_parallel.gather", 0.0, c.gather_s));
  plan.forward = std::move(forward);
  plan.backward.push_back(transfer_unit("data_parallel.reduce_grads", 0.0, c.reduce_grads_s));
  plan.comm.strategy = ParallelStrategy::kDataParallel;
  plan.comm.ranks = c.dispatch_ranks;
}

}  // namespace gpuplan::models

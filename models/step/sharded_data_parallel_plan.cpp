#include "models/step/sharded_data_parallel_plan.h"

#include <algorithm>
#include <stdexcept>

#include "models/collective/builtin.h"
#include "models/collective/fastest_collective.h"
#include "models/memory/optimizer_state.h"
#include "models/memory/parallel_memory.h"
#include "models/step/tensor_parallel_plan.h"

namespace gpuplan::models {
namespace {

/// The GPUs a state is sharded over: the whole job, or one node for hybrid_shard.
Topology shard_topology(const Topology& job, const ShardingLayout& layout) {
  if (layout.shard_ranks == job.ranks()) return job;
  Topology node;
  node.gpus_per_node = job.gpus_per_node;
  node.intra_node = job.intra_node;
  return node;
}

/// hybrid_shard's replicas: the node's GPUs all-reduce their shards across the nodes at the
/// same time over the node's NICs, priced as one all-reduce of the whole unit gradient
/// between one rank per node that has all the NICs.
Topology replica_topology(const Topology& job) {
  Topology nodes = job;
  nodes.gpus_per_node = 1;
  return nodes;
}

}  // namespace

void plan_sharded_communication(const JobSpec& job, const ShardingLayout& layout, StepPlan& plan) {
  const std::size_t ops = job.workload.ops.size();
  const std::size_t per_op = ops == 0 ? 1 : plan.backward.size() / ops;
  if (plan.forward.size() != ops || (per_op != 1 && per_op != 2) || plan.backward.size() != per_op * ops) {
    throw std::invalid_argument("plan_sharded_communication: the plan's units are not one per op of the workload");
  }
  OpUnitSpans spans;
  for (std::size_t i = 0; i < ops; ++i) {
    spans.forward_begin.push_back(i);
    spans.forward_end.push_back(i + 1);
    spans.backward_begin.push_back((ops - 1 - i) * per_op);
    spans.backward_end.push_back((ops - i) * per_op);
  }
  plan_sharded_communication(job, layout, spans, plan);
}

void plan_sharded_communication(const JobSpec& job, const ShardingLayout& layout, const OpUnitSpans& spans,
                                StepPlan& plan) {
  const Workload w = rank_workload(job);
  const Topology topology = data_parallel_topology(job);
  validate_topology(topology);
  // One rank (ZeRO-Offload on one GPU: sharding_layout) gathers and reduces nothing: its
  // units keep their place for the offload's copies, with no collective time.
  const bool one_rank = topology.ranks() < 2;
  const std::size_t ops = w.ops.size();
  const auto fits = [&](const std::vector<std::size_t>& begin, const std::vector<std::size_t>& end,
                        std::size_t units) {
    if (begin.size() != ops || end.size() != ops) return false;
    for (std::size_t i = 0; i < ops; ++i) {
      if (begin[i] >= end[i] || end[i] > units) return false;
    }
    return true;
  };
  if (!fits(spans.forward_begin, spans.forward_end, plan.forward.size()) ||
      !fits(spans.backward_begin, spans.backward_end, plan.backward.size())) {
    throw std::invalid_argument("plan_sharded_communication: the unit spans do not fit the plan and the op table");
  }
  const CollectiveRegistry& registry = builtin_collective_registry();
  const double gathered_bytes = gathered_parameter_element_bytes(job.training.precision);
  const double gradient_bytes = parameter_element_bytes(job.training.precision);
  CommPlan comm;
  comm.strategy = job.parallelism.strategy;
  comm.ranks = topology.ranks();
  comm.overlap_compute_slowdown = kCommOverlapComputeSlowdown;

  const bool per_unit = job.parallelism.strategy == ParallelStrategy::kFsdp || layout.parameters;
  if (!per_unit && one_rank) {
    plan.comm = comm;
    return;
  }
  if (!per_unit) {
    // ZeRO-1/2: DDP's buckets over the backward units' grad_bytes, reduce-scattered to the
    // shards' owners, then the updated parameters gathered after the optimizer: the bytes of
    // one all-reduce, as DDP's (ZeRO paper sec. 7.2.1).
    comm = plan_gradient_buckets(plan.backward, job.parallelism.bucket_bytes, topology, Collective::kReduceScatter);
    comm.strategy = job.parallelism.strategy;
    comm.every_micro_step = layout.gradients;
    const CollectiveChoice gather =
        fastest_collective(registry, Collective::kAllGather, w.parameters * gathered_bytes, topology);
    comm.parameter_all_gather_s = gather.time_s;
    plan.comm = comm;
    return;
  }

  const Topology shards = shard_topology(topology, layout);
  const bool across_replicas = layout.parameters && layout.replicas > 1;
  comm.every_micro_step = true;
  double largest = -1.0;
  const std::vector<ShardUnit> units = shard_units(w);
  for (const ShardUnit& u : units) {
    ShardedUnitComm c;
    c.name = u.name;
    // Forward runs the unit's ops in order, backward in reverse (its last op first).
    c.forward_begin = spans.forward_begin[u.first_op];
    c.forward_end = spans.forward_end[u.end_op - 1];
    c.backward_begin = spans.backward_begin[u.end_op - 1];
    c.backward_end = spans.backward_end[u.first_op];
    c.parameter_bytes = gathered_unit_bytes(w, u, job.training.precision, job.parallelism.fp8_all_gather);
    if (u.parameters > 0.0 || (layout.parameters && u.frozen_bytes > 0.0)) {
      const double grads = u.parameters * gradient_bytes;
      if (layout.parameters) {
        // The last unit of forward stays gathered for backward, which starts with it (FSDP
        // does not reshard the root's parameters after forward: torch/distributed/fsdp/
        // _runtime_utils.py, _post_forward_reshard).
        const bool last = &u == &units.back();
        c.gathers_forward = true;
        c.gathers_backward = layout.reshard_after_forward && !last;
        if (one_rank) {
          comm.units.push_back(c);
          continue;
        }
        const CollectiveChoice gather = fastest_collective(registry, Collective::kAllGather, c.parameter_bytes, shards);
        c.forward_all_gather_s = gather.time_s;
        c.backward_all_gather_s = c.gathers_backward ? gather.time_s : 0.0;
        // A unit of frozen weights only (a LoRA run's embedding) has no gradient to reduce.
        if (grads > 0.0) {
          c.gradient_reduce_s = fastest_collective(registry, Collective::kReduceScatter, grads, shards).time_s;
        }
        if (across_replicas && grads > 0.0) {
          c.replica_all_reduce_s =
              fastest_collective(registry, Collective::kAllReduce, grads, replica_topology(topology)).time_s;
        }
        if (c.parameter_bytes > largest) {
          largest = c.parameter_bytes;
          comm.algorithm = gather.algorithm + "/" + protocol_name(gather.protocol);
        }
      } else if (!one_rank) {
        const CollectiveChoice reduce = fastest_collective(registry, Collective::kAllReduce, grads, topology);
        c.gradient_reduce_s = reduce.time_s;
        if (grads > largest) {
          largest = grads;
          comm.algorithm = reduce.algorithm + "/" + protocol_name(reduce.protocol);
        }
      }
    }
    comm.units.push_back(c);
  }
  plan.comm = comm;
}

namespace {

/// The rank's share of the node's NVMe: the node's GPUs offload at the same time.
double rank_share(double node_bytes_per_s, const JobSpec& job) {
  return node_bytes_per_s / std::max(1, job.hardware.gpus_per_node);
}

}  // namespace

OffloadCosts offload_costs(const JobSpec& job, const ShardingLayout& layout, double host_link_bytes_per_s) {
  OffloadCosts c;
  if (layout.optimizer_offload == OffloadTarget::kNone) return c;
  if (!(host_link_bytes_per_s > 0.0)) throw std::invalid_argument("offload_costs: the host link has no bandwidth");
  const Workload w = rank_workload(job);  // with tensor parallelism the rank's shard
  const TrainingSpec& t = job.training;
  const double shard = w.parameters / (layout.optimizer_state ? layout.shard_ranks : 1);
  const double gradient_bytes = parameter_element_bytes(t.precision);
  const double weight_bytes = parameter_element_bytes(t.precision);
  c.d2h_bytes = shard * gradient_bytes;
  c.h2d_bytes = shard * gathered_parameter_element_bytes(t.precision);
  c.d2h_s = c.d2h_bytes / host_link_bytes_per_s;
  c.h2d_s = c.h2d_bytes / host_link_bytes_per_s;
  c.d2h_overlaps_backward = layout.parameters;  // ZeRO-3 and FSDP reduce and copy per unit
  const bool zero3 = job.parallelism.strategy == ParallelStrategy::kZero && layout.parameters;
  // The copies' DMA into and out of host memory, the fp32 weight read for the compute copy's
  // conversion, and ZeRO-3's unscale pass (read and write of the fp32 gradient).
  const double copies = gradient_bytes + gathered_parameter_element_bytes(t.precision) + weight_bytes;
  const double unscale = zero3 ? 2.0 * gradient_bytes : 0.0;
  c.host_optimizer_bytes = shard * (host_optimizer_bytes_per_parameter(w, t) + copies + unscale);
  const double cores = std::max(1.0, static_cast<double>(job.hardware.cpu_cores) / std::max(1, job.hardware.gpus_per_node));
  c.host_optimizer_s = c.host_optimizer_bytes / (cores * kHostMemoryBytesPerCorePerS * kCpuAdamHostMemoryShare);
  if (layout.optimizer_offload == OffloadTarget::kNvme) {
    const double state_per_parameter =
        w.parameters > 0.0 ? optimizer_state_bytes(w, t) / w.parameters + weight_bytes : 0.0;
    c.nvme_bytes = 2.0 * shard * state_per_parameter;
    const StorageSpec& nvme = job.hardware.storage;
    if (!(nvme.read_bytes_per_s > 0.0) || !(nvme.write_bytes_per_s > 0.0)) {
      throw std::invalid_argument("offload_costs: nvme offload on storage without read and write bandwidth");
    }
    c.nvme_s = c.nvme_bytes / 2.0 / rank_share(nvme.read_bytes_per_s, job) +
               c.nvme_bytes / 2.0 / rank_share(nvme.write_bytes_per_s, job);
  }
  return c;
}

void apply_offload(const JobSpec& job, const ShardingLayout& layout, double host_link_bytes_per_s, StepPlan& plan) {
  if (layout.optimizer_offload != OffloadTarget::kNone) {
    const OffloadCosts c = offload_costs(job, layout, host_link_bytes_per_s);
    DispatchUnit u;
    u.label = "optimizer.step offloaded (d2h, host step, h2d)";
    u.dispatch_s = plan.optimizer.empty() ? 0.0 : plan.optimizer.front().dispatch_s;
    u.gpu_s = c.step_s();
    u.off_gpu = true;
    plan.optimizer = {u};
  }
  if (layout.parameter_offload == OffloadTarget::kNone) return;
  if (!(host_link_bytes_per_s > 0.0)) throw std::invalid_argument("apply_offload: the host link has no bandwidth");
  const bool nvme = layout.parameter_offload == OffloadTarget::kNvme;
  if (nvme && !(job.hardware.storage.read_bytes_per_s > 0.0)) {
    throw std::invalid_argument("apply_offload: nvme offload on storage without read bandwidth");
  }
  for (ShardedUnitComm& unit : plan.comm.units) {
    const double shard_bytes = unit.parameter_bytes / layout.shard_ranks;
    double copy_s = shard_bytes / host_link_bytes_per_s;
    if (nvme) copy_s += shard_bytes / rank_share(job.hardware.storage.read_bytes_per_s, job);
    if (unit.gathers_forward) unit.forward_all_gather_s += copy_s;
    if (unit.gathers_backward) unit.backward_all_gather_s += copy_s;
  }
}

}  // namespace gpuplan::models

#include "models/memory/sharding.h"

#include <algorithm>

#include "models/memory/distributed_optimizer.h"
#include "models/memory/optimizer_state.h"

namespace gpuplan::models {
namespace {
/// One float8 (e4m3) element.
constexpr double kFloat8Bytes = 1.0;
}  // namespace

ShardingLayout sharding_layout(const JobSpec& job) {
  ShardingLayout l;
  const ParallelismSpec& p = job.parallelism;
  // The ranks that hold the same weights: each tensor-parallel rank's shard of the model is
  // sharded over the ranks that hold the same shard (FSDP2 + TP's 2-D mesh, torchtitan
  // parallelize_llama), context-parallel ranks included (torchtitan's dp_shard_cp mesh).
  const int ranks = p.gradient_ranks(job.hardware.gpus_per_node * job.hardware.nodes);
  // One rank shards nothing, but it offloads: ZeRO-Offload's single-GPU case (Ren et al.
  // 2021), its layout that of the strategy over one rank (collectives of one rank move nothing).
  const bool offloads = p.optimizer_offload != OffloadTarget::kNone || p.parameter_offload != OffloadTarget::kNone;
  if (ranks < 2 && !offloads) return l;
  // Under a pipeline, FSDP and ZeRO-1 run the distributed optimizer's layout (distributed_optimizer.h).
  if (runs_distributed_optimizer(p) && p.strategy != ParallelStrategy::kDdp) return l;
  const int node_ranks = std::max(1, job.hardware.gpus_per_node / p.tensor_parallel);
  if (p.strategy == ParallelStrategy::kFsdp) {
    l.sharded_strategy = true;
    switch (p.sharding) {
      case Sharding::kFullShard:
        l.optimizer_state = l.gradients = l.parameters = l.reshard_after_forward = true;
        l.shard_ranks = ranks;
        break;
      case Sharding::kShardGradOp:
        l.optimizer_state = l.gradients = l.parameters = true;
        l.shard_ranks = ranks;
        break;
      case Sharding::kHybridShard:
        l.optimizer_state = l.gradients = l.parameters = l.reshard_after_forward = true;
        l.shard_ranks = node_ranks;
        l.replicas = job.hardware.nodes;
        break;
      case Sharding::kNoShard:
        l.replicas = ranks;
        break;
    }
  } else if (p.strategy == ParallelStrategy::kZero) {
    l.sharded_strategy = true;
    l.optimizer_state = p.zero_stage >= 1;
    l.gradients = p.zero_stage >= 2;
    l.parameters = l.reshard_after_forward = p.zero_stage >= 3;
    l.shard_ranks = ranks;
  }
  if (l.sharded_strategy) {
    l.optimizer_offload = p.optimizer_offload;
    if (l.parameters) l.parameter_offload = p.parameter_offload;
  }
  return l;
}

double host_optimizer_bytes_per_parameter(const Workload& workload, const TrainingSpec& training) {
  if (workload.parameters <= 0.0) return 0.0;
  const double weight = parameter_element_bytes(training.precision);
  const double state = optimizer_state_bytes(workload, training) / workload.parameters;
  const double copy = is_mixed(training.precision) ? gathered_parameter_element_bytes(training.precision) : 0.0;
  return 2.0 * (weight + state) + weight + copy;
}

std::vector<ShardUnit> shard_units(const Workload& workload) {
  std::vector<ShardUnit> units;
  std::string_view current;  // views into the ops' names
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const Op& op = workload.ops[i];
    const std::string_view block = block_view(op);
    if (units.empty() || block != current) {
      units.push_back({block.empty() ? op.name : std::string(block), i, i, 0.0, 0.0});
      current = block;
    }
    units.back().end_op = i + 1;
    units.back().parameters += op.parameters;
    units.back().frozen_bytes += op.frozen_parameters * op.frozen_element_bytes;
  }
  return units;
}

double gathered_parameter_element_bytes(Precision precision) { return activation_element_bytes(precision); }

double gathered_unit_bytes(const Workload& workload, const ShardUnit& unit, Precision precision,
                           bool fp8_all_gather) {
  const double element = gathered_parameter_element_bytes(precision);
  if (!fp8_all_gather || precision != Precision::kFp8) return unit.parameters * element + unit.frozen_bytes;
  double bytes = unit.frozen_bytes;
  for (std::size_t i = unit.first_op; i < unit.end_op && i < workload.ops.size(); ++i) {
    const Op& op = workload.ops[i];
    const double weight = op.op_class == OpClass::kMatmul && op.name != "lm_head"
                              ? std::min(op.parameters, op.weight_rows * op.weight_columns)
                              : 0.0;
    bytes += weight * kFloat8Bytes + (op.parameters - weight) * element;
  }
  return bytes;
}

}  // namespace gpuplan::models

#include "models/memory/sharding.h"

namespace gpuplan::models {

ShardingLayout sharding_layout(const JobSpec& job) {
  ShardingLayout l;
  const int gpus = job.hardware.gpus_per_node * job.hardware.nodes;
  const ParallelismSpec& p = job.parallelism;
  if (gpus < 2) return l;
  if (p.strategy == ParallelStrategy::kFsdp) {
    l.sharded_strategy = true;
    switch (p.sharding) {
      case Sharding::kFullShard:
        l.optimizer_state = l.gradients = l.parameters = l.reshard_after_forward = true;
        l.shard_ranks = gpus;
        break;
      case Sharding::kShardGradOp:
        l.optimizer_state = l.gradients = l.parameters = true;
        l.shard_ranks = gpus;
        break;
      case Sharding::kHybridShard:
        l.optimizer_state = l.gradients = l.parameters = l.reshard_after_forward = true;
        l.shard_ranks = job.hardware.gpus_per_node;
        l.replicas = job.hardware.nodes;
        break;
      case Sharding::kNoShard:
        l.replicas = gpus;
        break;
    }
  } else if (p.strategy == ParallelStrategy::kZero) {
    l.sharded_strategy = true;
    l.optimizer_state = p.zero_stage >= 1;
    l.gradients = p.zero_stage >= 2;
    l.parameters = l.reshard_after_forward = p.zero_stage >= 3;
    l.shard_ranks = gpus;
  }
  return l;
}

std::vector<ShardUnit> shard_units(const Workload& workload) {
  std::vector<ShardUnit> units;
  std::string current;
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const Op& op = workload.ops[i];
    const std::string block = block_of(op);
    if (units.empty() || block != current) {
      units.push_back({block.empty() ? op.name : block, i, i, 0.0});
      current = block;
    }
    units.back().end_op = i + 1;
    units.back().parameters += op.parameters;
  }
  return units;
}

double gathered_parameter_element_bytes(Precision precision) { return activation_element_bytes(precision); }

}  // namespace gpuplan::models

#include "models/memory/distributed_optimizer.h"

#include <algorithm>
#include <stdexcept>

namespace gpuplan::models {
namespace {
constexpr double kFp32Bytes = 4.0;
constexpr double kHalfBytes = 2.0;
}  // namespace

DistributedOptimizerBytes distributed_optimizer_bytes_per_parameter(const TrainingSpec& training,
                                                                    std::optional<bool> grad_reduce_in_fp32) {
  DistributedOptimizerBytes b;
  const Precision p = training.precision;
  const bool fp32_params = p == Precision::kFp32 || p == Precision::kTf32;
  b.parameter_bytes = fp32_params ? kFp32Bytes : kHalfBytes;
  const bool fp32_grads = fp32_params || grad_reduce_in_fp32.value_or(p != Precision::kFp16Amp);
  b.gradient_bytes = fp32_grads ? kFp32Bytes : kHalfBytes;
  const double moment = training.optimizer_state_precision == OptimizerStatePrecision::kBf16 ? kHalfBytes : kFp32Bytes;
  double moments = 0.0;
  switch (training.optimizer) {
    case Optimizer::kSgd:
      moments = 0.0;
      break;
    case Optimizer::kSgdMomentum:
      moments = 1.0;
      break;
    case Optimizer::kAdam:
    case Optimizer::kAdamW:
      moments = 2.0;
      break;
    case Optimizer::kAdamW8bit:
    case Optimizer::kPagedAdamW8bit:
    case Optimizer::kAdafactor:
      throw std::invalid_argument("distributed_optimizer_bytes_per_parameter: Megatron's optimizer is Adam or SGD");
  }
  b.sharded_bytes = (b.parameter_bytes < kFp32Bytes ? kFp32Bytes : 0.0) + moments * moment;
  b.gradient_copy_bytes = b.gradient_bytes < kFp32Bytes ? kFp32Bytes : 0.0;
  return b;
}

bool runs_distributed_optimizer(const ParallelismSpec& p) {
  switch (p.strategy) {
    case ParallelStrategy::kDdp: return p.distributed_optimizer;
    case ParallelStrategy::kFsdp:
      return p.pipeline_parallel > 1 && (p.sharding == Sharding::kFullShard || p.sharding == Sharding::kShardGradOp);
    case ParallelStrategy::kZero: return p.pipeline_parallel > 1 && p.zero_stage == 1;
    case ParallelStrategy::kNone:
    case ParallelStrategy::kDataParallel: return false;
  }
  return false;
}

bool overlaps_parameter_gather(const ParallelismSpec& p) {
  if (!runs_distributed_optimizer(p)) return false;
  return p.strategy == ParallelStrategy::kFsdp || p.overlap_param_gather;
}

int distributed_optimizer_shard_ranks(const JobSpec& job) {
  const ParallelismSpec& p = job.parallelism;
  if (!runs_distributed_optimizer(p)) return 1;
  return std::max(1, p.gradient_ranks(job.hardware.gpus_per_node * job.hardware.nodes));
}

double expert_parameters(const Workload& rank) {
  double n = 0.0;
  for (const Op& op : rank.ops) {
    if (op.experts > 0.0) n += op.parameters;
  }
  return n;
}

int expert_data_parallel_shard_ranks(const JobSpec& job) {
  return std::max(1, distributed_optimizer_shard_ranks(job) / std::max(1, job.parallelism.expert_parallel));
}

double distributed_optimizer_local_parameters(const JobSpec& job, const Workload& rank) {
  if (!runs_distributed_optimizer(job.parallelism)) return rank.parameters;
  const double experts = expert_parameters(rank);
  return (rank.parameters - experts) / distributed_optimizer_shard_ranks(job) +
         experts / expert_data_parallel_shard_ranks(job);
}

void apply_distributed_optimizer(const JobSpec& job, const Workload& rank, MemoryBreakdown& m) {
  if (!runs_distributed_optimizer(job.parallelism)) return;
  const DistributedOptimizerBytes b =
      distributed_optimizer_bytes_per_parameter(job.training, job.parallelism.grad_reduce_in_fp32);
  const double n = rank.parameters;
  const double local = distributed_optimizer_local_parameters(job, rank);
  m.weights_bytes = n * b.parameter_bytes + rank.frozen_weight_bytes();
  m.gradients_bytes = n * b.gradient_bytes;
  // The gradient copy lives after the activations are freed: the peak is the larger phase.
  const double freed = m.activations_bytes + m.allocator_slack_bytes;
  m.optimizer_state_bytes = local * b.sharded_bytes + std::max(0.0, local * b.gradient_copy_bytes - freed);
  m.data_parallel_bytes = 0.0;
}

}  // namespace gpuplan::models

#pragma once
/// \file expert_parallel_plan.h
/// What expert parallelism adds to one rank's step (pure): the token all-to-alls of a
/// mixture-of-experts layer whose routed experts are split over e ranks of the data-parallel
/// group (Lepikhin et al. 2021, GShard, sec. 2.2; Megatron-Core's MoE token dispatcher,
/// `moe_token_dispatcher_type: alltoall`). Per MoE layer two all-to-alls in forward, the
/// dispatch before the experts' first GEMM and the combine after their last, and two in
/// backward (the combine's gradient before the experts' backward, the dispatch's after it),
/// each of the k·s·b routed token copies of width h in the activation element size (times
/// the load imbalance on the busiest rank), on the compute stream: the experts cannot start
/// before their tokens arrive, so they are on the critical path. With activation
/// checkpointing the replayed forward runs its all-to-alls again.
///
/// Placement: an expert-parallel group is e consecutive ranks of one data-parallel group
/// (inside a node while e divides the node's data-parallel GPUs, else whole nodes over the
/// network); the ranks holding the same experts (data-parallel size / e of them) all-reduce
/// the experts' gradients, the other gradients go over the whole data-parallel group.
/// Units: bytes, seconds.

#include <vector>

#include "models/gpu/gpu_efficiency.h"
#include "models/interconnect/topology.h"
#include "models/job_spec.h"
#include "models/step/comm_plan.h"
#include "models/step/tensor_parallel_plan.h"

namespace gpuplan::models {

struct DispatchUnit;

/// The topology of one expert-parallel group of `job` (see the file comment), out of the
/// data-parallel group `data_parallel`.
Topology expert_parallel_topology(const JobSpec& job, const Topology& data_parallel);

/// The topology of the ranks that hold the same experts (data-parallel size / e of them,
/// e apart), out of the data-parallel group `data_parallel`; each of the concurrent groups
/// of a node gets its share of the node's NICs.
Topology expert_data_parallel_topology(const JobSpec& job, const Topology& data_parallel);

/// DDP's buckets with expert parallelism: the gradients of units whose `expert_grads` is
/// false over `data_parallel`, those of the expert units (their own buckets) over
/// `expert_data_parallel`, or not at all when that group is one rank; buckets in the order
/// backward fills them, each reduced by `collective` (all-reduce; reduce-scatter under
/// Megatron's distributed optimizer, whose expert state shards over the expert-data-parallel
/// group). Strategy ddp. Errors as plan_ddp_communication.
CommPlan plan_expert_parallel_ddp(const std::vector<DispatchUnit>& backward, double bucket_bytes,
                                  const Topology& data_parallel, const Topology& expert_data_parallel,
                                  Collective collective = Collective::kAllReduce);

/// The all-to-alls of one expert-parallel rank, as dispatch units on the compute stream.
class ExpertParallelPlan {
 public:
  /// Inactive (adds nothing) when job.parallelism.expert_parallel is 1. `data_parallel` is
  /// the rank's data-parallel group (data_parallel_topology, or a pipeline stage's).
  ExpertParallelPlan(const JobSpec& job, const GpuEfficiency& efficiency, const Topology& data_parallel);
  bool active() const { return ranks_ > 1; }
  /// Appends to `units` the all-to-all that `op` (of the rank's op table) has at `point` for
  /// a micro-batch of `micro_batch` samples: the dispatch before an expert up projection's
  /// forward and after its backward, the combine after an expert down projection's forward
  /// and before its backward; one NCCL call (its dispatch cost), marked `communication`.
  void add(std::vector<DispatchUnit>& units, const Op& op, TensorParallelPoint point, double micro_batch) const;
  /// Time of one all-to-all of `payload_bytes` per rank over the group, seconds.
  double all_to_all_s(double payload_bytes) const;

 private:
  int ranks_ = 1;
  double element_bytes_ = 0.0;
  double forward_dispatch_s_ = 0.0;
  double backward_dispatch_s_ = 0.0;
  Topology topology_;
};

}  // namespace gpuplan::models

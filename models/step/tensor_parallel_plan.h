#pragma once
/// \file tensor_parallel_plan.h
/// What tensor parallelism adds to one rank's step (pure): Megatron-LM's collectives on the
/// compute stream, on the critical path (Shoeybi et al. 2019, sec. 3: the conjugate
/// operators f and g around each split region). Per transformer block two all-reduces in
/// forward (after the row-parallel attn.out and mlp.down) and two in backward (after the
/// column-parallel attn.qkv and mlp.up backward), each of the whole activation s·b·h in the
/// activation element size; the vocab-parallel embedding all-reduces its output in forward,
/// the column-parallel LM head its input gradient in backward. With sequence parallelism
/// (Korthikanti et al. 2022, sec. 4.2.2) each all-reduce becomes a reduce-scatter plus an
/// all-gather of the same bytes: all-gather before a column-parallel linear's forward and a
/// row-parallel one's backward, reduce-scatter after a row-parallel linear's forward and a
/// column-parallel one's backward. (Megatron's second all-gather of a column-parallel input
/// for the weight gradient overlaps the input-gradient GEMM and is not modelled.)
///
/// The group is `tensor_parallel` GPUs of one node (config/ refuses groups across nodes),
/// priced with the fastest built-in collective on the node's GPU link. Units: bytes, seconds.

#include <vector>

#include "models/collective/collective.h"
#include "models/gpu/gpu_efficiency.h"
#include "models/interconnect/topology.h"
#include "models/job_spec.h"
#include "models/workload/tensor_parallel_shard.h"

namespace gpuplan::models {

struct DispatchUnit;

/// Where a tensor-parallel collective joins an op's work.
enum class TensorParallelPoint { kBeforeForward, kAfterForward, kBeforeBackward, kAfterBackward };

/// Whether `split` has a collective at `point` (see the file comment); if so it is written
/// to `collective`, else `collective` is left as it was.
bool tensor_parallel_collective(TensorSplit split, bool sequence_parallel, TensorParallelPoint point,
                                Collective& collective);

/// The topology of one tensor-parallel group of `job`: tensor_parallel GPUs of one node.
Topology tensor_parallel_topology(const JobSpec& job);

/// The topology of one data-parallel group of `job` (DDP's buckets): the node's GPUs /
/// tensor_parallel per node over every node; the node's tensor_parallel groups all-reduce at
/// once, so each gets 1 / tensor_parallel of the node's NICs. The job's topology when
/// tensor_parallel is 1.
Topology data_parallel_topology(const JobSpec& job);

/// The collectives of one tensor-parallel rank, as dispatch units on the compute stream.
class TensorParallelPlan {
 public:
  /// Inactive (adds nothing) when job.parallelism.tensor_parallel is 1.
  TensorParallelPlan(const JobSpec& job, const GpuEfficiency& efficiency);
  bool active() const { return ranks_ > 1; }
  /// Appends to `units` the collective that `op` (of the rank's op table) has at `point` for
  /// a micro-batch of `micro_batch` samples: one NCCL kernel (its dispatch cost) whose GPU
  /// time is the collective's, marked `communication`.
  void add(std::vector<DispatchUnit>& units, const Op& op, TensorParallelPoint point, double micro_batch) const;
  /// Time of one `collective` of `payload_bytes` over the group, seconds.
  double collective_s(Collective collective, double payload_bytes) const;

 private:
  int ranks_ = 1;
  bool sequence_parallel_ = false;
  double element_bytes_ = 0.0;
  double forward_dispatch_s_ = 0.0;
  double backward_dispatch_s_ = 0.0;
  Topology topology_;
};

}  // namespace gpuplan::models

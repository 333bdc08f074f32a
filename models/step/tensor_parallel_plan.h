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
/// The group is `tensor_parallel` GPUs of one node, priced with the fastest built-in
/// collective on the node's GPU link, or, when tensor_parallel exceeds gpus_per_node,
/// tensor_parallel / gpus_per_node whole nodes, priced on the nodes' network (the group has
/// all of each node's NICs) with the hierarchical and ring algorithms as for DDP.
///
/// AsyncTP (`async_tensor_parallel`, with sequence parallelism): each all-gather before a
/// linear and reduce-scatter after it runs decomposed with the GEMM it feeds into t chunks
/// (Wang et al. 2023, "Overlap Communication with Dependent Computation via Decomposition in
/// Large Deep Learning Models", ASPLOS; PyTorch's AsyncTP, torch.distributed._symmetric_memory
/// fused_all_gather_matmul / fused_matmul_reduce_scatter, as torchtitan enables it): the GEMM
/// of the rank's own chunk needs no data, each of the t - 1 others waits for its chunk, so the
/// pair takes max(G, C + G / t) for a GEMM G and a collective C, and the collective adds
/// max(0, C - G·(t - 1)/t) (async_exposed_s). The embedding's reduce-scatter and the
/// all-reduces without sequence parallelism are not decomposed. Units: bytes, seconds.

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

/// The topology of one tensor-parallel group of `job`: tensor_parallel GPUs of one node, or
/// tensor_parallel / gpus_per_node whole nodes over the job's network.
Topology tensor_parallel_topology(const JobSpec& job);

/// AsyncTP: what a collective of `collective_s` decomposed into `ranks` chunks with a GEMM of
/// `gemm_s` adds to the GEMM, seconds: max(0, collective_s - gemm_s·(ranks - 1)/ranks)
/// (see the file comment). The whole collective for one rank.
double async_exposed_s(int ranks, double collective_s, double gemm_s);

/// The topology of one data-parallel group of `job` (DDP's buckets): the node's GPUs /
/// tensor_parallel per node over every node; the node's tensor_parallel groups all-reduce at
/// once, so each gets 1 / tensor_parallel of the node's NICs. With tensor parallelism across
/// nodes one GPU per node over nodes / (tensor_parallel / gpus_per_node) nodes, each of the
/// node's GPUs on 1 / gpus_per_node of its NICs. The job's topology when tensor_parallel is 1.
Topology data_parallel_topology(const JobSpec& job);

/// The collectives of one tensor-parallel rank, as dispatch units on the compute stream.
class TensorParallelPlan {
 public:
  /// Inactive (adds nothing) when job.parallelism.tensor_parallel is 1. Without `labels` its
  /// units carry no DispatchUnit::label (plan_step's `labels`).
  TensorParallelPlan(const JobSpec& job, const GpuEfficiency& efficiency, bool labels = true);
  bool active() const { return ranks_ > 1; }
  /// Appends to `units` the collective that `op` (of the rank's op table) has at `point` for
  /// a micro-batch of `micro_batch` samples: one NCCL kernel (its dispatch cost) whose GPU
  /// time is the collective's, marked `communication`; with AsyncTP an all-gather or
  /// reduce-scatter of a linear (OpClass::kMatmul) adds only async_exposed_s over `gemm_s`,
  /// the op's own kernel time in that pass.
  void add(std::vector<DispatchUnit>& units, const Op& op, TensorParallelPoint point, double micro_batch,
           double gemm_s = 0.0) const;
  /// Time of one `collective` of `payload_bytes` over the group, seconds. Every layer asks
  /// for the same few payloads: each is timed once (fastest_collective) and kept, so a plan
  /// is not to be shared between threads.
  double collective_s(Collective collective, double payload_bytes) const;

 private:
  int ranks_ = 1;
  bool sequence_parallel_ = false;
  bool async_ = false;
  bool labels_ = true;
  double element_bytes_ = 0.0;
  double forward_dispatch_s_ = 0.0;
  double backward_dispatch_s_ = 0.0;
  Topology topology_;
  struct Timed {
    Collective collective;
    double payload_bytes;
    double time_s;
  };
  mutable std::vector<Timed> timed_;  // collective_s's answers so far
};

}  // namespace gpuplan::models

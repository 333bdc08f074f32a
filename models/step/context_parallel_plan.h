#pragma once
/// \file context_parallel_plan.h
/// What context parallelism adds to one rank's step (pure): ring attention's key/value
/// exchange (Liu et al. 2023, "Ring Attention with Blockwise Transformers"; Megatron-Core's
/// context parallelism, which Transformer Engine runs as a ring of point-to-point sends).
/// The rank's op table is context_parallel_rank_workload's (models/workload/
/// context_parallel_shard.h: every per-token quantity / c).
///
/// Per attention op and micro-batch, forward: c steps; in each the rank computes attention
/// of its queries against one key/value block (the rank's attention time / c: the balanced
/// causal split gives every step the same work) while it sends the block it holds to the next
/// rank and receives the next one (c - 1 sends of the rank's K and V shard,
/// 2 x kv_width x s / c x b elements). A send overlaps the compute of the block before it,
/// so the op takes b_s + (c - 1) x max(b_s, t_s) for a block compute b_s and a send t_s, and
/// the ring adds (c - 1) x max(0, t_s - b_s) to the attention kernels (ring_exposed_s).
/// Backward does the same with the key/value block and its gradient dK, dV travelling
/// together (twice the bytes), over the backward kernel's blocks. The exposed part is a
/// communication unit on the compute stream after the attention unit (on the critical path);
/// the hidden part slows nothing (NCCL's p2p kernels are assumed not to slow the attention
/// kernel they overlap).
///
/// Placement (Megatron-Core's rank order: tensor parallel innermost, then context, then data
/// parallel): a context-parallel group is c ranks tensor_parallel apart, inside a node when
/// tensor_parallel x c <= gpus_per_node (the node's GPU link, p2p at its best protocol), else
/// across nodes, where a ring step waits for its inter-node hop: the GPU's share of the
/// node's NICs (every GPU sends at once), as pipeline sends are priced (pipeline_parallel_plan.h
/// point_to_point_s). Units: bytes, seconds.

#include <vector>

#include "models/gpu/gpu_efficiency.h"
#include "models/interconnect/link_spec.h"
#include "models/job_spec.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

struct DispatchUnit;

/// What a ring of `ranks` ranks adds to the attention compute it overlaps, seconds: each of
/// the ranks - 1 sends of `step_send_s` hides behind one block's compute of
/// `block_compute_s`; (ranks - 1) x max(0, step_send_s - block_compute_s). 0 for one rank.
double ring_exposed_s(int ranks, double block_compute_s, double step_send_s);

/// K and V elements per sample of one decoder layer of `rank` (an op table, sharded or not):
/// the first `attn.qkv`'s output, s·(q + 2·kv), minus the first `attn.out`'s input, s·q; 0
/// for a workload without them.
double key_value_elements_per_layer(const Workload& rank);

/// One point-to-point send of `payload_bytes` between neighbouring ranks of `job`'s
/// context-parallel group (placed as the file comment says), seconds.
double context_parallel_send_s(const JobSpec& job, double payload_bytes);

/// The ring exchange of one context-parallel rank, as units on the compute stream.
class ContextParallelPlan {
 public:
  /// Inactive (adds nothing) when job.parallelism.context_parallel is 1. `rank` is the
  /// rank's op table (rank_workload, models/memory/parallel_memory.h).
  ContextParallelPlan(const JobSpec& job, const Workload& rank, const GpuEfficiency& efficiency);
  bool active() const { return ranks_ > 1; }
  /// After `attention`, the unit of a fused attention op's forward (`backward` false, also
  /// its replay under checkpointing) or backward, for a micro-batch of `micro_batch`
  /// samples: appends one unit of the ring's exposed time (ring_exposed_s over the unit's
  /// gpu_s / c), marked `communication`, whose dispatch is the ring's c - 1 send/receive
  /// launches. Nothing for other ops or when inactive.
  void add(std::vector<DispatchUnit>& units, const Op& op, const DispatchUnit& attention, bool backward,
           double micro_batch) const;
  /// One ring step's send for `micro_batch` samples: the rank's K and V block, with its
  /// gradient in backward, seconds.
  double step_send_s(bool backward, double micro_batch) const;

 private:
  int ranks_ = 1;
  double block_bytes_per_sample_ = 0.0;  ///< the rank's K and V of one layer, bytes per sample
  double dispatch_s_ = 0.0;              ///< one NCCL launch
  LinkSpec link_;                        ///< the ring's slowest hop
  double link_share_ = 1.0;              ///< the rank's share of its bandwidth
};

}  // namespace gpuplan::models

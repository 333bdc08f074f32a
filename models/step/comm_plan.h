#pragma once
/// \file comm_plan.h
/// What data parallelism adds to one rank's step (pure; the step simulation plays it):
/// DDP's gradient buckets and the time of each bucket's all-reduce on the job's topology.
/// Units: bytes, seconds.
///
/// DDP (PyTorch DistributedDataParallel, torch/csrc/distributed/c10d/reducer.cpp and the DDP
/// notes of the PyTorch docs): parameters are assigned to buckets in reverse registration
/// order, which is about the order backward produces their gradients; the first bucket is
/// capped at 1 MiB and the others at `bucket_cap_mb` (default 25 MiB); a bucket is closed
/// once it reaches its cap (the tensor that crosses the cap stays in it). A bucket's
/// all-reduce starts once backward has produced all its gradients and runs on NCCL's own
/// stream, overlapping the rest of backward; the optimizer waits for every bucket. Under
/// `no_sync` (gradient accumulation) the all-reduces run on the last micro-step only.

#include <cstddef>
#include <string>
#include <vector>

#include "core/units.h"
#include "models/collective/collective.h"
#include "models/interconnect/topology.h"
#include "models/precision.h"

namespace gpuplan::models {

struct DispatchUnit;

/// Size cap of DDP's first bucket: torch.distributed `_DEFAULT_FIRST_BUCKET_BYTES` = 1 MiB
/// (torch/distributed/constants.py), so the first all-reduce starts early in backward.
inline constexpr double kDdpFirstBucketBytes = core::mebibytes(1.0);

/// Share by which compute kernels slow down while an NCCL kernel runs beside them: NCCL's
/// ring kernels occupy one thread block per channel (8-32 of the GPU's SMs) and take memory
/// bandwidth for the reduction. 0.10 is an estimate (NCCL docs, NCCL_MIN/MAX_NCHANNELS;
/// Megatron-LM reports of 5-15 % slower overlapped GEMMs), the same for every scenario.
inline constexpr double kCommOverlapComputeSlowdown = 0.10;

/// One gradient bucket (DDP; ZeRO-1/2).
struct GradientBucket {
  std::size_t ready_after_unit = 0;  ///< index into StepPlan::backward whose completion fills it
  double bytes = 0.0;                ///< gradient bytes reduced
  double all_reduce_s = 0.0;         ///< time of its collective (CommPlan::bucket_collective) on the job's topology
};

/// The communication of one FSDP unit (models/memory/sharding.h ShardUnit), or of ZeRO-3's,
/// in one micro-step (sharded_data_parallel_plan.h). Times in seconds; 0 = not issued.
struct ShardedUnitComm {
  std::string name;               ///< the unit ("layers.3", "embed")
  std::size_t forward_begin = 0;  ///< its first unit in StepPlan::forward
  std::size_t forward_end = 0;    ///< one past its last
  std::size_t backward_begin = 0; ///< its first unit in StepPlan::backward (backward order)
  std::size_t backward_end = 0;   ///< one past its last
  double parameter_bytes = 0.0;   ///< the gathered unit, at the compute width
  double forward_all_gather_s = 0.0;   ///< before its forward
  double backward_all_gather_s = 0.0;  ///< before its backward (resharded after forward)
  double gradient_reduce_s = 0.0;      ///< after its backward: reduce-scatter (no_shard: all-reduce)
  double replica_all_reduce_s = 0.0;   ///< hybrid_shard: the gradient shard's all-reduce across nodes
  /// The unit's parameters are gathered before its forward / before its backward (FSDP and
  /// ZeRO-3): where parameter offload copies the shard in first. Set on one rank too, whose
  /// gathers move nothing (0 s).
  bool gathers_forward = false;
  bool gathers_backward = false;
};

/// The communication of one rank's step.
struct CommPlan {
  ParallelStrategy strategy = ParallelStrategy::kNone;
  int ranks = 1;
  std::vector<GradientBucket> buckets;  ///< DDP and ZeRO-1/2; reduced on the last micro-step unless every_micro_step
  /// What reduces a bucket: all-reduce (DDP) or reduce-scatter (ZeRO-1/2).
  Collective bucket_collective = Collective::kAllReduce;
  /// Buckets (and FSDP units) reduce on every micro-step, not only the last (ZeRO-2, FSDP:
  /// no `no_sync`); DDP under no_sync: false.
  bool every_micro_step = false;
  /// FSDP and ZeRO-3: each unit's gathers and reduces, in forward order.
  std::vector<ShardedUnitComm> units;
  /// ZeRO-1/2: the all-gather of the updated parameter shards after the optimizer step,
  /// before the next forward; 0 otherwise.
  double parameter_all_gather_s = 0.0;
  /// Megatron's --overlap-param-gather (ParallelismSpec::overlap_param_gather): the time of
  /// the gather's first bucket (bucket_bytes of the parameters, or all of them if fewer),
  /// which the next forward's first kernel waits for; the rest of parameter_all_gather_s runs
  /// on the communication stream behind that forward, whose last kernel of the first
  /// micro-step waits for it (each bucket's gather is issued as the forward reaches the bucket
  /// before: megatron/core/distributed/param_and_grad_buffer.py, start_param_sync and the
  /// forward pre-hooks of distributed_data_parallel.py). The two-part chain is exact while the
  /// forward of a bucket's layers outlasts the next bucket's gather. 0: not overlapped, the
  /// whole gather before the forward.
  double parameter_all_gather_first_s = 0.0;
  std::string algorithm;                ///< NCCL algorithm/protocol of the largest bucket, e.g. "ring/simple"
  /// Compute kernels overlapping a running all-reduce take this much longer (share of the
  /// overlapped time; kCommOverlapComputeSlowdown for DDP, 0 otherwise).
  double overlap_compute_slowdown = 0.0;
  /// Sum of the buckets' collective times, seconds.
  double all_reduce_s() const;
};

/// DDP buckets over `backward` (its units' grad_bytes, in the order backward runs them), cut
/// at kDdpFirstBucketBytes then `bucket_bytes`, each priced with the fastest built-in
/// collective on `topology`. Throws std::invalid_argument unless bucket_bytes > 0 and the
/// topology is valid with more than one rank.
CommPlan plan_ddp_communication(const std::vector<DispatchUnit>& backward, double bucket_bytes,
                                const Topology& topology);

/// The buckets of plan_ddp_communication, each reduced by `collective` (all-reduce or
/// reduce-scatter; ZeRO-1/2), strategy left to the caller. Same errors.
CommPlan plan_gradient_buckets(const std::vector<DispatchUnit>& backward, double bucket_bytes,
                               const Topology& topology, Collective collective);

}  // namespace gpuplan::models

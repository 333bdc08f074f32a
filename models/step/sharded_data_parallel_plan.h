#pragma once
/// \file sharded_data_parallel_plan.h
/// What FSDP and ZeRO add to one rank's step (pure; the step graph plays it, step_graph.h
/// `emit_unit_gathers` / `emit_unit_reduces`). Units: bytes, seconds.
///
/// FSDP and ZeRO-3 (PyTorch FSDP docs: FullyShardedDataParallel, forward_prefetch and
/// BackwardPrefetch.BACKWARD_PRE; Zhao et al. 2023, sec. 3.3-3.4): per unit
/// (models/memory/sharding.h ShardUnit), an all-gather of its parameters before its
/// forward, issued when the previous unit's forward starts (one unit ahead); for
/// full_shard and hybrid_shard again before its backward, issued when the unit after it
/// in forward order starts its backward; a reduce-scatter of its gradients once its
/// backward has run (no_shard: an all-reduce; hybrid_shard: then an all-reduce of the shard
/// across nodes). All on the communication stream, one at a time in the order issued,
/// overlapping compute; reduces run on every micro-step (FSDP without no_sync). The
/// optimizer updates the local shard only (step_plan.cpp).
///
/// ZeRO-1/2 (Rajbhandari et al. 2020, sec. 5 and 7.2.1; DeepSpeed stage_1_and_2.py): gradient
/// buckets as DDP's (comm_plan.h) reduce-scattered to the shards' owners (stage 1 keeps the
/// whole gradient and accumulates locally, so on the last micro-step; stage 2 keeps only its
/// shard, so on every micro-step), then, after the optimizer has updated the shard, one
/// all-gather of the updated parameters before the next forward: the volume of DDP's
/// all-reduce, as the paper states for both stages.

#include "models/job_spec.h"
#include "models/memory/sharding.h"
#include "models/step/step_plan.h"

namespace gpuplan::models {

/// Fills plan.comm for `job` whose strategy shards (`layout.sharded_strategy`), with
/// collective times from the fastest built-in collectives (models/collective/) on the
/// shard group's topology (hybrid_shard: one node) and, for hybrid_shard's replicas, on
/// the nodes' network. plan.forward and plan.backward must be plan_step's units of
/// `job.workload` (one forward unit per op; one or two backward units per op, in reverse).
/// Throws std::invalid_argument otherwise, or for a topology of fewer than 2 ranks.
void plan_sharded_communication(const JobSpec& job, const ShardingLayout& layout, StepPlan& plan);

}  // namespace gpuplan::models

#pragma once
/// \file activation_offload_plan.h
/// What activation offloading (`training.activation_offloading`,
/// models/memory/activation_offload.h) adds to one rank's step plan: per copied block, the
/// device-to-host copy of its offloaded bytes after its forward and the host-to-device copy
/// before its backward, on one side stream (torchtune's OffloadActivations uses one stream
/// for both directions), at the pinned host-link rate. Pure; the step graph (step_graph.h)
/// plays the copies. Units: bytes, seconds.

#include <cstddef>
#include <vector>

#include "models/job_spec.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

struct OpUnitSpans;  // sharded_data_parallel_plan.h (which includes step_plan.h, which includes this)

/// One block's copies under activation offloading. Indices are into StepPlan::forward and
/// StepPlan::backward (backward order).
struct ActivationCopy {
  std::size_t forward_last = 0;    ///< the block's last forward unit: the copy out starts after its kernel
  std::size_t backward_first = 0;  ///< the block's first backward unit: its kernel waits for the copy in
  /// The next block's first backward unit (the block backward runs before this one): the copy
  /// in is issued when its kernel starts, one block ahead (prefetch).
  std::size_t prefetch_at = 0;
  double bytes = 0.0;  ///< one micro-batch's offloaded bytes (OffloadedBlock::offloaded_bytes x micro-batch)
  double d2h_s = 0.0;  ///< bytes / host-link rate
  double h2d_s = 0.0;  ///< bytes / host-link rate
};

/// The copies of `job`'s rank with op table `rank` (rank_workload) whose units lie at `spans`
/// (per op, its units in forward and backward), for a micro-batch of `micro_batch` samples
/// over a host link of `host_link_bytes_per_s` per direction (the pinned H2D rate shared by
/// the GPUs behind one PCIe switch, as parallelism.offload's copies get it: step_plan.cpp).
/// In forward order; one per copied block (every repeated block but the last,
/// ActivationOffload). Empty without training.activation_offloading. Throws
/// std::invalid_argument when the spans do not cover the op table or the link has no
/// bandwidth.
std::vector<ActivationCopy> plan_activation_copies(const JobSpec& job, const Workload& rank, const OpUnitSpans& spans,
                                                   double micro_batch, double host_link_bytes_per_s);

}  // namespace gpuplan::models

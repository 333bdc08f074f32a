#pragma once
/// \file activation_offload.h
/// The one rule for activation offloading (`training.activation_offloading`; STYLE.md S5):
/// which saved activations leave the GPU, how many bytes stay there at the peak, how many the
/// host holds and what each block copies. Pure (STYLE.md E2): the memory model
/// (footprint.h), the host-memory check (config/scenario_hardware.cpp) and the step plan's
/// copies (models/step/step_plan.h ActivationCopy) all read it. Units: bytes per sample.
///
/// The mechanism, as torchtune implements it (torchtune/training/_activation_offloading.py,
/// OffloadActivations; Unsloth's offloaded gradient checkpointing does the same for the
/// checkpoint inputs): saved-tensor hooks take every tensor autograd saves in forward, start
/// its copy into a page-locked host buffer on one side CUDA stream that first waits for the
/// compute stream, and keep the GPU tensor alive only until that copy has finished; the
/// compute stream waits for a copy only once a few newer tensors have been saved behind it. In
/// backward each tensor is copied back on the side stream and the compute stream waits for it
/// before the op that reads it; tensors whose forward copy is still pending at the start of
/// backward are used where they are. torchtune's recipes keep the output layer's saves (the
/// logits) out of it, as they are needed at once. With activation checkpointing only the
/// checkpointed blocks' inputs are saved, so those are what moves.
///
/// Modelled per repeated block (block_view, workload.h), the unit checkpointing works in:
/// - a block's offloaded bytes are its saved activations (saved_bytes_per_sample), or, when
///   the block is checkpointed (full, or marked by {every: N}), its input;
/// - ops outside the blocks (stem, embedding, final norm, head, loss) keep their saves on the
///   GPU, and so does the last block, whose tensors backward reads first (still in flight when
///   forward ends);
/// - on the GPU at the peak: the block being computed (forward) or read (backward) and one
///   more being copied out or prefetched in: min(blocks, 2) x the largest block's offloaded
///   bytes, plus, under checkpointing, the largest checkpointed block's saves while it is
///   recomputed (as without offloading); waits that the allocator's memory pressure would
///   add are not modelled;
/// - the host holds every block's offloaded bytes but the last, in pinned memory.

#include <cstddef>
#include <vector>

#include "models/job_spec.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

/// One repeated block under activation offloading. Units: bytes per sample.
struct OffloadedBlock {
  std::size_t first_op = 0;        ///< index of its first op in Workload::ops
  std::size_t end_op = 0;          ///< one past its last op
  double offloaded_bytes = 0.0;    ///< what moves: its saved activations, or its input when checkpointed
  double saved_bytes = 0.0;        ///< its ops' saved activations (saved_bytes_per_sample), recomputed or not
  bool checkpointed = false;       ///< full checkpointing, or {every: N} marked its ops
  bool copied = false;             ///< goes to the host and back (every block but the last)
};

/// Where a micro-batch's saved activations are under offloading. Units: bytes per sample.
struct ActivationOffload {
  std::vector<OffloadedBlock> blocks;   ///< the repeated blocks, in forward order
  double outside_blocks_bytes = 0.0;    ///< saves of ops outside any block, kept on the GPU
  /// min(blocks, 2) x max_b offloaded_bytes: the block computed or read and the one in copy.
  double in_flight_bytes = 0.0;
  double recompute_bytes = 0.0;         ///< the largest checkpointed block's saved_bytes (0 without)
  double host_bytes = 0.0;              ///< sum of the copied blocks' offloaded_bytes, in pinned host memory
  /// The saved activations on the GPU at the peak: outside_blocks_bytes + in_flight_bytes +
  /// recompute_bytes.
  double gpu_bytes() const { return outside_blocks_bytes + in_flight_bytes + recompute_bytes; }
};

/// The blocks of `workload` and their bytes under `training`'s precision, framework mode and
/// checkpointing, with `op_saved` = saved_bytes_per_sample(workload, training) (footprint.h),
/// by the rules of this file's comment. Does not read training.activation_offloading: it says
/// what offloading would move. Throws std::invalid_argument when op_saved's size is not the
/// op table's.
ActivationOffload activation_offload(const Workload& workload, const TrainingSpec& training,
                                     const std::vector<double>& op_saved);

/// Pinned host bytes one node holds for `job`'s offloaded activations: host_bytes of the
/// rank's workload (rank_workload: a tensor-parallel rank's shard) x training.batch_size (one
/// micro-batch at a time: backward frees them before the next forward) x gpus_per_node. 0
/// without training.activation_offloading.
double offloaded_activation_host_bytes_per_node(const JobSpec& job);

}  // namespace gpuplan::models

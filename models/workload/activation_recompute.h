#pragma once
/// \file activation_recompute.h
/// Activation recomputation below full checkpointing (`training.activation_checkpointing`),
/// as op-table transforms that the memory model and the step simulation read through
/// Op::recompute_in_backward and Op::checkpointed:
/// - selective (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
///   Transformer Models", sec. 5): each layer's attention-score chain (QKᵀ, scale, mask,
///   softmax, dropout) is recomputed in backward instead of saved. Per layer the saved
///   activations fall from 34·s·b·h + 5·a·s²·b bytes to 34·s·b·h (their eq. 2 and table 2,
///   16-bit, no tensor parallelism): the softmax output (2·a·s²·b), the dropout mask
///   (a·s²·b) and the dropout output (2·a·s²·b) are not kept; Q and K (saved by QKᵀ) and V
///   are. The recomputed forward of those ops is hardware FLOP, not model FLOP. A fused
///   attention kernel (flash, flash3, memory_efficient, flash_triton) already keeps no score
///   matrix: nothing to do;
/// - every N (torchtitan's layer-wise policy, `ac_freq`: a layer is checkpointed when its
///   index modulo N is 0): the k-th repeated block (forward order, 0-based) with k mod N = 0
///   keeps only its input, and its forward is replayed before its backward; the other
///   blocks save everything. every 1 checkpoints every block (as full).
/// Full checkpointing (every block, HF gradient_checkpointing_enable) is
/// TrainingSpec::activation_checkpointing, replayed by the step plan.

#include "models/workload/workload.h"

namespace gpuplan::models {

/// How activations are recomputed (`training.activation_checkpointing`).
enum class ActivationRecompute {
  kNone,       ///< false: every activation saved
  kFull,       ///< true / full: every block checkpointed
  kSelective,  ///< selective: the attention-score chain recomputed (Korthikanti et al. 2022)
  kEvery,      ///< {every: N}: one block in N checkpointed
};

/// Whether `workload` has an unfused attention-score chain ("attn.scores" ... "attn.context")
/// that selective recomputation can drop.
bool has_eager_attention(const Workload& workload);

/// Repeated blocks of `workload` (distinct non-empty block_of() names, models/memory/footprint.h).
int checkpoint_blocks(const Workload& workload);

/// `workload` with every eager attention-score chain recomputed in backward (file comment).
/// Throws std::invalid_argument when it has none.
Workload with_selective_recompute(Workload workload);

/// `workload` with blocks 0, N, 2N, ... checkpointed. Throws std::invalid_argument for
/// n < 1 or a workload without blocks.
Workload with_checkpoint_every(Workload workload, int n);

/// `workload` as `mode` recomputes it: with_selective_recompute for kSelective,
/// with_checkpoint_every(every) for kEvery, unchanged for kNone and kFull (full is the step
/// plan's replay). Throws as those do.
Workload with_activation_recompute(Workload workload, ActivationRecompute mode, int every);

}  // namespace gpuplan::models

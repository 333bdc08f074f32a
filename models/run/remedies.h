#pragma once
/// \file remedies.h
/// The remedies gpuplan can check by simulation, as scenario overrides in the dotted-path
/// terms of a strategy (`data_loader.num_workers: 7`). Pure models code: it returns
/// path -> value text; config/ writes them into the variant's tree and validates it
/// (config/variant_overrides.h), cli/ simulates the result (cli/advisor.h), and
/// models/run/advice.h ranks the outcomes. A remedy is offered only where the resource it
/// relieves is on the step's critical path (VariantResult::critical_path) with a part that
/// could give kMinimumRemedyGain, and the job can still change that way; whether the GPU
/// supports it (bf16 needs compute capability 8.0), the instance allows it, or it fits in
/// memory is decided by validation and the re-run, not guessed here.

#include <optional>
#include <string>
#include <vector>

#include "models/job_spec.h"
#include "models/results.h"

namespace gpuplan::models {

/// Smallest gain that names a remedy: twice the sum of the two steady-state estimates'
/// relative precision (StepSimOptions::relative_precision, 0.5 % each), so that simulation
/// noise is never advice. A judgement, not a fit. Remedies of a waiting resource whose part
/// of the critical path could not gain this much even if it vanished are not simulated.
inline constexpr double kMinimumRemedyGain = 0.02;

/// A remedy that keeps what training computes (numerics and global batch) is advised over a
/// faster one that changes it where it gains at least this share of that one's gain: +10 %
/// with the same global batch before +12 % with a doubled one, not before +30 %. A judgement
/// of what users accept to keep their learning-rate schedule, not a fit.
inline constexpr double kKeepTrainingGainShare = 0.8;

/// What a remedy is ranked on: what the user buys with it.
enum class RemedyGoal {
  kTimeToTrain,  ///< wall time to finish the job (p50 on a cloud market)
  kCost,         ///< dollars of the run: a spot checkpoint interval trades time for less lost work
};

/// "time_to_train" | "cost".
const char* name_of(RemedyGoal goal);

/// One change to try.
struct Remedy {
  std::string relieves;  ///< a CriticalPathPart resource, "preemptions" or "hardware_failures"
  std::vector<ScenarioOverride> overrides;
  RemedyGoal goal = RemedyGoal::kTimeToTrain;
  /// How the change alters what training computes, in words ("" when it does not): 8-bit
  /// optimizer moments, no fp32 master weights, 16-bit gradient reduction. Advice prefers a
  /// change that keeps the numerics and names this caveat when it cannot (advice.h).
  std::string numerics_change;
};

/// Alternatives the catalogs offer, handed in by the caller (models/ reads no catalog).
struct RemedyOptions {
  std::vector<StorageSpec> storage_classes;  ///< catalogs/storage.yaml, any order
};

/// The override that makes `job`'s decoder compute its loss as Liger-Kernel's fused linear
/// cross-entropy (no logits saved, no gradient of them): workload.model.loss on an inline model,
/// else the catalog model rewritten as {base: <name>, loss: fused_linear_cross_entropy}
/// (a catalog name is a string, which a dotted path cannot reach into).
ScenarioOverride fused_linear_loss_override(const JobSpec& job);

/// The optimizer with less state that the memory remedies offer for `t`'s: training.optimizer:
/// adamw_8bit (bitsandbytes' block-wise 8-bit moments, 2 B of state per parameter instead of
/// 8) for torch Adam and AdamW; nullopt for any other optimizer, 8-bit ones included. One rule
/// for memory_remedies() and the planner's advice where nothing fits (cli/plan_summary.cpp).
std::optional<ScenarioOverride> smaller_optimizer_state(const TrainingSpec& t);

/// The changes that may make the row `row` of `job` that does not fit in memory fit, each
/// relieving "memory", in a fixed order: activation checkpointing, half the per-GPU batch
/// with twice the accumulation (the same global batch), context parallelism 2 (a language
/// model with fused attention on 2+ GPUs), 16-bit main gradients of Megatron's distributed
/// optimizer (grad_reduce_in_fp32: false), FSDP in place of DDP (Megatron's distributed
/// optimizer under tensor, pipeline or expert parallelism, 2+ data-parallel ranks), 8-bit AdamW state, pure
/// bf16 in place of AMP, host offload as the strategy offers it (ZeRO: the optimizer state;
/// FSDP with sharded parameters: parameters and optimizer together; ZeRO-3: both); the 16-bit
/// gradients, 8-bit state and pure bf16 carry their numerics_change. Each is only a candidate: the caller validates it and computes its memory (cli/advisor.cpp). Empty for
/// a row that fits. Throws nothing.
std::vector<Remedy> memory_remedies(const JobSpec& job, const VariantResult& row);

/// The remedies worth simulating for the row `row` of `job`, in a fixed order
/// (deterministic ties): for a row that fits, those of its critical path; for one that does
/// not, memory_remedies(). Throws nothing.
///
/// | relieves | remedy | offered when |
/// |---|---|---|
/// | data_loading_cpu | data_loader.num_workers: cores per loading process - 1 (one core for the main process; DataParallel has one process) | a data wait and fewer workers |
/// | data_loading_cpu | data_loader.preprocess_on: gpu | a data wait, workers already at that count |
/// | storage_io | workload.dataset.layout: shards | storage on the path, one file per sample |
/// | storage_io | hardware.storage: the catalog's fastest class for random reads | storage on the path, a faster class exists |
/// | h2d_copy | data_loader.pin_memory: true | exposed H2D, pageable |
/// | host_dispatch | training.framework_overhead: cuda_graphs | host dispatch on the path, not already |
/// | gpu_compute | training.precision: bf16_amp (fp16_amp before compute capability 8) | fp32/tf32 on a GPU with fp16 tensor cores |
/// | gpu_compute | training.memory_format: channels_last | a ResNet in channels_first under a tensor-core precision |
/// | gpu_compute | training.framework_overhead: compiled | eager |
/// | gpu_compute | training.activation_checkpointing: false | recomputation on (full, selective or every N layers) |
/// | gpu_compute / communication | training.batch_size: x2 | always (OOM is checked by the re-run) |
/// | gpu_compute | hardware.gpus_per_node: the instance's GPU count (with parallelism.strategy: ddp for none; training.gradient_accumulation divided by as much where it divides) | a cloud instance with GPUs the job leaves idle |
/// | communication | training.gradient_accumulation: x4 | exposed communication, DDP |
/// | communication | parallelism.strategy: ddp | DataParallel |
/// | communication | hardware.gpu_interconnect: pcie<gen>_switch | own hardware, P2P across the PCIe host bridge |
/// | host_optimizer | parallelism.offload.optimizer: none (and offload.parameters: none when set) | an optimizer offload on the path |
/// | preemptions | checkpointing.interval: auto (goal cost) | spot, no checkpoints |
/// | hardware_failures | checkpointing.interval: auto (goal cost) | on demand with a hardware failure rate, no checkpoints |
std::vector<Remedy> candidate_remedies(const JobSpec& job, const VariantResult& row, const RemedyOptions& options);

}  // namespace gpuplan::models

#pragma once
/// \file step_plan.h
/// What one training step asks of each resource, from the job and the tier-1 formulas
/// (pure; no sim/ includes). The step simulation (step_simulation.h) plays this plan on the
/// engine. Units: seconds, bytes.

#include <cstdint>
#include <string>
#include <vector>

#include "models/gpu/gpu_efficiency.h"
#include "models/job_spec.h"
#include "models/step/activation_offload_plan.h"
#include "models/step/comm_plan.h"
#include "models/step/pipeline_parallel_plan.h"

namespace gpuplan::models {

/// One dispatch unit: the host launches `kernels` kernels of one op phase (costing
/// `dispatch_s` of host CPU time in all), then the GPU runs them for `gpu_s`.
struct DispatchUnit {
  std::string label;     ///< op name and phase, e.g. "layer1.0.conv1 fwd"
  double dispatch_s = 0.0;
  double gpu_s = 0.0;
  double flop = 0.0;
  double grad_bytes = 0.0;     ///< backward: parameter-gradient bytes this unit produces (DDP buckets)
  bool communication = false;  ///< GPU time moving data between GPUs (DataParallel), not math
  /// `gpu_s` is time off the GPU that the compute stream waits for (an offloaded optimizer
  /// step: copies and the host's update): no SM work, not counted as GPU busy.
  bool off_gpu = false;
  /// Backward of a mixture-of-experts layer's routed experts: with expert parallelism their
  /// gradients are all-reduced over the ranks holding the same experts only
  /// (expert_parallel_plan.h).
  bool expert_grads = false;
};

/// How batches reach the training process, following PyTorch DataLoader semantics (DESIGN.md
/// "Data loading"): with W workers batch i goes to worker i mod W and each worker keeps up to
/// prefetch_factor batches in flight; the main process loads itself when W = 0. A reader
/// (worker or main process) reads a batch's samples from storage, then decodes them on a CPU
/// core shared with the other threads; with pin_memory the pin-memory thread copies each batch
/// into page-locked memory. Units: seconds, bytes, B/s.
///
/// `samples_per_batch == 0` makes a plan of whole-batch constants (`batch_cpu_s`,
/// `batch_storage_s`), used by closed-form tests; plan_step() always fills the per-sample
/// fields.
struct LoaderPlan {
  bool synthetic = false;          ///< no loading and no H2D at all
  int workers = 0;                 ///< DataLoader num_workers
  int prefetch_batches = 0;        ///< batches in flight: workers x prefetch_factor
  // Whole-batch means (the eval-pass estimate and whole-batch plans use them).
  double batch_load_s = 0.0;       ///< one reader's mean time for one batch without contention (CPU + storage)
  double batch_cpu_s = 0.0;        ///< CPU part of batch_load_s (decode + augment), s of one core
  double batch_storage_s = 0.0;    ///< storage part of batch_load_s, without queueing
  double gpu_preprocess_s = 0.0;   ///< GPU time for decode when preprocess_on: gpu
  // Per-sample model (plan_step fills these).
  int samples_per_batch = 0;       ///< samples a reader decodes per batch; 0 = whole-batch constants
  double sample_cpu_s = 0.0;       ///< mean CPU time per sample on one core
  double sample_cpu_cv = 0.0;      ///< coefficient of variation of the per-sample CPU time (lognormal)
  std::uint64_t seed = 0;          ///< scenario seed; each reader draws from its own sim::RandomStream
  int cpu_cores = 0;               ///< cores shared by workers, main process and pin thread; 0 = no contention
  // Storage (models/storage/storage_model.h); no reads when `page_cache_hit`.
  bool page_cache_hit = false;     ///< the dataset is read from the page cache (RAM)
  double read_latency_s = 0.0;     ///< latency of one batch's requests together, s
  double read_bytes = 0.0;         ///< bytes of one batch
  double storage_bytes_per_s = 0.0;  ///< device read bandwidth shared by all readers
  int storage_queue_depth = 1;     ///< requests the device serves in parallel
  // Pinned memory.
  double pin_copy_s = 0.0;         ///< pin-memory thread's CPU time per batch (0 = no pinning)
};
/// The whole plan of one optimizer step.
struct StepPlan {
  std::vector<DispatchUnit> forward;    ///< one micro-step's forward units
  std::vector<DispatchUnit> backward;   ///< backward units (recompute included when checkpointing)
  std::vector<DispatchUnit> optimizer;  ///< optimizer units, last micro-step only
  int gradient_accumulation = 1;
  double micro_batch = 0.0;             ///< samples per micro-step
  LoaderPlan loader;
  double h2d_bytes = 0.0;               ///< bytes copied host-to-device per micro-step
  double h2d_bytes_per_s = 0.0;
  bool pinned = false;
  double model_flop_per_step = 0.0;     ///< model FLOP of one optimizer step (MFU numerator)
  double peak_flop_per_s = 0.0;         ///< dense peak of the precision's matmul path (MFU denominator)
  CommPlan comm;                        ///< data parallelism: DDP / ZeRO buckets, FSDP units, or DataParallel's kind
  /// The host waits for the GPU before it dispatches the optimizer: fp16 AMP's GradScaler
  /// reads found_inf with .item() before optimizer.step (torch/amp/grad_scaler.py,
  /// GradScaler._maybe_opt_step), so the optimizer's dispatch cannot overlap backward.
  bool host_sync_before_optimizer = false;
  /// Pipeline parallelism: the schedule as this stage sees it (stages 1 without).
  PipelineStagePlan pipeline;
  /// Activation offloading: each copied block's copies out and in, in forward order
  /// (activation_offload_plan.h); empty without it.
  std::vector<ActivationCopy> activation_copies;
};

/// The rank's share of its host link for offloaded tensors, B/s per direction: the pinned H2D
/// rate (h2d_bytes_per_s, models/gpu/op_time.h) divided by hardware.gpus_per_pcie_switch, the
/// GPUs behind one PCIe switch copying at about the same moment, as the input copy does.
/// parallelism.offload's copies (sharded_data_parallel_plan.h) and activation offloading's
/// (activation_offload_plan.h) both take it.
double host_link_bytes_per_s(const JobSpec& job, const GpuEfficiency& efficiency);

/// Builds the plan of one rank of `job`: with several GPUs, the rank gets its share of the
/// node (CPU cores, storage bandwidth and queue depth split evenly among the node's GPUs, the
/// PCIe uplink split among the GPUs behind one switch), and DDP's buckets, DataParallel's
/// extra work on GPU 0, or FSDP's / ZeRO's gathers and reduces with the optimizer on the
/// rank's shard (comm_plan.h, data_parallel_plan.h, sharded_data_parallel_plan.h); with tensor
/// parallelism the rank's shard of the model and its group's collectives
/// (tensor_parallel_plan.h), DDP, FSDP or ZeRO over the data-parallel group; with pipeline parallelism the
/// units of pipeline stage `stage` (0 .. pipeline_parallel - 1) for one micro-batch, the
/// simulated schedule's wait (pipeline_parallel_plan.h), DDP over the stage's group and the
/// optimizer on its parameters. Throws std::invalid_argument when the job cannot run (zero
/// batch, no CPU core for a loader that needs one, a stage out of range). With `labels` false
/// the op units and tensor-parallel collectives carry no DispatchUnit::label (only a trace
/// reads them; a planner sizing thousands of layouts skips one string per unit).
StepPlan plan_step(const JobSpec& job, const GpuEfficiency& efficiency, int stage = 0, bool labels = true);

/// plan_step of each distinct pipeline stage (PipelineStagePlan::roles, in that order; stage
/// 0 alone without pipeline parallelism), the whole rank's units and the schedule built once
/// for all of them: entry k equals plan_step(job, efficiency, roles[k], labels). Throws as
/// plan_step does.
std::vector<StepPlan> plan_step_roles(const JobSpec& job, const GpuEfficiency& efficiency, bool labels = true);

}  // namespace gpuplan::models

#include "models/run/bottleneck.h"

#include <fmt/format.h>

#include <string>

#include "models/memory/distributed_optimizer.h"
#include "models/memory/optimizer_state.h"
#include "models/memory/sharding.h"

namespace gpuplan::models {

namespace {
/// The global batch is micro-batch x accumulation x data-parallel ranks: a hint that changes
/// the GPUs or the pipeline stages says how to keep it, or that it changes (a different global
/// batch needs another learning rate, Goyal et al. 2017, sec. 2.1).
const char* kSameGlobalBatch = " (the same global batch)";

/// "more GPUs ..." for a compute-bound row: with less accumulation or a smaller micro-batch
/// per GPU, which keep the global batch, while either can still shrink.
std::string more_gpus(const TrainingSpec& t) {
  if (t.gradient_accumulation > 1) return std::string("more GPUs with less training.gradient_accumulation") + kSameGlobalBatch;
  if (t.batch_size > 1) return std::string("more GPUs with a smaller training.batch_size") + kSameGlobalBatch;
  return "more GPUs (a larger global batch: retune the learning rate)";
}
}  // namespace

std::string unchecked_hint(const std::string& resource, const JobSpec& job) {
  if (resource == "data_loading_cpu") {
    return job.data_loader.preprocess_on == PreprocessOn::kCpu
               ? "more CPU cores per GPU (hardware.cpu_cores), or a lighter per-sample transform"
               : "more CPU cores per GPU (hardware.cpu_cores)";
  }
  if (resource == "storage_io") return "faster storage, or the dataset cached in host memory";
  if (resource == "h2d_copy") return "copy uint8 images and normalise on the GPU, or a faster PCIe link";
  if (resource == "host_dispatch") return "a faster host CPU, or fewer and larger kernels";
  if (resource == "communication") {
    const std::string fewer = std::string(" with more training.gradient_accumulation") + kSameGlobalBatch;
    return job.hardware.nodes > 1 ? "a faster network between nodes (InfiniBand/EFA class), or fewer nodes" + fewer
                                  : "NVLink between the GPUs, or fewer GPUs" + fewer;
  }
  if (resource == "host_optimizer") {
    // The host Adam runs on the rank's cores at a per-core memory rate
    // (models/step/sharded_data_parallel_plan.h offload_costs).
    return "more host CPU cores per GPU (hardware.cpu_cores), or the optimizer kept on the GPU";
  }
  if (resource == "pipeline_bubble") {
    // Bubble (p - 1) / (m + p - 1) for 1F1B, divided by v interleaved (Narayanan et al. 2021,
    // sec. 2.2); an imbalanced stage is fixed by moving layers, which the tool cannot.
    // Halving the micro-batch while doubling the micro-batches keeps the global batch; fewer
    // stages on the same GPUs mean more data-parallel ranks.
    const std::string more_micro_batches =
        job.training.batch_size > 1
            ? std::string("more, smaller micro-batches (training.gradient_accumulation up, training.batch_size down by "
                          "as much: the same global batch)")
            : "more micro-batches (training.gradient_accumulation up: a larger global batch, retune the learning rate)";
    return more_micro_batches +
           ", the interleaved schedule with parallelism.virtual_stages, fewer pipeline stages (more data-parallel "
           "ranks: less training.gradient_accumulation keeps the global batch), or layers moved off the slowest stage";
  }
  return "a faster GPU, or " + more_gpus(job.training);
}

namespace {
/// The suggestion without the main-gradient width (oom_suggestion).
std::string layout_suggestion(const JobSpec& job) {
  if (!job.training.activation_checkpointing) {
    return std::string("training.activation_checkpointing: true, or a smaller training.batch_size with more "
                       "training.gradient_accumulation") +
           kSameGlobalBatch;
  }
  if (job.training.batch_size > 1) {
    return std::string("a smaller training.batch_size with more training.gradient_accumulation") + kSameGlobalBatch;
  }
  const int gpus = job.hardware.gpus_per_node * job.hardware.nodes;
  if (job.parallelism.pipeline_parallel > 1) {
    // Under a pipeline the data-parallel ranks shard the optimizer state at most
    // (config/scenario_model_parallel.h, distributed_optimizer.h): more
    // stages hold fewer layers each (models/memory/parallel_memory.h rank_memory).
    return "a larger parallelism.pipeline_parallel (fewer layers and micro-batches in flight per stage; fewer "
           "data-parallel ranks: more training.gradient_accumulation keeps the global batch), or more GPUs";
  }
  if (gpus > 1 && !sharding_layout(job).parameters) {
    // FSDP full_shard divides weights, gradients and optimizer state by the GPUs
    // (models/memory/parallel_memory.h per_gpu_memory).
    return "parallelism.strategy: fsdp (weights, gradients and optimizer state sharded over the " +
           std::to_string(gpus) + " GPUs)";
  }
  if (job.training.optimizer == Optimizer::kAdam || job.training.optimizer == Optimizer::kAdamW) {
    // Adam's 8 B/param of fp32 moments (4 of bf16 ones) become about 2 with bitsandbytes' 8-bit
    // state, and pure bf16 drops AMP's fp32 weights and gradients
    // (models/memory/optimizer_state.h, footprint.h).
    const bool bf16 = job.training.precision != Precision::kBf16 && job.hardware.gpu.has_tf32_bf16();
    const double state_bytes = elementwise_state_bytes_per_parameter(job.training);
    return fmt::format("training.optimizer: adamw_8bit (about 2 B of state per parameter instead of {:g})",
                       state_bytes) +
           (bf16 ? ", training.precision: bf16 (bf16 weights and gradients, no fp32 master copy)" : "") +
           ", or a GPU with more memory";
  }
  return "a GPU with more memory";
}
}  // namespace

std::string oom_suggestion(const JobSpec& job) {
  // Megatron's distributed optimizer with fp32 main grads on 16-bit parameters: bf16 ones
  // save 2 B per parameter with no recomputation (models/memory/distributed_optimizer.h).
  if (job.parallelism.distributed_optimizer && job.parallelism.strategy == ParallelStrategy::kDdp) {
    const DistributedOptimizerBytes b =
        distributed_optimizer_bytes_per_parameter(job.training, job.parallelism.grad_reduce_in_fp32);
    if (b.parameter_bytes < 4.0 && b.gradient_bytes == 4.0) {
      return "parallelism.grad_reduce_in_fp32: false (2 B main gradients per parameter instead of 4), " +
             layout_suggestion(job);
    }
  }
  return layout_suggestion(job);
}

}  // namespace gpuplan::models

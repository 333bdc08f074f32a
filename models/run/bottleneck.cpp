#include "models/run/bottleneck.h"

namespace gpuplan::models {

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
    return job.hardware.nodes > 1 ? "a faster network between nodes (InfiniBand/EFA class), or fewer nodes"
                                  : "NVLink between the GPUs, or fewer GPUs";
  }
  return "a faster GPU or more GPUs";
}

std::string oom_suggestion(const JobSpec& job) {
  if (!job.training.activation_checkpointing) {
    return "training.activation_checkpointing: true, or a smaller training.batch_size with gradient_accumulation";
  }
  if (job.training.batch_size > 1) {
    return "a smaller training.batch_size with training.gradient_accumulation";
  }
  if (job.training.optimizer == Optimizer::kAdam || job.training.optimizer == Optimizer::kAdamW) {
    return "a GPU with more memory, sharded optimizer state (FSDP/ZeRO) over several GPUs, or a lighter optimizer";
  }
  return "a GPU with more memory";
}

}  // namespace gpuplan::models

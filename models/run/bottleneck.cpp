#include "models/run/bottleneck.h"

#include <algorithm>
#include <array>
#include <utility>

#include "models/gpu/op_time.h"

namespace gpuplan::models {

std::string communication_suggestion(const JobSpec& job, const StepPlan& plan) {
  const HardwareSpec& hw = job.hardware;
  if (job.parallelism.strategy == ParallelStrategy::kDataParallel) {
    return "parallelism.strategy: ddp (one process per GPU: no replication, scatter and gather every step)";
  }
  if (job.training.gradient_accumulation < 4) {
    return "training.gradient_accumulation: " + std::to_string(4 * job.training.gradient_accumulation) +
           " (DDP all-reduces once per optimizer step, under no_sync)";
  }
  if (hw.nodes > 1) {
    return "a faster network between nodes (InfiniBand/EFA class), or fewer nodes";
  }
  if (hw.topology.intra_node.kind != LinkKind::kNvlink) {
    return "an instance with NVLink between its GPUs, or fewer GPUs";
  }
  if (plan.comm.buckets.size() > 8 && job.parallelism.bucket_bytes < 100.0 * 1024 * 1024) {
    return "parallelism.bucket_size: \"100 MiB\" (fewer, larger all-reduces)";
  }
  return "fewer GPUs, or a larger training.batch_size per GPU";
}

Bottleneck find_bottleneck(const JobSpec& job, const StepPlan& plan, const StepBreakdown& s,
                           const LoaderStats& loader) {
  const double gpu = s.gpu_compute_s + s.optimizer_s;
  const std::array<std::pair<double, const char*>, 5> shares = {{
      {gpu, "gpu_compute"},
      {s.data_wait_s, "data_loading"},
      {s.h2d_s, "h2d_copy"},
      {s.host_dispatch_wait_s, "host_dispatch"},
      {s.communication_exposed_s, "communication"},
  }};
  const auto* top = &shares[0];
  for (const auto& x : shares) {
    if (x.first > top->first) top = &x;
  }
  Bottleneck b;
  b.name = top->second;
  // With several GPUs, exposed communication of a quarter of the step or more caps scaling
  // at 75 %: adding GPUs or speeding up compute makes it worse, so it is named even when
  // compute is the larger part.
  if (s.communication_exposed_s >= kCommunicationBottleneckShare * s.step_time_s && s.step_time_s > 0.0) {
    b.name = "communication";
  }
  const DataLoaderSpec& dl = job.data_loader;
  const int cores = job.hardware.cpu_cores / std::max(1, job.hardware.gpus_per_node);
  if (b.name == "data_loading") {
    const bool measured = loader.batches_measured > 0;
    const double storage_s = measured ? loader.storage_s : plan.loader.batch_storage_s;
    const double cpu_s = measured ? loader.cpu_s + loader.pin_s : plan.loader.batch_cpu_s;
    if (storage_s > cpu_s) {
      b.name = "storage_io";
      b.suggestion = job.dataset.layout == DatasetLayout::kFiles
                         ? "pack samples into shards (workload.dataset.layout: shards) or use faster storage; "
                           "more workers do not help a saturated device"
                         : "faster storage (hardware.storage) or cache the dataset in host memory";
    } else {
      b.name = "data_loading_cpu";
      const int useful = std::max(1, cores - 1);
      if (dl.num_workers < useful) {
        b.suggestion = "data_loader.num_workers: " + std::to_string(std::min(useful, std::max(4, 2 * dl.num_workers)));
      } else if (dl.preprocess_on == PreprocessOn::kCpu) {
        b.suggestion = "decode on the GPU (data_loader.preprocess_on: gpu) or more CPU cores";
      } else {
        b.suggestion = "more CPU cores per GPU (hardware.cpu_cores)";
      }
    }
  } else if (b.name == "h2d_copy") {
    b.suggestion = dl.pin_memory ? "copy uint8 images and normalise on the GPU, or a faster PCIe link"
                                 : "data_loader.pin_memory: true";
  } else if (b.name == "communication") {
    b.suggestion = communication_suggestion(job, plan);
  } else if (b.name == "host_dispatch") {
    b.suggestion = "training.batch_size larger, or training.framework_overhead: cuda_graphs";
  } else {
    const GpuSpec& g = job.hardware.gpu;
    const Precision p = job.training.precision;
    const bool cnn = job.workload.family == "resnet";
    if ((p == Precision::kFp32 || p == Precision::kTf32) && g.has_tensor_cores_fp16()) {
      b.suggestion = g.has_tf32_bf16() ? "training.precision: bf16_amp" : "training.precision: fp16_amp";
    } else if (cnn && job.training.memory_format == MemoryFormat::kChannelsFirst &&
               uses_tensor_cores(OpClass::kConv, p, g)) {
      b.suggestion = "training.memory_format: channels_last";
    } else if (job.training.framework_overhead == FrameworkOverhead::kEager) {
      b.suggestion = "training.framework_overhead: compiled (fuses memory-bound ops)";
    } else {
      b.suggestion = "a faster GPU or more GPUs";
    }
  }
  return b;
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

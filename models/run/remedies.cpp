#include "models/run/remedies.h"

#include <algorithm>
#include <initializer_list>

#include "models/gpu/op_time.h"
#include "models/job/cloud_job.h"
#include "models/memory/distributed_optimizer.h"
#include "models/workload/attention_kernel.h"

namespace gpuplan::models {
namespace {

/// Share of the row's critical path that `resources` take together (0 when absent).
double path_share(const VariantResult& row, std::initializer_list<const char*> resources) {
  double share = 0.0;
  for (const CriticalPathPart& p : row.critical_path) {
    for (const char* r : resources) {
      if (p.resource == r) share += p.share;
    }
  }
  return share;
}

/// Can removing parts of this share from the step gain kMinimumRemedyGain? A remedy of a
/// waiting resource at best removes its part: the step becomes (1 - share) as long, a gain
/// of share / (1 - share).
bool worth_relieving(double share) { return share >= 1.0 || share / (1.0 - share) >= kMinimumRemedyGain; }

/// The rate a class reads one file per sample at (the random-read figure, else sequential).
double random_read_bytes_per_s(const StorageSpec& s) {
  return s.random_read_bytes_per_s > 0.0 ? s.random_read_bytes_per_s : s.read_bytes_per_s;
}

}  // namespace

const char* name_of(RemedyGoal goal) { return goal == RemedyGoal::kCost ? "cost" : "time_to_train"; }

ScenarioOverride fused_linear_loss_override(const JobSpec& job) {
  if (job.workload.name == "inline") return {"workload.model.loss", "fused_linear_cross_entropy"};
  return {"workload.model", "{base: " + job.workload.name + ", loss: fused_linear_cross_entropy}"};
}

std::optional<ScenarioOverride> smaller_optimizer_state(const TrainingSpec& t) {
  if (t.optimizer != Optimizer::kAdam && t.optimizer != Optimizer::kAdamW) return std::nullopt;
  return ScenarioOverride{"training.optimizer", "adamw_8bit"};
}

std::vector<Remedy> memory_remedies(const JobSpec& job, const VariantResult& row) {
  std::vector<Remedy> out;
  if (row.fits) return out;
  const auto add = [&](std::vector<ScenarioOverride> overrides, std::string numerics_change = "") {
    out.push_back({"memory", std::move(overrides), RemedyGoal::kTimeToTrain, std::move(numerics_change)});
  };
  const TrainingSpec& t = job.training;
  const ParallelismSpec& par = job.parallelism;
  const MemoryBreakdown& m = row.memory;
  const int gpus = job.hardware.gpus_per_node * job.hardware.nodes;
  // Activations: recompute them, hold fewer samples at once (same global batch), or split
  // each sequence over GPUs (ring attention needs a fused kernel).
  if (!t.activation_checkpointing && m.activations_bytes > 0.0) {
    add({{"training.activation_checkpointing", "true"}});
  }
  if (t.batch_size >= 2 && t.batch_size % 2 == 0) {
    add({{"training.batch_size", std::to_string(t.batch_size / 2)},
         {"training.gradient_accumulation", std::to_string(2 * t.gradient_accumulation)}});
  }
  // The loss's logits: Liger-Kernel's fused linear cross-entropy saves no logits and needs no
  // gradient of them (the loss's backward phase, models/memory/parallel_memory.h). Same
  // numerics: the loss is computed chunk by chunk, not approximated.
  if (job.workload.family == "transformer_decoder" && !job.workload.ops.empty() &&
      job.workload.ops.back().backward_transient_elements > 0.0) {
    add({fused_linear_loss_override(job)});
  }
  if (job.workload.is_language_model && t.attention != AttentionKernel::kEager && gpus >= 2 &&
      par.context_parallel == 1) {
    add({{"parallelism.context_parallel", "2"}});
  }
  // Weights, gradients and optimizer state: shard them, shrink the state, drop AMP's fp32
  // copies, or move the state to the host.
  if (par.distributed_optimizer && par.grad_reduce_in_fp32) {
    add({{"parallelism.grad_reduce_in_fp32", "false"}}, "gradients reduced in 16 bit");  // 2 B main gradients instead of 4
  }
  if (gpus >= 2 && par.strategy == ParallelStrategy::kDdp && par.tensor_parallel == 1 && par.pipeline_parallel == 1 &&
      par.expert_parallel == 1) {
    add({{"parallelism.strategy", "fsdp"}});
  } else if (par.strategy == ParallelStrategy::kDdp && !par.distributed_optimizer && par.gradient_ranks(gpus) >= 2) {
    // Under tensor, pipeline or expert parallelism: Megatron's distributed optimizer shards the
    // optimizer state over the data-parallel ranks (distributed_optimizer.h).
    add({{"parallelism.distributed_optimizer", "true"}});
  }
  if (const auto optimizer = smaller_optimizer_state(t); optimizer && m.optimizer_state_bytes > 0.0) {
    add({*optimizer}, "8-bit optimizer moments");
  }
  if (is_mixed(t.precision) && job.hardware.gpu.has_tf32_bf16()) {
    add({{"training.precision", "bf16"}}, "bf16 weights without fp32 master copies");
  }
  // Host offload as each strategy offers it (config/scenario_parallelism.cpp): FSDP's one
  // CPUOffload moves parameters, gradients and the optimizer step together (with sharded
  // parameters); ZeRO offloads the optimizer alone (stages 1-3) and, at stage 3, the
  // parameters too.
  const bool sharded_parameters =
      (par.strategy == ParallelStrategy::kFsdp &&
       (par.sharding == Sharding::kFullShard || par.sharding == Sharding::kHybridShard)) ||
      (par.strategy == ParallelStrategy::kZero && par.zero_stage == 3);
  const bool no_offload = par.optimizer_offload == OffloadTarget::kNone && par.parameter_offload == OffloadTarget::kNone;
  if (par.strategy == ParallelStrategy::kZero && par.optimizer_offload == OffloadTarget::kNone &&
      m.optimizer_state_bytes > 0.0) {
    add({{"parallelism.offload.optimizer", "cpu"}});
  }
  if (sharded_parameters && no_offload) {
    add({{"parallelism.offload.optimizer", "cpu"}, {"parallelism.offload.parameters", "cpu"}});
  } else if (par.strategy == ParallelStrategy::kZero && sharded_parameters &&
             par.parameter_offload == OffloadTarget::kNone) {
    add({{"parallelism.offload.parameters", "cpu"}});
  }
  return out;
}

std::vector<Remedy> candidate_remedies(const JobSpec& job, const VariantResult& row, const RemedyOptions& options) {
  std::vector<Remedy> out;
  if (!row.fits) return memory_remedies(job, row);
  const auto add = [&](const char* relieves, std::vector<ScenarioOverride> overrides,
                       RemedyGoal goal = RemedyGoal::kTimeToTrain) {
    out.push_back({relieves, std::move(overrides), goal, ""});
  };
  const DataLoaderSpec& dl = job.data_loader;
  const HardwareSpec& hw = job.hardware;
  const TrainingSpec& t = job.training;
  const int gpus = hw.gpus_per_node * hw.nodes;

  // Input pipeline.
  if (!job.dataset.synthetic && worth_relieving(path_share(row, {"data_loading_cpu", "storage_io"}))) {
    // One loader per process: DDP runs one per GPU on the node's cores, DataParallel one for all.
    const int processes = job.parallelism.strategy == ParallelStrategy::kDataParallel ? 1 : hw.gpus_per_node;
    const int useful_workers = std::max(1, hw.cpu_cores / std::max(1, processes) - 1);
    if (dl.num_workers < useful_workers) {
      add("data_loading_cpu", {{"data_loader.num_workers", std::to_string(useful_workers)}});
    } else if (dl.preprocess_on == PreprocessOn::kCpu) {
      add("data_loading_cpu", {{"data_loader.preprocess_on", "gpu"}});
    }
  }
  if (!job.dataset.synthetic && worth_relieving(path_share(row, {"storage_io"}))) {
    if (job.dataset.layout == DatasetLayout::kFiles) add("storage_io", {{"workload.dataset.layout", "shards"}});
    const StorageSpec* fastest = nullptr;
    for (const StorageSpec& s : options.storage_classes) {
      if (fastest == nullptr || random_read_bytes_per_s(s) > random_read_bytes_per_s(*fastest)) fastest = &s;
    }
    if (fastest != nullptr && random_read_bytes_per_s(*fastest) > random_read_bytes_per_s(hw.storage)) {
      add("storage_io", {{"hardware.storage", fastest->name}});
    }
  }
  if (!job.dataset.synthetic && worth_relieving(path_share(row, {"h2d_copy"})) && !dl.pin_memory) {
    add("h2d_copy", {{"data_loader.pin_memory", "true"}});
  }
  // Activation offloading waiting for its copies: checkpointed blocks offload their inputs
  // only (a fraction of the bytes), and without offloading there are no copies where the
  // activations fit (the re-run checks both).
  if (t.activation_offloading && worth_relieving(path_share(row, {"h2d_copy"}))) {
    if (t.activation_recompute == ActivationRecompute::kNone) {
      add("h2d_copy", {{"training.activation_checkpointing", "true"}});
    }
    add("h2d_copy", {{"training.activation_offloading", "false"}});
  }
  if (worth_relieving(path_share(row, {"host_dispatch"})) && t.framework_overhead != FrameworkOverhead::kCudaGraphs) {
    add("host_dispatch", {{"training.framework_overhead", "cuda_graphs"}});
  }

  // GPU kernels.
  const GpuSpec& g = hw.gpu;
  if ((t.precision == Precision::kFp32 || t.precision == Precision::kTf32) && g.has_tensor_cores_fp16()) {
    add("gpu_compute", {{"training.precision", g.has_tf32_bf16() ? "bf16_amp" : "fp16_amp"}});
  }
  if ((job.workload.family == "resnet" || job.workload.family == "efficientnet") && t.memory_format == MemoryFormat::kChannelsFirst &&
      uses_tensor_cores(OpClass::kConv, t.precision, g)) {
    add("gpu_compute", {{"training.memory_format", "channels_last"}});
  }
  if (t.framework_overhead == FrameworkOverhead::kEager) {
    add("gpu_compute", {{"training.framework_overhead", "compiled"}});
  }
  // Unfused attention on a model that has it: let SDPA pick a fused kernel.
  if (t.attention == AttentionKernel::kEager && attention_shape(job.workload)) {
    add("gpu_compute", {{"training.attention", "sdpa"}});
  }
  // A causal mask passed as a tensor keeps SDPA off flash and from skipping masked tiles
  // (CausalMask, models/precision.h); passed as is_causal (HF: attn_implementation
  // "flash_attention_2", or the model left uncompiled) SDPA may pick flash.
  if (t.causal_mask == CausalMask::kAttnMask && t.attention != AttentionKernel::kEager) {
    add("gpu_compute", {{"training.causal_mask", "is_causal"}});
  }
  // Recomputation replays forward work in backward to save memory; where the activations
  // fit without it (the re-run checks), switching it off removes that work.
  if (t.activation_recompute != ActivationRecompute::kNone) {
    add("gpu_compute", {{"training.activation_checkpointing", "false"}});
  }
  // A bigger batch amortises per-step costs (dispatch, optimizer, the all-reduce); it changes
  // the optimisation too, which the user decides (README, "Bottleneck and suggestion").
  const bool communication = gpus > 1 && worth_relieving(path_share(row, {"communication"}));
  const char* batch_relieves = communication ? "communication" : "gpu_compute";
  // The same with half the accumulation keeps the global batch (and the optimisation): the
  // micro-batch grows, per-micro-step costs (FSDP's all-gathers, launches) halve.
  if (t.gradient_accumulation % 2 == 0) {
    add(batch_relieves, {{"training.batch_size", std::to_string(2 * t.batch_size)},
                         {"training.gradient_accumulation", std::to_string(t.gradient_accumulation / 2)}});
  }
  add(batch_relieves, {{"training.batch_size", std::to_string(2 * t.batch_size)}});

  // GPUs of the instance already paid for (its price is the whole instance's): all of them,
  // with the accumulation divided as far as it goes to keep the global batch.
  if (job.cloud && job.cloud->instance.accelerator_count > hw.gpus_per_node && hw.gpus_per_node > 0) {
    const int all = job.cloud->instance.accelerator_count;
    std::vector<ScenarioOverride> use_all = {{"hardware.gpus_per_node", std::to_string(all)}};
    if (job.parallelism.strategy == ParallelStrategy::kNone) use_all.push_back({"parallelism.strategy", "ddp"});
    const int more = all / hw.gpus_per_node;
    if (all % hw.gpus_per_node == 0 && t.gradient_accumulation % more == 0 && t.gradient_accumulation > 1) {
      use_all.push_back({"training.gradient_accumulation", std::to_string(t.gradient_accumulation / more)});
    }
    add("gpu_compute", std::move(use_all));
  }

  // Between GPUs.
  // (DDP and the distributed optimizer reduce once per step; FSDP / ZeRO-3 gather per micro-step.)
  if (communication && (job.parallelism.strategy == ParallelStrategy::kDdp || runs_distributed_optimizer(job.parallelism))) {
    add("communication",
        {{"training.gradient_accumulation", std::to_string(4 * t.gradient_accumulation)}});
  }
  if (job.parallelism.strategy == ParallelStrategy::kDataParallel) {
    add("communication", {{"parallelism.strategy", "ddp"}});
  }
  const std::string& link = hw.topology.intra_node.name;
  // Only where P2P works but crosses the CPU's root complex: without P2P (GeForce cards,
  // a driver that disables it) a PCIe switch does not bring it back.
  if (communication && !job.cloud && hw.topology.intra_node.kind == LinkKind::kPcie &&
      link.ends_with("_host_bridge")) {
    add("communication", {{"hardware.gpu_interconnect", link.substr(0, link.find('_')) + "_switch"}});
  }

  // Pipeline bubble: (p - 1) / (m + p - 1) of a 1F1B schedule, about v times less with v
  // virtual stages interleaved (Narayanan et al. 2021, sec. 2.2 and 2.2.2). More micro-batches
  // of half the size keep the global batch; fewer stages also mean more data parallelism
  // and more layers per GPU (config/ refuses a layout that does not divide, memory may not fit).
  const ParallelismSpec& par = job.parallelism;
  if (par.pipeline_parallel > 1 && worth_relieving(path_share(row, {"pipeline_bubble"}))) {
    const std::string more_micro_batches = std::to_string(2 * t.gradient_accumulation);
    if (t.batch_size % 2 == 0) {
      add("pipeline_bubble", {{"training.batch_size", std::to_string(t.batch_size / 2)},
                              {"training.gradient_accumulation", more_micro_batches}});
    } else {
      add("pipeline_bubble", {{"training.gradient_accumulation", more_micro_batches}});
    }
    add("pipeline_bubble", {{"parallelism.pipeline_schedule", "interleaved_1f1b"},
                            {"parallelism.virtual_stages", std::to_string(2 * par.virtual_stages)}});
    if (par.pipeline_parallel % 2 == 0) {
      add("pipeline_bubble", {{"parallelism.pipeline_parallel", std::to_string(par.pipeline_parallel / 2)}});
    }
  }

  // An offloaded optimizer (ZeRO-Offload, FSDP CPU offload): keeping it, and the parameters,
  // on the GPU removes the copies and the host's Adam from the step; whether it then fits is
  // the re-run's to say.
  if (par.optimizer_offload != OffloadTarget::kNone && worth_relieving(path_share(row, {"host_optimizer"}))) {
    std::vector<ScenarioOverride> on_gpu = {{"parallelism.offload.optimizer", "none"}};
    if (par.parameter_offload != OffloadTarget::kNone) on_gpu.push_back({"parallelism.offload.parameters", "none"});
    add("host_optimizer", std::move(on_gpu));
  }

  // The job on the spot market, or on demand or own hardware where hardware fails.
  if (job.cloud && job.cloud->market == Market::kSpot && !job.checkpointing.enabled) {
    add("preemptions", {{"checkpointing.interval", "auto"}}, RemedyGoal::kCost);
  } else if (!job.checkpointing.enabled && row.expected_failures.value_or(0.0) >= kFailureNoteShare) {
    add("hardware_failures", {{"checkpointing.interval", "auto"}}, RemedyGoal::kCost);
  }
  return out;
}

}  // namespace gpuplan::models

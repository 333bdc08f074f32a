#include "config/scenario_model_parallel.h"

#include <numeric>
#include <string>
#include <vector>

#include "config/scenario_reading.h"
#include "models/memory/parallel_memory.h"
#include "models/workload/tensor_parallel_shard.h"

namespace gpuplan::config {
namespace {

/// Tensor-parallel groups larger than any node built (NVL72 racks: 72 GPUs) are typos.
constexpr std::int64_t kMaxTensorParallel = 1024;
/// Pipelines deeper than any published run (Megatron-LM's 1T model: 64 stages) by far are typos.
constexpr std::int64_t kMaxPipelineParallel = 4096;
/// Model chunks per stage beyond the layers any model has are typos.
constexpr std::int64_t kMaxVirtualStages = 1024;

/// The fix for virtual_stages chunks that do not divide the layers, `per_stage` being the
/// layers a stage may hold: virtual_stages 2 or more that divides them (1 is plain 1f1b).
std::string chunk_fix(int per_stage) {
  if (per_stage < 2) {
    return "; use pipeline_schedule: 1f1b (a stage of one layer has nothing to interleave)";
  }
  return "; use virtual_stages " + divisors_text(per_stage, 2);
}

}  // namespace

void read_model_parallel(MapReader& parallelism, models::ParallelismSpec& spec) {
  spec.tensor_parallel = static_cast<int>(value_or(parallelism.integer("tensor_parallel", 1, kMaxTensorParallel), 1));
  spec.sequence_parallel = value_or(parallelism.boolean("sequence_parallel"), false);
  spec.pipeline_parallel =
      static_cast<int>(value_or(parallelism.integer("pipeline_parallel", 1, kMaxPipelineParallel), 1));
  const std::optional<std::string> schedule =
      parallelism.choice("pipeline_schedule", models::names_of<models::PipelineSchedule>());
  if (schedule) spec.pipeline_schedule = *models::from_name<models::PipelineSchedule>(*schedule);
  spec.virtual_stages = static_cast<int>(value_or(parallelism.integer("virtual_stages", 1, kMaxVirtualStages), 1));
}

namespace {

/// The pipeline checks of check_model_parallel (see the header).
void check_pipeline(MapReader& parallelism, const models::ParallelismSpec& spec, const models::HardwareSpec& hardware,
                    const models::Workload& workload, const models::TrainingSpec* training) {
  const int p = spec.pipeline_parallel;
  const int v = spec.virtual_stages;
  const bool interleaved = spec.pipeline_schedule == models::PipelineSchedule::kInterleavedOneFOneB;
  if (p == 1) {
    for (const char* key : {"pipeline_schedule", "virtual_stages"}) {
      if (parallelism.has(key)) {
        parallelism.error(key, std::string(key) + " applies to pipeline stages, but pipeline_parallel is 1",
                          "; set pipeline_parallel: 2 or more, or remove " + std::string(key));
        return;
      }
    }
    return;
  }
  if (v > 1 && !interleaved) {
    parallelism.error("virtual_stages",
                      "virtual_stages " + std::to_string(v) + " cuts each stage into chunks for the interleaved "
                          "schedule, but pipeline_schedule is " + std::string(models::name_of(spec.pipeline_schedule)),
                      "; set pipeline_schedule: interleaved_1f1b, or remove virtual_stages");
    return;
  }
  if (interleaved && v < 2) {
    // One chunk per stage is the plain 1f1b schedule, with the interleaved one's extra
    // in-flight activations: refused rather than simulated as a slower 1f1b.
    parallelism.error(parallelism.has("virtual_stages") ? "virtual_stages" : "pipeline_schedule",
                      "pipeline_schedule interleaved_1f1b cuts each stage into virtual_stages chunks, but "
                      "virtual_stages is 1 (the 1f1b schedule, with more activation memory)",
                      "; set virtual_stages: 2 or more (dividing the layers per stage), or pipeline_schedule: 1f1b");
    return;
  }
  const std::string p_text = "pipeline_parallel " + std::to_string(p);
  if (workload.family != "transformer_decoder") {
    parallelism.error("pipeline_parallel",
                      p_text + " splits the layers of a transformer decoder, and " + workload.name + " is a " +
                          workload.family,
                      "; use pipeline_parallel: 1 (data parallelism with strategy ddp)");
    return;
  }
  if (spec.strategy != models::ParallelStrategy::kDdp) {
    parallelism.error("pipeline_parallel",
                      p_text + " runs one process per GPU, and strategy is " +
                          std::string(models::name_of(spec.strategy)) +
                          " (supported: tensor x pipeline x DDP data parallelism)",
                      "; set parallelism.strategy: ddp");
    return;
  }
  const int layers = models::decoder_layers(workload);
  const int gpus = hardware.gpus_per_node * hardware.nodes;
  const int gpus_per_tensor_group = gpus / spec.tensor_parallel;
  if (layers % (p * v) != 0) {
    const std::string chunks = v > 1 ? p_text + " x virtual_stages " + std::to_string(v) + " = " +
                                           std::to_string(p * v) + " chunks do not"
                                     : p_text + " does not";
    parallelism.error(v > 1 ? "virtual_stages" : "pipeline_parallel",
                      chunks + " divide the " + std::to_string(layers) + " layers of " + workload.name +
                          " (each stage holds whole layers)",
                      v > 1 ? chunk_fix(layers / std::gcd(layers, p))
                            : "; use pipeline_parallel " + divisors_text(std::gcd(layers, gpus_per_tensor_group)));
    return;
  }
  const int replica = spec.tensor_parallel * p;
  if (gpus % replica != 0) {
    parallelism.error("pipeline_parallel",
                      "tensor_parallel " + std::to_string(spec.tensor_parallel) + " x " + p_text + " = " +
                          std::to_string(replica) + " GPUs per model replica do not divide the " +
                          plural(gpus, "GPU") + " (" + std::to_string(hardware.gpus_per_node) + " per node x " +
                          plural(hardware.nodes, "node") + ")",
                      "; use pipeline_parallel " + divisors_text(std::gcd(layers, gpus_per_tensor_group)) +
                          ", or change hardware.nodes");
    return;
  }
  if (hardware.nodes % p != 0 && p % hardware.nodes != 0) {
    parallelism.error("pipeline_parallel",
                      p_text + ": " + std::to_string(p) + " stages cannot be spread evenly over " + plural(hardware.nodes, "node") +
                          " (stage s runs on node s mod nodes)",
                      "; use a pipeline_parallel that divides or is a multiple of " + std::to_string(hardware.nodes));
    return;
  }
  if (interleaved && training != nullptr && training->gradient_accumulation % p != 0) {
    parallelism.error("pipeline_schedule",
                      "interleaved_1f1b needs the micro-batches (training.gradient_accumulation " +
                          std::to_string(training->gradient_accumulation) + ") to be a multiple of " + p_text,
                      "; set training.gradient_accumulation to a multiple of " + std::to_string(p) +
                          ", or pipeline_schedule: 1f1b");
  }
}

}  // namespace

void check_model_parallel(MapReader& parallelism, const models::ParallelismSpec& spec,
                          const models::HardwareSpec& hardware, const models::Workload& workload,
                          const models::TrainingSpec* training) {
  check_pipeline(parallelism, spec, hardware, workload, training);
  if (spec.sequence_parallel && spec.tensor_parallel == 1) {
    parallelism.error("sequence_parallel",
                      "sequence_parallel splits the norms and dropouts of a tensor-parallel group along the "
                      "sequence, but tensor_parallel is 1",
                      "; set tensor_parallel: 2 or more, or remove sequence_parallel");
  }
  const int t = spec.tensor_parallel;
  if (t == 1) return;
  const std::string t_text = "tensor_parallel " + std::to_string(t);
  if (workload.family != "transformer_decoder") {
    parallelism.error("tensor_parallel",
                      t_text + " splits the blocks of a transformer decoder, and " + workload.name + " is a " +
                          workload.family,
                      "; use tensor_parallel: 1 (data parallelism with strategy ddp)");
    return;
  }
  if (spec.strategy != models::ParallelStrategy::kDdp) {
    parallelism.error("tensor_parallel",
                      t_text + " runs one process per GPU, and strategy is " +
                          std::string(models::name_of(spec.strategy)),
                      "; set parallelism.strategy: ddp");
    return;
  }
  const models::DecoderHeads heads = models::decoder_heads(workload);
  const int node_gpus = hardware.gpus_per_node;
  if (node_gpus % t != 0) {
    parallelism.error("tensor_parallel",
                      t_text + " does not divide the " + std::to_string(node_gpus) +
                          (node_gpus == 1 ? " GPU" : " GPUs") + " per node (a tensor-parallel group stays inside a node)",
                      "; use tensor_parallel " + divisors_text(std::gcd(node_gpus, std::gcd(heads.heads, heads.kv_heads))));
    return;
  }
  if (heads.heads % t != 0 || heads.kv_heads % t != 0) {
    const std::string which = heads.kv_heads == heads.heads
                                  ? std::to_string(heads.heads) + " attention heads"
                                  : std::to_string(heads.heads) + " query and " + std::to_string(heads.kv_heads) +
                                        " key/value heads";
    parallelism.error("tensor_parallel",
                      t_text + " does not divide the " + which + " of " + workload.name +
                          " (each rank computes whole heads)",
                      "; use tensor_parallel " + divisors_text(std::gcd(node_gpus, std::gcd(heads.heads, heads.kv_heads))));
  }
}

}  // namespace gpuplan::config

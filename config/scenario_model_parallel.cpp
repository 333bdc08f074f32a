#include "config/scenario_model_parallel.h"

#include <cmath>
#include <numeric>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include "config/scenario_reading.h"
#include "models/memory/parallel_memory.h"
#include "models/step/pipeline_schedule.h"
#include "models/workload/tensor_parallel_shard.h"

namespace gpuplan::config {
namespace {

/// Tensor-parallel groups larger than any node built (NVL72 racks: 72 GPUs) are typos.
constexpr std::int64_t kMaxTensorParallel = 1024;
/// Pipelines deeper than any published run (Megatron-LM's 1T model: 64 stages) by far are typos.
constexpr std::int64_t kMaxPipelineParallel = 4096;
/// Model chunks per stage beyond the layers any model has are typos.
constexpr std::int64_t kMaxVirtualStages = 1024;
/// Context-parallel groups far beyond published runs (Llama 3 405B's 1M-token stage: CP 16)
/// are typos.
constexpr std::int64_t kMaxContextParallel = 1024;

/// Megatron-Core's names of the flags that count the embedding and the loss as pipeline layers.
constexpr const char* kEmbeddingKey = "account_for_embedding_in_pipeline_split";
constexpr const char* kLossKey = "account_for_loss_in_pipeline_split";

/// "2", "2 or 4", "2, 3 or 6".
std::string values_text(const std::vector<int>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += i + 1 == values.size() ? " or " : ", ";
    text += std::to_string(values[i]);
  }
  return text;
}

}  // namespace

void read_model_parallel(MapReader& parallelism, models::ParallelismSpec& spec) {
  spec.tensor_parallel = static_cast<int>(value_or(parallelism.integer("tensor_parallel", 1, kMaxTensorParallel), 1));
  spec.sequence_parallel = value_or(parallelism.boolean("sequence_parallel"), false);
  spec.async_tensor_parallel = value_or(parallelism.boolean("async_tensor_parallel"), false);
  spec.pipeline_parallel =
      static_cast<int>(value_or(parallelism.integer("pipeline_parallel", 1, kMaxPipelineParallel), 1));
  const std::optional<std::string> schedule =
      parallelism.choice("pipeline_schedule", models::names_of<models::PipelineSchedule>());
  if (schedule) spec.pipeline_schedule = *models::from_name<models::PipelineSchedule>(*schedule);
  spec.virtual_stages = static_cast<int>(value_or(parallelism.integer("virtual_stages", 1, kMaxVirtualStages), 1));
  spec.embedding_in_pipeline_split = value_or(parallelism.boolean(kEmbeddingKey), false);
  spec.loss_in_pipeline_split = value_or(parallelism.boolean(kLossKey), false);
  spec.context_parallel =
      static_cast<int>(value_or(parallelism.integer("context_parallel", 1, kMaxContextParallel), 1));
}

namespace {

/// The fix for `spec`'s layers (`decoder` decoder layers, plus the embedding and loss where
/// counted) that do not split into its pipeline_parallel x virtual_stages chunks of whole
/// layers, two or more a chunk where the embedding or loss counts: the pipeline_parallel values
/// (without virtual stages; each dividing the GPUs of a tensor-parallel group,
/// `gpus_per_tensor_group`) or virtual_stages values that split them, and the settings of
/// Megatron-Core's two flags that make the present sizes split.
std::string pipeline_split_fix(const models::ParallelismSpec& spec, int decoder, int gpus_per_tensor_group) {
  const int p = spec.pipeline_parallel;
  const int v = spec.virtual_stages;
  const int layers = spec.pipeline_split_layers(decoder);
  const bool counted = layers != decoder;
  const auto splits = [&](int n, int chunks, bool flags) { return n % chunks == 0 && (!flags || n / chunks >= 2); };
  std::vector<std::string> fixes;
  std::vector<int> values;
  if (v > 1) {
    for (int c = 2; c <= layers; ++c) {
      if (splits(layers, p * c, counted)) values.push_back(c);
    }
    if (!values.empty()) {
      fixes.push_back("use virtual_stages " + values_text(values));
    } else if (layers % p == 0 && layers / p < 2 * (counted ? 2 : 1)) {
      fixes.push_back("use pipeline_schedule: 1f1b (a stage of " + std::to_string(layers / p) +
                      " layers has nothing to interleave)");
    }
  } else {
    const int limit = std::gcd(layers, gpus_per_tensor_group);
    for (int q = counted ? 2 : 1; q <= limit; ++q) {
      if (limit % q == 0 && splits(layers, q, counted)) values.push_back(q);
    }
    if (!values.empty()) fixes.push_back("use pipeline_parallel " + values_text(values));
  }
  // The flags' other settings, keeping pipeline_parallel and virtual_stages.
  for (const bool embedding : {false, true}) {
    for (const bool loss : {false, true}) {
      if (embedding == spec.embedding_in_pipeline_split && loss == spec.loss_in_pipeline_split) continue;
      const int n = decoder + (embedding ? 1 : 0) + (loss ? 1 : 0);
      if (!splits(n, p * v, embedding || loss)) continue;
      std::vector<std::string> set;
      std::vector<std::string> removed;
      for (const auto& [key, on, was] : {std::tuple{kEmbeddingKey, embedding, spec.embedding_in_pipeline_split},
                                         std::tuple{kLossKey, loss, spec.loss_in_pipeline_split}}) {
        if (on != was) (on ? set : removed).push_back(key);
      }
      const auto joined = [](const std::vector<std::string>& keys) {
        return keys.size() == 2 ? keys[0] + " and " + keys[1] : keys.front();
      };
      std::string change = set.empty() ? "" : "set " + joined(set) + ": true";
      if (!removed.empty()) change += (change.empty() ? "remove " : " and remove ") + joined(removed);
      fixes.push_back(change + " (" +
                      (n == decoder ? "the " + std::to_string(n) + " decoder layers alone"
                                    : std::to_string(n) + " pipeline layers" +
                                          (embedding && loss ? ", as Megatron-Core splits them" : "")) +
                      ")");
    }
  }
  if (fixes.empty()) return "; choose a pipeline_parallel x virtual_stages that divides the " + std::to_string(layers) + " layers";
  std::string text = "; " + fixes.front();
  for (std::size_t i = 1; i < fixes.size(); ++i) text += "; or " + fixes[i];
  return text;
}

/// FSDP and ZeRO under a pipeline (`p_text`: "pipeline_parallel 4"): what gpuplan models is the
/// distributed optimizer's layout that torchtitan's FSDP and DeepSpeed's ZeRO-1 run there
/// (models/memory/distributed_optimizer.h runs_distributed_optimizer). False after an error.
bool check_sharded_pipeline(MapReader& parallelism, const models::ParallelismSpec& spec, const std::string& p_text) {
  const bool fsdp = spec.strategy == models::ParallelStrategy::kFsdp;
  if (!fsdp && spec.strategy != models::ParallelStrategy::kZero) return true;
  const std::string strategy = fsdp ? "fsdp" : "zero";
  if (fsdp && spec.sharding != models::Sharding::kFullShard && spec.sharding != models::Sharding::kShardGradOp) {
    parallelism.error(parallelism.has("sharding") ? "sharding" : "pipeline_parallel",
                      p_text + " with fsdp sharding " + std::string(models::name_of(spec.sharding)) +
                          " is not modelled (under a pipeline FSDP keeps each stage's parameters gathered across "
                          "its micro-batches and shards gradients and optimizer state over the stage's "
                          "data-parallel ranks)",
                      spec.sharding == models::Sharding::kNoShard ? "; set sharding: full_shard, or strategy: ddp"
                                                                  : "; set sharding: full_shard");
    return false;
  }
  if (!fsdp && spec.zero_stage > 1) {  // 0: zero_stage missing, refused where it is read
    parallelism.error("zero_stage",
                      p_text + " with zero_stage " + std::to_string(spec.zero_stage) +
                          ": DeepSpeed's pipeline engine runs ZeRO stage 1 only (\"ZeRO-2 and ZeRO-3 are "
                          "incompatible with pipeline parallelism\")",
                      "; set zero_stage: 1, or strategy: fsdp (torchtitan's FSDP with pipeline parallelism)");
    return false;
  }
  if (spec.optimizer_offload != models::OffloadTarget::kNone || spec.parameter_offload != models::OffloadTarget::kNone) {
    parallelism.error("offload", p_text + " with strategy " + strategy + " and offload is not modelled",
                      "; remove parallelism.offload, or set pipeline_parallel: 1");
    return false;
  }
  if (spec.fp8_all_gather) {
    parallelism.error("fp8_all_gather",
                      "fp8_all_gather casts FSDP's per-layer all-gathers, and under " + p_text +
                          " FSDP gathers each stage's parameters once per step (not modelled in float8)",
                      "; remove fp8_all_gather, or set pipeline_parallel: 1");
    return false;
  }
  return true;
}

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
    // The split flags: true needs stages (false is the default and says nothing); each reported.
    const std::pair<const char*, bool> flags[] = {{kEmbeddingKey, spec.embedding_in_pipeline_split},
                                                  {kLossKey, spec.loss_in_pipeline_split}};
    for (const auto& [key, set] : flags) {
      if (set) {
        parallelism.error(key, std::string(key) + " applies to pipeline stages, but pipeline_parallel is 1",
                          "; set pipeline_parallel: 2 or more, or remove " + std::string(key));
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
  if (!check_sharded_pipeline(parallelism, spec, p_text)) return;
  if (spec.strategy != models::ParallelStrategy::kDdp && spec.strategy != models::ParallelStrategy::kFsdp &&
      spec.strategy != models::ParallelStrategy::kZero) {
    parallelism.error("pipeline_parallel",
                      p_text + " runs one process per GPU, and strategy is " +
                          std::string(models::name_of(spec.strategy)) +
                          " (supported: tensor x pipeline x DDP, FSDP or ZeRO-1 data parallelism)",
                      "; set parallelism.strategy: ddp, fsdp or zero");
    return;
  }
  const int decoder = models::decoder_layers(workload);
  const int layers = spec.pipeline_split_layers(decoder);  // the embedding and loss where counted
  const bool counted = layers != decoder;
  const int gpus = hardware.gpus_per_node * hardware.nodes;
  const int gpus_per_tensor_group = gpus / spec.tensor_parallel;
  const std::string chunks = v > 1 ? p_text + " x virtual_stages " + std::to_string(v) + " = " +
                                         std::to_string(p * v) + " chunks"
                                   : p_text;
  const std::string layers_text =
      counted ? std::to_string(layers) + " pipeline layers of " + workload.name + " (" + std::to_string(decoder) +
                    " decoder layers, " +
                    (spec.embedding_in_pipeline_split && spec.loss_in_pipeline_split ? "the embedding and the loss"
                     : spec.embedding_in_pipeline_split                              ? "the embedding"
                                                                                     : "the loss") +
                    ")"
              : std::to_string(layers) + " layers of " + workload.name;
  if (layers % (p * v) != 0 || (counted && layers / (p * v) < 2)) {
    const bool one_per_chunk = layers % (p * v) == 0;  // counted, and a chunk of only the embedding or loss
    const std::string what = one_per_chunk ? std::string(spec.embedding_in_pipeline_split ? "the embedding's" : "") +
                                                 (spec.embedding_in_pipeline_split && spec.loss_in_pipeline_split
                                                      ? " and the loss's chunks"
                                                  : spec.embedding_in_pipeline_split ? " chunk"
                                                                                     : "the loss's chunk")
                                           : "";
    parallelism.error(v > 1 ? "virtual_stages" : "pipeline_parallel",
                      one_per_chunk ? chunks + " split the " + layers_text + " one per chunk, leaving " + what +
                                          " without a decoder layer"
                                    : chunks + (v > 1 ? " do not" : " does not") + " divide the " + layers_text +
                                          " (each stage holds whole layers)",
                      pipeline_split_fix(spec, decoder, gpus_per_tensor_group));
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
  if (training != nullptr && training->gradient_accumulation > models::kMaxPipelineMicroBatches) {
    parallelism.error("pipeline_parallel",
                      p_text + " plays training.gradient_accumulation " +
                          std::to_string(training->gradient_accumulation) +
                          " micro-batches per step through its schedule, more than the " +
                          std::to_string(models::kMaxPipelineMicroBatches) + " gpuplan simulates",
                      "; lower training.gradient_accumulation to at most " +
                          std::to_string(models::kMaxPipelineMicroBatches) +
                          " (a larger training.batch_size keeps the global batch)");
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

/// Tensor and context parallelism run one process per GPU: strategy ddp, fsdp or zero. `text`
/// names the key and its value ("tensor_parallel 2"). False after an error at `key`.
bool check_process_per_gpu(MapReader& parallelism, const std::string& key, const std::string& text,
                           const models::ParallelismSpec& spec) {
  if (spec.strategy == models::ParallelStrategy::kDdp || spec.strategy == models::ParallelStrategy::kFsdp ||
      spec.strategy == models::ParallelStrategy::kZero) {
    return true;
  }
  parallelism.error(key,
                    text + " runs one process per GPU, and strategy is " + std::string(models::name_of(spec.strategy)),
                    "; set parallelism.strategy: ddp, fsdp or zero");
  return false;
}

/// The context-parallel checks of check_model_parallel (see the header).
void check_context_parallel(MapReader& parallelism, const models::ParallelismSpec& spec,
                            const models::HardwareSpec& hardware, const models::Workload& workload,
                            const models::TrainingSpec* training) {
  const int c = spec.context_parallel;
  if (c == 1) return;
  const std::string c_text = "context_parallel " + std::to_string(c);
  if (workload.family != "transformer_decoder") {
    parallelism.error("context_parallel",
                      c_text + " splits the sequence of a transformer decoder's attention, and " + workload.name +
                          " is a " + workload.family,
                      "; use context_parallel: 1");
    return;
  }
  if (!check_process_per_gpu(parallelism, "context_parallel", c_text, spec)) return;
  if (training != nullptr && training->attention == models::AttentionKernel::kEager) {
    parallelism.error("context_parallel",
                      c_text + " runs ring attention, which needs a fused attention kernel (flash, flash3, "
                               "memory_efficient or flash_triton), and training.attention is eager",
                      "; set training.attention: flash (or sdpa where it resolves to flash), or context_parallel: 1");
    return;
  }
  const long long s = std::llround(workload.tokens_per_sample);
  const int gpus = hardware.gpus_per_node * hardware.nodes;
  // The context_parallel values from 2 to `limit` that split the sequence and fit the GPUs
  // (each stage's tensor_parallel x d GPUs within or over whole nodes, every replica's
  // tensor x pipeline x d dividing them): what a fix may name.
  const auto fitting = [&](int limit) {
    std::string values;
    for (int d = 2; d <= limit && 2LL * d <= s; ++d) {
      const int d_span = spec.tensor_parallel * d;
      const bool d_placed = hardware.gpus_per_node % d_span == 0 || d_span % hardware.gpus_per_node == 0;
      if (s % (2LL * d) == 0 && d_placed && gpus % (d_span * spec.pipeline_parallel) == 0) {
        values += (values.empty() ? "" : ", ") + std::to_string(d);
      }
    }
    return values;
  };
  if (s % (2LL * c) != 0) {
    const std::string fix = fitting(2 * c);
    parallelism.error("context_parallel",
                      c_text + " splits each sequence into " + std::to_string(2 * c) +
                          " chunks (two per rank, balancing the causal mask), but sequence_length " +
                          std::to_string(s) + " is not a multiple of " + std::to_string(2 * c),
                      "; use a sequence_length that is a multiple of " + std::to_string(2 * c) +
                          (fix.empty() ? "" : ", or context_parallel " + fix));
    return;
  }
  const int span = spec.tensor_parallel * c;
  const bool placed = hardware.gpus_per_node % span == 0 || span % hardware.gpus_per_node == 0;
  if (gpus % span != 0 || !placed) {
    parallelism.error("context_parallel",
                      "tensor_parallel " + std::to_string(spec.tensor_parallel) + " x " + c_text + " = " +
                          std::to_string(span) + " GPUs per sequence " +
                          (gpus % span != 0 ? "do not divide the " + plural(gpus, "GPU")
                                            : "neither divide nor fill whole nodes of " +
                                                  plural(hardware.gpus_per_node, "GPU")),
                      "; use a context_parallel that makes tensor_parallel x context_parallel divide " +
                          std::to_string(hardware.gpus_per_node) + " or a multiple of it");
    return;
  }
  const int replica = span * spec.pipeline_parallel;
  if (gpus % replica != 0) {
    // With a pipeline each stage holds tensor_parallel x c GPUs of every model replica.
    const std::string smaller = fitting(c - 1);
    const std::string fix = smaller.empty() ? "1" : "1, " + smaller;
    parallelism.error("context_parallel",
                      "tensor_parallel " + std::to_string(spec.tensor_parallel) + " x pipeline_parallel " +
                          std::to_string(spec.pipeline_parallel) + " x " + c_text + " = " + std::to_string(replica) +
                          " GPUs per model replica do not divide the " + plural(gpus, "GPU") + " (" +
                          std::to_string(hardware.gpus_per_node) + " per node x " + plural(hardware.nodes, "node") + ")",
                      "; use context_parallel " + fix + ", or change hardware.nodes");
  }
}

/// Tensor parallelism over whole nodes (t a multiple of gpus_per_node, the nodes a multiple of
/// t / gpus_per_node), without pipeline stages. False after an error.
bool check_tensor_parallel_nodes(MapReader& parallelism, const models::ParallelismSpec& spec,
                                 const models::HardwareSpec& hardware, const models::DecoderHeads& heads) {
  const int t = spec.tensor_parallel;
  const int node_gpus = hardware.gpus_per_node;
  const std::string t_text = "tensor_parallel " + std::to_string(t);
  const std::string inside = divisors_text(std::gcd(node_gpus, std::gcd(heads.heads, heads.kv_heads)));
  if (t % node_gpus != 0) {
    parallelism.error("tensor_parallel",
                      t_text + " neither divides the " + plural(node_gpus, "GPU") +
                          " per node nor fills whole nodes (a tensor-parallel group is inside a node or spans whole "
                          "nodes)",
                      "; use tensor_parallel " + inside + ", or a multiple of " + std::to_string(node_gpus));
    return false;
  }
  const int span = t / node_gpus;
  if (hardware.nodes % span != 0) {
    parallelism.error("tensor_parallel",
                      t_text + " spans " + std::to_string(span) + " whole nodes of " + plural(node_gpus, "GPU") +
                          ", and " + plural(hardware.nodes, "node") + " is not a multiple of " + std::to_string(span),
                      "; use tensor_parallel " + inside + " (inside a node), hardware.nodes a multiple of " +
                          std::to_string(span) + ", or hardware.gpus_per_node " + std::to_string(t) +
                          " (one group per node)");
    return false;
  }
  if (spec.pipeline_parallel > 1) {
    parallelism.error("tensor_parallel",
                      t_text + " across nodes with pipeline_parallel " + std::to_string(spec.pipeline_parallel) +
                          " is not modelled (stages are placed across nodes)",
                      "; use tensor_parallel " + inside + " with pipeline stages, or pipeline_parallel: 1");
    return false;
  }
  return true;
}

/// FSDP / ZeRO beside tensor parallelism (torchtitan's 2-D FSDP2 + TP): they shard over the
/// data-parallel ranks, GPUs / tensor_parallel (hybrid_shard: those of one node), so there
/// must be two of them. False after an error.
bool check_sharded_tensor_parallel(MapReader& parallelism, const models::ParallelismSpec& spec,
                                   const models::HardwareSpec& hardware) {
  const bool fsdp = spec.strategy == models::ParallelStrategy::kFsdp;
  if (!fsdp && spec.strategy != models::ParallelStrategy::kZero) return true;
  const int t = spec.tensor_parallel;
  const int gpus = hardware.gpus_per_node * hardware.nodes;
  const std::string strategy(models::name_of(spec.strategy));
  if (gpus / t < 2) {
    parallelism.error("tensor_parallel",
                      "strategy " + strategy + " shards over the data-parallel ranks, but tensor_parallel " +
                          std::to_string(t) + " on " + plural(gpus, "GPU") + " leaves 1",
                      "; use strategy: ddp, or a tensor_parallel that leaves 2 or more data-parallel ranks (" +
                          divisors_text(gpus / 2) + ")");
    return false;
  }
  if (fsdp && spec.sharding == models::Sharding::kHybridShard && hardware.gpus_per_node / t < 2) {
    parallelism.error("tensor_parallel",
                      "sharding hybrid_shard shards within a node, but tensor_parallel " + std::to_string(t) +
                          " fills the node's " + plural(hardware.gpus_per_node, "GPU") +
                          " (one data-parallel rank per node)",
                      "; use sharding: full_shard (shards across the nodes), or a smaller tensor_parallel");
    return false;
  }
  return true;
}

}  // namespace

void check_model_parallel(MapReader& parallelism, const models::ParallelismSpec& spec,
                          const models::HardwareSpec& hardware, const models::Workload& workload,
                          const models::TrainingSpec* training) {
  check_pipeline(parallelism, spec, hardware, workload, training);
  check_context_parallel(parallelism, spec, hardware, workload, training);
  if (spec.sequence_parallel && spec.tensor_parallel == 1) {
    parallelism.error("sequence_parallel",
                      "sequence_parallel splits the norms and dropouts of a tensor-parallel group along the "
                      "sequence, but tensor_parallel is 1",
                      "; set tensor_parallel: 2 or more, or remove sequence_parallel");
  }
  if (spec.async_tensor_parallel && !spec.sequence_parallel) {
    parallelism.error("async_tensor_parallel",
                      "async_tensor_parallel overlaps the all-gathers and reduce-scatters of sequence parallelism "
                      "with the GEMMs they feed, but sequence_parallel is false",
                      "; set sequence_parallel: true, or remove async_tensor_parallel");
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
  if (!check_process_per_gpu(parallelism, "tensor_parallel", t_text, spec)) return;
  if (!check_sharded_tensor_parallel(parallelism, spec, hardware)) return;
  const models::DecoderHeads heads = models::decoder_heads(workload);
  const int node_gpus = hardware.gpus_per_node;
  if (node_gpus % t != 0 && !check_tensor_parallel_nodes(parallelism, spec, hardware, heads)) return;
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

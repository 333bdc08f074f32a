#include "models/memory/parallel_memory.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "models/memory/distributed_optimizer.h"
#include "models/memory/optimizer_state.h"
#include "models/memory/sharding.h"
#include "models/workload/context_parallel_shard.h"
#include "models/workload/moe_expert_shard.h"
#include "models/workload/tensor_parallel_shard.h"

namespace gpuplan::models {

double model_output_elements_per_sample(const Workload& workload) {
  double elements = 0.0;
  for (const Op& op : workload.ops) {
    if (op.name.ends_with("loss")) elements += op.input_elements;
  }
  return elements;
}

namespace {

/// True when rank_workload(job) is job.workload unchanged: one tensor-, context- and
/// expert-parallel rank (experts evenly loaded) and no pipeline.
bool rank_holds_model(const JobSpec& job) {
  const ParallelismSpec& p = job.parallelism;
  return p.tensor_parallel == 1 && p.context_parallel == 1 && p.expert_parallel == 1 &&
         p.expert_load_imbalance >= 1.0 && p.pipeline_parallel <= 1;
}

}  // namespace

Workload rank_workload(const JobSpec& job) {
  // One copy of the op table: each shard below returns its input unchanged at one rank (and
  // throws for fewer), so it runs only where it changes something (or must throw).
  Workload rank =
      tensor_parallel_rank_workload(job.workload, job.parallelism.tensor_parallel, job.parallelism.sequence_parallel);
  if (job.parallelism.context_parallel != 1) {
    rank = context_parallel_rank_workload(rank, job.parallelism.context_parallel);
  }
  if (job.parallelism.expert_parallel != 1 || !(job.parallelism.expert_load_imbalance >= 1.0)) {
    rank = expert_parallel_rank_workload(rank, job.parallelism.expert_parallel, job.parallelism.expert_load_imbalance);
  }
  if (job.parallelism.pipeline_parallel > 1) {
    // A tied LM head is on another stage than the embedding: it keeps its own copy of the
    // word embedding (Megatron-LM's word_embeddings on the last stage), with its gradient and
    // optimizer state. The all-reduce that keeps the two copies equal is not modelled.
    double embedding_parameters = -1.0;
    bool tied_head = false;
    for (const Op& op : rank.ops) {
      if (op.name == "embed.tokens") embedding_parameters = op.parameters;
      tied_head = tied_head || (op.name == "lm_head" && op.parameters == 0.0);
    }
    // Edited only where a tied head is there (the edit copies a table shared with the job).
    if (tied_head && embedding_parameters >= 0.0) {
      for (Op& op : rank.ops.edit()) {
        if (op.name == "lm_head" && op.parameters == 0.0) {
          op.parameters = embedding_parameters;
          rank.parameters += op.parameters;
        }
      }
    }
  }
  return rank;
}

namespace {

/// The rank's op table of `job`: `known` when the caller has built it (rank_workload(job)),
/// else built once into `storage` on first use.
class RankOps {
 public:
  RankOps(const JobSpec& job, const Workload* known) : job_(job), known_(known) {}
  const Workload& get() {
    if (known_ == nullptr) known_ = &storage_.emplace(rank_workload(job_));
    return *known_;
  }

 private:
  const JobSpec& job_;
  const Workload* known_;
  std::optional<Workload> storage_;
};

/// data_parallel_memory_bytes, with the rank's op table from `rank_ops`.
double data_parallel_memory_bytes(const JobSpec& job, RankOps& rank_ops) {
  // One GPU holds nothing of these (each case below gives 0), but for an offloading FSDP or
  // ZeRO job: its units are copied in from the host and held as gathered ones.
  const int gpus = job.hardware.gpus_per_node * job.hardware.nodes;
  switch (job.parallelism.strategy) {
    case ParallelStrategy::kNone: return 0.0;
    case ParallelStrategy::kDdp:
      return job.parallelism.gradient_ranks(gpus) > 1 ? rank_ops.get().parameters * 4.0 : 0.0;
    case ParallelStrategy::kDataParallel: {
      const double others = job.hardware.gpus_per_node - 1;
      const double outputs = model_output_elements_per_sample(job.workload) * 4.0 * job.training.batch_size;
      return others * (outputs + kDataParallelReduceBufferBytes);
    }
    case ParallelStrategy::kFsdp:
    case ParallelStrategy::kZero: {
      const ShardingLayout l = sharding_layout(job);
      if (!l.parameters) {
        return l.optimizer_state ? kZeroBucketsInFlight * job.parallelism.bucket_bytes : 0.0;
      }
      // With tensor parallelism the units are the rank's shards of them.
      const Workload& rank = rank_ops.get();
      double largest = 0.0;
      double largest_gathered = 0.0;
      double all_gathered = 0.0;
      for (const ShardUnit& u : shard_units(rank)) {
        largest = std::max(largest, u.parameters);
        const double bytes = gathered_unit_bytes(rank, u, job.training.precision, job.parallelism.fp8_all_gather);
        largest_gathered = std::max(largest_gathered, bytes);
        all_gathered += bytes;
      }
      const double held = l.reshard_after_forward ? kFsdpUnitsInFlight * largest_gathered : all_gathered;
      return held + largest * parameter_element_bytes(job.training.precision);
    }
  }
  return 0.0;
}

/// per_gpu_memory, with the rank's op table from `rank_ops`.
MemoryBreakdown per_gpu_memory(const JobSpec& job, const MemoryBreakdown& one_gpu, RankOps& rank_ops) {
  MemoryBreakdown m = one_gpu;
  m.data_parallel_bytes = data_parallel_memory_bytes(job, rank_ops);
  const ShardingLayout l = sharding_layout(job);
  const double shards = l.shard_ranks;
  const Workload no_ops;
  const Workload& rank = l.sharded_strategy ? rank_ops.get() : no_ops;
  const Precision precision = job.training.precision;
  if (l.parameters) {
    // FSDP / ZeRO-3: the parameter shards at rest, the gathered units reported on their own
    // (gathered_bytes); no autocast copies beside the gathered units.
    m.weights_bytes = (one_gpu.weights_bytes - autocast_weight_copy_bytes(rank, precision)) / shards;
    m.gathered_bytes = m.data_parallel_bytes;
    m.data_parallel_bytes = 0.0;
  }
  if (l.gradients) {
    m.gradients_bytes /= shards;
  }
  if (l.optimizer_state) {
    m.optimizer_state_bytes = optimizer_state_bytes(rank, job.training) / shards;
  }
  // The trained parameters at the compute width and the frozen base (sharded with the
  // parameters): what stays on the GPU where the fp32 master weights live elsewhere.
  const double module_bytes =
      (rank.parameters * gathered_parameter_element_bytes(precision) + rank.frozen_weight_bytes()) /
      (l.parameters ? shards : 1.0);
  if (zero_keeps_master_in_optimizer(job)) {
    // DeepSpeed's mixed precision: the fp32 master weights in the optimizer's partition.
    m.weights_bytes = module_bytes;
    m.optimizer_state_bytes += rank.parameters * parameter_element_bytes(precision) / shards;
  }
  if (l.optimizer_offload != OffloadTarget::kNone) {
    // The state and the fp32 master weights leave the GPU; it keeps the parameters at the
    // compute width (ZeRO-Offload, Ren et al. 2021, sec. 4.1: fp16 parameters on the GPU,
    // fp32 parameters and moments on the CPU), sharded as before; the frozen base stays.
    m.weights_bytes = module_bytes;
    m.optimizer_state_bytes = 0.0;
    if (l.gradients) {
      // The gradient partitions go with the optimizer (ZeRO-Offload, sec. 4.1: gradients are
      // offloaded to the CPU; DeepSpeed allocates grad_partitions_flat_buffer on the
      // optimizer's device; FSDP's CPUOffload moves the sharded gradients to the CPU). What is
      // in flight to them stays on the GPU and is counted where it was: ZeRO-2's reduce
      // buckets in data_parallel_bytes, a sharded unit's gradient before its reduce-scatter in
      // gathered_bytes (data_parallel_memory_bytes).
      m.gradients_bytes = 0.0;
    }
  }
  // The parameter shard lives on the host; the gathered units in flight stay (gathered_bytes).
  if (l.parameter_offload != OffloadTarget::kNone) m.weights_bytes = 0.0;
  return m;
}

}  // namespace

double offloaded_host_bytes_per_node(const JobSpec& job) {
  const ShardingLayout l = sharding_layout(job);
  const bool optimizer = l.optimizer_offload == OffloadTarget::kCpu;
  const bool parameters = l.parameter_offload == OffloadTarget::kCpu;
  if (!optimizer && !parameters) return 0.0;
  const Workload rank = rank_workload(job);
  const Precision precision = job.training.precision;
  const double shards = std::max(1, l.shard_ranks);
  double bytes = 0.0;
  if (optimizer) {
    const double master_and_gradient = 2.0 * parameter_element_bytes(precision);
    bytes += (rank.parameters * master_and_gradient + optimizer_state_bytes(rank, job.training)) / shards;
  }
  if (parameters) {
    bytes += (rank.parameters * gathered_parameter_element_bytes(precision) + rank.frozen_weight_bytes()) / shards;
  }
  return bytes * job.hardware.gpus_per_node;
}

double data_parallel_memory_bytes(const JobSpec& job) {
  RankOps rank_ops(job, nullptr);
  return data_parallel_memory_bytes(job, rank_ops);
}

MemoryBreakdown per_gpu_memory(const JobSpec& job, const MemoryBreakdown& one_gpu) {
  RankOps rank_ops(job, nullptr);
  return per_gpu_memory(job, one_gpu, rank_ops);
}

bool zero_keeps_master_in_optimizer(const JobSpec& job) {
  return job.parallelism.strategy == ParallelStrategy::kZero && is_mixed(job.training.precision) &&
         sharding_layout(job).optimizer_state;
}

namespace {

/// The saved bytes per sample of the largest checkpointed block of `workload`: the
/// activations footprint.h adds once for the block being recomputed (one micro-batch's).
double recompute_buffer_bytes_per_sample(const Workload& workload, const TrainingSpec& training) {
  const std::vector<double> saved = saved_bytes_per_sample(workload, training);
  std::map<std::string_view, double> block_saved;  // views into the ops' names
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const Op& op = workload.ops[i];
    if (!(training.activation_checkpointing || op.checkpointed)) continue;
    const std::string_view block = block_view(op);
    if (!block.empty()) block_saved[block] += saved[i];
  }
  double largest = 0.0;
  for (const auto& entry : block_saved) largest = std::max(largest, entry.second);
  return largest;
}

/// N of an op named `layers.N.…`; -1 for any other op.
int layer_of(const Op& op) {
  constexpr std::string_view kPrefix = "layers.";
  if (!op.name.starts_with(kPrefix)) return -1;
  const std::size_t dot = op.name.find('.', kPrefix.size());
  if (dot == std::string::npos) return -1;
  // from_chars, not std::stoi of a substring: this runs for every op of every layout a plan sizes.
  int layer = 0;
  const char* first = op.name.data() + kPrefix.size();
  if (std::from_chars(first, op.name.data() + dot, layer).ptr == first) {
    throw std::invalid_argument("layer_of: no layer number in op name '" + op.name + "'");
  }
  return layer;
}

}  // namespace

int decoder_layers(const Workload& workload) {
  int layers = 0;
  for (const Op& op : workload.ops) layers = std::max(layers, layer_of(op) + 1);
  return layers;
}

std::vector<int> pipeline_chunk_of_ops(const Workload& workload, const ParallelismSpec& parallelism) {
  const int chunks = parallelism.pipeline_parallel * parallelism.virtual_stages;
  if (chunks < 1) throw std::invalid_argument("pipeline_chunk_of_ops: chunks must be at least 1");
  const int layers = decoder_layers(workload);
  const int split = parallelism.pipeline_split_layers(layers);
  if (split % chunks != 0) {
    throw std::invalid_argument("pipeline_chunk_of_ops: " + std::to_string(split) + " layers are not a multiple of " +
                                std::to_string(chunks) + " chunks");
  }
  const int per_chunk = split / chunks;
  const int first = parallelism.embedding_in_pipeline_split ? 1 : 0;  // the embedding's place
  std::vector<int> chunk(workload.ops.size(), 0);
  bool after_blocks = false;
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const int layer = layer_of(workload.ops[i]);
    if (layer >= 0) {
      chunk[i] = (layer + first) / per_chunk;
      after_blocks = layer + 1 == layers;
    } else {
      chunk[i] = after_blocks ? chunks - 1 : 0;
    }
  }
  return chunk;
}

bool pipeline_stage_runs_chunk(int chunk, int stage, int p) { return chunk % p == stage; }

namespace {

/// pipeline_stage_workload with the chunk of each op (pipeline_chunk_of_ops) given, so that a
/// caller visiting every stage finds the chunks once.
Workload stage_workload(const Workload& workload, const std::vector<int>& chunk, int p, int stage) {
  // Every field but the op table, which gets the stage's ops only (not a copy of all of them
  // cleared again).
  Workload part;
  part.name = workload.name;
  part.family = workload.family;
  part.tokens_per_sample = workload.tokens_per_sample;
  part.is_language_model = workload.is_language_model;
  part.input_bytes_per_sample = workload.input_bytes_per_sample;
  part.parameters = 0.0;
  part.frozen_parameters = 0.0;
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    if (!pipeline_stage_runs_chunk(chunk[i], stage, p)) continue;
    part.ops.push_back(workload.ops[i]);
    part.parameters += workload.ops[i].parameters;
    part.frozen_parameters += workload.ops[i].frozen_parameters;
  }
  return part;
}

}  // namespace

Workload pipeline_stage_workload(const Workload& workload, const ParallelismSpec& parallelism, int stage) {
  const int p = parallelism.pipeline_parallel;
  if (p <= 1) return workload;
  return stage_workload(workload, pipeline_chunk_of_ops(workload, parallelism), p, stage);
}

double pipeline_activation_micro_batches(const ParallelismSpec& parallelism, int micro_batches, int stage) {
  const int p = parallelism.pipeline_parallel;
  const int m = micro_batches;
  switch (parallelism.pipeline_schedule) {
    case PipelineSchedule::kGpipe: return m;
    case PipelineSchedule::kOneFOneB: return std::min(p - stage, m);
    case PipelineSchedule::kInterleavedOneFOneB: {
      const int v = parallelism.virtual_stages;
      const int chunks = std::min((p - stage - 1) * 2 + (v - 1) * p + 1, m * v);
      return static_cast<double>(chunks) / v;
    }
  }
  return m;
}

namespace {

/// True where the parameters' gradients are not yet allocated when the loss's backward runs:
/// optimizer.zero_grad() sets them to None (PyTorch 2.0's default, set_to_none=True) and no
/// earlier micro-batch of the step has made them, and no persistent gradient buffer holds them
/// (DeepSpeed's partitions, FSDP's sharded gradients: kept as live).
bool gradients_unallocated_at_loss_backward(const JobSpec& job) {
  const ParallelStrategy s = job.parallelism.strategy;
  return job.training.gradient_accumulation == 1 &&
         (s == ParallelStrategy::kNone || s == ParallelStrategy::kDdp || s == ParallelStrategy::kDataParallel);
}

/// Two phases of the step can hold more than the footprint's sum (which is the backward
/// through the body: every saved activation, gradient and state), and the peak is the larger
/// of them, counted as workspace:
/// - the loss's backward, first of the backward: its transients
///   (loss_backward_transient_bytes_per_sample x micro-batch) beside every saved activation,
///   with the gradients not yet allocated (gradients_unallocated_at_loss_backward) and no
///   block yet recomputed (`recompute_bytes`, the footprint's one recomputed block);
/// - the optimizer step, after backward has freed the activations (and the gathered units of
///   sharded data parallelism): its temporaries (optimizer_step_temporary_bytes).
void add_phase_peaks(const JobSpec& job, const Workload& ops, double recompute_bytes, MemoryBreakdown& m) {
  const double not_yet = (gradients_unallocated_at_loss_backward(job) ? m.gradients_bytes : 0.0) + recompute_bytes;
  const double loss_backward =
      loss_backward_transient_bytes_per_sample(ops, job.training) * job.training.batch_size - not_yet;
  const double freed = m.activations_bytes + m.allocator_slack_bytes + m.gathered_bytes;
  const double optimizer_step = optimizer_step_temporary_bytes(job, m.optimizer_state_bytes) - freed;
  const double excess = std::max({0.0, loss_backward, optimizer_step});
  m.workspace_bytes += excess;
  m.loss_backward_excess_bytes = loss_backward > 0.0 && loss_backward >= optimizer_step ? excess : 0.0;
}

}  // namespace

MemoryBreakdown rank_memory(const JobSpec& job, const MemoryModelParams& params, int* worst_stage) {
  std::optional<Workload> sharded;  // the model itself needs no copy
  const Workload& rank = rank_holds_model(job) ? job.workload : sharded.emplace(rank_workload(job));
  if (worst_stage != nullptr) *worst_stage = 0;
  const int p = job.parallelism.pipeline_parallel;
  if (p <= 1) {
    RankOps rank_ops(job, &rank);
    MemoryBreakdown m = per_gpu_memory(job, training_memory(rank, job.training, params), rank_ops);
    apply_distributed_optimizer(job, rank, m);
    add_phase_peaks(job, rank, recompute_buffer_bytes_per_sample(rank, job.training) * job.training.batch_size, m);
    return m;
  }
  const int gpus = job.hardware.gpus_per_node * job.hardware.nodes;
  const bool buckets = job.parallelism.strategy == ParallelStrategy::kDdp && job.parallelism.gradient_ranks(gpus) > 1;
  MemoryBreakdown worst;
  const std::vector<int> chunk = pipeline_chunk_of_ops(rank, job.parallelism);
  for (int s = 0; s < p; ++s) {
    const Workload stage = stage_workload(rank, chunk, p, s);
    MemoryBreakdown m = training_memory(stage, job.training, params);
    const double held = pipeline_activation_micro_batches(job.parallelism, job.training.gradient_accumulation, s);
    // The saved activations of `held` micro-batches; the block being recomputed is one's.
    const double recompute = recompute_buffer_bytes_per_sample(stage, job.training) * job.training.batch_size;
    const double one = m.activations_bytes;
    m.activations_bytes = (one - recompute) * held + recompute;
    m.allocator_slack_bytes *= one > 0.0 ? m.activations_bytes / one : 1.0;
    m.data_parallel_bytes = buckets ? stage.parameters * 4.0 : 0.0;  // DDP's fp32 bucket copy of the stage's gradients
    apply_distributed_optimizer(job, stage, m);
    add_phase_peaks(job, stage, recompute, m);
    if (s == 0 || m.total_bytes() > worst.total_bytes()) {
      worst = m;
      if (worst_stage != nullptr) *worst_stage = s;
    }
  }
  return worst;
}

}  // namespace gpuplan::models

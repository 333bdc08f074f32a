#pragma once
/// \file layout_search.h
/// The parallel layouts `gpuplan plan` tries on each instance type and node count (issue 12
/// item 6): data-parallel strategy (DDP, FSDP full_shard / hybrid_shard / shard_grad_op,
/// ZeRO stages 1-3), tensor parallelism within a node, pipeline parallelism (stages dividing
/// the layers, 1F1B; under DDP, FSDP full_shard / shard_grad_op or ZeRO-1), context
/// parallelism (ring attention over a decoder's sequence), expert parallelism for a
/// mixture-of-experts model, per-GPU micro-batch and gradient accumulation that keep the
/// scenario's global batch, and activation recomputation. Pure: no catalog, no simulation.
///
/// A layout is written into the scenario as config overrides (Layout::overrides), validated
/// by config::VariantValidator, the path strategies and the advisor's remedies take
/// (config::with_overrides is one call of it).
///
/// Adding a parallelism dimension (as pipeline_parallel was) is one list (like
/// kPipelineParallelSizes) and one validity rule (in enumerate_layouts), plus its override in
/// Layout::overrides.

#include <cstddef>
#include <string>
#include <vector>

#include "models/results.h"
#include "models/step/pipeline_schedule.h"

namespace gpuplan::cli {

/// One data-parallel choice: `parallelism.strategy` with its sharding (fsdp) or stage (zero).
struct DataParallelChoice {
  std::string strategy;  ///< none | ddp | fsdp | zero
  std::string sharding;  ///< fsdp: full_shard | hybrid_shard | shard_grad_op; else empty
  int zero_stage = 0;    ///< zero: 1-3; else 0
};

/// The data-parallel choices on more than one GPU, in output order.
inline const std::vector<DataParallelChoice> kDataParallelChoices = {
    {"ddp", "", 0},  {"fsdp", "full_shard", 0}, {"fsdp", "hybrid_shard", 0}, {"fsdp", "shard_grad_op", 0},
    {"zero", "", 1}, {"zero", "", 2},           {"zero", "", 3}};

/// Tensor-parallel sizes tried (each must divide the node's GPUs and the heads; Megatron-LM
/// keeps a group inside a node's NVLink domain, Narayanan et al. 2021 section 3.3).
inline const std::vector<int> kTensorParallelSizes = {1, 2, 4, 8};

/// Pipeline-parallel sizes tried (parallelism.pipeline_parallel; each must divide the
/// decoder's layers, and only beside strategy ddp or fsdp full_shard without offload: of what
/// config/scenario_model_parallel.cpp check_sharded_pipeline accepts, fsdp shard_grad_op and
/// zero stage 1 run there as the same jobs as those two (the distributed optimizer's layout,
/// models/memory/distributed_optimizer.h runs_distributed_optimizer) and are not simulated again). With powers of two for
/// both the stage count and the node count, one always divides the other, as that file also
/// requires.
inline const std::vector<int> kPipelineParallelSizes = {1, 2, 4, 8, 16};

/// Model chunks per pipeline stage tried (parallelism.virtual_stages): 1 runs 1F1B, 2 Megatron's
/// interleaved 1F1B (Narayanan et al. 2021 section 2.2.2: the bubble halved for twice the
/// point-to-point sends). 2 only where it divides the layers per stage and the micro-batches are
/// a multiple of the stages (Megatron-LM's rule, config/scenario_model_parallel.cpp). More
/// chunks are not tried: a bound on effort.
inline const std::vector<int> kVirtualStageChoices = {1, 2};

/// Context-parallel sizes tried (parallelism.context_parallel: ring attention, each of c GPUs
/// holding s / c tokens of every sequence; Megatron-Core's CP, torchtitan's context_parallel).
/// Only for a transformer decoder with a fused attention kernel, where 2c divides the
/// sequence (two chunks per rank balance the causal mask), tensor_parallel x c GPUs divide or
/// fill whole nodes and tensor x pipeline x context parallel divide the GPUs: the rules of
/// config/scenario_model_parallel.cpp check_context_parallel; and where each rank keeps at
/// least kMinContextParallelTokens. 8 is a bound on effort (Llama 3 405B's long-context stage
/// ran CP 16 at 128 K tokens, beyond the sequences planned here).
inline const std::vector<int> kContextParallelSizes = {1, 2, 4, 8};

/// The fewest tokens of each sequence a context-parallel rank keeps (sequence_tokens /
/// context_parallel) in a layout tried: a bound on effort, not a validity rule. NeMo's and
/// Megatron-Bridge's 8 K-token pretraining recipes (Llama 3 8B, 70B, 405B) run CP 2, 4,096
/// tokens a rank, and long-context runs keep more; shorter chunks leave each rank's attention
/// a small share of its step beside ring exchanges it cannot hide, and would multiply the
/// candidates of every short-sequence plan (GPT-2's 1,024 tokens) by up to four.
inline constexpr long long kMinContextParallelTokens = 4096;

/// Expert-parallel sizes tried for a mixture-of-experts model (parallelism.expert_parallel; Lepikhin
/// et al. 2021, GShard; Megatron-Core's expert parallelism): each must divide the routed experts
/// and the data-parallel ranks, and divide or be a multiple of the node's GPUs, under strategy ddp
/// only (the rules of config/scenario_expert_parallel.cpp). 64 is DeepSeek-V3's EP (DeepSeek-AI
/// 2024, sec. 3.4); a dense model runs 1.
inline const std::vector<int> kExpertParallelSizes = {1, 2, 4, 8, 16, 32, 64};

/// Per-GPU micro-batches tried (samples); each must divide the data-parallel rank's share of
/// the global batch.
inline const std::vector<int> kMicroBatchSizes = {1, 2, 4, 8, 16, 32};

/// `training.activation_checkpointing` values tried: none, selective (attention's score
/// chain, Korthikanti et al. 2022), full (every block).
inline const std::vector<std::string> kRecomputeChoices = {"false", "selective", "full"};

/// CPU offload of the sharded training state (parallelism.offload) in a layout.
enum class Offload {
  kNone,
  /// optimizer: cpu. ZeRO-Offload (Ren et al. 2021): the optimizer states, the fp32 master
  /// weights and the optimizer step on the host (zero 1-3).
  kOptimizer,
  /// optimizer: cpu and parameters: cpu. FSDP's CPUOffload(offload_params=True) (full_shard,
  /// hybrid_shard), or ZeRO-Infinity's parameter offload to the CPU (zero 3).
  kOptimizerAndParameters,
};

/// The offloads `dp` offers beyond none (config/scenario_parallelism.cpp's rules): zero 1-2
/// the optimizer's; zero 3 that or both; fsdp full_shard / hybrid_shard both together (FSDP
/// has no optimizer-only offload); none for ddp, shard_grad_op and one GPU. NVMe is not tried.
std::vector<Offload> offload_choices(const DataParallelChoice& dp);


/// One layout on `nodes` x `gpus_per_node` GPUs.
struct Layout {
  DataParallelChoice data_parallel;
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  /// GPUs each sequence is split over (parallelism.context_parallel; 1: none). The
  /// data-parallel replicas are the GPUs / (tensor x pipeline x context parallel); gradients
  /// reduce over the replicas x context_parallel.
  int context_parallel = 1;
  int micro_batch = 1;            ///< samples per GPU per micro-step (training.batch_size)
  int gradient_accumulation = 1;  ///< micro-steps per optimizer step
  std::string recompute = "false";
  int virtual_stages = 1;  ///< model chunks per pipeline stage: 2 or more runs interleaved 1F1B
  /// Ranks the routed experts are split over (1: every rank holds every expert).
  int expert_parallel = 1;
  /// The model has routed experts: the layout writes parallelism.expert_parallel, and removes
  /// the scenario's expert_load_imbalance where expert_parallel is 1 (it needs 2 or more). A
  /// dense model's layout leaves both keys alone.
  bool mixture_of_experts = false;
  /// Where the scenario's load imbalance exceeds expert_parallel (above it cannot be: all of
  /// the tokens on one rank is expert_parallel x the mean), the layout writes the cap,
  /// expert_parallel, as parallelism.expert_load_imbalance; 0 where it does not.
  int expert_load_imbalance_cap = 0;
  /// CPU offload. enumerate_layouts yields kNone only: the planner tries offload_choices()
  /// where no layout of an instance type and node count fits in GPU memory without them
  /// (cli/plan_search.cpp), as offload trades step time for memory.
  Offload offload = Offload::kNone;

  /// "1f1b" or "interleaved_1f1b" (the models/step/pipeline_schedule.h names); meaningful
  /// where pipeline_parallel > 1.
  std::string pipeline_schedule() const { return virtual_stages > 1 ? "interleaved_1f1b" : "1f1b"; }

  /// True where tensor_parallel > 1: a tensor-parallel layout runs with sequence parallelism,
  /// as Megatron-LM's and NeMo's recipes do (Korthikanti et al. 2022: the same communication
  /// volume as the all-reduces it replaces, the norms' and dropouts' activations and work split
  /// tensor_parallel ways). The one rule of the search's parallelism.sequence_parallel.
  bool sequence_parallel() const { return tensor_parallel > 1; }
  /// True where the layout is Megatron's: ddp beside any model parallelism (tensor, pipeline,
  /// context or expert parallel > 1). It runs Megatron's distributed optimizer, as
  /// Megatron-LM's, NeMo's and Megatron-Bridge's recipes do (--use-distributed-optimizer):
  /// the optimizer state and fp32 main parameters sharded over the data x context parallel
  /// ranks, gradients reduce-scattered and parameters all-gathered once per step, the same bus
  /// volume as DDP's all-reduce. The validator accepts it beside strategy ddp whatever the
  /// parallelism (config/scenario_parallelism.cpp). Beside expert parallelism the experts'
  /// state splits over the ranks holding the same experts
  /// (models/memory/distributed_optimizer.h expert_data_parallel_shard_ranks); it is on there even without tensor or pipeline
  /// parallelism, since expert parallelism is Megatron-Core's and its MoE recipes (Mixtral,
  /// DeepSeek-V3, GPT-OSS in Megatron-Bridge) all pass --use-distributed-optimizer; likewise
  /// context parallelism over ddp. Plain ddp stays PyTorch DDP (no distributed optimizer):
  /// sharding its state is what zero-1 and fsdp are tried for. FSDP and ZeRO shard the states
  /// themselves (beside tensor parallelism as torchtitan's 2-D FSDP2 + TP does; under a
  /// pipeline they run the distributed optimizer's layout without this key). The one rule of
  /// the search's parallelism.distributed_optimizer.
  bool distributed_optimizer() const {
    return data_parallel.strategy == "ddp" &&
           (tensor_parallel > 1 || pipeline_parallel > 1 || context_parallel > 1 || expert_parallel > 1);
  }

  /// The scenario overrides that write this layout (values as YAML scalar text); keys the
  /// layout does not use are removed ("~"), so a scenario's own sharding or zero_stage does
  /// not clash with another strategy.
  std::vector<models::ScenarioOverride> overrides() const;
  /// "fsdp/full_shard", "zero-2", "ddp": the data-parallel part for tables.
  std::string data_parallel_label() const;
  /// "none", "optimizer" or "optimizer+parameters": the offload for tables.
  std::string offload_label() const;
};

/// The offloading layouts tried for `layout` where nothing fits without offload: one per
/// offload_choices of its strategy; on one GPU (strategy none) ZeRO-3 with each of its
/// offloads, ZeRO-Offload's single-GPU case (Ren et al. 2021). None for a pipeline layout
/// (config/scenario_model_parallel.cpp refuses offload under pipeline_parallel > 1).
std::vector<Layout> offloaded_layouts(const Layout& layout);

/// What the enumeration needs to know of the job and the hardware.
/// The most micro-batches per optimizer step (gradient accumulation) a planned layout may
/// take: the most a pipeline's schedule is played with (models::kMaxPipelineMicroBatches),
/// applied to every layout. A bound on effort, not a model parameter: a scenario at 100,000
/// nodes kept a global batch of 6.4 M sequences, which one node would have run as 800,000
/// micro-batches, gigabytes per pipeline layout. It is four times the 70 B pretraining plan's
/// largest (1,024 sequences on one tensor-parallel rank of micro-batch 1).
inline constexpr long long kPlanMaxAccumulation = models::kMaxPipelineMicroBatches;

struct LayoutProblem {
  int gpus_per_node = 1;
  int nodes = 1;
  int heads = 0;     ///< attention heads (0: not a transformer; tensor_parallel stays 1)
  int kv_heads = 0;  ///< key/value heads (grouped-query attention); 0 = heads
  int layers = 0;    ///< decoder blocks (for the pipeline rule)
  /// Routed experts per MoE layer (models::routed_experts); 0 for a dense model. A model with
  /// experts runs tensor_parallel 1 (tensor parallelism does not split experts here) and tries
  /// kExpertParallelSizes.
  int experts = 0;
  /// The scenario's parallelism.expert_load_imbalance (1: balanced). An expert-parallel size
  /// below it gets it capped at the size (Layout::expert_load_imbalance_cap).
  double expert_load_imbalance = 1.0;
  /// Selective recomputation applies: the job runs eager attention, whose saved scores it
  /// recomputes (config/scenario_recompute.cpp refuses it beside a fused kernel, which saves
  /// none). False: "selective" is not tried.
  bool selective_recompute = true;
  /// Tokens per sample of a transformer decoder (workload.sequence_length), for the
  /// context-parallel rules (2 x context_parallel divides it, kMinContextParallelTokens per
  /// rank); 0: context_parallel stays 1.
  long long sequence_tokens = 0;
  /// The job's attention runs a fused kernel (flash, flash3, memory_efficient, flash_triton;
  /// sdpa as the scenario's GPU resolved it): ring attention needs one. False: context_parallel
  /// stays 1. Another GPU may resolve sdpa otherwise: validation has the last word.
  bool fused_attention = false;
  /// Samples per optimizer step to keep (the scenario's batch_size x accumulation x
  /// data-parallel ranks); every layout's micro_batch x accumulation x ranks equals it.
  long long global_batch_samples = 1;
};

/// Every valid layout of `problem`, in a fixed order (data-parallel choice, tensor parallel,
/// pipeline parallel, context parallel, micro-batch, virtual stages, expert parallel,
/// recomputation). On one GPU the strategy is none. Rules:
/// tensor_parallel divides gpus_per_node, heads and kv_heads, under ddp or beside FSDP / ZeRO
/// sharding the remaining data-parallel ranks (torchtitan's 2-D layout; hybrid_shard keeps 2+
/// of them in a node: config/scenario_model_parallel.cpp); pipeline_parallel divides the layers,
/// needs strategy ddp, fsdp full_shard / shard_grad_op or zero-1, and runs 1F1B, or
/// interleaved 1F1B with kVirtualStageChoices' chunks where they
/// divide the layers per stage and the accumulation is a multiple of the stages (a scenario's
/// own pipeline_schedule and virtual_stages are removed, since they may not suit another stage
/// count); context_parallel follows kContextParallelSizes' rules; a sharded strategy needs 2+
/// ranks to shard over (GPUs / (tensor x pipeline parallel), context-parallel ranks included);
/// hybrid_shard needs 2+ nodes (on one it is full_shard); the data-parallel replicas (GPUs /
/// (tensor x pipeline x context parallel)) divide the global batch and the micro-batch divides
/// each replica's share. A mixture-of-experts model runs
/// tensor_parallel 1 and expert_parallel from kExpertParallelSizes (above 1 under ddp only, with
/// its rules there).
/// Layouts whose step needs more micro-batches than `kPlanMaxAccumulation` are not tried, and
/// with `over_accumulation` their parallel-size and micro-batch choices are counted there.
std::vector<Layout> enumerate_layouts(const LayoutProblem& problem, std::size_t* over_accumulation = nullptr);

}  // namespace gpuplan::cli

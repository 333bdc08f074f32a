#include "cli/layout_search.h"

#include <string>

namespace gpuplan::cli {

std::vector<models::ScenarioOverride> Layout::overrides() const {
  std::vector<models::ScenarioOverride> o;
  o.push_back({"parallelism.strategy", data_parallel.strategy});
  o.push_back({"parallelism.sharding", data_parallel.sharding.empty() ? "~" : data_parallel.sharding});
  o.push_back({"parallelism.zero_stage", data_parallel.zero_stage == 0 ? "~" : std::to_string(data_parallel.zero_stage)});
  o.push_back({"parallelism.tensor_parallel", std::to_string(tensor_parallel)});
  o.push_back({"parallelism.sequence_parallel", sequence_parallel() ? "true" : "~"});
  o.push_back({"parallelism.distributed_optimizer", distributed_optimizer() ? "true" : "~"});
  o.push_back({"parallelism.pipeline_parallel", std::to_string(pipeline_parallel)});
  o.push_back({"parallelism.pipeline_schedule", virtual_stages > 1 ? pipeline_schedule() : "~"});
  o.push_back({"parallelism.virtual_stages", virtual_stages > 1 ? std::to_string(virtual_stages) : "~"});
  o.push_back({"parallelism.context_parallel", std::to_string(context_parallel)});
  o.push_back({"training.batch_size", std::to_string(micro_batch)});
  o.push_back({"training.gradient_accumulation", std::to_string(gradient_accumulation)});
  o.push_back({"training.activation_checkpointing", recompute});
  // The scenario's own offload is replaced too: ddp has none to offload.
  if (offload == Offload::kNone) {
    o.push_back({"parallelism.offload", "~"});
  } else {
    o.push_back({"parallelism.offload.optimizer", "cpu"});
    o.push_back({"parallelism.offload.parameters", offload == Offload::kOptimizerAndParameters ? "cpu" : "none"});
  }
  if (mixture_of_experts) {
    o.push_back({"parallelism.expert_parallel", std::to_string(expert_parallel)});
    if (expert_parallel == 1) o.push_back({"parallelism.expert_load_imbalance", "~"});
    if (expert_load_imbalance_cap > 0) {
      o.push_back({"parallelism.expert_load_imbalance", std::to_string(expert_load_imbalance_cap)});
    }
  }
  return o;
}

std::string Layout::data_parallel_label() const {
  if (data_parallel.strategy == "fsdp") return "fsdp/" + data_parallel.sharding;
  if (data_parallel.strategy == "zero") return "zero-" + std::to_string(data_parallel.zero_stage);
  return data_parallel.strategy;
}

std::string Layout::offload_label() const {
  switch (offload) {
    case Offload::kNone: return "none";
    case Offload::kOptimizer: return "optimizer";
    case Offload::kOptimizerAndParameters: return "optimizer+parameters";
  }
  return "none";
}

std::vector<Offload> offload_choices(const DataParallelChoice& dp) {
  if (dp.strategy == "zero") {
    if (dp.zero_stage == 3) return {Offload::kOptimizer, Offload::kOptimizerAndParameters};
    return {Offload::kOptimizer};
  }
  if (dp.strategy == "fsdp" && (dp.sharding == "full_shard" || dp.sharding == "hybrid_shard")) {
    return {Offload::kOptimizerAndParameters};
  }
  return {};
}

std::vector<Layout> offloaded_layouts(const Layout& layout) {
  if (layout.pipeline_parallel > 1) return {};
  Layout base = layout;
  if (base.data_parallel.strategy == "none") base.data_parallel = {"zero", "", 3};
  std::vector<Layout> out;
  for (const Offload offload : offload_choices(base.data_parallel)) {
    Layout l = base;
    l.offload = offload;
    out.push_back(l);
  }
  return out;
}

namespace {

/// The expert-parallel sizes valid for a layout with `ranks` data-parallel ranks under `dp`
/// (the rules of config/scenario_expert_parallel.cpp): {1} for a dense model.
std::vector<int> expert_parallel_sizes(const LayoutProblem& problem, const DataParallelChoice& dp, int ranks) {
  if (problem.experts <= 0) return {1};
  std::vector<int> out;
  for (const int e : kExpertParallelSizes) {
    if (e > 1 && (dp.strategy != "ddp" || problem.experts % e != 0 || ranks % e != 0 ||
                  (problem.gpus_per_node % e != 0 && e % problem.gpus_per_node != 0))) {
      continue;
    }
    out.push_back(e);
  }
  return out;
}

/// Whether the search tries `dp` under pipeline_parallel > 1: ddp (with Megatron's distributed
/// optimizer) and fsdp full_shard. The validator also accepts fsdp shard_grad_op and zero stage 1
/// there (config/scenario_model_parallel.cpp check_sharded_pipeline), but under a pipeline both
/// run as the distributed optimizer's layout (models/memory/distributed_optimizer.h
/// runs_distributed_optimizer): shard_grad_op the same job as full_shard, zero-1 the same as ddp
/// with the distributed optimizer, to the event (tests/models/memory/distributed_optimizer_step_test.cpp),
/// so simulating them would repeat those jobs (2.2-2.7x the plan's search time, 2026-12-07).
bool runs_under_pipeline(const DataParallelChoice& dp) {
  return dp.strategy == "ddp" || (dp.strategy == "fsdp" && dp.sharding == "full_shard");
}

/// Whether context_parallel `cp` > 1 beside tensor_parallel `tp` and pipeline_parallel `pp` is
/// valid for `problem` (config/scenario_model_parallel.cpp check_context_parallel; every
/// strategy on 2+ GPUs runs one process per GPU, as it requires) and keeps
/// kMinContextParallelTokens a rank.
bool context_parallel_fits(const LayoutProblem& problem, int tp, int pp, int cp) {
  const int gpus = problem.gpus_per_node * problem.nodes;
  const int span = tp * cp;  // GPUs per sequence in one stage
  return problem.fused_attention && problem.sequence_tokens >= kMinContextParallelTokens * cp &&
         problem.sequence_tokens % (2LL * cp) == 0 &&
         (problem.gpus_per_node % span == 0 || span % problem.gpus_per_node == 0) && gpus % (span * pp) == 0;
}

}  // namespace

std::vector<Layout> enumerate_layouts(const LayoutProblem& problem, std::size_t* over_accumulation) {
  std::vector<Layout> out;
  const int gpus = problem.gpus_per_node * problem.nodes;
  const std::vector<DataParallelChoice> one_gpu = {{"none", "", 0}};
  const std::vector<DataParallelChoice>& choices = gpus == 1 ? one_gpu : kDataParallelChoices;
  const int kv_heads = problem.kv_heads > 0 ? problem.kv_heads : problem.heads;
  for (const DataParallelChoice& dp_choice : choices) {
    if (dp_choice.sharding == "hybrid_shard" && problem.nodes < 2) continue;
    for (const int tp : kTensorParallelSizes) {
      if (tp > 1 && (problem.heads == 0 || problem.experts > 0 || problem.gpus_per_node % tp != 0 || problem.heads % tp != 0 ||
                     kv_heads % tp != 0)) {
        continue;
      }
      // hybrid_shard shards within a node: tensor parallelism must leave two ranks there (the
      // validator's rule, config/scenario_model_parallel.cpp; without TP it is not asked).
      if (tp > 1 && dp_choice.sharding == "hybrid_shard" && problem.gpus_per_node / tp < 2) continue;
      for (const int pp : kPipelineParallelSizes) {
        if (pp > 1 && (!runs_under_pipeline(dp_choice) || problem.layers == 0 || problem.layers % pp != 0)) continue;
        if (gpus % (tp * pp) != 0) continue;
        const bool sharded = dp_choice.strategy == "fsdp" || dp_choice.strategy == "zero";
        // FSDP and ZeRO shard over the data x context parallel ranks.
        if (sharded && gpus / (tp * pp) < 2) continue;
        for (const int cp : kContextParallelSizes) {
          if (cp > 1 && !context_parallel_fits(problem, tp, pp, cp)) continue;
          const int ranks = gpus / (tp * pp * cp);  // data-parallel replicas
          if (problem.global_batch_samples % ranks != 0) continue;
          const long long per_rank = problem.global_batch_samples / ranks;
          for (const int micro : kMicroBatchSizes) {
            if (per_rank % micro != 0) continue;
            const long long accumulation = per_rank / micro;
            if (accumulation > kPlanMaxAccumulation) {
              if (over_accumulation != nullptr) ++*over_accumulation;
              continue;
            }
            for (const int chunks : kVirtualStageChoices) {
              if (chunks > 1 && (pp == 1 || problem.layers % (pp * chunks) != 0 || accumulation % pp != 0)) continue;
              for (const int ep : expert_parallel_sizes(problem, dp_choice, ranks)) {
                for (const std::string& recompute : kRecomputeChoices) {
                  if (recompute == "selective" && !problem.selective_recompute) continue;
                  Layout l;
                  l.data_parallel = dp_choice;
                  l.tensor_parallel = tp;
                  l.pipeline_parallel = pp;
                  l.context_parallel = cp;
                  l.micro_batch = micro;
                  l.gradient_accumulation = static_cast<int>(accumulation);
                  l.recompute = recompute;
                  l.virtual_stages = chunks;
                  l.expert_parallel = ep;
                  l.mixture_of_experts = problem.experts > 0;
                  if (ep > 1 && problem.expert_load_imbalance > ep) l.expert_load_imbalance_cap = ep;
                  out.push_back(l);
                }
              }
            }
          }
        }
      }
    }
  }
  return out;
}

}  // namespace gpuplan::cli

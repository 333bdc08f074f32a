#include "config/scenario_parallelism.h"

#include <utility>
#include <vector>

#include "config/scenario_expert_parallel.h"
#include "config/scenario_model_parallel.h"
#include "config/scenario_reading.h"
#include "core/units.h"

namespace gpuplan::config {
namespace {

/// Names other tools give the strategies (folded as for config::ChoiceAlias: lower case, no
/// '-', '_', '.' or spaces), for "did you mean": DeepSpeed is ZeRO; PyTorch's
/// DistributedDataParallel and FullyShardedDataParallel (FSDP2's fully_shard), Lightning's
/// ddp_spawn, Accelerate's MULTI_GPU.
const std::vector<ChoiceAlias> kStrategyAliases = {
    {"deepspeed", "zero"},   {"distributeddataparallel", "ddp"}, {"ddpspawn", "ddp"}, {"multigpu", "ddp"},
    {"fullyshardeddataparallel", "fsdp"}, {"fullyshard", "fsdp"}, {"fsdp2", "fsdp"}};

/// DistributedDataParallel bucket_cap_mb=25 (PyTorch docs), i.e. 25 MiB.
constexpr double kDefaultBucketMebibytes = 25.0;
/// torch.distributed.fsdp.FullyShardedDataParallel's default sharding_strategy (PyTorch docs).
constexpr models::Sharding kDefaultSharding = models::Sharding::kFullShard;

std::string strategy_text(const models::ParallelismSpec& spec) { return std::string(models::name_of(spec.strategy)); }

/// The storage class (catalogs/storage.yaml) that is an NVMe SSD of the node.
constexpr const char* kNvmeStorageClass = "nvme_ssd";

/// Whether PyTorch FSDP offers the offload `opt` / `par` (at least one of them not none); an
/// error at `o`'s key when not. FSDP's one offload is CPUOffload(offload_params=True)
/// (torch.distributed.fsdp.CPUOffload; FSDP2's CPUOffloadPolicy likewise): the parameter
/// shards and their gradients live in host memory and the optimizer steps there, all
/// together; there is no optimizer-only or parameter-only offload and no NVMe.
bool fsdp_offload_offered(MapReader& o, models::OffloadTarget opt, models::OffloadTarget par) {
  const models::OffloadTarget nvme = models::OffloadTarget::kNvme;
  if (opt == nvme || par == nvme) {
    o.error(opt == nvme ? "optimizer" : "parameters",
            "FSDP offloads to host memory only (CPUOffload), not to NVMe",
            "; use cpu, or strategy: zero with zero_stage: 3 (ZeRO-Infinity offloads to NVMe)");
    return false;
  }
  if (opt != par) {
    o.error(opt == models::OffloadTarget::kNone ? "parameters" : "optimizer",
            "FSDP's CPUOffload(offload_params=True) moves the parameters, their gradients and the optimizer step "
            "to the host together; it has no " +
                std::string(opt == models::OffloadTarget::kNone ? "parameter" : "optimizer") + "-only offload",
            "; set both optimizer: cpu and parameters: cpu, or use strategy: zero (ZeRO-Offload moves the optimizer "
            "alone)");
    return false;
  }
  return true;
}

/// Reads `parallelism.offload` into `section.spec` and refuses it where the strategy has no
/// sharded state to offload: `strategy_valid` false when the strategy is an invalid name
/// (already an error).
void read_offload(ParallelismSection& section, bool strategy_valid) {
  if (!section.offload) return;
  MapReader& o = *section.offload;
  const std::vector<std::string_view> targets = models::names_of<models::OffloadTarget>();
  const std::optional<std::string> optimizer = o.choice("optimizer", targets);
  const std::optional<std::string> parameters = o.choice("parameters", targets);
  o.finish();
  models::ParallelismSpec& spec = section.spec;
  const models::ParallelStrategy s = spec.strategy;
  const auto target = [](const std::optional<std::string>& name) {
    return name ? *models::from_name<models::OffloadTarget>(*name) : models::OffloadTarget::kNone;
  };
  const models::OffloadTarget opt = target(optimizer);
  const models::OffloadTarget par = target(parameters);
  if (opt == models::OffloadTarget::kNone && par == models::OffloadTarget::kNone) return;
  if (s != models::ParallelStrategy::kFsdp && s != models::ParallelStrategy::kZero) {
    if (strategy_valid) {
      o.error(opt != models::OffloadTarget::kNone ? "optimizer" : "parameters",
              "offload moves sharded training state off the GPU, which strategy " + strategy_text(spec) +
                  " does not shard",
              "; use strategy: zero (ZeRO-Offload) or fsdp (CPUOffload), or remove parallelism.offload");
    }
    return;
  }
  if (s == models::ParallelStrategy::kFsdp && !fsdp_offload_offered(o, opt, par)) return;
  spec.optimizer_offload = opt;
  if (par == models::OffloadTarget::kNone) return;
  const bool sharded_parameters =
      (s == models::ParallelStrategy::kFsdp &&
       (spec.sharding == models::Sharding::kFullShard || spec.sharding == models::Sharding::kHybridShard)) ||
      (s == models::ParallelStrategy::kZero && spec.zero_stage == 3);
  if (!sharded_parameters) {
    const std::string what = s == models::ParallelStrategy::kFsdp
                                 ? "fsdp with sharding " + std::string(models::name_of(spec.sharding))
                                 : "zero with zero_stage " + std::to_string(spec.zero_stage);
    o.error("parameters", "parameter offload keeps the parameter shards off the GPU between units, but " + what +
                              " keeps whole parameters on the GPU",
            "; use sharding: full_shard or hybrid_shard (fsdp) or zero_stage: 3, or set parameters: none");
    return;
  }
  spec.parameter_offload = par;
}

}  // namespace

ParallelismSection read_parallelism_section(MapReader& root) {
  ParallelismSection section;
  section.spec.bucket_bytes = core::mebibytes(kDefaultBucketMebibytes);
  if (!root.has("parallelism")) {
    root.declare({"parallelism"});
    return section;
  }
  section.reader = root.map("parallelism");
  if (!section.reader) return section;
  MapReader& p = *section.reader;
  const std::optional<std::string> strategy =
      p.choice("strategy", models::names_of<models::ParallelStrategy>(), Requirement::kOptional, kStrategyAliases);
  section.strategy_written = strategy.has_value();
  if (strategy) section.spec.strategy = *models::from_name<models::ParallelStrategy>(*strategy);
  section.spec.bucket_bytes = value_or(p.quantity("bucket_size", core::Dimension::kBytes), section.spec.bucket_bytes);
  const std::optional<std::string> sharding = p.choice("sharding", models::names_of<models::Sharding>());
  const std::optional<std::int64_t> stage = p.integer("zero_stage", 1, 3);
  const std::optional<bool> fp8_all_gather = p.boolean("fp8_all_gather");
  const std::optional<bool> distributed_optimizer = p.boolean("distributed_optimizer");
  const std::optional<bool> grad_reduce_in_fp32 = p.boolean("grad_reduce_in_fp32");
  const std::optional<bool> overlap_param_gather = p.boolean("overlap_param_gather");
  if (p.has("offload")) section.offload = p.map("offload");
  read_model_parallel(p, section.spec);  // tensor_parallel, sequence_parallel
  read_expert_parallel(p, section.spec);  // expert_parallel, expert_load_imbalance
  p.finish();
  const models::ParallelStrategy s = section.spec.strategy;
  const bool strategy_valid = strategy.has_value() || !p.has("strategy");
  if (sharding && s == models::ParallelStrategy::kFsdp) {
    section.spec.sharding = *models::from_name<models::Sharding>(*sharding);
  } else if (sharding && strategy_valid) {
    p.error("sharding", "sharding applies to strategy fsdp, but the strategy is " + strategy_text(section.spec),
            "; set parallelism.strategy: fsdp, or remove sharding");
  }
  if (!sharding && s == models::ParallelStrategy::kFsdp) section.spec.sharding = kDefaultSharding;
  if (stage && s == models::ParallelStrategy::kZero) {
    section.spec.zero_stage = static_cast<int>(*stage);
  } else if (stage && *stage == 3 && s == models::ParallelStrategy::kDataParallel) {
    p.error("zero_stage",
            "zero_stage 3 shards the parameters over the training processes, but data_parallel "
            "runs one process",
            "; use strategy: zero (or fsdp, whose full_shard is ZeRO-3)");
  } else if (stage && strategy_valid) {
    p.error("zero_stage", "zero_stage applies to strategy zero, but the strategy is " + strategy_text(section.spec),
            "; set parallelism.strategy: zero, or remove zero_stage");
  }
  if (s == models::ParallelStrategy::kZero && !p.has("zero_stage")) {
    missing_key(p, "zero_stage", "; add zero_stage: 1 (optimizer state), 2 (and gradients) or 3 (and parameters)");
  }
  if (value_or(fp8_all_gather, false)) {
    // The per-unit parameter all-gathers exist with FSDP (not no_shard) and ZeRO-3 only.
    const bool gathers = (s == models::ParallelStrategy::kFsdp && section.spec.sharding != models::Sharding::kNoShard) ||
                         (s == models::ParallelStrategy::kZero && section.spec.zero_stage == 3);
    if (gathers) {
      section.spec.fp8_all_gather = true;
    } else if (strategy_valid) {
      const std::string what = s == models::ParallelStrategy::kFsdp ? "fsdp with sharding no_shard"
                               : s == models::ParallelStrategy::kZero
                                   ? "zero with zero_stage " + std::to_string(section.spec.zero_stage)
                                   : "strategy " + strategy_text(section.spec);
      p.error("fp8_all_gather", "fp8_all_gather casts the per-layer parameter all-gathers, which " + what + " does not run",
              "; use strategy: fsdp (full_shard, shard_grad_op or hybrid_shard) or zero with zero_stage: 3, or "
              "remove fp8_all_gather");
    }
  }
  if (value_or(distributed_optimizer, false)) {
    // Megatron's distributed optimizer belongs to its DDP; ZeRO-1 and FSDP shard the state themselves.
    if (s == models::ParallelStrategy::kDdp) {
      section.spec.distributed_optimizer = true;
    } else if (strategy_valid) {
      p.error("distributed_optimizer",
              "distributed_optimizer is Megatron's sharding of the optimizer state over the ranks of strategy ddp, "
              "but the strategy is " +
                  strategy_text(section.spec),
              "; set parallelism.strategy: ddp, or remove distributed_optimizer (zero_stage 1 and fsdp shard the "
              "optimizer state already)");
    }
  }
  if (grad_reduce_in_fp32 && section.spec.distributed_optimizer) {
    section.spec.grad_reduce_in_fp32 = grad_reduce_in_fp32;
  } else if (grad_reduce_in_fp32 && strategy_valid && !value_or(distributed_optimizer, false)) {
    p.error("grad_reduce_in_fp32",
            "grad_reduce_in_fp32 sets the width of Megatron's main grads, which gpuplan models with "
            "distributed_optimizer only, which this scenario does not set",
            "; add parallelism.distributed_optimizer: true (with strategy ddp), or remove grad_reduce_in_fp32");
  }
  if (value_or(overlap_param_gather, false) && section.spec.distributed_optimizer) {
    section.spec.overlap_param_gather = true;
  } else if (value_or(overlap_param_gather, false) && strategy_valid && !value_or(distributed_optimizer, false)) {
    p.error("overlap_param_gather",
            "overlap_param_gather hides the distributed optimizer's parameter all-gather behind the next forward, "
            "and distributed_optimizer is not set",
            "; add parallelism.distributed_optimizer: true (with strategy ddp), or remove overlap_param_gather");
  }
  read_offload(section, strategy_valid);
  return section;
}

void check_parallelism(const ParallelismSection& parallelism, const HardwareSection& hardware,
                       const CloudSection& cloud) {
  if (!hardware.spec) return;
  const models::HardwareSpec& hw = *hardware.spec;
  const int total_gpus = hw.gpus_per_node * hw.nodes;
  const std::string gpus_text = plural(total_gpus, "GPU") + " (" + std::to_string(hw.gpus_per_node) + " per node x " +
                                plural(hw.nodes, "node") + ")";
  const models::ParallelStrategy s = parallelism.spec.strategy;
  if (total_gpus > 1 && !parallelism.strategy_written) {
    if (parallelism.reader && parallelism.reader->has("strategy")) return;  // an invalid name, already an error
    const std::string problem = gpus_text + " need a parallel strategy";
    const std::string fix = "; add parallelism.strategy: ddp (or data_parallel on one node)";
    if (hardware.explicit_gpus_per_node && hw.gpus_per_node > 1) {
      hardware.reader->error("gpus_per_node", problem, fix);
    } else if (hardware.explicit_nodes && hw.nodes > 1) {
      hardware.reader->error("nodes", problem, fix);
    } else if (cloud.reader) {
      cloud.reader->error("instance", problem, fix);
    }
    return;
  }
  if (!parallelism.strategy_written) return;
  const MapReader& p = *parallelism.reader;
  const models::ParallelismSpec& spec = parallelism.spec;
  if (parallelism.offload && hw.storage.name != kNvmeStorageClass) {
    const std::string has = hw.storage.name.empty() ? "no storage" : "storage '" + hw.storage.name + "'";
    for (const auto& [key, target] : {std::pair{"optimizer", spec.optimizer_offload},
                                      std::pair{"parameters", spec.parameter_offload}}) {
      if (target != models::OffloadTarget::kNvme) continue;
      parallelism.offload->error(key, std::string("offload to nvme needs an NVMe SSD in the node, but it has ") + has,
                                 std::string("; set hardware.storage: ") + kNvmeStorageClass +
                                     " (the storage catalog's NVMe class), or offload to cpu");
    }
  }
  if (total_gpus > 1 && s == models::ParallelStrategy::kNone) {
    p.error("strategy", "strategy none trains on one GPU, but the hardware has " + gpus_text,
            std::string("; use ddp, or set ") +
                (hw.gpus_per_node > 1 && hw.nodes > 1 ? "hardware.gpus_per_node: 1 and hardware.nodes: 1"
                 : hw.nodes > 1                       ? "hardware.nodes: 1"
                                                      : "hardware.gpus_per_node: 1"));
  }
  if (s == models::ParallelStrategy::kDataParallel && hw.nodes > 1) {
    p.error("strategy",
            "data_parallel runs in one process on one node, but the hardware has " + plural(hw.nodes, "node"),
            "; use ddp");
  }
  // On one GPU FSDP and ZeRO shard nothing, but they offload: ZeRO-Offload's single-GPU case
  // (Ren et al. 2021, a 13 B model on one V100), as DeepSpeed and FSDP(CPUOffload) run it.
  const bool offloads = spec.optimizer_offload != models::OffloadTarget::kNone ||
                        spec.parameter_offload != models::OffloadTarget::kNone;
  if (total_gpus == 1 && !offloads &&
      (s == models::ParallelStrategy::kFsdp || s == models::ParallelStrategy::kZero)) {
    p.error("strategy",
            strategy_text(parallelism.spec) +
                " shards the training state over several GPUs, but the "
                "hardware has 1 GPU",
            "; write parallelism.strategy: none (or remove parallelism) for one GPU, offload to the CPU "
            "(parallelism.offload, as ZeRO-Offload does on one GPU), or set hardware.gpus_per_node to the GPUs to "
            "shard over");
  }
}

}  // namespace gpuplan::config

#include "config/scenario_expert_parallel.h"

#include <limits>
#include <numeric>
#include <string>

#include "config/scenario_reading.h"
#include "models/workload/architecture_reader.h"
#include "models/workload/moe_expert_shard.h"

namespace gpuplan::config {
namespace {

/// Expert-parallel groups larger than any published run (DeepSeek-V3: EP 64; GB200 NVL72
/// benchmarks: EP 64) by far are typos.
constexpr std::int64_t kMaxExpertParallel = 4096;

}  // namespace

void read_expert_parallel(MapReader& parallelism, models::ParallelismSpec& spec) {
  spec.expert_parallel = static_cast<int>(value_or(parallelism.integer("expert_parallel", 1, kMaxExpertParallel), 1));
  // Any finite number: check_expert_parallel bounds it by 1 and expert_parallel, the range
  // that applies and that its fix names.
  spec.expert_load_imbalance =
      value_or(parallelism.number("expert_load_imbalance", std::numeric_limits<double>::lowest(),
                                  std::numeric_limits<double>::max()),
               1.0);
}

void check_expert_parallel(MapReader& parallelism, const models::ParallelismSpec& spec,
                           const models::HardwareSpec& hardware, const models::Workload& workload) {
  const double experts = models::routed_experts(workload);
  const int e = spec.expert_parallel;
  if (experts > 0.0 && spec.tensor_parallel > 1) {
    parallelism.error("tensor_parallel",
                      "tensor_parallel " + std::to_string(spec.tensor_parallel) + " splits dense blocks, but " +
                          workload.name + " has experts, which tensor parallelism does not split here",
                      "; set tensor_parallel: 1 and split the experts with expert_parallel");
    return;
  }
  if (e == 1) {
    // 1, the default (perfect balance), is what one rank has: accepted, so that a strategy can
    // write it over a base scenario's imbalance.
    if (parallelism.has("expert_load_imbalance") && spec.expert_load_imbalance != 1.0) {
      if (experts == 0.0) {
        parallelism.error("expert_load_imbalance",
                          "expert_load_imbalance is the busiest expert-parallel rank's tokens over the mean, and " +
                              workload.name + " has no experts",
                          "; remove expert_load_imbalance (a strategy's ~ removes it), or use a model with experts");
      } else {
        parallelism.error("expert_load_imbalance",
                          "expert_load_imbalance is the busiest expert-parallel rank's tokens over the mean, but "
                          "expert_parallel is 1",
                          "; set expert_parallel: 2 or more, or expert_load_imbalance: 1 (a strategy's ~ removes it)");
      }
    }
    return;
  }
  const std::string e_text = "expert_parallel " + std::to_string(e);
  if (experts == 0.0) {
    parallelism.error(
        "expert_parallel",
        e_text + " splits the routed experts of a mixture-of-experts model, and " + workload.name + " has none",
        "; use expert_parallel: 1, or a model with experts (workload.model experts and "
        "experts_per_token)");
    return;
  }
  if (spec.strategy != models::ParallelStrategy::kDdp) {
    parallelism.error("expert_parallel",
                      e_text + " splits the experts over DDP's data-parallel ranks, and strategy is " +
                          std::string(models::name_of(spec.strategy)) +
                          " (supported: expert x pipeline x DDP data parallelism)",
                      "; set parallelism.strategy: ddp");
    return;
  }
  const int gpus = hardware.gpus_per_node * hardware.nodes;
  const int data_parallel = spec.data_parallel_size(gpus);
  const int experts_count = static_cast<int>(experts);
  const int fitting = std::gcd(experts_count, data_parallel);
  if (experts_count % e != 0) {
    parallelism.error("expert_parallel",
                      e_text + " does not divide the " + std::to_string(experts_count) + " experts of " +
                          workload.name + " (each rank holds whole experts)",
                      "; use expert_parallel " + divisors_text(fitting));
    return;
  }
  if (data_parallel % e != 0) {
    parallelism.error("expert_parallel",
                      e_text + " does not divide the " + std::to_string(data_parallel) +
                          " data-parallel ranks (expert-parallel groups lie within them)",
                      "; use expert_parallel " + divisors_text(fitting));
    return;
  }
  const int node_gpus = hardware.gpus_per_node;
  if (node_gpus % e != 0 && e % node_gpus != 0) {
    parallelism.error("expert_parallel",
                      e_text + " neither divides nor is a multiple of the " + std::to_string(node_gpus) +
                          " GPUs per node (a group lies inside one node or spans whole nodes)",
                      "; use expert_parallel " + divisors_text(std::gcd(fitting, node_gpus)) +
                          " or a multiple of " + std::to_string(node_gpus));
    return;
  }
  if (spec.expert_load_imbalance > e) {
    parallelism.error("expert_load_imbalance",
                      "expert_load_imbalance " + models::format_architecture_value(spec.expert_load_imbalance) +
                          " exceeds " + e_text + " (the busiest rank receives at most every token)",
                      "; use 1 (perfect balance) to " + std::to_string(e));
  } else if (spec.expert_load_imbalance < 1.0) {
    parallelism.error("expert_load_imbalance",
                      "expert_load_imbalance " + models::format_architecture_value(spec.expert_load_imbalance) +
                          " is below 1 (the busiest rank's tokens over the mean are at least the mean)",
                      "; use 1 (perfect balance) to " + std::to_string(e));
  }
}

}  // namespace gpuplan::config

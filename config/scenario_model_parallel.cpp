#include "config/scenario_model_parallel.h"

#include <numeric>
#include <string>
#include <vector>

#include "config/scenario_reading.h"
#include "models/workload/tensor_parallel_shard.h"

namespace gpuplan::config {
namespace {

/// Tensor-parallel groups larger than any node built (NVL72 racks: 72 GPUs) are typos.
constexpr std::int64_t kMaxTensorParallel = 1024;

/// "1, 2, 4 or 8": the divisors of n.
std::string divisors_text(int n) {
  std::vector<int> divisors;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) divisors.push_back(d);
  }
  std::string text;
  for (std::size_t i = 0; i < divisors.size(); ++i) {
    if (i > 0) text += i + 1 == divisors.size() ? " or " : ", ";
    text += std::to_string(divisors[i]);
  }
  return text;
}

}  // namespace

void read_model_parallel(MapReader& parallelism, models::ParallelismSpec& spec) {
  spec.tensor_parallel = static_cast<int>(value_or(parallelism.integer("tensor_parallel", 1, kMaxTensorParallel), 1));
  spec.sequence_parallel = value_or(parallelism.boolean("sequence_parallel"), false);
}

void check_model_parallel(MapReader& parallelism, const models::ParallelismSpec& spec,
                          const models::HardwareSpec& hardware, const models::Workload& workload) {
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

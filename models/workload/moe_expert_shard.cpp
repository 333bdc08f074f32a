#include "models/workload/moe_expert_shard.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gpuplan::models {

double routed_experts(const Workload& workload) {
  for (const Op& op : workload.ops) {
    if (op.experts > 0.0) return op.experts;
  }
  return 0.0;
}

Workload expert_parallel_rank_workload(const Workload& workload, int expert_parallel, double load_imbalance) {
  if (expert_parallel < 1 || !(load_imbalance >= 1.0)) {
    throw std::invalid_argument("expert_parallel_rank_workload: " + std::to_string(expert_parallel) +
                                " ranks, imbalance " + std::to_string(load_imbalance) +
                                "; expected at least 1 and at least 1");
  }
  if (expert_parallel == 1) return workload;
  const double e = expert_parallel;
  Workload rank = workload;
  rank.parameters = 0.0;
  rank.frozen_parameters = 0.0;
  for (Op& op : rank.ops.edit()) {
    if (op.experts > 0.0) {
      if (std::fmod(op.experts, e) != 0.0) {
        throw std::invalid_argument("expert_parallel_rank_workload: " + std::to_string(expert_parallel) +
                                    " ranks do not divide the " + std::to_string(op.experts) + " experts of " +
                                    op.name);
      }
      op.experts /= e;
      op.parameters /= e;
      op.frozen_parameters /= e;
      // Per-weight work (a QLoRA base's dequantization): the rank's experts' matrices only.
      op.pass_bytes /= e;
      if (op.pass_bytes > 0.0) op.forward_kernels /= expert_parallel;
    }
    if (op.routed_tokens) {
      op.forward_flop *= load_imbalance;
      op.input_elements *= load_imbalance;
      op.output_elements *= load_imbalance;
      op.saved_elements *= load_imbalance;
    }
    rank.parameters += op.parameters;
    rank.frozen_parameters += op.frozen_parameters;
  }
  return rank;
}

}  // namespace gpuplan::models

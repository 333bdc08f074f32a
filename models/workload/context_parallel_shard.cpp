#include "models/workload/context_parallel_shard.h"

#include <stdexcept>

namespace gpuplan::models {

Workload context_parallel_rank_workload(const Workload& workload, int context_parallel) {
  if (context_parallel < 1) throw std::invalid_argument("context_parallel_rank_workload: fewer than 1 rank");
  if (context_parallel == 1) return workload;
  const double share = 1.0 / context_parallel;
  Workload rank = workload;
  for (Op& op : rank.ops.edit()) {
    op.forward_flop *= share;
    op.input_elements *= share;
    op.output_elements *= share;
    op.saved_elements *= share;
    if (op.op_class == OpClass::kAttention && op.attention_kernel != AttentionKernel::kEager) {
      op.forward_kernels *= context_parallel;  // one kernel per key/value block of the ring
      op.attention_key_splits *= context_parallel;
    }
  }
  return rank;
}

}  // namespace gpuplan::models

#include "models/step/activation_offload_plan.h"

#include <stdexcept>

#include "models/memory/activation_offload.h"
#include "models/memory/footprint.h"
#include "models/step/sharded_data_parallel_plan.h"

namespace gpuplan::models {

std::vector<ActivationCopy> plan_activation_copies(const JobSpec& job, const Workload& rank, const OpUnitSpans& spans,
                                                   double micro_batch, double host_link_bytes_per_s) {
  std::vector<ActivationCopy> copies;
  if (!job.training.activation_offloading) return copies;
  const std::size_t ops = rank.ops.size();
  if (spans.forward_end.size() != ops || spans.backward_begin.size() != ops) {
    throw std::invalid_argument("plan_activation_copies: the unit spans do not cover the op table");
  }
  if (!(host_link_bytes_per_s > 0.0)) {
    throw std::invalid_argument("plan_activation_copies: the host link has no bandwidth");
  }
  const ActivationOffload o = activation_offload(rank, job.training, saved_bytes_per_sample(rank, job.training));
  for (std::size_t k = 0; k + 1 < o.blocks.size(); ++k) {
    const OffloadedBlock& b = o.blocks[k];
    if (!b.copied) continue;
    ActivationCopy c;
    // Backward runs a block's last op first, so its first backward unit is that op's first.
    c.forward_last = spans.forward_end[b.end_op - 1] - 1;
    c.backward_first = spans.backward_begin[b.end_op - 1];
    c.prefetch_at = spans.backward_begin[o.blocks[k + 1].end_op - 1];
    c.bytes = b.offloaded_bytes * micro_batch;
    c.d2h_s = c.bytes / host_link_bytes_per_s;
    c.h2d_s = c.bytes / host_link_bytes_per_s;
    copies.push_back(c);
  }
  return copies;
}

}  // namespace gpuplan::models

#include "models/memory/activation_offload.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "models/memory/footprint.h"
#include "models/memory/parallel_memory.h"

namespace gpuplan::models {

ActivationOffload activation_offload(const Workload& workload, const TrainingSpec& training,
                                     const std::vector<double>& op_saved) {
  if (op_saved.size() != workload.ops.size()) {
    throw std::invalid_argument("activation_offload: op_saved has " + std::to_string(op_saved.size()) +
                                " entries for " + std::to_string(workload.ops.size()) + " ops");
  }
  ActivationOffload o;
  std::string_view current;  // the block of the previous op ("" outside blocks)
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    const Op& op = workload.ops[i];
    const std::string_view block = block_view(op);
    if (block.empty()) {
      o.outside_blocks_bytes += op_saved[i];
      current = block;
      continue;
    }
    if (o.blocks.empty() || block != current) {
      OffloadedBlock b;
      b.first_op = i;
      b.checkpointed = training.activation_checkpointing || op.checkpointed;
      // A checkpointed block keeps its input only (footprint.cpp counts it the same way).
      if (b.checkpointed) b.offloaded_bytes = op.input_elements * activation_element_bytes(training.precision);
      o.blocks.push_back(b);
      current = block;
    }
    OffloadedBlock& b = o.blocks.back();
    b.end_op = i + 1;
    b.saved_bytes += op_saved[i];
    if (!b.checkpointed) b.offloaded_bytes += op_saved[i];
  }
  double largest = 0.0;
  for (std::size_t k = 0; k < o.blocks.size(); ++k) {
    OffloadedBlock& b = o.blocks[k];
    b.copied = k + 1 < o.blocks.size();
    if (b.copied) o.host_bytes += b.offloaded_bytes;
    largest = std::max(largest, b.offloaded_bytes);
    if (b.checkpointed) o.recompute_bytes = std::max(o.recompute_bytes, b.saved_bytes);
  }
  o.in_flight_bytes = static_cast<double>(std::min<std::size_t>(o.blocks.size(), 2)) * largest;
  return o;
}

double offloaded_activation_host_bytes_per_node(const JobSpec& job) {
  if (!job.training.activation_offloading) return 0.0;
  const Workload rank = rank_workload(job);
  const ActivationOffload o = activation_offload(rank, job.training, saved_bytes_per_sample(rank, job.training));
  return o.host_bytes * job.training.batch_size * job.hardware.gpus_per_node;
}

}  // namespace gpuplan::models

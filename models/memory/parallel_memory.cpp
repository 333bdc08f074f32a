#include "models/memory/parallel_memory.h"

#include <algorithm>

#include "models/memory/optimizer_state.h"
#include "models/memory/sharding.h"
#include "models/workload/tensor_parallel_shard.h"

namespace gpuplan::models {

double model_output_elements_per_sample(const Workload& workload) {
  double elements = 0.0;
  for (const Op& op : workload.ops) {
    if (op.name.ends_with("loss")) elements += op.input_elements;
  }
  return elements;
}

Workload rank_workload(const JobSpec& job) {
  return tensor_parallel_rank_workload(job.workload, job.parallelism.tensor_parallel,
                                       job.parallelism.sequence_parallel);
}

double data_parallel_memory_bytes(const JobSpec& job) {
  const int gpus = job.hardware.gpus_per_node * job.hardware.nodes;
  if (gpus < 2) return 0.0;
  switch (job.parallelism.strategy) {
    case ParallelStrategy::kNone: return 0.0;
    case ParallelStrategy::kDdp:
      return job.parallelism.data_parallel_size(gpus) > 1 ? rank_workload(job).parameters * 4.0 : 0.0;
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
      double largest = 0.0;
      double largest_gathered = 0.0;
      double all_gathered = 0.0;
      for (const ShardUnit& u : shard_units(job.workload)) {
        largest = std::max(largest, u.parameters);
        const double bytes =
            gathered_unit_bytes(job.workload, u, job.training.precision, job.parallelism.fp8_all_gather);
        largest_gathered = std::max(largest_gathered, bytes);
        all_gathered += bytes;
      }
      const double held = l.reshard_after_forward ? kFsdpUnitsInFlight * largest_gathered : all_gathered;
      return held + largest * parameter_element_bytes(job.training.precision);
    }
  }
  return 0.0;
}

MemoryBreakdown per_gpu_memory(const JobSpec& job, const MemoryBreakdown& one_gpu) {
  MemoryBreakdown m = one_gpu;
  m.data_parallel_bytes = data_parallel_memory_bytes(job);
  const ShardingLayout l = sharding_layout(job);
  const double shards = l.shard_ranks;
  if (l.parameters) {
    m.weights_bytes /= shards;  // the frozen base of a LoRA run is sharded with the rest
    m.gathered_bytes = m.data_parallel_bytes;  // the gathered units, reported on their own
    m.data_parallel_bytes = 0.0;
  }
  if (l.gradients) {
    m.gradients_bytes /= shards;
  }
  if (l.optimizer_state || l.parameters) {
    const double state = optimizer_state_bytes(job.workload, job.training);
    // What the footprint adds to the state: AMP's 16-bit weight copies. Sharded parameters
    // have none beside the gathered units (data_parallel_bytes).
    const double copies = l.parameters ? 0.0 : one_gpu.optimizer_state_bytes - state;
    m.optimizer_state_bytes = (l.optimizer_state ? state / shards : state) + copies;
  }
  return m;
}

}  // namespace gpuplan::models

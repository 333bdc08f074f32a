#include "models/memory/parallel_memory.h"

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
  }
  return 0.0;
}

}  // namespace gpuplan::models

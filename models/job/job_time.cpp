#include "models/job/job_time.h"

#include <cmath>
#include <stdexcept>

#include "models/memory/optimizer_state.h"

namespace gpuplan::models {

double global_batch_samples(const JobSpec& job) {
  // Tensor-parallel ranks train one replica together: the data-parallel ranks count.
  return static_cast<double>(job.training.batch_size) * job.training.gradient_accumulation *
         job.parallelism.data_parallel_size(job.hardware.gpus_per_node * job.hardware.nodes);
}

double checkpoint_bytes(const JobSpec& job) {
  return job.workload.parameters * parameter_element_bytes(job.training.precision) +
         optimizer_state_bytes(job.workload, job.training);
}

double checkpoint_write_bytes_per_s(const JobSpec& job) {
  return job.checkpointing.write_bytes_per_s > 0.0 ? job.checkpointing.write_bytes_per_s
                                                   : job.hardware.storage.write_bytes_per_s;
}

double checkpoint_read_bytes_per_s(const JobSpec& job) {
  return job.checkpointing.read_bytes_per_s > 0.0 ? job.checkpointing.read_bytes_per_s
                                                  : job.hardware.storage.read_bytes_per_s;
}

double step_time_for_throughput(const JobSpec& job, double samples_per_s) {
  if (!(samples_per_s > 0.0)) {
    throw std::invalid_argument("step_time_for_throughput: throughput must be positive");
  }
  return global_batch_samples(job) / samples_per_s;
}

double eval_batches_per_replica(const JobSpec& job) {
  if (!(job.dataset.eval_samples > 0.0)) return 0.0;
  const int gpus = job.hardware.gpus_per_node * job.hardware.nodes;
  const double replicas =
      job.dataset.eval_first_rank_only ? 1.0 : static_cast<double>(job.parallelism.data_parallel_size(gpus));
  return std::ceil(job.dataset.eval_samples / (static_cast<double>(job.training.batch_size) * replicas));
}

JobTimes job_times(const JobSpec& job, double step_time_s, double eval_batch_s) {
  if (!(step_time_s > 0.0)) {
    throw std::invalid_argument("job_times: step time must be positive");
  }
  JobTimes t;
  const double global_batch = global_batch_samples(job);
  t.steps_per_epoch = std::ceil(job.dataset.samples / global_batch);
  if (job.duration.tokens > 0.0) {
    const double tokens_per_step = global_batch * job.workload.tokens_per_sample;
    const double steps = std::ceil(job.duration.tokens / tokens_per_step);
    t.epochs = steps / t.steps_per_epoch;
  } else {
    t.epochs = job.duration.epochs;
  }
  t.epoch_train_s = t.steps_per_epoch * step_time_s;
  if (job.dataset.eval_samples > 0.0) {
    const double pass_s = eval_batches_per_replica(job) * eval_batch_s;
    // A pass every N steps: steps_per_epoch / N passes per epoch (fractional: the job's total is
    // total steps / N passes).
    const double passes_per_epoch =
        job.dataset.eval_every_steps > 0.0 ? t.steps_per_epoch / job.dataset.eval_every_steps : 1.0;
    t.epoch_eval_s = passes_per_epoch * pass_s;
  }
  const double train_s = t.epochs * (t.epoch_train_s + t.epoch_eval_s);
  const double write_bytes_per_s = checkpoint_write_bytes_per_s(job);
  if (job.checkpointing.enabled && job.checkpointing.interval_s > 0.0 && write_bytes_per_s > 0.0) {
    t.checkpoint_write_s = job.checkpointing.async ? 0.0 : checkpoint_bytes(job) / write_bytes_per_s;
    t.checkpoints = std::floor(train_s / job.checkpointing.interval_s);
  }
  t.time_to_train_s = train_s + t.checkpoints * t.checkpoint_write_s;
  t.epoch_time_s = t.epochs > 0.0 ? t.time_to_train_s / t.epochs : 0.0;
  return t;
}

}  // namespace gpuplan::models

#pragma once
/// \file job_time.h
/// Tier-1 job level without preemption (the spot issue adds the Monte Carlo job process):
/// steps = epochs x ceil(samples / global batch) (DESIGN.md "Job"), or tokens / (global batch
/// x sequence length) for a token budget; each epoch adds its evaluation passes (one, or one
/// every dataset.eval_every_steps steps, over the data-parallel model replicas or on replica 0
/// alone: eval_batches_per_replica x one batch's forward through the replica) and, when
/// checkpointing is on and blocking, the checkpoint writes that fall in it.

#include "models/job_spec.h"

namespace gpuplan::models {

struct JobTimes {
  double steps_per_epoch = 0.0;
  double epochs = 0.0;               ///< epochs run (fractional for a token budget)
  double epoch_train_s = 0.0;        ///< training steps of one epoch
  double epoch_eval_s = 0.0;         ///< evaluation passes of one epoch
  double checkpoint_write_s = 0.0;   ///< one checkpoint write (blocking part)
  double checkpoints = 0.0;          ///< checkpoints written over the job
  double epoch_time_s = 0.0;         ///< train + eval (+ checkpoints) of one epoch
  double time_to_train_s = 0.0;
};

/// Global batch: micro-batch x gradient accumulation x data-parallel ranks.
double global_batch_samples(const JobSpec& job);

/// Bytes of one checkpoint: the stored weights (fp32, bf16 in pure bf16) plus the optimizer
/// state (models/memory/optimizer_state.h).
double checkpoint_bytes(const JobSpec& job);

/// Checkpoint write and read bandwidth: the destination's (CheckpointSpec), else the node's
/// hardware.storage. 0 when neither is known.
double checkpoint_write_bytes_per_s(const JobSpec& job);
double checkpoint_read_bytes_per_s(const JobSpec& job);

/// The step time that gives a measured (pinned) throughput of `samples_per_s`: global batch /
/// samples_per_s. The job level's way to take a throughput measured on real hardware instead
/// of the simulated step (tests/config/spot_reality_test.cpp pins ResNet-50 on 8x H100 to
/// 20,728 images/s). Throws std::invalid_argument for a non-positive rate.
double step_time_for_throughput(const JobSpec& job, double samples_per_s);

/// Evaluation batches one model replica (tensor_parallel x pipeline_parallel GPUs) runs per
/// pass: ceil(eval_samples / (batch_size x replicas)), the replicas the data-parallel ranks,
/// or 1 with eval_first_rank_only (data-parallel rank 0's replica alone); 0 without eval.
double eval_batches_per_replica(const JobSpec& job);

/// Job times from the simulated `step_time_s` and the time of one evaluation batch
/// (`eval_batch_s`, forward only through a whole model replica, all its pipeline stages).
/// Throws std::invalid_argument for a non-positive step time.
JobTimes job_times(const JobSpec& job, double step_time_s, double eval_batch_s);

}  // namespace gpuplan::models

#pragma once
/// Job-level specs shared by the job tests (spot_job_test.cpp, hardware_failures_test.cpp):
/// round figures so that checkpoint times and Young/Daly intervals can be derived by hand.

#include "models/job_spec.h"

namespace gpuplan::models::testing {

/// A job of `samples` per epoch for `epochs` epochs at batch 100 with AdamW on a 1e9-parameter
/// model: a 12 GB checkpoint (fp32 weights and AdamW's two moments) written at 1 GB/s (12 s)
/// and read at 2 GB/s (6 s), checkpoints on with `interval: auto`. No cloud section.
inline JobSpec auto_checkpointed_job(double samples, double epochs) {
  JobSpec job;
  job.dataset.samples = samples;
  job.duration.epochs = epochs;
  job.training.batch_size = 100;
  job.training.optimizer = Optimizer::kAdamW;
  job.workload.parameters = 1e9;
  job.hardware.storage.write_bytes_per_s = 1e9;
  job.hardware.storage.read_bytes_per_s = 2e9;
  job.checkpointing.enabled = true;
  job.checkpointing.automatic = true;
  return job;
}

}  // namespace gpuplan::models::testing

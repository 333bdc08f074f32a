#pragma once
/// The job the model-parallel step tests start from: a workload on one node of NVSwitch
/// GPUs (the A100-like test GPU, NVLink3 through NVSwitch), synthetic data, AdamW, bf16 AMP,
/// DDP; each test then sets its own parallelism.

#include <utility>

#include "../test_gpus.h"
#include "models/interconnect/interconnect_table.h"
#include "models/job_spec.h"

namespace gpuplan::models::testing {

/// `workload` trained at `batch_size` samples per GPU with `attention` on one node of `gpus`
/// A100-like GPUs over NVLink3 + NVSwitch with `cpu_cores` cores; 10^6 synthetic samples.
inline JobSpec nvswitch_node_job(Workload workload, int gpus, int cpu_cores, int batch_size,
                                 AttentionKernel attention) {
  JobSpec job;
  job.workload = std::move(workload);
  job.dataset.samples = 1e6;
  job.dataset.synthetic = true;
  job.training.batch_size = batch_size;
  job.training.precision = Precision::kBf16Amp;
  job.training.optimizer = Optimizer::kAdamW;
  job.training.attention = attention;
  job.hardware.gpu = ampere_like();
  job.hardware.gpus_per_node = gpus;
  job.hardware.cpu_cores = cpu_cores;
  job.hardware.topology.gpus_per_node = gpus;
  job.hardware.topology.intra_node = intra_node_link("nvlink3_nvswitch");
  job.parallelism.strategy = ParallelStrategy::kDdp;
  return job;
}

}  // namespace gpuplan::models::testing

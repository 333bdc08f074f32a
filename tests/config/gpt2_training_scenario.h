#pragma once
/// \file gpt2_training_scenario.h
/// The GPT-2 124M scenario of the training-key tests (attention, activation checkpointing,
/// activation offloading): bf16 AMP, AdamW, on one A100-80GB with synthetic data and 64 GiB
/// of host memory. Line 12 is the first of `training_lines` (line numbers are part of the
/// expected messages: keep the text as it is).

#include <string>

namespace gpuplan::config::testing {

/// The scenario at micro-batch `batch_size` with `training_lines` (each "  key: value\n") at
/// the end of its training section, from line 12.
inline std::string gpt2_training_scenario(const std::string& training_lines, int batch_size = 16) {
  return R"(format: gpuplan/v1
name: GPT-2 124M
workload:
  model: gpt2
  sequence_length: 1024
  dataset: {samples: 1000000, synthetic: true}
  epochs: 1
training:
  batch_size: )" + std::to_string(batch_size) + R"(
  precision: bf16_amp
  optimizer: adamw
)" + training_lines +
         R"(hardware:
  gpu: a100-80gb
  cpu_cores: 8
  host_memory: "64 GiB"
  storage: nvme_ssd
)";
}

}  // namespace gpuplan::config::testing

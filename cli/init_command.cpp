#include "cli/init_command.h"

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "cli/output_file.h"

namespace gpuplan::cli {

std::string starter_scenario() {
  return R"(# A gpuplan scenario: one training job and the strategies to compare (gpuplan run FILE).
# Every value with a unit is written with it ("110 KiB", "2.5 GB/s", "6 ms"); a bare number
# for a dimensional value is an error. Names come from the catalogs: gpuplan list gpus,
# gpuplan list models, gpuplan list storage, gpuplan list instances.
format: gpuplan/v1
name: my training job
seed: 42                        # same scenario + seed = the same numbers, byte for byte

workload:
  model: resnet50               # gpuplan list models (or an inline architecture)
  dataset:
    samples: 1281167            # training samples per epoch (ImageNet-1k here)
    sample_size: "110 KiB"      # mean stored size of one sample
    decode_time: "6 ms"         # CPU time to decode and augment one sample on one core
  epochs: 90

training:
  batch_size: 32                # per GPU, per micro-step
  precision: fp32               # fp32 | tf32 | fp16_amp | bf16_amp
  optimizer: sgd_momentum       # sgd | sgd_momentum | adam | adamw

data_loader:
  num_workers: 0                # PyTorch DataLoader workers; 0 = the training process decodes
  pin_memory: false

hardware:
  gpu: rtx3090                  # gpuplan list gpus; or cloud: {instance: aws/p3.2xlarge}
  cpu_cores: 8
  host_memory: "64 GiB"
  storage: nvme_ssd             # gpuplan list storage

# What to compare: each strategy overrides keys of the job above by their dotted path.
strategies:
  baseline: {}
  workers_4: {data_loader.num_workers: 4}
  amp_workers_4: {training.precision: fp16_amp, data_loader.num_workers: 4}
)";
}

int init_main(const std::vector<std::string>& args) {
  std::string path = "my-job.yaml";
  bool have_path = false;
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << "gpuplan init [FILE]: write a commented starter scenario to FILE (default my-job.yaml); an "
                   "existing FILE is never replaced\n";
      return 0;
    }
    if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option '" + a + "' of gpuplan init");
    if (have_path) throw std::invalid_argument("gpuplan init takes one FILE, found a second: '" + a + "'");
    path = a;
    have_path = true;
  }
  if (std::filesystem::exists(path)) {
    throw std::invalid_argument("'" + path + "' exists; gpuplan init never replaces a file: name another FILE");
  }
  try {
    write_file_atomically(path, starter_scenario());
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
  std::cout << "Wrote " << path << "; edit it, then: gpuplan run " << path << "\n";
  return 0;
}

}  // namespace gpuplan::cli

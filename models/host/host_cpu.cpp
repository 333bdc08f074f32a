#include "models/host/host_cpu.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpuplan::models {

int cores_per_gpu(int cpu_cores, int gpus_per_node) {
  const int cores = cpu_cores / std::max(1, gpus_per_node);
  if (cores < 1) {
    throw std::invalid_argument("no CPU core per GPU: " + std::to_string(cpu_cores) + " cores for " +
                                std::to_string(gpus_per_node) + " GPUs");
  }
  return cores;
}

}  // namespace gpuplan::models

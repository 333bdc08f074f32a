#include "models/energy/energy.h"

#include <algorithm>

namespace gpuplan::models {

double host_power_w(int cpu_cores) { return 100.0 + 5.0 * std::max(0, cpu_cores); }

double gpu_power_w(const GpuSpec& gpu, double gpu_utilization) {
  const double u = std::clamp(gpu_utilization, 0.0, 1.0);
  return gpu.idle_w + u * (gpu.tdp_w - gpu.idle_w);
}

double training_energy_j(const HardwareSpec& hw, double gpu_utilization, double wall_s) {
  const double gpu_w = gpu_power_w(hw.gpu, gpu_utilization);
  const double gpus = static_cast<double>(hw.gpus_per_node) * hw.nodes;
  return (gpus * gpu_w + hw.nodes * host_power_w(hw.cpu_cores)) * wall_s;
}

}  // namespace gpuplan::models

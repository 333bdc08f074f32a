#include "models/gpu/pcie_link.h"

#include "core/units.h"

namespace gpuplan::models {

double pcie_link_bytes_per_s(const GpuSpec& gpu) {
  double per_lane_gb_per_s = 0.985;
  switch (gpu.pcie_generation) {
    case 1: per_lane_gb_per_s = 0.25; break;
    case 2: per_lane_gb_per_s = 0.5; break;
    case 3: per_lane_gb_per_s = 0.985; break;
    case 4: per_lane_gb_per_s = 1.969; break;
    case 5: per_lane_gb_per_s = 3.938; break;
    default: per_lane_gb_per_s = gpu.pcie_generation > 5 ? 7.563 : 0.985; break;
  }
  const int lanes = gpu.pcie_lanes > 0 ? gpu.pcie_lanes : 16;
  return core::gigabytes_per_s(per_lane_gb_per_s) * lanes;
}

}  // namespace gpuplan::models

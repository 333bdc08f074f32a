#pragma once
/// \file energy.h
/// Tier-1 energy (DESIGN.md "Energy"): per GPU, idle power plus the busy share of
/// (TDP - idle); per node, host power. GPUs draw close to TDP while kernels run in
/// training (a simplification: memory-bound kernels draw less).

#include "models/job_spec.h"

namespace gpuplan::models {

/// Host power of a node, W: 100 W for board, memory and disks plus 5 W per CPU core in use
/// (server CPUs: ~200-300 W TDP for 32-64 cores; a rough, documented default).
double host_power_w(int cpu_cores);

/// Power of one GPU at `gpu_utilization` in [0, 1] (clamped), W: idle_w + u (tdp_w - idle_w).
double gpu_power_w(const GpuSpec& gpu, double gpu_utilization);

/// Energy of `wall_s` of training on all GPUs and nodes at `gpu_utilization` in [0, 1].
double training_energy_j(const HardwareSpec& hardware, double gpu_utilization, double wall_s);

}  // namespace gpuplan::models

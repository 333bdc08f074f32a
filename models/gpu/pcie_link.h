#pragma once
/// \file pcie_link.h
/// The raw rate of a GPU's PCIe link, one direction, after line coding.

#include "models/gpu/gpu_spec.h"

namespace gpuplan::models {

/// Bytes per second of `gpu`'s PCIe link in one direction: per-lane rate after line coding
/// (PCI-SIG: Gen1 2.5 GT/s and Gen2 5 GT/s 8b/10b = 0.25 and 0.5 GB/s; Gen3 8 GT/s
/// 128b/130b = 0.985 GB/s, Gen4 1.969 GB/s, Gen5 3.938 GB/s, Gen6 7.563 GB/s approx.) times
/// the lanes (16 when the catalog gives none). An unknown generation reads as Gen3.
double pcie_link_bytes_per_s(const GpuSpec& gpu);

}  // namespace gpuplan::models

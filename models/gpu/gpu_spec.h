#pragma once
/// \file gpu_spec.h
/// One GPU type as the catalog describes it (catalogs/gpus.yaml). Peaks are dense (no 2:4
/// sparsity), link bandwidths per direction (STYLE.md 3.3). A zero peak means the GPU has no
/// fast path for that precision.

#include <optional>
#include <string>
#include <vector>

#include "models/calibration/gpu_calibration.h"

namespace gpuplan::models {

/// The DRAM technology of a GPU (catalogs/gpus.yaml `memory_type`), a datasheet fact;
/// memory-bound kernels stream at one achieved share of datasheet bandwidth for every type
/// (GpuEfficiency::memory_bandwidth: a share per family did not carry to a held-out GPU).
enum class MemoryType { kHbm2, kHbm2e, kHbm3, kHbm3e, kGddr5x, kGddr6, kGddr6x, kGddr7 };

/// The catalog spelling of a memory type ("hbm2e", "gddr6x").
inline const char* memory_type_name(MemoryType t) {
  switch (t) {
    case MemoryType::kHbm2: return "hbm2";
    case MemoryType::kHbm2e: return "hbm2e";
    case MemoryType::kHbm3: return "hbm3";
    case MemoryType::kHbm3e: return "hbm3e";
    case MemoryType::kGddr5x: return "gddr5x";
    case MemoryType::kGddr6: return "gddr6";
    case MemoryType::kGddr6x: return "gddr6x";
    case MemoryType::kGddr7: return "gddr7";
  }
  return "hbm2";
}

struct GpuSpec {
  std::string name;                    ///< catalog name, e.g. "a100-80gb"
  std::vector<std::string> aliases;    ///< other spellings, e.g. "A100-SXM4-80GB"
  std::string form_factor;             ///< "sxm", "pcie", ...
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  double peak_fp32_flop_per_s = 0.0;   ///< CUDA-core FP32, dense
  double peak_tf32_flop_per_s = 0.0;   ///< tensor-core TF32 (cc >= 8.0), else 0
  /// fp16 matmul rate: tensor cores from cc 7.0; for older GPUs the rate of the fp16 path
  /// cuBLAS actually runs (about the FP32 rate when it computes in fp32 after conversion).
  double peak_fp16_flop_per_s = 0.0;
  double peak_bf16_flop_per_s = 0.0;   ///< tensor-core BF16 (cc >= 8.0), else 0
  double peak_fp8_flop_per_s = 0.0;    ///< tensor-core FP8 (cc >= 8.9), else 0
  double memory_bytes = 0.0;           ///< device memory capacity
  double memory_bytes_per_s = 0.0;     ///< device memory bandwidth (datasheet)
  MemoryType memory_type = MemoryType::kHbm2;  ///< DRAM technology (datasheet)
  double l2_cache_bytes = 0.0;         ///< on-chip L2 capacity (architecture whitepaper)
  int pcie_generation = 0;
  int pcie_lanes = 0;
  double nvlink_bytes_per_s_per_direction = 0.0;  ///< total over all links, per direction; 0 = none
  double tdp_w = 0.0;
  double idle_w = 0.0;
  /// The clock the datasheet peaks are quoted at (NVIDIA's "boost clock"); 0 = not in the catalog.
  double boost_clock_hz = 0.0;
  /// The highest graphics clock a public log shows the card holding under a sustained compute
  /// load. GeForce and workstation cards run GPU Boost above their rated boost clock while
  /// power and temperature allow; datacenter parts cap at it. 0 = not known (taken as the
  /// boost clock). op_time.h computes at this clock (peaks x observed / boost).
  double observed_load_clock_hz = 0.0;
  std::string source;                  ///< where the figures come from (datasheet URL)
  std::string retrieved;               ///< ISO date the source was read
  bool calibrated = false;             ///< true when built from a calibration profile
  /// True when no validation case measures this GPU (catalog `accuracy: prediction-only`):
  /// its predictions carry no measured error; the run report says so.
  bool prediction_only = false;
  /// Measured rates of a calibration profile (hardware.gpu: {profile: ...}); when present,
  /// op_time.cpp uses them instead of peak x GpuEfficiency. Set together with `calibrated`.
  std::optional<GpuCalibration> calibration;

  bool has_tensor_cores_fp16() const { return compute_capability_major >= 7; }
  bool has_tf32_bf16() const { return compute_capability_major >= 8; }
  bool has_fp8() const {
    return compute_capability_major > 8 || (compute_capability_major == 8 && compute_capability_minor >= 9);
  }
};

}  // namespace gpuplan::models

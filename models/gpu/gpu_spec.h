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

/// Share of a GDDR part's DRAM left to allocations with ECC on: the check bits are stored in
/// the same DRAM, 1/16 of it (CUDA C++ Best Practices Guide, "Device Memory Spaces": "On GPUs
/// with GDDR memory with ECC enabled the available DRAM is reduced by 6.25%"). nvidia-smi
/// agrees: a T4 (16 GiB) shows 15,360 MiB, an A40 or L40S (48 GiB) 46,068 MiB. HBM parts keep
/// ECC in side-band bits and lose no capacity.
inline constexpr double kInlineEccUsableShare = 15.0 / 16.0;

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

/// True for the GDDR types (graphics DRAM on the board), false for stacked HBM.
inline bool is_gddr(MemoryType t) {
  return t == MemoryType::kGddr5x || t == MemoryType::kGddr6 || t == MemoryType::kGddr6x || t == MemoryType::kGddr7;
}

/// Who makes the GPU (catalogs/gpus.yaml `vendor`): decides which architecture facts the
/// entry carries (an NVIDIA compute capability or an AMD gfx target) and so which math paths
/// it has.
enum class GpuVendor { kNvidia, kAmd };

/// The catalog spelling of a vendor ("nvidia", "amd").
inline const char* vendor_name(GpuVendor v) { return v == GpuVendor::kAmd ? "amd" : "nvidia"; }

struct GpuSpec {
  std::string name;                    ///< catalog name, e.g. "a100-80gb"
  std::vector<std::string> aliases;    ///< other spellings, e.g. "A100-SXM4-80GB"
  std::string form_factor;             ///< "sxm", "pcie", "oam" (AMD's OCP accelerator module)
  GpuVendor vendor = GpuVendor::kNvidia;
  int compute_capability_major = 0;    ///< NVIDIA only; 0 on AMD
  int compute_capability_minor = 0;    ///< NVIDIA only; 0 on AMD
  /// AMD only: the LLVM target (`gfx_target`, "gfx942" = CDNA 3: MI300X, MI325X), as rocminfo
  /// prints it; empty on NVIDIA.
  std::string gfx_target;
  /// AMD only: the CDNA generation of gfx_target (1 = gfx908, 2 = gfx90a, 3 = gfx942); 0 on
  /// NVIDIA. ROCm "GPU hardware specifications" table (LLVM target name per architecture).
  int cdna_generation = 0;
  /// The units thread blocks (workgroups) are scheduled on: streaming multiprocessors on
  /// NVIDIA (`sms`), compute units on AMD (`compute_units`). The GEMM tile/wave model
  /// (gemm_tiles.h) counts one tile per unit per wave on both.
  int sm_count = 0;
  /// FP32 dense: CUDA-core FP32 on NVIDIA; on AMD CDNA 3 the FP32 matrix rate, which equals
  /// the packed FP32 vector rate there (MI300X: 163.4 TFLOP/s both) and is what rocBLAS SGEMM
  /// runs at.
  double peak_fp32_flop_per_s = 0.0;
  double peak_tf32_flop_per_s = 0.0;   ///< tensor-core TF32 (cc >= 8.0), else 0
  /// fp16 matmul rate: tensor cores from cc 7.0; for older GPUs the rate of the fp16 path
  /// cuBLAS actually runs (about the FP32 rate when it computes in fp32 after conversion).
  double peak_fp16_flop_per_s = 0.0;
  double peak_bf16_flop_per_s = 0.0;   ///< tensor-core BF16 (cc >= 8.0), else 0
  double peak_fp8_flop_per_s = 0.0;    ///< tensor-core FP8 (cc >= 8.9), else 0
  /// Device memory a process can allocate: the marketed capacity, less the 1/16 that inline
  /// ECC takes on a GDDR part that runs with it on (catalogs/gpus.yaml `inline_ecc`). The
  /// fit check and every memory share use it.
  double memory_bytes = 0.0;
  double marketed_memory_bytes = 0.0;  ///< the capacity as marketed (catalog `memory`)
  double memory_bytes_per_s = 0.0;     ///< device memory bandwidth (datasheet)
  MemoryType memory_type = MemoryType::kHbm2;  ///< DRAM technology (datasheet)
  double l2_cache_bytes = 0.0;         ///< on-chip L2 capacity (architecture whitepaper)
  int pcie_generation = 0;
  int pcie_lanes = 0;
  double nvlink_bytes_per_s_per_direction = 0.0;  ///< total over all links, per direction; 0 = none
  /// AMD only: Infinity Fabric (xGMI) GPU-to-GPU links of one GPU on its platform board (7 on
  /// an 8-GPU MI300X/MI325X platform: one to every peer, a full mesh, no switch); 0 = none.
  int infinity_fabric_links = 0;
  /// AMD only: bandwidth of ONE Infinity Fabric link, one direction (64 GB/s on MI300X: the
  /// datasheet's 128 GB/s counts both directions); 0 = none.
  double infinity_fabric_link_bytes_per_s_per_direction = 0.0;
  double tdp_w = 0.0;
  double idle_w = 0.0;
  /// The clock the datasheet peaks are quoted at (NVIDIA's "boost clock"); 0 = not in the catalog.
  double boost_clock_hz = 0.0;
  /// The graphics clock the card holds under a sustained compute load: from a public clock
  /// log (GeForce and workstation cards run GPU Boost above their rated boost clock while
  /// power and temperature allow), or implied by a measured best-shape GEMM rate where a
  /// power limit holds a part below the clock its peaks are quoted at (GB200, A100 PCIe;
  /// catalogs/gpus.yaml says which). 0 = not known (taken as the boost clock). op_time.h
  /// computes at this clock (peaks x observed / boost).
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

  /// fp16 matrix math: NVIDIA tensor cores from compute capability 7.0; AMD Matrix Cores
  /// (MFMA) on every CDNA target (AMD CDNA 1-3 whitepapers).
  bool has_tensor_cores_fp16() const { return is_amd() ? cdna_generation >= 1 : compute_capability_major >= 7; }
  /// bf16 matrix math (and, on NVIDIA, TF32 tensor cores): compute capability 8.0 and later;
  /// AMD from CDNA 2 (gfx90a's full-rate bf16 MFMA). AMD has no TF32 path in PyTorch's sense:
  /// its catalog entries carry no tf32 peak, so `tf32` runs as fp32 there (op_time.cpp).
  bool has_tf32_bf16() const { return is_amd() ? cdna_generation >= 2 : compute_capability_major >= 8; }
  /// fp8 matrix math: compute capability 8.9 and later; AMD from CDNA 3 (gfx942; its fp8 is
  /// the FNUZ variant of e4m3/e5m2, which ROCm's Transformer Engine uses).
  bool has_fp8() const {
    if (is_amd()) return cdna_generation >= 3;
    return compute_capability_major > 8 || (compute_capability_major == 8 && compute_capability_minor >= 9);
  }
  bool is_amd() const { return vendor == GpuVendor::kAmd; }
  /// How the architecture is named in messages: "compute capability 8.0" or "gfx942 (CDNA 3)".
  std::string architecture_text() const {
    if (is_amd()) return gfx_target + " (CDNA " + std::to_string(cdna_generation) + ")";
    return "compute capability " + std::to_string(compute_capability_major) + "." +
           std::to_string(compute_capability_minor);
  }
  /// The architecture generation, as a compute capability major, whose large-GEMM and
  /// FlashAttention fractions (GpuEfficiency::matmul_tensor_core, flash_attention_relative_to)
  /// the op-time model applies: NVIDIA's own. AMD CDNA 3 takes 9 (Hopper), an ASSUMPTION: no
  /// measurement of an AMD GPU is in the validation data to fit a CDNA tier of its own, and
  /// Hopper is the generation it shipped against (2023, HBM3, 1.3 vs 0.99 PFLOP/s dense
  /// bf16). Public rocBLAS/hipBLASLt GEMM sweeps report a lower share of peak on MI300X than
  /// the H100's 0.80, so predictions for AMD are likely optimistic; a calibration profile
  /// would replace the fraction (catalogs/README.md, "AMD GPUs"). CDNA 1-2 take 8 (Ampere).
  int efficiency_generation() const {
    if (is_amd()) return cdna_generation >= 3 ? 9 : 8;
    return compute_capability_major;
  }
};

}  // namespace gpuplan::models

#pragma once
/// \file gpu_calibration.h
/// Measured rates of one GPU, fitted from cuda_probe output by `gpuplan calibrate`
/// (models/calibration/calibration_fit.h) and read from a calibration profile
/// (catalogs/calibrations/*.json, config/calibration_profile.h). When a GpuSpec carries one,
/// models/gpu/op_time.cpp uses these rates instead of datasheet peak x efficiency.
///
/// Every fitted quantity follows Hockney's (r_inf, n_1/2) model of a pipelined operation
/// (R. W. Hockney and C. R. Jesshope, "Parallel Computers 2", Adam Hilger 1988, §1.3.3):
///   t(n) = t_0 + n / r_inf,   equivalently   r(n) = n / t(n) = r_inf * n / (n + n_1/2),
///   with n_1/2 = t_0 * r_inf,
/// where n is the work of one call (FLOP for a GEMM, bytes for a copy or a collective),
/// t_0 the fixed cost of one call (launch, setup, ramp-up) and r_inf the asymptotic rate.
/// For GEMMs the efficiency-versus-size curve is eff(flop) = r(flop) / peak.

#include <optional>
#include <string>
#include <vector>

#include "models/precision.h"

namespace gpuplan::models {

/// t(n) = fixed_s + n / rate_per_s (Hockney): the fit of one probe series.
struct HockneyLine {
  double fixed_s = 0.0;     ///< t_0: time of a call of zero size, s
  double rate_per_s = 0.0;  ///< r_inf: asymptotic rate, FLOP/s or B/s
  /// n_1/2 = fixed_s * rate_per_s: the size at which half of r_inf is reached (FLOP or B).
  double half_size() const { return fixed_s * rate_per_s; }
  /// Achieved rate at size n: n / (fixed_s + n / rate_per_s); 0 for n <= 0.
  double rate_at(double n) const { return n > 0.0 ? n / (fixed_s + n / rate_per_s) : 0.0; }
  /// Time of one call of size n, s.
  double time_s(double n) const { return fixed_s + n / rate_per_s; }
};

/// Peer-to-peer copy line between two GPUs (cudaMemcpyPeer), per direction.
struct P2pLine {
  int src = 0;  ///< device ordinal
  int dst = 0;
  HockneyLine line;  ///< rate in B/s
};

/// NCCL all-reduce: t(S) = fixed_s + S / algbw; busbw = algbw * 2 (n - 1) / n (nccl-tests
/// doc/PERFORMANCE.md).
struct AllReduceLine {
  int gpus = 0;
  HockneyLine algbw;              ///< rate in B/s of the buffer size S
  double busbw_bytes_per_s = 0.0;  ///< algbw.rate_per_s * 2 (gpus - 1) / gpus
};

/// Measured rates of one GPU. An absent or zero entry means "not measured": the model keeps
/// its datasheet figure for it.
struct GpuCalibration {
  std::string profile;  ///< where the figures come from (profile path and date), for reports
  /// GEMM time per call versus FLOP per call, per math path (fp32 = CUDA-core SGEMM).
  std::optional<HockneyLine> gemm_fp32;
  std::optional<HockneyLine> gemm_tf32;
  std::optional<HockneyLine> gemm_fp16;
  std::optional<HockneyLine> gemm_bf16;
  std::optional<HockneyLine> gemm_fp8;
  /// Device memory: streaming-kernel line, bytes read plus written per call.
  std::optional<HockneyLine> memory;
  std::optional<HockneyLine> h2d_pinned;
  std::optional<HockneyLine> h2d_pageable;
  std::optional<HockneyLine> d2h_pinned;
  std::optional<HockneyLine> d2h_pageable;
  /// Device time of one empty kernel, event to event (median), s; 0 = not measured.
  double launch_latency_s = 0.0;
  /// Host time to enqueue one small kernel back to back (cudaLaunchKernel), s; informative.
  double small_kernel_dispatch_s = 0.0;
  std::vector<P2pLine> p2p;
  std::optional<AllReduceLine> all_reduce;

  /// The GEMM curve of the math path named by `precision` (kFp16Amp -> fp16, kBf16Amp and
  /// kBf16 -> bf16), or nullptr when the profile did not measure it.
  const HockneyLine* gemm(Precision precision) const {
    switch (precision) {
      case Precision::kFp32: return gemm_fp32 ? &*gemm_fp32 : nullptr;
      case Precision::kTf32: return gemm_tf32 ? &*gemm_tf32 : nullptr;
      case Precision::kFp16Amp: return gemm_fp16 ? &*gemm_fp16 : nullptr;
      case Precision::kBf16Amp:
      case Precision::kBf16: return gemm_bf16 ? &*gemm_bf16 : nullptr;
      case Precision::kFp8: return gemm_fp8 ? &*gemm_fp8 : nullptr;
    }
    return nullptr;
  }
};

}  // namespace gpuplan::models

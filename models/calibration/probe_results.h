#pragma once
/// \file probe_results.h
/// What cuda_probe measured, as plain SI values (config/probe_results.h reads its JSON;
/// cuda_probe/README.md documents the format). Each series holds one point per size: the
/// median over repeats and the spread (min, max), all timed with CUDA events after warm-up
/// (STYLE.md G1).

#include <map>
#include <string>
#include <vector>

namespace gpuplan::models {

/// One size of one series: n is the work of a call (FLOP for GEMM, bytes otherwise).
struct ProbePoint {
  double size = 0.0;     ///< FLOP or B per call
  double median_s = 0.0; ///< median time of one call over the repeats
  double min_s = 0.0;
  double max_s = 0.0;
};

/// Where and when the probe ran (no serial numbers or UUIDs).
struct ProbeProvenance {
  std::string gpu_name;            ///< cudaDeviceProp::name, e.g. "NVIDIA A100-SXM4-80GB"
  std::string compute_capability;  ///< "8.0"
  int gpu_count = 0;
  std::string driver_version;      ///< NVIDIA driver, e.g. "550.54.15" (empty when unknown)
  std::string cuda_runtime_version;  ///< "13.0"
  std::string cuda_driver_version;   ///< highest CUDA the driver supports, "13.0"
  double sm_clock_hz = 0.0;        ///< maximum SM clock
  double memory_clock_hz = 0.0;    ///< maximum memory clock
  double memory_bytes = 0.0;       ///< device memory the runtime reports
  std::string date;                ///< ISO 8601 UTC, "2026-11-30T01:02:03Z"
  std::string probe_git_sha;       ///< commit the probe was built from ("unknown" outside git)
  int repeats = 0;                 ///< timed repeats per point
  int warmup = 0;                  ///< untimed calls before them
};

/// Peer-to-peer copies from `src` to `dst`.
struct P2pSeries {
  int src = 0;
  int dst = 0;
  std::vector<ProbePoint> points;
};

/// The whole probe output.
struct ProbeResults {
  ProbeProvenance provenance;
  /// GEMM series by precision name: fp32, tf32, fp16, bf16, fp8 (absent: not supported).
  std::map<std::string, std::vector<ProbePoint>> gemm;
  std::vector<ProbePoint> memory_stream;  ///< streaming kernel; size = bytes read + written
  std::vector<ProbePoint> memory_copy;    ///< cudaMemcpy device to device; size = 2 x buffer
  std::vector<ProbePoint> h2d_pinned;
  std::vector<ProbePoint> h2d_pageable;
  std::vector<ProbePoint> d2h_pinned;
  std::vector<ProbePoint> d2h_pageable;
  double launch_latency_s = 0.0;          ///< empty kernel, event to event, median
  double small_kernel_dispatch_s = 0.0;   ///< host time per back-to-back small-kernel launch, median
  std::vector<P2pSeries> p2p;
  int all_reduce_gpus = 0;
  std::vector<ProbePoint> all_reduce;     ///< NCCL all-reduce; size = buffer bytes S
};

}  // namespace gpuplan::models

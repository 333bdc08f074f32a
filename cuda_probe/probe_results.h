#pragma once
/// \file probe_results.h
/// What the probe measured, in the raw units the CUDA APIs give: milliseconds from
/// cudaEventElapsedTime, kilohertz clocks. The writer (probe_writer.cpp) is the only place
/// that converts them to SI (STYLE.md G3). Plain C++ so the writer needs no nvcc.

#include <string>
#include <vector>

namespace cuda_probe {

/// Median and spread of one timed operation over the repeats, raw milliseconds.
struct TimingMs {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
};

/// One size of a series: `size` is FLOP (GEMM) or bytes per call.
struct RawPoint {
  double size = 0.0;
  TimingMs time;
  int m = 0, n = 0, k = 0;  ///< GEMM shape (0 for copies)
};

struct RawSeries {
  std::string name;          ///< "fp16", "h2d_pinned", "p2p", ...
  std::vector<RawPoint> points;
  std::string skipped;       ///< why the series is empty (unsupported precision, ...)
};

struct RawP2p {
  int src = 0;
  int dst = 0;
  bool peer_access = false;  ///< cudaDeviceCanAccessPeer; without it the copy is staged via the host
  std::vector<RawPoint> points;
};

struct RawProvenance {
  std::string gpu_name;
  int cc_major = 0;
  int cc_minor = 0;
  int gpu_count = 0;
  std::string driver_version;  ///< from /proc/driver/nvidia/version, empty when unreadable
  int cuda_runtime_version = 0;  ///< cudaRuntimeGetVersion, e.g. 13000
  int cuda_driver_version = 0;   ///< cudaDriverGetVersion
  double sm_clock_khz = 0.0;
  double memory_clock_khz = 0.0;
  int memory_bus_width_bits = 0;
  double memory_bytes = 0.0;
  std::string date;            ///< ISO 8601 UTC
  std::string git_sha;
  int repeats = 0;
  int warmup = 0;
};

struct RawResults {
  RawProvenance provenance;
  std::vector<RawSeries> gemm;          ///< one per precision, in the order measured
  RawSeries memory_stream;              ///< size = bytes read + written
  RawSeries memory_copy;
  RawSeries h2d_pinned, h2d_pageable, d2h_pinned, d2h_pageable;
  TimingMs launch_latency;              ///< one empty kernel, event to event
  TimingMs small_kernel_dispatch;       ///< per kernel of a back-to-back burst
  std::vector<RawP2p> p2p;
  int all_reduce_gpus = 0;
  RawSeries all_reduce;                 ///< size = buffer bytes
  std::string nccl_version;             ///< empty without NCCL
};

/// The probe JSON ("gpuplan-probe/v1", README.md): raw ms converted to s, kHz to Hz here.
std::string to_json(const RawResults& results);

}  // namespace cuda_probe

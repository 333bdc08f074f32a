// The only place where the probe's raw milliseconds and kilohertz become SI (STYLE.md G3).
#include <nlohmann/json.hpp>

#include "core/units.h"
#include "probe_results.h"

namespace cuda_probe {
namespace {

using gpuplan::core::kKilo;
using gpuplan::core::milliseconds;

std::string version_text(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

nlohmann::ordered_json point_json(const RawPoint& p, bool gemm) {
  nlohmann::ordered_json j;
  if (gemm) {
    j["m"] = p.m;
    j["n"] = p.n;
    j["k"] = p.k;
    j["flop"] = p.size;
  } else {
    j["bytes"] = p.size;
  }
  const double median_s = milliseconds(p.time.median_ms);
  j["median_s"] = median_s;
  j["min_s"] = milliseconds(p.time.min_ms);
  j["max_s"] = milliseconds(p.time.max_ms);
  j[gemm ? "flop_per_s" : "bytes_per_s"] = median_s > 0.0 ? p.size / median_s : 0.0;
  return j;
}

nlohmann::ordered_json series_json(const RawSeries& s, bool gemm) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const RawPoint& p : s.points) a.push_back(point_json(p, gemm));
  return a;
}

nlohmann::ordered_json timing_json(const TimingMs& t) {
  return {{"median_s", milliseconds(t.median_ms)}, {"min_s", milliseconds(t.min_ms)}, {"max_s", milliseconds(t.max_ms)}};
}

// The largest-size rate of a series: the headline figure of the summary block.
double last_rate(const RawSeries& s) {
  if (s.points.empty()) return 0.0;
  const RawPoint& p = s.points.back();
  return p.size / milliseconds(p.time.median_ms);
}

}  // namespace

std::string to_json(const RawResults& r) {
  nlohmann::ordered_json j;
  j["format"] = "gpuplan-probe/v1";
  const RawProvenance& pv = r.provenance;
  j["provenance"] = {
      {"gpu_name", pv.gpu_name},
      {"compute_capability", std::to_string(pv.cc_major) + "." + std::to_string(pv.cc_minor)},
      {"gpu_count", pv.gpu_count},
      {"driver_version", pv.driver_version},
      {"cuda_runtime_version", version_text(pv.cuda_runtime_version)},
      {"cuda_driver_version", version_text(pv.cuda_driver_version)},
      {"sm_clock_hz", pv.sm_clock_khz * kKilo},
      {"memory_clock_hz", pv.memory_clock_khz * kKilo},
      {"memory_bytes", pv.memory_bytes},
      {"date", pv.date},
      {"probe_git_sha", pv.git_sha},
      {"repeats", pv.repeats},
      {"warmup", pv.warmup}};
  nlohmann::ordered_json gemm = nlohmann::ordered_json::object();
  nlohmann::ordered_json skipped = nlohmann::ordered_json::object();
  for (const RawSeries& s : r.gemm) {
    if (!s.points.empty()) {
      gemm[s.name] = series_json(s, true);
    } else {
      skipped["gemm." + s.name] = s.skipped;
    }
  }
  j["gemm"] = gemm;
  j["memory_stream"] = series_json(r.memory_stream, false);
  j["memory_copy"] = series_json(r.memory_copy, false);
  j["h2d_pinned"] = series_json(r.h2d_pinned, false);
  j["h2d_pageable"] = series_json(r.h2d_pageable, false);
  j["d2h_pinned"] = series_json(r.d2h_pinned, false);
  j["d2h_pageable"] = series_json(r.d2h_pageable, false);
  j["launch"] = {{"launch_latency_s", timing_json(r.launch_latency)},
                 {"small_kernel_dispatch_s", timing_json(r.small_kernel_dispatch)}};
  if (!r.p2p.empty()) {
    nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
    for (const RawP2p& p : r.p2p) {
      RawSeries s;
      s.points = p.points;
      pairs.push_back({{"src", p.src}, {"dst", p.dst}, {"peer_access", p.peer_access}, {"points", series_json(s, false)}});
    }
    j["p2p"] = pairs;
  }
  if (r.all_reduce_gpus >= 2 && !r.all_reduce.points.empty()) {
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    const double n = r.all_reduce_gpus;
    for (const RawPoint& p : r.all_reduce.points) {
      nlohmann::ordered_json e = point_json(p, false);
      e.erase("bytes_per_s");
      const double algbw = p.size / milliseconds(p.time.median_ms);
      e["algbw_bytes_per_s"] = algbw;
      e["busbw_bytes_per_s"] = algbw * 2.0 * (n - 1.0) / n;  // nccl-tests doc/PERFORMANCE.md
      points.push_back(e);
    }
    j["all_reduce"] = {{"gpus", r.all_reduce_gpus}, {"nccl_version", r.nccl_version}, {"points", points}};
  } else if (!r.all_reduce.skipped.empty()) {
    skipped["all_reduce"] = r.all_reduce.skipped;
  }
  nlohmann::ordered_json summary;
  for (const RawSeries& s : r.gemm) {
    if (!s.points.empty()) summary["gemm_" + s.name + "_flop_per_s"] = last_rate(s);
  }
  summary["memory_stream_bytes_per_s"] = last_rate(r.memory_stream);
  summary["memory_copy_bytes_per_s"] = last_rate(r.memory_copy);
  summary["h2d_pinned_bytes_per_s"] = last_rate(r.h2d_pinned);
  summary["h2d_pageable_bytes_per_s"] = last_rate(r.h2d_pageable);
  summary["d2h_pinned_bytes_per_s"] = last_rate(r.d2h_pinned);
  summary["d2h_pageable_bytes_per_s"] = last_rate(r.d2h_pageable);
  summary["launch_latency_s"] = milliseconds(r.launch_latency.median_ms);
  summary["small_kernel_dispatch_s"] = milliseconds(r.small_kernel_dispatch.median_ms);
  j["summary"] = summary;
  if (!skipped.empty()) j["skipped"] = skipped;
  return j.dump(2) + "\n";
}

}  // namespace cuda_probe

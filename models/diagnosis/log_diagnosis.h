#pragma once
/// \file log_diagnosis.h
/// Tier-1 reading of monitoring evidence (pure): which resource holds the GPU back, the way
/// practitioners read nvidia-smi, htop/mpstat and iotop/iostat side by side. Each finding
/// keeps the evidence it rests on, one fact per line, and says whether the evidence
/// supports it directly (a host, DCGM or profiler figure) or only suggests it (the shape of
/// GPU utilization alone).

#include <string>
#include <vector>

#include "models/diagnosis/gpu_usage.h"
#include "models/diagnosis/monitor_trace.h"

namespace gpuplan::models {

/// Host figures over all host logs; NaN when no log gave them.
struct HostUsage {
  double cpu_busy_mean = kNotMeasured;   ///< [0, 1]
  double iowait_mean = kNotMeasured;     ///< [0, 1]
  double run_queue_mean = kNotMeasured;  ///< vmstat r
  int cpus = 0;                          ///< logical CPUs, 0 = not said
  double busiest_core_mean = kNotMeasured;  ///< mpstat -P ALL: mean over intervals of the busiest CPU's busy share
  std::string busiest_disk;              ///< iostat device with the highest mean %util
  double busiest_disk_utilization = kNotMeasured;         ///< [0, 1]
  double busiest_disk_read_bytes_per_s = kNotMeasured;
};

/// Profiler figures: shares of the profiled CPU (or CUDA) time, [0, 1]; NaN without a profile.
struct ProfileUsage {
  double data_loader_cpu_share = kNotMeasured;  ///< enumerate(DataLoader) rows, CPU total %
  bool single_process_loader = false;           ///< _SingleProcessDataLoaderIter: num_workers = 0
  double kernel_launch_cpu_share = kNotMeasured;  ///< cudaLaunchKernel self CPU %
  double nccl_cuda_share = kNotMeasured;          ///< nccl kernels, self CUDA %
  double copy_cuda_share = kNotMeasured;          ///< Memcpy HtoD / DtoH rows, self CUDA %
};

/// Bottleneck classes, as `gpuplan diagnose` names them.
/// input_pipeline | storage | host_dispatch | communication | memory_bound | compute | under_utilized
struct Finding {
  int gpu_index = -1;        ///< -1: the job as a whole (no GPU log)
  std::string bottleneck;    ///< one of the classes above
  bool supported = false;    ///< true: host/DCGM/profiler evidence; false: inferred from utilization alone
  std::string headline;      ///< one sentence in words
  std::vector<std::string> evidence;  ///< the facts, one per line
  std::string remedy;        ///< what to try first
};

/// The diagnosis of a job's logs.
struct LogDiagnosis {
  std::vector<GpuUsage> gpus;
  HostUsage host;
  ProfileUsage profile;
  std::vector<Finding> findings;  ///< one per GPU; one for the job when no GPU log was given
  std::vector<std::string> notes;
};

HostUsage summarize_hosts(const std::vector<HostSeries>& hosts);
ProfileUsage summarize_profiles(const std::vector<ProfilerTable>& profiles);

/// Classifies each GPU (or the job, without GPU logs) from `usage`, `host` and `profile`.
/// Thresholds and their reasons are in log_diagnosis.cpp, one constant each.
Finding classify(const GpuUsage* usage, int gpu_count, const HostUsage& host, const ProfileUsage& profile);

/// summarize_usage for every GPU series (facts from `facts_of(series)`), the host and profile
/// summaries, and classify for each GPU.
LogDiagnosis diagnose_logs(const MonitorTrace& trace, const std::vector<GpuFacts>& facts_per_series);

}  // namespace gpuplan::models

#pragma once
/// \file monitor_trace.h
/// What monitoring logs of a real training job say, as plain SI values (config/ reads the
/// logs into it; models/diagnosis reads it; STYLE.md L1). A field a log did not give
/// (`[N/A]`, `-`, a column not queried) is NaN: never a silent 0.

#include <limits>
#include <string>
#include <vector>

namespace gpuplan::models {

/// "Not in the log".
inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

/// One reading of one GPU.
struct GpuReading {
  double time_s = kNotMeasured;              ///< seconds since 1970-01-01 (local wall clock of the log)
  double utilization = kNotMeasured;         ///< nvidia-smi utilization.gpu: share of time a kernel ran, [0, 1]
  double memory_utilization = kNotMeasured;  ///< utilization.memory: share of time device memory was read or written, [0, 1]
  double memory_used_bytes = kNotMeasured;
  double memory_total_bytes = kNotMeasured;
  double power_w = kNotMeasured;
  double power_limit_w = kNotMeasured;
  double sm_clock_hz = kNotMeasured;
  double pcie_rx_bytes_per_s = kNotMeasured;   ///< host -> GPU
  double pcie_tx_bytes_per_s = kNotMeasured;   ///< GPU -> host
  double nvlink_rx_bytes_per_s = kNotMeasured;
  double nvlink_tx_bytes_per_s = kNotMeasured;
  double sm_active = kNotMeasured;      ///< DCGM SMACT: share of SM-cycles with a warp resident, [0, 1]
  double tensor_active = kNotMeasured;  ///< DCGM TENSO: share of cycles the tensor pipes were busy, [0, 1]
  double dram_active = kNotMeasured;    ///< DCGM DRAMA: share of cycles device memory was busy, [0, 1]
};

/// The readings of one GPU from one log, in log order.
struct GpuSeries {
  std::string source;        ///< the log file
  std::string format;        ///< nvidia_smi_query | nvidia_smi_dmon | nvidia_smi_table | dcgmi_dmon
  int index = 0;             ///< nvidia-smi GPU index (or order of appearance)
  std::string name;          ///< product name as the log prints it; empty when not logged
  double interval_s = kNotMeasured;  ///< sampling interval: median timestamp step, else as given
  std::vector<GpuReading> readings;
};

/// One reading of the host CPUs (mpstat "all", vmstat, iostat avg-cpu).
struct CpuReading {
  double busy = kNotMeasured;    ///< user + nice + system (+ irq, softirq) share of all CPUs, [0, 1]
  double iowait = kNotMeasured;  ///< share of CPU time idle with I/O outstanding, [0, 1]
  double run_queue = kNotMeasured;  ///< vmstat r: runnable processes
  double busiest_core = kNotMeasured;  ///< mpstat -P ALL: busy share of the busiest CPU, [0, 1]
};

/// One reading of one block device (iostat -x).
struct DiskReading {
  std::string device;
  double utilization = kNotMeasured;  ///< %util: share of time the device had requests in flight, [0, 1]
  double read_bytes_per_s = kNotMeasured;
};

/// A host log (mpstat, vmstat or iostat -x).
struct HostSeries {
  std::string source;
  std::string format;  ///< mpstat | vmstat | iostat
  int cpus = 0;        ///< logical CPUs when the log says (iostat/mpstat banner), else 0
  std::vector<CpuReading> cpu;
  std::vector<DiskReading> disks;
};

/// One row of a PyTorch profiler `key_averages().table()`.
struct ProfilerRow {
  std::string name;             ///< as printed (possibly cut with "...")
  double self_cpu_share = kNotMeasured;   ///< Self CPU %, [0, 1]
  double cpu_total_share = kNotMeasured;  ///< CPU total %, [0, 1]
  double self_cpu_s = kNotMeasured;
  double cpu_total_s = kNotMeasured;
  double self_cuda_s = kNotMeasured;
  double self_cuda_share = kNotMeasured;
  double calls = kNotMeasured;
};

/// A profiler table.
struct ProfilerTable {
  std::string source;
  std::vector<ProfilerRow> rows;
  double self_cpu_total_s = kNotMeasured;   ///< "Self CPU time total:" footer, when present
  double self_cuda_total_s = kNotMeasured;  ///< "Self CUDA time total:" footer, when present
};

/// Everything read from the logs of one job.
struct MonitorTrace {
  std::vector<GpuSeries> gpus;
  std::vector<HostSeries> hosts;
  std::vector<ProfilerTable> profiles;
  std::vector<std::string> notes;  ///< what the readers skipped and why (a truncated last line)
};

}  // namespace gpuplan::models

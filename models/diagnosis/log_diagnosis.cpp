#include "models/diagnosis/log_diagnosis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/units.h"

namespace gpuplan::models {

namespace {

/// Fewer GPU readings than this get a note that the finding is a hint: at one reading a
/// second, half a minute, less than a typical first epoch's warm-up and loader start. A
/// choice of this tool, not a measured constant.
constexpr std::size_t kFewReadings = 30;

/// A GPU busy at least this share of the time is limited by itself, not by what feeds it
/// (NVIDIA's DeepLearningExamples runs show 95-99 % when compute-bound).
constexpr double kBusyUtilization = 0.90;
/// Host CPUs busier than this cannot decode faster: adding loader workers will not help.
constexpr double kSaturatedCpu = 0.85;
/// iowait above this share means the CPUs wait on the disk (iostat(1): %iowait).
constexpr double kStorageIowait = 0.20;
/// A device busy (%util) at least this share of the time is saturated for serial requests
/// (iostat(1): "close to 100 % ... device saturation"); parallel NVMe can go beyond it.
constexpr double kSaturatedDisk = 0.90;
/// A profiled CPU share above this for one activity makes it the limiter of the step.
constexpr double kDominantShare = 0.30;
/// A busy GPU with less than half its SM-cycles occupied (DCGM SMACT) runs kernels too small
/// to fill it (DCGM user guide, profiling metrics: "SM activity").
constexpr double kLowSmActivity = 0.50;
/// A busy GPU drawing less than idle + this share of (limit - idle) does little work per
/// kernel: full tensor-core work draws close to the limit (models/energy).
constexpr double kLowPowerShare = 0.50;
/// DRAM busy at least half the cycles while tensor pipes idle: memory-bound kernels.
constexpr double kBusyDram = 0.50;
constexpr double kIdleTensor = 0.20;
/// nvidia-smi utilization.memory at least this share: memory-bound (no DCGM figures).
constexpr double kBusyMemoryUtilization = 0.60;
/// Several GPUs sending more than this share of the PCIe link to the host: gradients
/// staged through host memory (no P2P).
constexpr double kBusyPcieShare = 0.30;
/// Idle share from which the GPU is said to wait for data in bursts.
constexpr double kBurstyIdleShare = 0.20;

bool known(double v) { return !std::isnan(v); }

/// What a remedy that changes the batch per GPU, the accumulation or the GPUs does to the
/// global batch (micro-batch x accumulation x data-parallel ranks): `keeps` (the change that
/// compensates) keeps it; otherwise the optimisation changes too (Goyal et al. 2017, sec. 2.1).
std::string global_batch_note(const std::string& keeps) {
  return keeps + " keeps the global batch, else retune the learning rate";
}

/// "a bigger batch per GPU (`why`; less gradient accumulation keeps the global batch, ...)".
std::string bigger_batch(const std::string& why) {
  return "a bigger batch per GPU (" + (why.empty() ? "" : why + "; ") +
         global_batch_note("less gradient accumulation") + ")";
}
std::string pct(double share) { return fmt::format("{:.0f} %", share * 100.0); }
std::string gb(double bytes) { return fmt::format("{:.1f} GB", core::to_gigabytes(bytes)); }
std::string gbps(double bytes_per_s) { return fmt::format("{:.2f} GB/s", core::to_gigabytes_per_s(bytes_per_s)); }

double share_of(double seconds, double share, double total_s) {
  if (known(share)) return share;
  if (known(seconds) && known(total_s) && total_s > 0.0) return seconds / total_s;
  return kNotMeasured;
}

void take_max(double& into, double v) {
  if (!known(v)) return;
  into = known(into) ? std::max(into, v) : v;
}

void add_gpu_evidence(const GpuUsage& u, std::vector<std::string>& e) {
  std::string line = fmt::format("GPU {} kernels ran {} of the time on average (median {}, 10th percentile {}) over {} readings",
                                 u.index, pct(u.utilization_mean), pct(u.utilization_p50), pct(u.utilization_p10), u.samples);
  if (known(u.duration_s)) line += fmt::format(" ({:.0f} s)", u.duration_s);
  e.push_back(line);
  if (known(u.idle_share)) e.push_back(fmt::format("idle (<= {}) in {} of the readings", pct(kIdleUtilization), pct(u.idle_share)));
  if (u.period_samples > 0) {
    e.push_back(fmt::format("utilization repeats every {} readings{} (autocorrelation {:.2f}): a sawtooth of bursts and waits",
                            u.period_samples, known(u.period_s) ? fmt::format(" = {:.1f} s", u.period_s) : "",
                            u.period_correlation));
  }
  if (known(u.memory_used_peak_bytes)) {
    e.push_back(known(u.memory_capacity_bytes)
                    ? fmt::format("memory: {} used of {} ({})", gb(u.memory_used_peak_bytes), gb(u.memory_capacity_bytes),
                                  pct(u.memory_used_peak_bytes / u.memory_capacity_bytes))
                    : fmt::format("memory: {} used", gb(u.memory_used_peak_bytes)));
  }
  if (known(u.power_mean_w)) {
    std::string p = fmt::format("power: {:.0f} W on average", u.power_mean_w);
    if (known(u.power_limit_w)) p += fmt::format(" of a {:.0f} W limit", u.power_limit_w);
    if (known(u.facts.idle_w)) p += fmt::format(" (idle with a context open: about {:.0f} W)", u.facts.idle_w);
    e.push_back(p);
  }
  if (known(u.pcie_rx_mean_bytes_per_s) || known(u.pcie_tx_mean_bytes_per_s)) {
    e.push_back(fmt::format("PCIe: {} to the GPU, {} from it", known(u.pcie_rx_mean_bytes_per_s) ? gbps(u.pcie_rx_mean_bytes_per_s) : "-",
                            known(u.pcie_tx_mean_bytes_per_s) ? gbps(u.pcie_tx_mean_bytes_per_s) : "-"));
  }
  if (known(u.nvlink_mean_bytes_per_s)) e.push_back("NVLink: " + gbps(u.nvlink_mean_bytes_per_s) + " (both directions)");
  if (known(u.sm_active_mean)) e.push_back("DCGM SM activity " + pct(u.sm_active_mean));
  if (known(u.tensor_active_mean)) e.push_back("DCGM tensor-pipe activity " + pct(u.tensor_active_mean));
  if (known(u.dram_active_mean)) e.push_back("DCGM DRAM activity " + pct(u.dram_active_mean));
}

void add_host_evidence(const HostUsage& h, std::vector<std::string>& e) {
  if (known(h.cpu_busy_mean)) {
    e.push_back(fmt::format("host CPUs busy {} on average{}", pct(h.cpu_busy_mean),
                            h.cpus > 0 ? fmt::format(" ({} logical CPUs)", h.cpus) : ""));
  }
  if (known(h.busiest_core_mean)) e.push_back("the busiest single CPU is busy " + pct(h.busiest_core_mean) + " on average");
  if (known(h.iowait_mean)) e.push_back("host CPUs waiting on I/O (iowait) " + pct(h.iowait_mean));
  if (known(h.run_queue_mean)) e.push_back(fmt::format("runnable processes (vmstat r) {:.1f} on average", h.run_queue_mean));
  if (known(h.busiest_disk_utilization)) {
    e.push_back(fmt::format("disk {} busy (%util) {}{}", h.busiest_disk, pct(h.busiest_disk_utilization),
                            known(h.busiest_disk_read_bytes_per_s) ? ", reading " + gbps(h.busiest_disk_read_bytes_per_s) : ""));
  }
}

void add_profile_evidence(const ProfileUsage& p, std::vector<std::string>& e) {
  if (known(p.data_loader_cpu_share)) {
    e.push_back(fmt::format("profiler: the DataLoader iterator takes {} of the CPU time{}", pct(p.data_loader_cpu_share),
                            p.single_process_loader ? " in the training process (_SingleProcessDataLoaderIter: num_workers = 0)" : ""));
  }
  if (known(p.kernel_launch_cpu_share)) e.push_back("profiler: cudaLaunchKernel takes " + pct(p.kernel_launch_cpu_share) + " of the CPU time");
  if (known(p.nccl_cuda_share)) e.push_back("profiler: NCCL kernels take " + pct(p.nccl_cuda_share) + " of the CUDA time");
  if (known(p.copy_cuda_share)) e.push_back("profiler: memory copies take " + pct(p.copy_cuda_share) + " of the CUDA time");
}

}  // namespace

HostUsage summarize_hosts(const std::vector<HostSeries>& hosts) {
  HostUsage h;
  double busy = 0.0, wait = 0.0, queue = 0.0, core = 0.0;
  int n_busy = 0, n_wait = 0, n_queue = 0, n_core = 0;
  std::map<std::string, std::pair<double, int>> util;
  std::map<std::string, std::pair<double, int>> read;
  for (const auto& s : hosts) {
    h.cpus = std::max(h.cpus, s.cpus);
    for (const auto& c : s.cpu) {
      if (known(c.busy)) busy += c.busy, ++n_busy;
      if (known(c.iowait)) wait += c.iowait, ++n_wait;
      if (known(c.run_queue)) queue += c.run_queue, ++n_queue;
      if (known(c.busiest_core)) core += c.busiest_core, ++n_core;
    }
    for (const auto& d : s.disks) {
      if (known(d.utilization)) util[d.device].first += d.utilization, ++util[d.device].second;
      if (known(d.read_bytes_per_s)) read[d.device].first += d.read_bytes_per_s, ++read[d.device].second;
    }
  }
  if (n_busy > 0) h.cpu_busy_mean = busy / n_busy;
  if (n_wait > 0) h.iowait_mean = wait / n_wait;
  if (n_queue > 0) h.run_queue_mean = queue / n_queue;
  if (n_core > 0) h.busiest_core_mean = core / n_core;
  for (const auto& [device, sum] : util) {  // std::map: ties go to the first name, deterministically
    const double mean = sum.first / sum.second;
    if (!known(h.busiest_disk_utilization) || mean > h.busiest_disk_utilization) {
      h.busiest_disk = device;
      h.busiest_disk_utilization = mean;
      const auto r = read.find(device);
      h.busiest_disk_read_bytes_per_s = r == read.end() ? kNotMeasured : r->second.first / r->second.second;
    }
  }
  return h;
}

ProfileUsage summarize_profiles(const std::vector<ProfilerTable>& profiles) {
  ProfileUsage p;
  for (const auto& t : profiles) {
    for (const auto& row : t.rows) {
      const std::string& n = row.name;
      if (n.find("DataLoader") != std::string::npos) {
        take_max(p.data_loader_cpu_share, share_of(row.cpu_total_s, row.cpu_total_share, t.self_cpu_total_s));
        if (n.find("_SingleProcessDataLoaderIter") != std::string::npos) p.single_process_loader = true;
      }
      if (n.find("cudaLaunchKernel") != std::string::npos) {
        take_max(p.kernel_launch_cpu_share, share_of(row.self_cpu_s, row.self_cpu_share, t.self_cpu_total_s));
      }
      if (n.find("nccl") != std::string::npos && known(row.self_cuda_s) && row.self_cuda_s > 0.0) {
        take_max(p.nccl_cuda_share, share_of(row.self_cuda_s, row.self_cuda_share, t.self_cuda_total_s));
      }
      if ((n.find("Memcpy HtoD") != std::string::npos || n.find("Memcpy DtoH") != std::string::npos) &&
          known(row.self_cuda_s) && row.self_cuda_s > 0.0) {
        take_max(p.copy_cuda_share, share_of(row.self_cuda_s, row.self_cuda_share, t.self_cuda_total_s));
      }
    }
  }
  return p;
}

Finding classify(const GpuUsage* u, int gpu_count, const HostUsage& h, const ProfileUsage& p) {
  Finding f;
  f.gpu_index = u != nullptr ? u->index : -1;
  if (u != nullptr) add_gpu_evidence(*u, f.evidence);
  add_host_evidence(h, f.evidence);
  add_profile_evidence(p, f.evidence);
  const double util = u != nullptr ? u->utilization_mean : kNotMeasured;
  const std::string who = u != nullptr ? fmt::format("GPU {}", u->index) : std::string("the GPU");
  auto set = [&](const std::string& bottleneck, bool supported, std::string headline, std::string remedy) {
    f.bottleneck = bottleneck;
    f.supported = supported;
    f.headline = std::move(headline);
    f.remedy = std::move(remedy);
    return f;
  };
  const std::string wait_share = known(util) ? pct(1.0 - util) : std::string("much");

  if (known(util) && util >= kBusyUtilization) {
    const bool low_sm = known(u->sm_active_mean) && u->sm_active_mean < kLowSmActivity;
    const bool low_power = known(u->power_mean_w) && known(u->power_limit_w) && known(u->facts.idle_w) &&
                           u->power_mean_w < u->facts.idle_w + kLowPowerShare * (u->power_limit_w - u->facts.idle_w);
    if (low_sm || low_power) {
      std::string headroom;
      if (known(u->memory_used_peak_bytes) && known(u->memory_capacity_bytes)) {
        headroom = fmt::format("{} of memory free", gb(u->memory_capacity_bytes - u->memory_used_peak_bytes));
      }
      return set("under_utilized", true,
                 fmt::format("{} is never idle but its kernels leave it half-used ({}): the job fits but under-uses the GPU",
                             who, low_sm ? "SM activity " + pct(u->sm_active_mean) : "power well below the limit"),
                 bigger_batch(headroom) + ", mixed precision, or compiled mode (fewer, larger kernels)");
    }
    const bool dram = known(u->dram_active_mean) && u->dram_active_mean >= kBusyDram &&
                      (!known(u->tensor_active_mean) || u->tensor_active_mean < kIdleTensor);
    const bool mem_util = !known(u->dram_active_mean) && known(u->memory_utilization_mean) &&
                          u->memory_utilization_mean >= kBusyMemoryUtilization;
    if (dram || mem_util) {
      return set("memory_bound", true, who + " is busy and its kernels wait on device memory more than on arithmetic",
                 "fewer bytes per step: bf16/fp16 AMP, fused kernels (compiled mode), channels_last for convolutions");
    }
    return set("compute", true, fmt::format("{} computes {} of the time: it is the limiter, and the job is healthy", who, pct(util)),
               "only faster math helps: AMP/bf16 if not on yet, then a faster GPU or more GPUs (" +
                   global_batch_note("less gradient accumulation") + ")");
  }

  if ((known(h.busiest_disk_utilization) && h.busiest_disk_utilization >= kSaturatedDisk) ||
      (known(h.iowait_mean) && h.iowait_mean >= kStorageIowait)) {
    return set("storage", true, fmt::format("{} waits {} of the time for data the disk cannot read fast enough", who, wait_share),
               "faster storage (local NVMe), a dataset that fits in the page cache, or larger sequential shards");
  }
  const bool cpu_full = known(h.cpu_busy_mean) && h.cpu_busy_mean >= kSaturatedCpu;
  const bool queue_full = known(h.run_queue_mean) && h.cpus > 0 && h.run_queue_mean > h.cpus;
  const bool loader_dominant = known(p.data_loader_cpu_share) && p.data_loader_cpu_share >= kDominantShare;
  if (cpu_full || queue_full || loader_dominant) {
    std::string remedy = p.single_process_loader
                             ? "DataLoader num_workers > 0 (one per free core) and pin_memory=True"
                             : (cpu_full ? "more CPU cores, GPU decode (DALI), or cheaper preprocessing: the cores are full"
                                         : "more DataLoader workers (cores are free), then GPU decode (DALI)");
    const std::string headline =
        known(util) || !loader_dominant
            ? fmt::format("{} waits {} of the time for the CPU data pipeline (decode, augment, collate)", who, wait_share)
            : fmt::format("the training loop spends {} of its CPU time fetching batches from the DataLoader",
                          pct(p.data_loader_cpu_share));
    return set("input_pipeline", true, headline, remedy);
  }
  const bool bursty = u != nullptr && (u->period_samples > 0 || (known(u->idle_share) && u->idle_share >= kBurstyIdleShare));
  if (known(h.busiest_core_mean) && h.busiest_core_mean >= kSaturatedCpu) {
    // One core full, the others free: one process does the work, the training process itself.
    if (bursty) {
      return set("input_pipeline", true,
                 fmt::format("{} waits {} of the time while one CPU core is full and the others are free: the training "
                             "process loads the data itself",
                             who, wait_share),
                 "DataLoader num_workers > 0 (one per free core), then pin_memory=True");
    }
    return set("host_dispatch", true,
               fmt::format("{} is partly busy ({}) while one CPU core is full: Python launches the kernels too slowly", who,
                           pct(util)),
               "compiled mode or CUDA graphs, " + bigger_batch("fewer launches per sample"));
  }
  if (known(p.kernel_launch_cpu_share) && p.kernel_launch_cpu_share >= kDominantShare) {
    return set("host_dispatch", true, who + " waits for the Python/CUDA launch of its kernels",
               "compiled mode or CUDA graphs, " + bigger_batch("fewer launches per sample"));
  }
  const bool pcie_busy = u != nullptr && gpu_count > 1 && known(u->pcie_tx_mean_bytes_per_s) &&
                         known(u->facts.pcie_bytes_per_s_per_direction) &&
                         u->pcie_tx_mean_bytes_per_s >= kBusyPcieShare * u->facts.pcie_bytes_per_s_per_direction;
  const bool nccl_dominant = known(p.nccl_cuda_share) && p.nccl_cuda_share >= kDominantShare;
  if (pcie_busy || nccl_dominant) {
    return set("communication", true, fmt::format("{} waits {} of the time for gradient exchange between GPUs", who, wait_share),
               "gradient accumulation (fewer all-reduces per sample; " + global_batch_note("a smaller batch per GPU") +
                   "), larger DDP buckets, or GPUs joined by NVLink");
  }
  if (u == nullptr || !known(util)) {
    return set("unknown", false, "the logs hold no GPU utilization and no dominant host or profiler activity",
               "log nvidia-smi --query-gpu=timestamp,index,utilization.gpu,memory.used,power.draw --format=csv -l 1 "
               "alongside mpstat 1 and iostat -x 1");
  }
  // What the host logs given could not show, so the fix asks for what would.
  std::string confirm = "; log `mpstat 1` and `iostat -x 1` alongside to confirm";
  if (known(h.cpu_busy_mean)) {
    confirm = fmt::format(
        "; the host log shows the CPUs {} busy on average and no full core{}: log `mpstat -P ALL 1` (each core) {}to "
        "find one busy process",
        pct(h.cpu_busy_mean), known(h.busiest_core_mean) ? "" : " it could see (it has no per-core lines)",
        known(h.iowait_mean) || known(h.busiest_disk_utilization) ? "" : "and `iostat -x 1` ");
  }
  if (bursty) {
    return set("input_pipeline", false,
               fmt::format("{} works in bursts and waits {} of the time: the pattern of a data loader that cannot keep up", who,
                           wait_share),
               "more DataLoader workers and prefetch" + confirm);
  }
  return set("host_dispatch", false,
             fmt::format("{} is partly busy ({}) without idle gaps: many short waits between kernels, the pattern of "
                         "host-side dispatch",
                         who, pct(util)),
             "compiled mode or CUDA graphs, " + bigger_batch("") + confirm);
}

LogDiagnosis diagnose_logs(const MonitorTrace& trace, const std::vector<GpuFacts>& facts_per_series) {
  LogDiagnosis d;
  d.host = summarize_hosts(trace.hosts);
  d.profile = summarize_profiles(trace.profiles);
  d.notes = trace.notes;
  for (std::size_t i = 0; i < trace.gpus.size(); ++i) {
    d.gpus.push_back(summarize_usage(trace.gpus[i], i < facts_per_series.size() ? facts_per_series[i] : GpuFacts{}));
  }
  const int count = static_cast<int>(d.gpus.size());
  for (const auto& u : d.gpus) d.findings.push_back(classify(&u, count, d.host, d.profile));
  // A handful of readings cannot separate a steady state from a warm-up or a pause: the
  // finding stands, read as a hint.
  std::size_t fewest = 0;
  for (const auto& u : d.gpus) fewest = fewest == 0 ? u.samples : std::min(fewest, u.samples);
  if (!d.gpus.empty() && fewest < kFewReadings) {
    d.notes.push_back(fmt::format("only {} reading{} of a GPU: too few to tell the training's steady state from its "
                                  "start or a pause; read the finding as a hint and log a minute or more of the "
                                  "running job (nvidia-smi -l 1)",
                                  fewest, fewest == 1 ? "" : "s"));
  }
  if (d.gpus.empty()) d.findings.push_back(classify(nullptr, 0, d.host, d.profile));
  return d;
}

}  // namespace gpuplan::models

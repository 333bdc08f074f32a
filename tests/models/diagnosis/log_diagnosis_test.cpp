// The bottleneck classes of `gpuplan diagnose`, one case per class, each on the figure that
// decides it (thresholds in models/diagnosis/log_diagnosis.cpp).
#include <doctest/doctest.h>

#include "models/diagnosis/log_diagnosis.h"

namespace gpuplan::models {
namespace {

GpuUsage busy_gpu(double utilization) {
  GpuUsage u;
  u.index = 0;
  u.samples = 60;
  u.utilization_mean = u.utilization_p50 = u.utilization_p10 = utilization;
  u.idle_share = 0.0;
  u.facts.tdp_w = 400.0;
  u.facts.idle_w = 60.0;
  u.power_limit_w = 400.0;
  u.facts.pcie_bytes_per_s_per_direction = 15.76e9;
  return u;
}

}  // namespace

TEST_SUITE("models.diagnosis.log_diagnosis") {
  TEST_CASE("busy and near the power limit: compute") {
    GpuUsage u = busy_gpu(0.98);
    u.power_mean_w = 380.0;  // above 60 + 0.5 x (400 - 60) = 230 W
    const Finding f = classify(&u, 1, {}, {});
    CHECK(f.bottleneck == "compute");
    CHECK(f.supported);
    CHECK(f.headline == "GPU 0 computes 98 % of the time: it is the limiter, and the job is healthy");
    // More GPUs add data-parallel ranks: the remedy says what keeps the global batch.
    CHECK(f.remedy == "only faster math helps: AMP/bf16 if not on yet, then a faster GPU or more GPUs (less gradient "
                      "accumulation keeps the global batch, else retune the learning rate)");
  }

  TEST_CASE("busy but drawing little power, or low SM activity: under_utilized") {
    GpuUsage u = busy_gpu(0.97);
    u.power_mean_w = 200.0;  // below 230 W
    CHECK(classify(&u, 1, {}, {}).bottleneck == "under_utilized");
    GpuUsage d = busy_gpu(0.97);
    d.sm_active_mean = 0.3;
    CHECK(classify(&d, 1, {}, {}).bottleneck == "under_utilized");
    CHECK(classify(&d, 1, {}, {}).remedy ==
          "a bigger batch per GPU (less gradient accumulation keeps the global batch, else retune the learning rate), "
          "mixed precision, or compiled mode (fewer, larger kernels)");
    d.memory_used_peak_bytes = 30e9;
    d.memory_capacity_bytes = 80e9;
    CHECK(classify(&d, 1, {}, {}).remedy ==
          "a bigger batch per GPU (50.0 GB of memory free; less gradient accumulation keeps the global batch, else "
          "retune the learning rate), mixed precision, or compiled mode (fewer, larger kernels)");
  }

  TEST_CASE("busy with DRAM busy and tensor pipes idle: memory_bound") {
    GpuUsage u = busy_gpu(0.95);
    u.sm_active_mean = 0.8;
    u.dram_active_mean = 0.6;
    u.tensor_active_mean = 0.1;
    CHECK(classify(&u, 1, {}, {}).bottleneck == "memory_bound");
  }

  TEST_CASE("waiting GPU: storage from iowait or a saturated disk, before the CPUs") {
    GpuUsage u = busy_gpu(0.4);
    HostUsage h;
    h.iowait_mean = 0.3;
    h.cpu_busy_mean = 0.95;
    CHECK(classify(&u, 1, h, {}).bottleneck == "storage");
    HostUsage d;
    d.busiest_disk = "sda";
    d.busiest_disk_utilization = 0.99;
    CHECK(classify(&u, 1, d, {}).bottleneck == "storage");
  }

  TEST_CASE("waiting GPU with full CPUs: input_pipeline, the cores are full") {
    GpuUsage u = busy_gpu(0.24);
    HostUsage h;
    h.cpu_busy_mean = 0.97;
    h.cpus = 8;
    const Finding f = classify(&u, 1, h, {});
    CHECK(f.bottleneck == "input_pipeline");
    CHECK(f.supported);
    CHECK(f.headline == "GPU 0 waits 76 % of the time for the CPU data pipeline (decode, augment, collate)");
    CHECK(f.remedy == "more CPU cores, GPU decode (DALI), or cheaper preprocessing: the cores are full");
    CHECK(f.evidence.back() == "host CPUs busy 97 % on average (8 logical CPUs)");
  }

  TEST_CASE("a profiler table alone: the DataLoader share decides, num_workers = 0 named") {
    ProfileUsage p;
    p.data_loader_cpu_share = 0.8918;
    p.single_process_loader = true;
    const Finding f = classify(nullptr, 0, {}, p);
    CHECK(f.gpu_index == -1);
    CHECK(f.bottleneck == "input_pipeline");
    CHECK(f.headline == "the training loop spends 89 % of its CPU time fetching batches from the DataLoader");
    CHECK(f.remedy == "DataLoader num_workers > 0 (one per free core) and pin_memory=True");
  }

  TEST_CASE("several GPUs sending a third of their PCIe link to the host: communication") {
    GpuUsage u = busy_gpu(0.6);
    u.pcie_tx_mean_bytes_per_s = 6e9;  // >= 0.3 x 15.76 GB/s = 4.7 GB/s
    CHECK(classify(&u, 2, {}, {}).bottleneck == "communication");
    CHECK(classify(&u, 2, {}, {}).remedy ==
          "gradient accumulation (fewer all-reduces per sample; a smaller batch per GPU keeps the global batch, else "
          "retune the learning rate), larger DDP buckets, or GPUs joined by NVLink");
    CHECK(classify(&u, 1, {}, {}).bottleneck != "communication");  // one GPU: H2D, not gradients
  }

  TEST_CASE("GPU figures alone: bursts suggest the loader, a steady partial load host dispatch (both 'likely')") {
    GpuUsage bursty = busy_gpu(0.5);
    bursty.idle_share = 0.5;
    bursty.period_samples = 6;
    const Finding a = classify(&bursty, 1, {}, {});
    CHECK(a.bottleneck == "input_pipeline");
    CHECK_FALSE(a.supported);
    GpuUsage steady = busy_gpu(0.6);
    const Finding b = classify(&steady, 1, {}, {});
    CHECK(b.bottleneck == "host_dispatch");
    CHECK_FALSE(b.supported);
    CHECK(b.remedy == "compiled mode or CUDA graphs, a bigger batch per GPU (less gradient accumulation keeps the global "
                      "batch, else retune the learning rate); log `mpstat 1` and `iostat -x 1` alongside to confirm");
    CHECK(a.remedy == "more DataLoader workers and prefetch; log `mpstat 1` and `iostat -x 1` alongside to confirm");
    // With an mpstat log of all CPUs (no per-core lines) that are far from full, the fix asks
    // for what that log could not show, not for the log it was given.
    HostUsage h;
    h.cpu_busy_mean = 0.14;
    h.iowait_mean = 0.002;
    const Finding c = classify(&bursty, 1, h, {});
    CHECK(c.bottleneck == "input_pipeline");
    CHECK_FALSE(c.supported);
    CHECK(c.remedy == "more DataLoader workers and prefetch; the host log shows the CPUs 14 % busy on average and no "
                      "full core it could see (it has no per-core lines): log `mpstat -P ALL 1` (each core) to find one "
                      "busy process");
  }

  TEST_CASE("a profiler table where kernel launches take the CPU: host_dispatch, a bigger batch that says its cost") {
    GpuUsage u = busy_gpu(0.6);
    ProfileUsage p;
    p.kernel_launch_cpu_share = 0.5;  // >= kDominantShare 0.3
    const Finding f = classify(&u, 1, {}, p);
    CHECK(f.bottleneck == "host_dispatch");
    CHECK(f.supported);
    CHECK(f.remedy == "compiled mode or CUDA graphs, a bigger batch per GPU (fewer launches per sample; less gradient "
                      "accumulation keeps the global batch, else retune the learning rate)");
  }

  TEST_CASE("summarize_profiles reads the DataLoader, launch and NCCL rows") {
    ProfilerTable t;
    ProfilerRow loader;
    loader.name = "enumerate(DataLoader)#_SingleProcessDataLoaderIter._...";
    loader.cpu_total_share = 0.8918;
    ProfilerRow launch;
    launch.name = "cudaLaunchKernel";
    launch.self_cpu_s = 2.0;
    ProfilerRow nccl;
    nccl.name = "ncclKernel_AllReduce_RING_LL_Sum_float";
    nccl.self_cuda_s = 1.0;
    nccl.self_cuda_share = 0.25;
    t.rows = {loader, launch, nccl};
    t.self_cpu_total_s = 10.0;
    const ProfileUsage p = summarize_profiles({t});
    CHECK(p.data_loader_cpu_share == doctest::Approx(0.8918));
    CHECK(p.single_process_loader);
    CHECK(p.kernel_launch_cpu_share == doctest::Approx(0.2));  // 2 s of the 10 s total
    CHECK(p.nccl_cuda_share == doctest::Approx(0.25));
  }
}

}  // namespace gpuplan::models

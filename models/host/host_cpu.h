#pragma once
/// \file host_cpu.h
/// Host-CPU constants of the input pipeline (pure; the step simulation plays them on the
/// engine). Each is an assumption with its reasoning; none is tuned per scenario.

namespace gpuplan::models {

/// Coefficient of variation of the per-sample decode + augment time. ImageNet JPEGs vary in
/// size and resolution (file sizes have a cv of about 0.5; random-resized-crop work varies
/// less), so the per-sample CPU time is drawn lognormal with this cv around
/// DatasetSpec::decode_time_s. An assumption, documented in DESIGN.md "Data loading".
inline constexpr double kDecodeTimeCv = 0.4;

/// Bandwidth of the pin-memory thread's copy of a batch into page-locked memory, one thread
/// (a single-threaded memcpy on a server CPU runs at 5-15 GB/s); 8 GB/s is an assumption.
inline constexpr double kPinCopyBytesPerS = 8e9;

/// Start-up of one DataLoader worker process (fork, unpickling the dataset object, first
/// import of the transforms), paid serially by the main process each time the workers start:
/// once per job with persistent_workers, at every epoch otherwise. 0.15 s is an assumption
/// (typical of torchvision ImageFolder datasets; much more for datasets holding big lists).
inline constexpr double kWorkerStartupS = 0.15;

/// GPU time of one sample's decode + augment with DALI's nvJPEG path (preprocess_on: gpu),
/// as a share of the CPU decode time of the same sample on one core. DALI reports about
/// 10-30x one CPU core per GPU for ResNet-50 preprocessing; 1/20 is an assumption.
inline constexpr double kGpuDecodeShare = 1.0 / 20.0;

/// CPU time per sample that stays on the CPU with preprocess_on: gpu (file read, batching
/// the encoded bytes), as a share of the CPU decode time. An assumption.
inline constexpr double kGpuDecodeCpuShare = 0.05;

/// CPU cores of one GPU's training process: the node's cores shared evenly among its GPUs.
/// Throws std::invalid_argument when that leaves less than one core.
int cores_per_gpu(int cpu_cores, int gpus_per_node);

}  // namespace gpuplan::models

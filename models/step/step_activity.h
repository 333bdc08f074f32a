#pragma once
/// \file step_activity.h
/// The tags the step graph (step_graph.h) gives its activities, so that measurement
/// (step_measurement.h) attributes time by type, never by label: what an activity is
/// (ActivitySpec::kind), where it runs (ActivitySpec::track, a trace row) and its payload
/// (ActivitySpec::tag: the batch or micro-step it belongs to, with flags).

#include <cstdint>
#include <string>

namespace gpuplan::models {

/// What a step-graph activity is (sim::ActivitySpec::kind).
enum class StepActivity : std::uint32_t {
  kStorageSlot,    ///< a batch's requests hold one of the device's queue slots for their latency
  kRead,           ///< the last part of a batch's read (bytes on the storage bandwidth, or a whole-batch read)
  kDecode,         ///< decode + augment of a batch on a reader's thread (CPU core-seconds)
  kPin,            ///< copy of a batch into page-locked memory (pin-memory thread, or the main process)
  kCopyPinned,     ///< H2D copy from pinned memory: the host goes on dispatching
  kCopyPageable,   ///< H2D copy from pageable memory: the host waits for it
  kDispatch,       ///< the host launches one dispatch unit's kernels (main thread)
  kKernel,         ///< forward/backward math on the compute stream
  kOptimizerKernel,  ///< optimizer kernels on the compute stream (last micro-step only)
  kCommKernel,     ///< GPU time moving data between GPUs on the compute stream (DataParallel)
  kAllReduce,      ///< one DDP gradient bucket's all-reduce on the communication stream
  kAllGather,      ///< FSDP / ZeRO: a unit's (or the updated model's) parameters gathered on the communication stream
  kReduceScatter,  ///< FSDP / ZeRO-2: a unit's or bucket's gradients reduce-scattered on the communication stream
  /// Pipeline parallelism: the stage's compute stream waits for the other stages'
  /// activations and gradients (the schedule's idle time, PipelineStagePlan::wait_s)
  kPipelineWait,
  /// An offloaded optimizer step (sharded_data_parallel_plan.h apply_offload): the compute
  /// stream waits for the copies and the host's update; optimizer time, the GPU idle.
  kHostOptimizer,
  /// Activation offloading (activation_offload_plan.h): a block's saved activations copied
  /// device-to-host on the offload stream after its forward
  kActivationD2H,
  /// Activation offloading: a block's saved activations copied back host-to-device on the
  /// offload stream before its backward, which waits for it
  kActivationH2D,
};

/// Where a step-graph activity runs (sim::ActivitySpec::track); workers are kWorker0 + w.
enum class StepTrack : std::uint32_t {
  kMainProcess,    ///< the training process's main thread (dispatch; loading when num_workers = 0)
  kPinThread,      ///< the DataLoader's pin-memory thread
  kCopyEngine,     ///< the GPU's H2D copy engine
  kComputeStream,  ///< the compute stream (kernels in stream order)
  kCommStream,     ///< NCCL's stream (DDP all-reduces, FSDP gathers and reduces; one at a time)
  kStorage,        ///< the storage device's queue slots
  kOffloadStream,  ///< activation offloading's side stream (copies out in forward, in in backward)
  kWorker0,        ///< DataLoader worker 0; worker w is kWorker0 + w
};

/// Flags in the high bits of sim::ActivitySpec::tag; the low bits are the batch or micro-step.
inline constexpr std::uint64_t kTagEndsMicroStep = std::uint64_t{1} << 62;  ///< the micro-step's last kernel
inline constexpr std::uint64_t kTagHostWaitsAfter = std::uint64_t{1} << 61;  ///< the host syncs after this dispatch
inline constexpr std::uint64_t kTagIndexMask = (std::uint64_t{1} << 48) - 1;  ///< the batch or micro-step

/// The trace row of `track`: "main process", "pin_memory", "h2d", "gpu", "nccl", "storage",
/// "offload", "worker N".
std::string track_name(std::uint32_t track);

}  // namespace gpuplan::models

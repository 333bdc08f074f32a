#pragma once
/// \file results.h
/// The plain results that report/ consumes; report/ never sees the engine (STYLE.md L1).
/// SI units; "simulated" time throughout.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpuplan::models {

/// Peak device memory by component, bytes (models/memory).
struct MemoryBreakdown {
  double weights_bytes = 0.0;  ///< under AMP the fp32 parameters and autocast's 16-bit copies (footprint.h)
  double gradients_bytes = 0.0;
  /// The optimizer's state, and the fp32 master weights where the optimizer keeps them apart
  /// from 16-bit parameters (ZeRO under mixed precision, Megatron's distributed optimizer).
  double optimizer_state_bytes = 0.0;
  double activations_bytes = 0.0;
  double workspace_bytes = 0.0;
  double cuda_context_bytes = 0.0;
  double allocator_slack_bytes = 0.0;
  double data_parallel_bytes = 0.0;    ///< DDP gradient buckets, or DataParallel's extras on GPU 0
  /// Parameters all-gathered for the units in flight under sharded data parallelism
  /// (FSDP / ZeRO-3: the units in flight and the largest unit's unsharded gradient,
  /// models/memory/parallel_memory.h); 0 without sharded parameters.
  double gathered_bytes = 0.0;
  /// The part of workspace_bytes that the loss's backward phase adds over the body's sum
  /// (models/memory/parallel_memory.h rank_memory); already in workspace_bytes, not in
  /// total_bytes() again. 0 where another phase, or none, sets the peak.
  double loss_backward_excess_bytes = 0.0;
  double total_bytes() const {
    return weights_bytes + gradients_bytes + optimizer_state_bytes + activations_bytes +
           workspace_bytes + cuda_context_bytes + allocator_slack_bytes + data_parallel_bytes + gathered_bytes;
  }
};

/// Mean time per optimizer step by where it goes, seconds. The parts are exclusive and add
/// up to step_time_s: GPU compute (forward+backward kernels), optimizer kernels, time the GPU
/// waits for data, H2D copies not overlapped, host dispatch the GPU waits on,
/// communication not hidden behind compute, and the pipeline bubble.
struct StepBreakdown {
  double step_time_s = 0.0;
  double gpu_compute_s = 0.0;
  double optimizer_s = 0.0;
  /// The part of optimizer_s spent off the GPU: an offloaded optimizer step (ZeRO-Offload's
  /// copies and host Adam, models/step/sharded_data_parallel_plan.h) that the GPU waits for.
  double host_optimizer_s = 0.0;
  double data_wait_s = 0.0;
  double h2d_s = 0.0;
  double host_dispatch_wait_s = 0.0;
  double communication_exposed_s = 0.0;
  /// Pipeline parallelism: the simulated stage's compute stream idle while it waits for the
  /// other stages (the schedule's fill and drain, and waits on a slower stage, e.g. the last
  /// one's LM head and loss); 0 without pipeline parallelism.
  double pipeline_bubble_s = 0.0;
};

/// One resource's part of the simulated step's critical path: the GPU stream's time, each
/// idle gap charged to what the GPU waited on (StepBreakdown), the data wait split between
/// storage and the loader's CPU by where the readers spent their time (LoaderStats).
struct CriticalPathPart {
  /// gpu_compute | data_loading_cpu | storage_io | h2d_copy | host_dispatch | communication |
  /// pipeline_bubble | host_optimizer
  std::string resource;
  double seconds = 0.0;  ///< per optimizer step
  double share = 0.0;    ///< of the step time, [0, 1]; the parts add up to 1
};

/// One scenario override as a strategy writes it: `data_loader.num_workers` = "6". The value
/// is YAML scalar text, units included ("100 MiB").
struct ScenarioOverride {
  std::string path;
  std::string value;
};

/// A remedy that the simulation checked: the row's job with `overrides` written after its
/// strategy's and sweep point's, validated and simulated again (models/run/advice.h).
struct SuggestedChange {
  std::vector<ScenarioOverride> overrides;
  std::string relieves;          ///< the resource the remedy relieves (the row's bottleneck)
  std::string goal;              ///< what it was ranked on: time_to_train | cost
  double gain = 0.0;             ///< goal before / goal after - 1 (+0.84: 1.84x faster or cheaper)
  double throughput_samples_per_s = 0.0;  ///< after the change
  double throughput_change = 0.0;  ///< samples/s after / before - 1
  double time_to_train_s = 0.0;  ///< after the change: wall time p50 on a cloud market, else time to train
  double time_change = 0.0;      ///< time_to_train_s after / before - 1 (-0.46: 46 % less time)
  std::optional<double> cost_usd;  ///< after the change, on the row's market (p50), or on premises
  std::optional<double> cost_change_usd;  ///< cost_usd - the row's; absent without dollars
};

/// One row of the comparison: a strategy (and sweep point) of a scenario.
struct VariantResult {
  std::string strategy;                ///< strategy name, with the sweep point if any
  /// The sweep point key by key (path, value as written); each key is its own CSV/JSON column.
  std::vector<std::pair<std::string, std::string>> sweep_settings;
  std::string gpu;                     ///< GPU catalog name
  double parameters = 0.0;             ///< trainable parameters of the model (WorkloadSpec::parameters)
  /// Frozen parameters (a LoRA/QLoRA base, Workload::frozen_parameters); 0 in full training.
  double frozen_parameters = 0.0;
  int gpus = 1;
  std::int64_t global_batch_samples = 0;  ///< up to the dataset bound, 1e15: needs 64 bits
  /// A sample is a token sequence (WorkloadSpec::is_language_model): advice counts the global
  /// batch in sequences.
  bool samples_are_sequences = false;
  std::string parallelism;             ///< none | data_parallel | ddp
  /// Throughput / (GPUs x throughput of one GPU of the same kind alone on the node, same
  /// per-GPU batch); absent on one GPU.
  std::optional<double> scaling_efficiency;
  std::optional<double> single_gpu_throughput_samples_per_s;
  std::string collective;              ///< DDP: NCCL algorithm/protocol of the largest bucket
  /// The attention kernel that runs (training.attention resolved: sdpa becomes flash,
  /// memory_efficient or eager, models/workload/attention_kernel.h); empty for a model
  /// without attention.
  std::string attention_kernel;
  int nodes = 1;
  std::string interconnect;            ///< intra-node link (interconnect table name); empty on one GPU
  std::string network;                 ///< transport between nodes ("infiniband", "ethernet"); empty on one node
  double network_bytes_per_s = 0.0;    ///< all NICs of a node, per direction; 0 on one node
  bool fits = true;
  MemoryBreakdown memory;
  double peak_memory_bytes = 0.0;
  double memory_capacity_bytes = 0.0;
  // Below are meaningful only when fits.
  StepBreakdown step;
  double throughput_samples_per_s = 0.0;
  std::optional<double> throughput_tokens_per_s;  ///< language models
  double gpu_utilization = 0.0;        ///< nvidia-smi: share of time a kernel runs, [0, 1]
  double mfu = 0.0;                    ///< model FLOP/s / peak dense FLOP/s of the precision, [0, 1]
  /// Hardware FLOP/s (recomputation included: fused attention's backward, selective or
  /// checkpointed replays) / the same peak; >= mfu (Korthikanti et al. 2022, sec. 6).
  double hfu = 0.0;
  /// Pipeline parallelism: share of the simulated schedule's makespan the busiest stage
  /// idles (models/step/pipeline_schedule.h PipelineResult::bubble_fraction); none without.
  std::optional<double> pipeline_bubble_share;
  double epoch_time_s = 0.0;
  double time_to_train_s = 0.0;
  std::optional<double> cost_on_demand_usd;
  std::optional<double> cost_on_premises_usd;
  double energy_j = 0.0;
  /// The limiter: the resource whose checked remedy gains most (`suggested`); without one,
  /// the largest part of the critical path; memory for an OOM row.
  /// gpu_compute | data_loading_cpu | storage_io | h2d_copy | host_dispatch | communication |
  /// pipeline_bubble | host_optimizer | preemptions | memory
  std::string bottleneck;
  /// What relieves it: the checked overrides as "path: value, path: value", or an unchecked
  /// hint in words when no remedy the tool can simulate gains.
  std::string suggestion;
  std::optional<SuggestedChange> suggested;  ///< the checked remedy, when one gains
  std::vector<CriticalPathPart> critical_path;  ///< fitting rows: the step's parts, fixed order
  std::vector<std::string> notes;      ///< warnings (e.g. "fp16 without tensor cores")
  bool calibrated = false;
  /// The GPU is `accuracy: prediction-only` in the catalog: no validation case measures it.
  bool gpu_prediction_only = false;
  /// No calibration profile can describe the GPU (an AMD GPU: cuda_probe measures CUDA GPUs
  /// only); the report's prediction-only note says so instead of pointing at gpuplan calibrate.
  bool gpu_uncalibratable = false;
  // Job level on a cloud market (models/job/cloud_job.h); empty / absent without `cloud`.
  std::string market;                          ///< on_demand | spot
  std::optional<double> time_p50_s;            ///< wall time to finish; on-demand: no spread
  std::optional<double> time_p90_s;
  std::optional<double> cost_p50_usd;          ///< dollars on the variant's market
  std::optional<double> cost_p90_usd;
  std::optional<double> expected_preemptions;  ///< spot: mean over trials (hardware failures among them)
  std::optional<double> expected_failures;     ///< on demand: mean hardware failures (closed form)
  std::optional<double> lost_time_share;       ///< spot: share of wall time lost to preemptions, [0, 1]
  std::optional<double> finished_share;        ///< spot: trials finished within the cap, [0, 1]
  double checkpoint_interval_s = 0.0;          ///< chosen interval (work seconds); 0 = none
  std::string checkpoint_interval_reason;      ///< which interval and why
  int trials = 0;                              ///< Monte Carlo trials run (spot)
};

/// All rows of one scenario, in the order of its strategies (then sweep points).
struct ScenarioResult {
  std::string scenario_name;
  std::string scenario_path;
  std::vector<VariantResult> variants;
};

}  // namespace gpuplan::models

#pragma once
/// \file job_spec.h
/// One fully resolved training job: the plain struct config/ builds from a scenario variant
/// (base + strategy overrides + sweep point) and models/ consumes. SI units throughout.
/// Hardware facts come from catalogs; the rest from the scenario with the documented
/// defaults of scenario-format.md.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/gpu/gpu_spec.h"
#include "models/interconnect/topology.h"
#include "models/precision.h"
#include "models/workload/activation_recompute.h"
#include "models/workload/fine_tuning.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

struct DatasetSpec {
  double samples = 0.0;            ///< training samples per epoch
  double sample_bytes = 0.0;       ///< mean stored size of one sample
  DatasetLayout layout = DatasetLayout::kFiles;
  double decode_time_s = 0.0;      ///< CPU time per sample on one core (decode + augment)
  double eval_samples = 0.0;       ///< validation samples per evaluation pass; 0 = no evaluation
  /// Optimizer steps between evaluation passes; 0 = one pass per epoch. nanoGPT's
  /// eval_interval (train.py: `iter_num % eval_interval == 0`).
  double eval_every_steps = 0.0;
  /// Only rank 0 evaluates while the other ranks wait (nanoGPT: `and master_process`); false:
  /// the evaluation samples are split over all ranks.
  bool eval_first_rank_only = false;
  bool synthetic = false;          ///< batches generated on the GPU: no loading at all
};

struct TrainingSpec {
  int batch_size = 0;              ///< per GPU, per micro-step
  int gradient_accumulation = 1;   ///< micro-steps per optimizer step
  Precision precision = Precision::kFp32;
  Optimizer optimizer = Optimizer::kSgdMomentum;
  /// Element type of a full-precision optimizer's state (models/memory/optimizer_state.h).
  OptimizerStatePrecision optimizer_state_precision = OptimizerStatePrecision::kParam;
  /// `training.optimizer_implementation` as written; nullopt: the framework mode's default
  /// (optimizer_implementation_of() below). Read by the optimizer's kernels and host time
  /// (models/gpu/op_time.h) and its step's temporaries (models/memory/optimizer_state.h).
  std::optional<OptimizerImplementation> optimizer_implementation;
  /// Full activation checkpointing (every block; the step plan replays each forward).
  /// Equal to activation_recompute == kFull.
  bool activation_checkpointing = false;
  /// `training.activation_checkpointing` as written: selective and {every: N} are applied to
  /// the op table by config/ (models/workload/activation_recompute.h).
  ActivationRecompute activation_recompute = ActivationRecompute::kNone;
  int checkpoint_every = 0;  ///< N of {every: N}; 0 otherwise
  /// `training.activation_offloading`: the tensors each repeated block saves for backward
  /// (with checkpointing, a checkpointed block's input) are copied to pinned host memory in
  /// forward and back in backward, on a side stream (torchtune's OffloadActivations, Unsloth's
  /// offloaded gradient checkpointing): models/memory/activation_offload.h.
  bool activation_offloading = false;
  MemoryFormat memory_format = MemoryFormat::kChannelsFirst;
  FrameworkOverhead framework_overhead = FrameworkOverhead::kEager;
  /// The framework, for its memory facts (models/memory/footprint.h).
  Framework framework = Framework::kPytorch;
  /// The attention kernel; config/ resolves kSdpa to the backend PyTorch picks
  /// (sdpa_backend(), models/workload/attention_kernel.h), so models see eager, flash, flash3,
  /// memory_efficient or flash_triton, never sdpa.
  AttentionKernel attention = AttentionKernel::kSdpa;
  /// How a decoder's causal mask reaches SDPA (`training.causal_mask`, CausalMask in
  /// models/precision.h); config/ applies it when it resolves kSdpa and builds the op table.
  CausalMask causal_mask = CausalMask::kIsCausal;
  /// Full training or LoRA/QLoRA adapters on a frozen base; config/ applies it to the
  /// workload's op table (with_fine_tuning(), models/workload/fine_tuning.h).
  FineTuningSpec fine_tuning;
};

/// How `training`'s torch.optim SGD or Adam(W) step runs: as written, else foreach in eager
/// scripts (torch.optim's default) and fused in every other framework mode (compiled and
/// CUDA-graph recipes, Megatron's and DeepSpeed's fused Adam under eager_fused). The one rule.
inline OptimizerImplementation optimizer_implementation_of(const TrainingSpec& training) {
  if (training.optimizer_implementation) return *training.optimizer_implementation;
  return training.framework_overhead == FrameworkOverhead::kEager ? OptimizerImplementation::kForeach
                                                                  : OptimizerImplementation::kFused;
}

struct DataLoaderSpec {
  int num_workers = 0;
  int prefetch_factor = 2;
  bool pin_memory = false;
  bool persistent_workers = false;
  PreprocessOn preprocess_on = PreprocessOn::kCpu;
};

/// A storage class (catalogs/storage.yaml) or an inline one.
struct StorageSpec {
  std::string name;                     ///< catalog name or "inline"
  double read_bytes_per_s = 0.0;        ///< sequential read bandwidth
  double random_read_bytes_per_s = 0.0; ///< small random reads (one file per sample); 0 = same as sequential
  double write_bytes_per_s = 0.0;
  double latency_s = 0.0;               ///< per request
  int queue_depth = 1;                  ///< requests served in parallel
  std::string source;
  std::string retrieved;
};

struct HardwareSpec {
  GpuSpec gpu;
  int gpus_per_node = 1;
  int nodes = 1;
  std::string gpu_interconnect = "pcie4";  ///< as written: pcie4, nvlink3, pcie4_no_p2p, ... (interconnect_table.h)
  int cpu_cores = 0;                       ///< per node, available to the job
  double host_memory_bytes = 0.0;          ///< per node
  StorageSpec storage;
  double network_bytes_per_s = 0.0;        ///< between nodes, all NICs of a node together; 0 when unknown
  /// GPUs whose host-to-device copies share one PCIe x16 uplink to the CPU (a PCIe switch):
  /// 2 on HGX/DGX A100 and H100 boards (NVIDIA DGX A100 User Guide, system topology), 1 when
  /// every GPU has its own x16 root port (workstations, most cloud VMs with 1-4 GPUs).
  int gpus_per_pcie_switch = 1;
  /// The links the collectives run over, built by config/ from gpu_interconnect, the GPU's
  /// NVLink bandwidth and the network (models/interconnect/topology.h). gpus_per_node and
  /// nodes equal the fields above.
  Topology topology;
  /// Hardware failures per GPU per second (`hardware.gpu_failure_rate`), on own hardware and on
  /// every cloud market (models/job/hardware_failures.h; config's default kGpuFailureRatePerS,
  /// 0 here so that a bare spec has none).
  double gpu_failure_rate_per_s = 0.0;
  std::string gpu_failure_rate_source;  ///< where the failure rate comes from (for notes)
};

struct ParallelismSpec {
  ParallelStrategy strategy = ParallelStrategy::kNone;
  double bucket_bytes = 25.0 * 1024 * 1024;  ///< DDP default bucket_cap_mb = 25 (PyTorch docs)
  /// Tensor-parallel ranks t (`parallelism.tensor_parallel`): Megatron-LM's column/row split
  /// of every transformer block over t GPUs of one node, or of t / gpus_per_node whole nodes
  /// (models/workload/tensor_parallel_shard.h).
  int tensor_parallel = 1;
  /// Megatron's sequence parallelism (Korthikanti et al. 2022) on top of tensor parallelism:
  /// norms and dropouts split along the sequence, all-gather + reduce-scatter for all-reduce.
  bool sequence_parallel = false;
  /// `parallelism.async_tensor_parallel` (needs sequence_parallel): each all-gather before and
  /// reduce-scatter after a tensor-parallel GEMM runs decomposed with it in tensor_parallel
  /// chunks that overlap (AsyncTP; models/step/tensor_parallel_plan.h).
  bool async_tensor_parallel = false;
  /// Pipeline stages p (`parallelism.pipeline_parallel`): the decoder's layers split into p
  /// consecutive stages on different GPUs, `training.gradient_accumulation` micro-batches
  /// flowing through them (models/step/pipeline_parallel_plan.h).
  int pipeline_parallel = 1;
  PipelineSchedule pipeline_schedule = PipelineSchedule::kOneFOneB;
  /// Model chunks per stage v (`parallelism.virtual_stages`; interleaved 1F1B only, else 1).
  int virtual_stages = 1;
  /// `parallelism.account_for_embedding_in_pipeline_split` / `_loss_` (pipeline_parallel > 1
  /// only): Megatron-Core's TransformerConfig flags of the same names. The embedding (the
  /// loss) counts as one layer of the first (last) chunk when the layers are split into the
  /// p x v chunks, so that chunk holds one decoder layer fewer (Megatron-Bridge's Llama 3.1 405B
  /// recipe: 126 layers + 2 = 128 split over PP8 x VP8; models/memory/parallel_memory.h
  /// pipeline_chunk_of_ops).
  bool embedding_in_pipeline_split = false;
  bool loss_in_pipeline_split = false;
  /// The layers a pipeline splits into chunks: the decoder's `layers`, plus the embedding and
  /// the loss where they count as layers.
  int pipeline_split_layers(int layers) const {
    return layers + (embedding_in_pipeline_split ? 1 : 0) + (loss_in_pipeline_split ? 1 : 0);
  }
  /// Context-parallel ranks c (`parallelism.context_parallel`): ring attention, each of c
  /// GPUs holding s / c tokens of every sequence (models/workload/context_parallel_shard.h,
  /// models/step/context_parallel_plan.h).
  int context_parallel = 1;
  /// Expert-parallel ranks e (`parallelism.expert_parallel`): a mixture-of-experts model's
  /// routed experts split over e ranks of each data-parallel group, as Megatron-Core and
  /// DeepSpeed-MoE place them (EP within DP), with two all-to-alls per MoE layer in forward
  /// and two in backward (models/step/expert_parallel_plan.h). 1 = every rank holds every expert.
  int expert_parallel = 1;
  /// `parallelism.expert_load_imbalance` (expert_parallel > 1): the tokens the busiest
  /// expert-parallel rank receives over the mean, >= 1 (1 = the router balances perfectly, as
  /// Megatron-Bridge's "forced balance" benchmarks run). Its expert GEMMs, their saved
  /// activations and its all-to-alls scale by it; model FLOP (MFU) do not.
  double expert_load_imbalance = 1.0;

  /// GPUs that train one sample together: tensor_parallel x pipeline_parallel x
  /// context_parallel (each holds that share of the sample's model FLOP).
  int model_parallel_size() const { return tensor_parallel * pipeline_parallel * context_parallel; }
  /// Data-parallel replicas of `gpus` GPUs (each its own samples): gpus / model_parallel_size().
  int data_parallel_size(int gpus) const { return gpus / model_parallel_size(); }
  /// Ranks that hold the same weights and reduce their gradients together (DDP's and FSDP's
  /// group): the data-parallel replicas x context_parallel, gpus / (tensor_parallel x
  /// pipeline_parallel) (Megatron-Core reduces gradients over the DP x CP group).
  int gradient_ranks(int gpus) const { return gpus / (tensor_parallel * pipeline_parallel); }
  /// FSDP only: what it shards (`parallelism.sharding`, default full_shard as in PyTorch).
  Sharding sharding = Sharding::kFullShard;
  /// ZeRO only: 1 shards the optimizer state, 2 also the gradients, 3 also the parameters
  /// (`parallelism.zero_stage`, required with strategy zero); 0 for other strategies.
  int zero_stage = 0;
  /// `parallelism.fp8_all_gather` (precision fp8 with fsdp or zero_stage 3 only): the float8
  /// linears' weights are all-gathered as 1-byte float8, not bf16 (torchao
  /// enable_fsdp_float8_all_gather; models/memory/sharding.h gathered_unit_bytes).
  bool fp8_all_gather = false;
  /// `parallelism.distributed_optimizer` (strategy ddp only): Megatron-LM's distributed
  /// optimizer, the fp32 main parameters and optimizer state split over the gradient ranks,
  /// gradients reduce-scattered and updated parameters all-gathered
  /// (models/memory/distributed_optimizer.h).
  bool distributed_optimizer = false;
  /// `parallelism.grad_reduce_in_fp32` (with distributed_optimizer and 16-bit parameters
  /// only): main grads accumulated and reduce-scattered in fp32 (true) or in the parameters'
  /// 16 bit (false); unset, the precision's default (fp32 but under fp16_amp;
  /// models/memory/distributed_optimizer.h).
  std::optional<bool> grad_reduce_in_fp32;
  /// `parallelism.overlap_param_gather` (with distributed_optimizer only): Megatron's
  /// --overlap-param-gather, the updated parameters all-gathered bucket by bucket behind the
  /// next forward instead of before it (models/step/comm_plan.h parameter_all_gather_first_s).
  bool overlap_param_gather = false;
  /// `parallelism.offload.optimizer` (fsdp or zero): the optimizer state and fp32 master
  /// weights live off the GPU and the optimizer step runs on the host's cores
  /// (models/memory/offload.h).
  OffloadTarget optimizer_offload = OffloadTarget::kNone;
  /// `parallelism.offload.parameters` (fsdp full_shard / hybrid_shard or zero_stage 3): the
  /// parameter shards live off the GPU and come host-to-device before each all-gather.
  OffloadTarget parameter_offload = OffloadTarget::kNone;
};

struct CheckpointSpec {
  bool enabled = false;
  double interval_s = 0.0;  ///< 0 with `automatic` = Young/Daly
  bool automatic = false;
  bool async = false;
  /// Where checkpoints go (`checkpointing.destination`): "hardware_storage" (the default: the
  /// node's storage class), "local_nvme", "object_store", "network_fs", or "custom".
  std::string destination = "hardware_storage";
  /// Write and read bandwidth of the destination; 0 = the node's hardware.storage (so that
  /// `gpuplan plan` on another instance uses that instance's disk).
  double write_bytes_per_s = 0.0;
  double read_bytes_per_s = 0.0;
  /// False for storage of the node itself (local_nvme): a preemption takes the node and its
  /// disk, so the job restarts from its last durable checkpoint (none: the start).
  bool survives_preemption = true;
};

/// A cloud instance row (catalogs/instances/*.csv, SkyPilot vms.csv columns).
struct InstanceSpec {
  std::string provider;          ///< aws | gcp | azure | lambda
  std::string instance_type;     ///< e.g. "p4d.24xlarge"
  std::string accelerator_name;  ///< SkyPilot AcceleratorName, e.g. "A100"
  std::string gpu;               ///< our GPU catalog name, e.g. "a100-40gb"
  int accelerator_count = 0;
  double vcpus = 0.0;
  double memory_bytes = 0.0;
  std::string region;
  std::string zone;
  double price_usd_per_s = 0.0;  ///< on-demand, whole instance
  double spot_price_usd_per_s = 0.0;  ///< 0 = no spot market
  std::string interconnect;      ///< e.g. "nvlink3", "pcie4"; empty when unknown
  double network_bytes_per_s = 0.0;
  std::string storage;           ///< storage class of the local disk, empty when unknown
  double billing_granularity_s = 1.0;  ///< per-second billing (AWS, GCP, Azure Linux); Lambda hourly? see catalog
  std::string source;
  std::string retrieved;
};

/// A replayed spot availability trace (SkyPilot spot-traces JSON, config/spot_trace.h): the
/// count of instances alive at each probe, `gap_s` apart. Replayed cyclically.
struct AvailabilityTrace {
  double gap_s = 0.0;
  std::vector<int> alive;
  std::string source;  ///< the file it came from
};

struct CloudSpec {
  InstanceSpec instance;
  Market market = Market::kOnDemand;
  /// Per node, spot only: from the scenario, or the preemption catalog
  /// (catalogs/preemption.yaml) for `preemption_rate: catalog`.
  double preemption_rate_per_s = 0.0;
  std::string preemption_rate_source;  ///< where the rate comes from (scenario, catalog row + source)
  std::optional<AvailabilityTrace> trace;  ///< `preemption_rate: {trace: path}`, spot only
  double replacement_wait_s = 0.0;
  double startup_s = 0.0;  ///< instance boot + container start after a replacement (preemption catalog)
};

struct OnPremisesSpec {
  double purchase_usd = 0.0;          ///< per node
  double amortization_s = 0.0;
  double electricity_usd_per_j = 0.0;
};

/// How long the job runs: epochs over the dataset, or a token budget (language models).
struct DurationSpec {
  double epochs = 0.0;   ///< > 0 when given in epochs
  double tokens = 0.0;   ///< > 0 when given in tokens
};

struct JobSpec {
  std::string scenario_name;
  std::uint64_t seed = 0;
  Workload workload;
  DatasetSpec dataset;
  DurationSpec duration;
  TrainingSpec training;
  DataLoaderSpec data_loader;
  HardwareSpec hardware;
  ParallelismSpec parallelism;
  CheckpointSpec checkpointing;
  std::optional<CloudSpec> cloud;
  std::optional<OnPremisesSpec> on_premises;
  int trials = 1;
};

}  // namespace gpuplan::models

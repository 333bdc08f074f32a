#include "config/scenario_schema_docs.h"

#include <nlohmann/json.hpp>

#include <map>
#include <stdexcept>

#include "config/overrides.h"
#include "config/scenario_hardware.h"
#include "config/scenario_validator.h"
#include "models/precision.h"

namespace gpuplan::config {
namespace {

template <typename Enum>
std::vector<std::string_view> enum_names() {
  return models::names_of<Enum>();
}

std::vector<std::string_view> transports() {
  return {"ethernet", "infiniband", "gpudirect_tcpxo", "roce", "efa", "rdma"};
}

std::vector<std::string_view> interconnects() { return interconnect_names(); }

using K = KeyType;

// Ranges and defaults as the readers (scenario_validator.cpp, scenario_workload.cpp,
// scenario_hardware.cpp, scenario_loader.cpp) apply them; integer bounds are checked against
// the readers by tests/config/schema_docs_test.cpp.
const std::vector<KeyDoc> kDocs = {
    {"format", K::kString, "", "required", "gpuplan/v1", "the version of the format; the first line of the file"},
    {"name", K::kString, "", "the file name's stem", "any text", "the scenario's title in reports"},
    {"seed", K::kInteger, "", "0", "0 to 2^63 - 1", "seed of every random stream (same seed = same bytes)", 0,
     INT64_MAX},
    {"strategies", K::kMapping, "", "none: one variant, baseline", "name -> overrides",
     "variants to compare: each maps dotted key paths (or nested mappings) to values; ~ removes a key"},
    {"sweep", K::kMapping, "", "none", "key path -> non-empty list",
     "every combination of the listed values, for every strategy; each key becomes its own column"},
    {"expected", K::kMapping, "", "none", "see tests/validation/README.md",
     "measured values `gpuplan validate` compares the prediction with"},
    {"workload", K::kSection, "", "required", "", "what is trained"},
    {"workload.model", K::kNameOrMapping, "", "required", "a catalog model (gpuplan list models) or {family, ...}",
     "the model; an inline mapping names a family, or base: a catalog model whose structure it starts from "
     "(a GPT shape keeps GELU and tied embeddings), and its architecture keys (docs/language-models.md)"},
    {"workload.dataset", K::kSection, "", "required", "", "the training data"},
    {"workload.dataset.samples", K::kNumber, "", "required; with tokens: ceil(tokens / sequence_length)",
     "whole number, 1 to 1e15", "training samples per epoch"},
    {"workload.dataset.sample_size", K::kQuantity, "bytes (\"110 KiB\")", "required unless synthetic", "> 0",
     "stored bytes of one sample as read from storage"},
    {"workload.dataset.layout", K::kChoice, "", "files", "", "how samples are stored", std::nullopt, std::nullopt,
     enum_names<models::DatasetLayout>},
    {"workload.dataset.decode_time", K::kQuantity, "seconds (\"6 ms\")", "required unless synthetic", ">= 0",
     "CPU time to decode and augment one sample on one core"},
    {"workload.dataset.eval_samples", K::kNumber, "", "0 (no evaluation pass)", "whole number, 0 to 1e15",
     "evaluation samples run forward in each evaluation pass (once per epoch unless eval_every_steps)"},
    {"workload.dataset.eval_every_steps", K::kNumber, "optimizer steps", "0 (one pass per epoch)",
     "whole number, 0 to 1e9", "an evaluation pass every N optimizer steps (nanoGPT's eval_interval)"},
    {"workload.dataset.eval_first_rank_only", K::kBoolean, "", "false", "",
     "rank 0 runs the whole evaluation pass while the others wait (nanoGPT: `master_process` only); false "
     "splits the samples over all ranks"},
    {"workload.dataset.synthetic", K::kBoolean, "", "false", "",
     "batches made on the GPU: no storage, decode or host memory; hardware.cpu_cores, host_memory and storage "
     "then default to one core per GPU, 0 B and nvme_ssd"},
    {"workload.sequence_length", K::kInteger, "tokens", "the catalog model's (sequence models only)",
     "1 to 100000000", "tokens per sample", 1, 100'000'000},
    {"workload.epochs", K::kNumber, "", "one of epochs and tokens is required", "> 0, at most 1e6",
     "passes over the dataset"},
    {"workload.tokens", K::kNumber, "tokens", "one of epochs and tokens is required", "whole number, 1 to 1e18",
     "token budget of a language model"},
    {"training", K::kSection, "", "required", "", "the training loop"},
    {"training.batch_size", K::kInteger, "samples", "required", "1 to 1000000", "micro-batch per GPU", 1, 1'000'000},
    {"training.gradient_accumulation", K::kInteger, "", "1", "1 to 1000000",
     "micro-batches per optimizer step", 1, 1'000'000},
    {"training.precision", K::kChoice, "", "fp32", "",
     "arithmetic of the step; fp8 (compute capability 8.9+) runs the linear layers of a model's repeated blocks "
     "in fp8, the rest in bf16, and is refused on a model without any (resnet)",
     std::nullopt, std::nullopt, enum_names<models::Precision>},
    {"training.optimizer", K::kChoice, "", "sgd_momentum", "", "optimizer (its state is in memory and checkpoints)",
     std::nullopt, std::nullopt, enum_names<models::Optimizer>},
    {"training.optimizer_state_precision", K::kChoice, "", "param", "",
     "element type of the optimizer's state: param is the parameters' dtype as torch.optim allocates it (bf16 "
     "under pure bf16, fp32 beside fp32 master weights; Adafactor fp32); fp32 or bf16 for a framework that "
     "differs; not with the 8-bit optimizers",
     std::nullopt, std::nullopt, enum_names<models::OptimizerStatePrecision>},
    {"training.optimizer_implementation", K::kChoice, "",
     "foreach under framework_overhead eager, fused otherwise", "",
     "how torch.optim's SGD / Adam(W) step runs: for_loop one tensor at a time (foreach=False, PyTorch before "
     "2.0, transformers' legacy adamw_hf), foreach each op over every tensor (torch.optim's default; also a "
     "torch.compile'd model's uncompiled optimizer), fused one kernel (fused=True, adamw_torch_fused, apex / "
     "DeepSpeed FusedAdam); foreach keeps sqrt(v) of every tensor during the step",
     std::nullopt, std::nullopt, enum_names<models::OptimizerImplementation>},
    {"training.activation_checkpointing", K::kNameOrMapping, "", "false",
     "false | true | full | selective | {every: N}",
     "recompute activations in the backward pass instead of keeping them: full (true) every block, selective "
     "only attention's score chain (Korthikanti et al. 2022), {every: N} every N-th block"},
    {"training.activation_checkpointing.every", K::kInteger, "blocks", "required in the mapping", "1 to 1000000",
     "checkpoint blocks 0, N, 2N, ...; the others keep their activations", 1, 1'000'000},
    {"training.activation_offloading", K::kBoolean, "", "false", "",
     "copy the activations each repeated block saves (with checkpointing, the blocks' inputs) to pinned host "
     "memory in forward and back in backward, on a side stream over the host link (torchtune's "
     "enable_activation_offloading, Unsloth's offloaded gradient checkpointing); the GPU keeps about two blocks' "
     "worth, the host the rest; not with pipeline parallelism"},
    {"training.memory_format", K::kChoice, "", "channels_first (PyTorch's NCHW)", "", "tensor layout of convolutions",
     std::nullopt, std::nullopt, enum_names<models::MemoryFormat>},
    {"training.framework_overhead", K::kChoice, "", "eager", "",
     "host dispatch per kernel and which memory-bound ops fuse: eager_fused is eager dispatch of a framework's "
     "own fused kernels (Megatron-LM: fused scale-mask-softmax, bias+GeLU, bias+dropout+add, apex layer norm and "
     "Adam, on 16-bit tensors; HF with Liger-Kernel: fused RMSNorm, SwiGLU, RoPE)",
     std::nullopt, std::nullopt, enum_names<models::FrameworkOverhead>},
    {"training.framework", K::kChoice, "", "pytorch", "",
     "the training framework, for its memory: tensorflow (1.x graph mode) saves dropout's scaled input and float "
     "mask for backward",
     std::nullopt, std::nullopt, enum_names<models::Framework>},
    {"training.attention", K::kChoice, "", "sdpa (resolved per GPU and precision)", "", "attention kernel",
     std::nullopt, std::nullopt, enum_names<models::AttentionKernel>},
    {"training.causal_mask", K::kChoice, "", "is_causal", "",
     "how a decoder's causal mask reaches scaled_dot_product_attention: is_causal (nanoGPT, litgpt, HF in eager "
     "mode) lets SDPA pick flash and skip the masked tiles; attn_mask, a (batch, 1, s, s) tensor, as HF "
     "transformers 4.53+ builds it under torch.compile, rules flash out and computes every tile",
     std::nullopt, std::nullopt, enum_names<models::CausalMask>},
    {"training.fine_tuning", K::kSection, "", "none: full training", "",
     "parameter-efficient fine-tuning of a decoder (docs/language-models.md)"},
    {"training.fine_tuning.method", K::kChoice, "", "required in the section", "",
     "full trains every weight; lora and qlora freeze the base and train rank-r adapters", std::nullopt,
     std::nullopt, enum_names<models::FineTuningMethod>},
    {"training.fine_tuning.rank", K::kInteger, "", "8 (peft's r)", "1 to 1000000, at most the model's width",
     "the adapters' rank r", 1, 1'000'000},
    {"training.fine_tuning.alpha", K::kNumber, "", "8 (peft's lora_alpha)", "> 0, at most 1e6",
     "LoRA scaling alpha / r: changes no FLOP or byte"},
    {"training.fine_tuning.targets", K::kString, "", "all_linear",
     "all_linear or a list of q, k, v, o, gate, up, down", "the projections that get adapters"},
    {"training.fine_tuning.base_precision", K::kChoice, "", "bf16 for lora, nf4 for qlora", "",
     "how the frozen base weights are stored (qlora needs int8 or nf4)", std::nullopt, std::nullopt,
     enum_names<models::BasePrecision>},
    {"training.fine_tuning.double_quantization", K::kBoolean, "", "true (the QLoRA paper's recipe)", "",
     "nf4 only: quantize nf4's block constants again: 4.127 bits per weight instead of 4.5 (litgpt bnb.nf4-dq vs bnb.nf4; "
     "HF bnb_4bit_use_double_quant)"},
    {"training.fine_tuning.dropout", K::kNumber, "", "0 (peft's lora_dropout)", "0 to 1",
     "dropout on the adapters' input (peft lora_dropout, litgpt lora_dropout, default 0.05 there): above 0 each "
     "adapted projection keeps the dropped input and its mask for backward"},
    {"data_loader", K::kSection, "", "PyTorch DataLoader defaults", "", "the input pipeline"},
    {"data_loader.num_workers", K::kInteger, "processes", "0 (the main process loads)", "0 to 1024",
     "loader worker processes per GPU", 0, 1024},
    {"data_loader.prefetch_factor", K::kInteger, "batches", "2", "1 to 1024", "batches in flight per worker", 1, 1024},
    {"data_loader.pin_memory", K::kBoolean, "", "false", "", "copy batches to page-locked memory for the H2D copy"},
    {"data_loader.persistent_workers", K::kBoolean, "", "false", "", "keep workers alive between epochs"},
    {"data_loader.preprocess_on", K::kChoice, "", "cpu", "", "where decode and augmentation run (gpu: DALI-like)",
     std::nullopt, std::nullopt, enum_names<models::PreprocessOn>},
    {"hardware", K::kSection, "", "required unless cloud.instance gives it", "", "one node, and how many"},
    {"hardware.gpu", K::kNameOrMapping, "", "required; the instance's GPU with cloud.instance",
     "a catalog name or alias (gpuplan list gpus) or {profile: path}",
     "the GPU; an alias that names several entries (H100, A100) is resolved with a note"},
    {"hardware.gpu.profile", K::kString, "", "none", "a file of gpuplan calibrate",
     "a calibration profile measured on the GPU"},
    {"hardware.gpus_per_node", K::kInteger, "GPUs", "1, or the instance's", "1 to 64", "GPUs per node", 1, 64},
    {"hardware.nodes", K::kInteger, "nodes", "1", "1 to 100000", "nodes of the job", 1, 100'000},
    {"hardware.gpu_interconnect", K::kChoice, "", "the instance's, else the GPU's board (NVLink board, AMD Infinity Fabric mesh or PCIe)", "",
     "links between the GPUs of a node", std::nullopt, std::nullopt, interconnects},
    {"hardware.gpus_per_pcie_switch", K::kInteger, "GPUs", "config/hardware_topology.h (2 on NVSwitch boards)",
     "1 to 64, at most gpus_per_node", "GPUs of one node that share a PCIe switch", 1, 64},
    {"hardware.cpu_cores", K::kInteger, "cores", "required; the instance's vCPUs / 2; synthetic data: one per GPU",
     "1 to 100000", "physical cores per node available to the job", 1, 100'000},
    {"hardware.host_memory", K::kQuantity, "bytes (\"64 GiB\")", "required; the instance's; synthetic data: 0 B",
     "> 0, at least the loaders' batches", "host memory per node"},
    {"hardware.storage", K::kNameOrMapping, "", "required; the instance's disk; synthetic data: nvme_ssd",
     "a catalog class (gpuplan list storage) or the mapping below", "where the dataset is read from"},
    {"hardware.storage.read_bandwidth", K::kQuantity, "bytes/s (\"3 GB/s\")", "required in a mapping", "> 0",
     "sequential read bandwidth"},
    {"hardware.storage.random_read_bandwidth", K::kQuantity, "bytes/s", "0 (unknown)", "> 0",
     "bandwidth of 128 KiB random reads"},
    {"hardware.storage.write_bandwidth", K::kQuantity, "bytes/s", "required in a mapping", "> 0",
     "write bandwidth (checkpoints)"},
    {"hardware.storage.latency", K::kQuantity, "seconds (\"80 us\")", "required in a mapping", ">= 0",
     "latency of one read"},
    {"hardware.storage.queue_depth", K::kInteger, "requests", "required in a mapping", "1 to 65536",
     "reads the device serves at once", 1, 65'536},
    {"hardware.network", K::kNameOrMapping, "", "the instance's; needed with several nodes",
     "a bandwidth (\"100 Gbit/s\", one Ethernet NIC) or the mapping below", "network between nodes"},
    {"hardware.network.bandwidth", K::kQuantity, "bits/s or bytes/s (\"200 Gbit/s\")", "required in a mapping", "> 0",
     "bandwidth of one NIC"},
    {"hardware.network.transport", K::kChoice, "", "ethernet", "", "NCCL transport (roce, efa, rdma = infiniband)",
     std::nullopt, std::nullopt, transports},
    {"hardware.network.latency", K::kQuantity, "seconds", "per transport (models::default_message_latency_s)",
     ">= 0, at most 1 s", "one NCCL message between two nodes"},
    {"hardware.network.nics", K::kInteger, "NICs", "1", "1 to 64", "NICs per node", 1, 64},
    {"hardware.gpu_failure_rate", K::kQuantity, "per second (\"2e-5 /h\")",
     "1.97e-5 /h (Llama 3: 419 unexpected interruptions in 54 days on 16,384 H100s)", ">= 0; \"0 /h\" for none",
     "hardware failures per GPU, on own hardware and on either cloud market: each stops the job, which resumes from "
     "its last checkpoint on a replacement node (start-up, restore, warm-up), or from the start without one"},
    {"parallelism", K::kSection, "", "strategy none", "", "how the GPUs share the job"},
    {"parallelism.strategy", K::kChoice, "", "none (one GPU); required with more", "", "parallel strategy",
     std::nullopt, std::nullopt, enum_names<models::ParallelStrategy>},
    {"parallelism.bucket_size", K::kQuantity, "bytes (\"25 MiB\")", "25 MiB (DDP bucket_cap_mb)", "> 0",
     "gradient bucket of DDP's all-reduce (and of ZeRO-1/2's all-reduce or reduce-scatter)"},
    {"parallelism.sharding", K::kChoice, "", "full_shard (PyTorch FSDP's default); strategy fsdp only", "",
     "what FSDP shards over the GPUs: full_shard parameters, gradients and optimizer state (ZeRO-3); "
     "shard_grad_op gradients and optimizer state (ZeRO-2); hybrid_shard full_shard within a node, replicas "
     "across nodes; no_shard nothing (DDP)",
     std::nullopt, std::nullopt, enum_names<models::Sharding>},
    {"parallelism.zero_stage", K::kInteger, "", "required with strategy zero; zero only", "1 to 3",
     "DeepSpeed ZeRO stage: 1 shards the optimizer state, 2 also the gradients, 3 also the parameters", 1, 3},
    {"parallelism.fp8_all_gather", K::kBoolean, "", "false",
     "needs training.precision fp8 and strategy fsdp (not no_shard) or zero_stage 3",
     "all-gather the float8 linears' weights as 1-byte float8 instead of bf16 (torchao "
     "enable_fsdp_float8_all_gather with FSDP2): half the gather volume and gathered buffers of those weights"},
    {"parallelism.distributed_optimizer", K::kBoolean, "", "false",
     "strategy ddp only; training.optimizer adam, adamw, sgd or sgd_momentum",
     "Megatron-LM's distributed optimizer (--use-distributed-optimizer, as NeMo and Megatron-Bridge train): "
     "16-bit parameters (fp32 in fp32/tf32) and main gradients (fp32; fp16 under fp16_amp) kept whole, the fp32 "
     "main parameters and moments split over the data-parallel ranks (bf16 + Adam: 6 + 12/d B per parameter; "
     "the experts' over the data-parallel ranks / expert_parallel that hold them); "
     "gradients reduce-scattered, updated parameters all-gathered before the next forward"},
    {"parallelism.grad_reduce_in_fp32", K::kBoolean, "", "true (false under fp16_amp)",
     "needs distributed_optimizer; false needs 16-bit parameters (not fp32 or tf32)",
     "Megatron Core's grad_reduce_in_fp32 (NeMo's optim.grad_sync_dtype): main gradients accumulated and "
     "reduce-scattered in fp32 (4 B per parameter) or in the parameters' 16 bit (2 B, half the reduce-scatter "
     "volume); 16-bit grads get an fp32 copy of their shard during the optimizer step only"},
    {"parallelism.overlap_param_gather", K::kBoolean, "", "false", "needs distributed_optimizer",
     "Megatron's --overlap-param-gather (NeMo and Megatron-Bridge recipes set it): the updated parameters are "
     "all-gathered bucket by bucket behind the next forward; the forward waits for the first bucket (bucket_size) "
     "and its first micro-step's last kernel for the rest, instead of the whole gather before the forward"},
    {"parallelism.tensor_parallel", K::kInteger, "GPUs", "1",
     "1 to 1024; divides the heads, and divides gpus_per_node or is a multiple of it dividing the GPUs (then "
     "pipeline_parallel 1)",
     "Megatron tensor parallelism: each transformer-decoder block split over this many GPUs of a node, or of "
     "whole nodes over the network "
     "(data-parallel ranks = GPUs / tensor_parallel); with strategy ddp, or fsdp / zero sharding each rank's "
     "shard over the data-parallel ranks (FSDP2 + TP; 2 or more of them)",
     1, 1024},
    {"parallelism.sequence_parallel", K::kBoolean, "", "false", "needs tensor_parallel > 1",
     "Megatron sequence parallelism: norms and dropouts split along the sequence, all-gather + "
     "reduce-scatter instead of all-reduce (Korthikanti et al. 2022)"},
    {"parallelism.async_tensor_parallel", K::kBoolean, "", "false", "needs sequence_parallel",
     "AsyncTP: each all-gather before and reduce-scatter after a tensor-parallel linear decomposed with its GEMM "
     "into tensor_parallel overlapping chunks; the collective shows only where it exceeds (t - 1)/t of the GEMM "
     "(docs/language-models.md)"},
    {"parallelism.pipeline_parallel", K::kInteger, "GPUs", "1",
     "1 to 4096; divides the layers (x virtual_stages) and GPUs / tensor_parallel; divides or is a multiple of nodes",
     "pipeline stages: the decoder's layers split into this many consecutive stages (embedding on the first, head "
     "and loss on the last), training.gradient_accumulation micro-batches flowing through them; strategy ddp, "
     "fsdp (full_shard or shard_grad_op: each stage's parameters gathered once per step, as torchtitan runs it) "
     "or zero (zero_stage 1) (GPUs = tensor_parallel x pipeline_parallel x data-parallel ranks); stages across "
     "nodes first",
     1, 4096},
    {"parallelism.pipeline_schedule", K::kChoice, "", "1f1b", "needs pipeline_parallel > 1",
     "order of the micro-batches on each stage: gpipe (all forwards, then all backwards), 1f1b (PipeDream-Flush), "
     "interleaved_1f1b (Megatron-LM; virtual_stages >= 2 chunks per stage, gradient_accumulation a multiple of "
     "pipeline_parallel)",
     std::nullopt, std::nullopt, enum_names<models::PipelineSchedule>},
    {"parallelism.virtual_stages", K::kInteger, "", "1", "1 to 1024; > 1 needs interleaved_1f1b, which needs >= 2",
     "model chunks per pipeline stage (Megatron-LM's virtual pipeline stages)", 1, 1024},
    {"parallelism.account_for_embedding_in_pipeline_split", K::kBoolean, "", "false", "needs pipeline_parallel > 1",
     "Megatron-Core's flag: the embedding counts as one layer of the first chunk when the layers are split into "
     "pipeline_parallel x virtual_stages chunks (that chunk holds one decoder layer fewer)"},
    {"parallelism.account_for_loss_in_pipeline_split", K::kBoolean, "", "false", "needs pipeline_parallel > 1",
     "Megatron-Core's flag: the loss (LM head and cross-entropy) counts as one layer of the last chunk (Llama 3.1 "
     "405B in Megatron-Bridge: 126 decoder layers + embedding + loss = 128 over PP8 x VP8)"},
    {"parallelism.context_parallel", K::kInteger, "GPUs", "1",
     "1 to 1024; needs fused attention (flash, flash3, memory_efficient or flash_triton), sequence_length a multiple "
     "of 2x it; "
     "tensor_parallel x it divides the GPUs and divides or fills whole nodes",
     "context parallelism (ring attention, Megatron-Core CP / torchtitan context_parallel): each sequence split over "
     "this many GPUs, the key/value blocks passed round the ring in every attention layer (of each pipeline stage); "
     "data-parallel replicas = GPUs / (tensor_parallel x pipeline_parallel x context_parallel), gradients reduced over "
     "data x context parallel ranks",
     1, 1024},
    {"parallelism.expert_parallel", K::kInteger, "GPUs", "1",
     "1 to 4096; divides the experts and the data-parallel ranks; divides or is a multiple of gpus_per_node",
     "expert parallelism: a mixture-of-experts model's routed experts split over this many ranks of each "
     "data-parallel group (strategy ddp), two all-to-alls per MoE layer in forward and two in backward on the "
     "critical path; the experts' gradients all-reduced over the ranks holding the same experts",
     1, 4096},
    {"parallelism.expert_load_imbalance", K::kNumber, "", "1 (perfect balance)",
     "1 to expert_parallel; above 1 needs expert_parallel > 1",
     "tokens the busiest expert-parallel rank receives over the mean: its expert GEMMs, their saved activations "
     "and its all-to-alls scale by it, model FLOP (MFU) do not"},
    {"parallelism.offload", K::kSection, "", "nothing offloaded", "strategy fsdp or zero",
     "training state kept off the GPU: ZeRO-Offload / ZeRO-Infinity, FSDP CPUOffload (docs/language-models.md)"},
    {"parallelism.offload.optimizer", K::kChoice, "", "none",
     "nvme needs hardware.storage nvme_ssd; fsdp: cpu with parameters cpu only (CPUOffload); cpu needs "
     "hardware.host_memory for the node's shards (fp32 master weights, optimizer state, fp32 gradients) and "
     "hardware.cpu_cores, even with synthetic data",
     "where the optimizer state and fp32 master weights live: cpu or nvme moves them off the GPU, copies the "
     "gradient shard to the host and the updated parameter shard back over PCIe every step, and runs the "
     "optimizer step on the node's CPU cores",
     std::nullopt, std::nullopt, enum_names<models::OffloadTarget>},
    {"parallelism.offload.parameters", K::kChoice, "", "none",
     "needs fsdp full_shard or hybrid_shard, or zero_stage 3; nvme needs hardware.storage nvme_ssd; fsdp: cpu with "
     "optimizer cpu only (CPUOffload)",
     "where the parameter shards live between units: cpu or nvme copies each unit's shard to the GPU before "
     "its all-gathers",
     std::nullopt, std::nullopt, enum_names<models::OffloadTarget>},
    {"checkpointing", K::kSection, "", "none: no checkpoints", "", "periodic checkpoints"},
    {"checkpointing.interval", K::kQuantity, "seconds (\"30 min\") or auto", "required in the section",
     "> 0, or auto (Young/Daly from the preemption rate)", "work between checkpoints"},
    {"checkpointing.async", K::kBoolean, "", "false", "", "block only for the host copy, write in the background"},
    {"checkpointing.destination", K::kNameOrMapping, "", "hardware_storage (treated as durable)",
     "a name or the mapping below",
     "where checkpoints go: a name takes its storage class's bandwidth (local_nvme: nvme_ssd, lost with a "
     "preempted node; object_store: object_store_fuse; network_fs: nfs)",
     std::nullopt, std::nullopt, checkpoint_destination_names},
    {"checkpointing.destination.write_bandwidth", K::kQuantity, "bytes/s", "required in a mapping", "> 0",
     "checkpoint write bandwidth"},
    {"checkpointing.destination.read_bandwidth", K::kQuantity, "bytes/s", "the write bandwidth", "> 0",
     "restore bandwidth"},
    {"checkpointing.destination.survives_preemption", K::kBoolean, "", "true", "",
     "false: a preemption loses the checkpoints and the job restarts from the start"},
    {"cloud", K::kSection, "", "none", "", "a cloud instance (gpuplan list instances); not with on_premises"},
    {"cloud.instance", K::kString, "", "required in the section", "provider/instance_type, e.g. aws/p4d.24xlarge",
     "the instance; it gives GPU, cores, memory, storage and network"},
    {"cloud.region", K::kString, "", "the catalog's first row", "a region of the instance's rows", "price region"},
    {"cloud.zone", K::kString, "", "the first row of the region", "a zone of the instance's rows (in the region)",
     "price zone (spot prices are per zone)"},
    {"cloud.market", K::kChoice, "", "on_demand", "", "billing market", std::nullopt, std::nullopt,
     enum_names<models::Market>},
    {"cloud.preemption_rate", K::kNameOrMapping, "per second (\"0.05 /h\")", "catalog (catalogs/preemption.yaml)",
     "catalog, a rate >= 0 per node (with checkpoints, a mean time between the job's preemptions of at least "
     "one checkpoint write), or {trace: path}",
     "spot preemptions"},
    {"cloud.preemption_rate.trace", K::kString, "", "required in the mapping",
     "a SkyPilot spot trace, relative to the scenario", "replayed availability"},
    {"cloud.replacement_wait", K::kQuantity, "seconds (\"10 min\")", "required on spot", ">= 0",
     "how long a preempted node takes to come back"},
    {"on_premises", K::kSection, "", "none", "", "owned hardware; not with cloud"},
    {"on_premises.purchase_price", K::kQuantity, "USD (\"$25000\")", "required in the section", "> 0",
     "price of one node"},
    {"on_premises.amortization", K::kQuantity, "seconds (\"3 years\")", "required in the section", "> 0",
     "time the price is spread over"},
    {"on_premises.electricity", K::kQuantity, "USD per energy (\"$0.15/kWh\")", "required in the section", ">= 0",
     "electricity price"},
    {"simulation", K::kSection, "", "", "", "the simulation itself"},
    {"simulation.trials", K::kInteger, "", "200 on spot, 1 on-demand", "1 to 1000000", "Monte Carlo trials", 1,
     1'000'000},
};

std::string type_name(KeyType t) {
  switch (t) {
    case K::kSection: return "section";
    case K::kString: return "text";
    case K::kChoice: return "choice";
    case K::kInteger: return "integer";
    case K::kNumber: return "number";
    case K::kQuantity: return "quantity";
    case K::kBoolean: return "boolean";
    case K::kNameOrMapping: return "name or mapping";
    case K::kMapping: return "mapping";
  }
  return "";
}

std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else out += c;
  }
  return out.empty() ? "-" : out;
}

std::string range_of(const KeyDoc& d) {
  std::string out(d.range);
  if (d.choices != nullptr) {
    std::string names;
    for (std::string_view n : d.choices()) names += (names.empty() ? "" : ", ") + std::string(n);
    out = out.empty() ? names : out + "; names: " + names;
  }
  return out;
}

const KeyDoc* find_doc(const std::string& path) {
  for (const KeyDoc& d : kDocs) {
    if (d.path == path) return &d;
  }
  return nullptr;
}

}  // namespace

const std::vector<KeyDoc>& key_docs() { return kDocs; }

std::string scenario_format_markdown() {
  std::string out =
      "# Scenario format reference (gpuplan/v1)\n\n"
      "Generated by `gpuplan schema --format markdown` from the schema table (config/overrides.cpp) and its\n"
      "documentation (config/scenario_schema_docs.cpp); tests/config/schema_docs_test.cpp fails when this file\n"
      "is out of date. Do not edit by hand. A JSON Schema for editors: docs/scenario.schema.json.\n\n"
      "Quantities are strings with their unit (\"110 KiB\", \"6 ms\", \"100 Gbit/s\", docs/units.md). A key path\n"
      "such as `training.batch_size` is also how `strategies:` and `sweep:` name it.\n";
  std::string table;
  const auto flush = [&] {
    if (!table.empty()) {
      out += "\n| key | type | unit | default | range / values | meaning |\n|---|---|---|---|---|---|\n" + table;
      table.clear();
    }
  };
  for (const SchemaPath& p : schema_paths()) {
    const KeyDoc* d = find_doc(p.path);
    if (d == nullptr) throw std::logic_error("scenario_format_markdown: no documentation of key " + p.path);
    if (p.section) {
      flush();
      out += "\n## `" + p.path + "`\n\n" + std::string(d->meaning) + " (default: " + cell(d->default_value) + ").\n";
      continue;
    }
    if (p.file_level && table.empty()) out += "\n## File-level keys\n";
    table += "| `" + p.path + "` | " + type_name(d->type) + " | " + cell(d->unit) + " | " + cell(d->default_value) +
             " | " + cell(range_of(*d)) + " | " + cell(d->meaning) + " |\n";
  }
  flush();
  return out;
}

std::string scenario_json_schema() {
  using nlohmann::ordered_json;
  const auto schema_of = [](const KeyDoc& d) {
    ordered_json s;
    std::string description(d.meaning);
    if (!d.unit.empty()) description += "; unit: " + std::string(d.unit);
    description += "; default: " + std::string(d.default_value.empty() ? "-" : d.default_value);
    s["description"] = description;
    switch (d.type) {
      case K::kSection:
      case K::kMapping: s["type"] = "object"; break;
      case K::kString:
      case K::kQuantity: s["type"] = "string"; break;
      case K::kChoice: {
        s["type"] = "string";
        ordered_json names = ordered_json::array();
        for (std::string_view n : d.choices()) names.push_back(std::string(n));
        s["enum"] = names;
        break;
      }
      case K::kInteger:
        s["type"] = "integer";
        if (d.min) s["minimum"] = *d.min;
        if (d.max) s["maximum"] = *d.max;
        break;
      case K::kNumber: s["type"] = ordered_json::array({"number", "string"}); break;
      case K::kBoolean: s["type"] = "boolean"; break;
      case K::kNameOrMapping: s["type"] = ordered_json::array({"string", "object"}); break;
    }
    return s;
  };
  ordered_json root;
  root["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  root["title"] = "gpuplan scenario (gpuplan/v1)";
  root["description"] = "Generated by gpuplan schema --format json; the reference is docs/scenario-format.md.";
  root["type"] = "object";
  root["required"] = ordered_json::array({"format", "workload", "training"});
  root["properties"] = ordered_json::object();
  root["additionalProperties"] = false;
  // Each path's node, as a JSON pointer into root (ordered_json objects move their members
  // when they grow, so no references are kept).
  std::map<std::string, std::string> pointers;
  pointers[""] = "";
  for (const SchemaPath& p : schema_paths()) {
    const KeyDoc* d = find_doc(p.path);
    if (d == nullptr) throw std::logic_error("scenario_json_schema: no documentation of key " + p.path);
    const auto dot = p.path.rfind('.');
    const std::string parent = dot == std::string::npos ? "" : p.path.substr(0, dot);
    const std::string key = dot == std::string::npos ? p.path : p.path.substr(dot + 1);
    const std::string parent_pointer = pointers.at(parent);
    ordered_json& parent_node = root[ordered_json::json_pointer(parent_pointer)];
    if (!parent_node.contains("properties")) {
      parent_node["properties"] = ordered_json::object();  // a name-or-mapping value's mapping form
    }
    parent_node["properties"][key] = schema_of(*d);
    if (p.section) {
      parent_node["properties"][key]["properties"] = ordered_json::object();
      parent_node["properties"][key]["additionalProperties"] = false;
    }
    pointers[p.path] = parent_pointer + "/properties/" + key;
  }
  return root.dump(2) + "\n";
}

}  // namespace gpuplan::config

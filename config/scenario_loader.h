#pragma once
/// \file scenario_loader.h
/// Loads a scenario file (scenario-format.md) into a validated Scenario: one Variant per
/// strategy and sweep point, each a fully resolved models::JobSpec in SI units. Start here
/// when reading config/ (config/README.md).
///
/// Pipeline (STYLE.md C1, C9): parse (syntax and duplicate keys) → file-level keys (format,
/// name, seed, expected, strategies, sweep) → for each strategy × sweep point, the base
/// tree with that variant's overrides written in, validated by the same code as the base
/// (config/scenario_validator.h). All errors of the file are collected, base errors once,
/// sorted by position, and thrown together as one ConfigError (C4); nothing partially
/// valid is ever returned.
///
/// An error that only some variants have carries their name in front:
/// "[strategy amp, hardware.gpu=rtx3090] fp8 needs ... at f:l:c (training.precision); ...".
/// An error inside an override points at the override, with the key path
/// `strategies.<name>.<path>` or `sweep.<path>[<index>]`.
///
/// Defaults (applied where a key is absent; defined once, in scenario_validator.cpp and
/// the section readers):
///
/// | key | default | why |
/// |---|---|---|
/// | name | the file name's stem | |
/// | seed | 0 | |
/// | workload.sequence_length | the model catalog's; required for a language model without one | |
/// | workload.dataset.layout / eval_samples / synthetic | files / 0 / false | |
/// | training.gradient_accumulation | 1 | |
/// | training.precision / optimizer | fp32 / sgd_momentum | |
/// | training.activation_checkpointing | false (true = full; also selective, {every: N}) | |
/// | training.activation_offloading | false | torchtune's enable_activation_offloading default |
/// | training.memory_format | channels_first | PyTorch's default layout (NCHW); ignored for non-CNNs |
/// | training.framework_overhead | eager | |
/// | training.framework | pytorch | |
/// | training.attention | sdpa, resolved to flash, memory_efficient or eager for the GPU, precision and head size | PyTorch's scaled_dot_product_attention dispatch (models/workload/attention_kernel.h) |
/// | training.fine_tuning | method full (every parameter trained) | |
/// | training.fine_tuning.rank / alpha / targets | 8 / 8 / all_linear | peft LoraConfig defaults r=8, lora_alpha=8; all-linear as peft's "all-linear" |
/// | training.fine_tuning.base_precision | bf16 for lora, nf4 for qlora | QLoRA's NF4 with double quantization |
/// | data_loader.num_workers / prefetch_factor | 0 / 2 | torch DataLoader defaults |
/// | data_loader.pin_memory / persistent_workers | false / false | torch DataLoader defaults |
/// | data_loader.preprocess_on | cpu | |
/// | hardware.gpus_per_node / nodes | the instance's GPU count, else 1 / 1 | |
/// | hardware.gpu_interconnect | the instance's, else nvlink<N> for an SXM GPU with NVLink, else pcie<N> from the GPU catalog | hardware_topology.h default_interconnect |
/// | hardware.gpus_per_pcie_switch | 2 on an NVSwitch board (nvlink3, nvlink4, nvlink5, *_nvswitch) with >= 2 GPUs per node, else 1 | DGX/HGX A100 and H100 put 2 GPUs behind each PCIe switch |
/// | hardware.cpu_cores | the instance's vCPUs / 2 (2 hardware threads per physical core) | |
/// | hardware.host_memory, storage, network | the instance's | |
/// | hardware.network | 0 with one node (unused) | |
/// | hardware.network (instance) | the instance's Network column as ONE NIC; infiniband from 400 Gbit/s, else ethernet | instances of 400 Gbit/s and more have an RDMA fabric (EFA, InfiniBand, GPUDirect) |
/// | hardware.network.transport / latency / nics | ethernet / the transport's default message latency / 1 | models::default_message_latency_s |
/// | parallelism.strategy | none with one GPU in total; with more it must be written | no silent choice of ddp |
/// | parallelism.bucket_size | 25 MiB | DDP bucket_cap_mb=25 |
/// | parallelism.tensor_parallel / sequence_parallel / async_tensor_parallel | 1 / false / false | no model parallelism unless written |
/// | parallelism.pipeline_parallel / pipeline_schedule / virtual_stages | 1 / 1f1b / 1 | 1f1b: Megatron-LM's default schedule |
/// | parallelism.context_parallel | 1 | no context parallelism unless written |
/// | parallelism.expert_parallel / expert_load_imbalance | 1 / 1 | every rank holds every expert; perfect balance |
/// | parallelism.sharding | full_shard (strategy fsdp only) | FSDP sharding_strategy default |
/// | parallelism.zero_stage | required with strategy zero; refused with other strategies | no silent stage |
/// | checkpointing | none without the section; with it, interval is required, async false | |
/// | cloud.region | the catalog's first row for the instance | |
/// | cloud.market | on_demand | |
/// | cloud.preemption_rate | catalog | |
/// | simulation.trials | 200 on spot, 1 on-demand | nothing is random on-demand |
///
/// Hardware facts have no defaults (STYLE.md C8): hardware.gpu, cpu_cores, host_memory and
/// storage come from the scenario or from cloud.instance, and hardware.network is required
/// with more than one node unless the instance gives it; cloud.replacement_wait is required
/// on the spot market.
///
/// Rules beyond scenario-format.md:
/// - Exactly one of workload.epochs and workload.tokens; tokens only for a language model.
/// - workload.dataset.sample_size and decode_time are required unless synthetic: true (then
///   they are ignored).
/// - data_loader.prefetch_factor is accepted with num_workers 0 and then ignored (PyTorch
///   2.x would refuse it there).
/// - With cloud.instance, an explicit hardware key must agree with the instance (C6):
///   gpu and gpu_interconnect equal to the instance's (gpu_interconnect may name a wiring
///   of the instance's bus generation: nvlink3_direct, pcie4_no_p2p); gpus_per_node, cpu_cores,
///   host_memory and network at most the instance's (a job may use part of it). An
///   explicit storage is allowed: datasets often live on network storage, not the local disk.
/// - precision tf32 / bf16_amp need compute capability 8.0, fp8 needs 8.9; fp16_amp runs
///   everywhere (slowly without tensor cores) and is accepted.
/// - More than one GPU in total needs parallelism.strategy ddp, data_parallel, fsdp or zero;
///   data_parallel is single-node; fsdp and zero need more than one GPU; sharding is for
///   fsdp only and zero_stage for zero only.
/// - tensor_parallel > 1 needs strategy ddp, fsdp or zero (these two with 2 or more
///   data-parallel ranks) and a transformer decoder, and divides gpus_per_node or spans whole
///   nodes (a multiple of it that divides the nodes' GPUs, pipeline_parallel 1), and divides
///   the query and key/value heads; sequence_parallel needs tensor_parallel > 1;
///   async_tensor_parallel needs sequence_parallel.
/// - pipeline_parallel > 1 needs strategy ddp and a transformer decoder whose layers it
///   divides (times virtual_stages), and divides GPUs / tensor_parallel; it divides or is a
///   multiple of hardware.nodes; pipeline_schedule and virtual_stages need it; virtual_stages
///   > 1 needs interleaved_1f1b, which needs gradient_accumulation a multiple of it.
/// - context_parallel > 1 needs strategy ddp, fsdp or zero, a transformer decoder with a
///   fused attention kernel (flash, flash3, memory_efficient or flash_triton), pipeline_parallel 1, a
///   sequence_length that is a multiple of 2 x context_parallel, and tensor_parallel x
///   context_parallel dividing the GPUs and dividing or filling whole nodes.
/// - expert_parallel > 1 needs strategy ddp and a model with experts, divides the experts
///   and the data-parallel ranks, and divides or is a multiple of gpus_per_node;
///   expert_load_imbalance needs it and is at most it; a model with experts refuses
///   tensor_parallel > 1.
/// - The global batch (batch_size × gradient_accumulation × GPUs) may not exceed
///   workload.dataset.samples.
/// - cloud.preemption_rate and replacement_wait are read on every market (typos are errors)
///   and used on spot only. cloud and on_premises are exclusive.
/// - hardware.gpus_per_pcie_switch is at most gpus_per_node. gpu_interconnect nvlink1 is
///   refused (no table row: config/hardware_topology.h says why).
/// - hardware.gpu: {profile: path} is refused for now ("calibration profiles are not
///   supported yet").
/// - Override semantics (strategies, sweep): config/overrides.h.

#include <string>

#include "config/catalogs.h"
#include "config/resolved_printer.h"
#include "config/scenario.h"
#include "core/registry.h"
#include "models/workload/workload_family.h"

namespace gpuplan::config {

/// Most variants (strategies × sweep points) one file may define; checked on the product
/// before anything is expanded (issue 15). Ten thousand load in well under a second
/// (bench/load_bench.cpp).
inline constexpr std::size_t kMaxVariants = 10'000;

/// The only format version this build reads.
inline constexpr const char* kScenarioFormat = "gpuplan/v1";

/// Reads and validates the scenario file at `path`. Relative paths inside it (preemption
/// traces) are relative to its folder. Throws ConfigError: "cannot read file '<path>': <OS
/// reason>" when it cannot be read, else every error of the file.
Scenario load_scenario(const std::string& path, const Catalogs& catalogs,
                       const core::Registry<models::IWorkloadFamily>& families,
                       const LoadOptions& options = {});

/// Validates scenario YAML text; `file_name` is used in messages, for the default name
/// (its stem) and as the base of relative paths. Throws ConfigError.
Scenario parse_scenario(const std::string& yaml_text, const std::string& file_name, const Catalogs& catalogs,
                        const core::Registry<models::IWorkloadFamily>& families,
                        const LoadOptions& options = {});

}  // namespace gpuplan::config

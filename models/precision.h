#pragma once
/// \file precision.h
/// Training precisions and the enumerations of the training set-up that the models read.
/// Names are the scenario's snake_case values (scenario-format.md); models know nothing
/// of YAML, config/ maps strings to these with `*_from_name`.

#include <optional>
#include <string_view>
#include <vector>

namespace gpuplan::models {

/// How matmuls and convolutions run. AMP keeps fp32 master weights (Micikevicius et al.,
/// "Mixed Precision Training", ICLR 2018). kBf16 is pure bf16 (model.to(torch.bfloat16)):
/// weights, gradients and activations in bf16, no fp32 master copy, no autocast.
enum class Precision { kFp32, kTf32, kFp16Amp, kBf16Amp, kFp8, kBf16 };
/// SGD keeps no state; momentum one buffer; Adam/AdamW two (Kingma & Ba 2015), in the
/// dtype OptimizerStatePrecision says;
/// bitsandbytes AdamW8bit / PagedAdamW8bit two block-wise quantized 8-bit buffers
/// (Dettmers et al. 2022); Adafactor a factored second moment (Shazeer & Stern 2018).
/// Bytes of state: models/memory/optimizer_state.h.
enum class Optimizer { kSgd, kSgdMomentum, kAdam, kAdamW, kAdamW8bit, kPagedAdamW8bit, kAdafactor };
/// Convolution tensor layout: NHWC runs tensor-core convolutions without transposes.
enum class MemoryFormat { kChannelsLast, kChannelsFirst };
/// Host-side cost per kernel and which memory-bound kernels run fused: eager PyTorch dispatch
/// (every op its own kernels), torch.compile (fused, few us per launch), CUDA graphs, or
/// kEagerFused: eager Python dispatch of a framework's hand-written fused kernels, Megatron-LM
/// and Megatron-DeepSpeed (FusedScaleMaskSoftmax with the score scale in the QK^T baddbmm,
/// `--masked-softmax-fusion`; bias+GeLU and bias+dropout+add as torch.jit fusions,
/// `--bias-gelu-fusion`, `--bias-dropout-fusion`, all default on in megatron/arguments.py;
/// apex FusedLayerNorm; apex FusedAdam's multi-tensor step), or HF transformers with
/// Liger-Kernel's Triton RMSNorm, SwiGLU and RoPE: memory-bound ops fuse as under kCompiled
/// (models/gpu/op_time.h), the fused softmax and norms take and return 16-bit tensors
/// (runs_fp32_under_autocast, models/workload/workload.h), kernels launch at the eager cost.
enum class FrameworkOverhead { kEager, kCompiled, kCudaGraphs, kEagerFused };
/// The training framework (`training.framework`), for what it keeps in memory that the op
/// table does not say: kTensorflow is TensorFlow 1.x graph mode, whose tf.nn.dropout saves
/// the scaled input and a float mask (models/memory/footprint.h). Time is the same model.
enum class Framework { kPytorch, kTensorflow };
enum class DatasetLayout { kFiles, kShards };
enum class PreprocessOn { kCpu, kGpu };
/// How several GPUs share the job (`parallelism.strategy`): one GPU; torch.nn.DataParallel
/// (one process, GPU 0 gathers); DistributedDataParallel (replicas, bucketed all-reduce);
/// FullyShardedDataParallel (PyTorch FSDP, Zhao et al. 2023, "PyTorch FSDP: Experiences on
/// Scaling Fully Sharded Data Parallel"); DeepSpeed ZeRO (Rajbhandari et al. 2020, "ZeRO:
/// Memory Optimizations Toward Training Trillion Parameter Models"). What the sharded ones
/// shard: models/memory/sharding.h.
enum class ParallelStrategy { kNone, kDataParallel, kDdp, kFsdp, kZero };
/// What FSDP shards (`parallelism.sharding`, torch.distributed.fsdp.ShardingStrategy):
/// FULL_SHARD parameters, gradients and optimizer state (= ZeRO-3); SHARD_GRAD_OP gradients
/// and optimizer state, parameters kept gathered from forward to backward (= ZeRO-2);
/// HYBRID_SHARD full_shard within a node, replicas across nodes; NO_SHARD nothing (= DDP).
enum class Sharding { kFullShard, kShardGradOp, kHybridShard, kNoShard };
/// Where FSDP / ZeRO keep a training state off the GPU (`parallelism.offload.optimizer` and
/// `.parameters`): on the GPU (kNone), in host memory (kCpu: ZeRO-Offload, Ren et al. 2021;
/// FSDP CPUOffload) or on the node's NVMe (kNvme: ZeRO-Infinity, Rajbhandari et al. 2021).
enum class OffloadTarget { kNone, kCpu, kNvme };
/// The order in which pipeline stages run their micro-batches (`parallelism.pipeline_schedule`;
/// models/step/pipeline_schedule.h for the sources): GPipe (all forwards, then all
/// backwards), 1F1B (PipeDream-Flush) and Megatron-LM's interleaved 1F1B (virtual stages).
enum class PipelineSchedule { kGpipe, kOneFOneB, kInterleavedOneFOneB };
enum class Market { kOnDemand, kSpot };
/// How attention runs (`training.attention`). kEager: the unfused chain (QKᵀ, scale, mask,
/// softmax, dropout, PV as separate kernels, the s×s scores saved); kFlash: FlashAttention-2
/// (Dao 2023), one fused kernel per direction that saves only the log-sum-exp per row;
/// kMemoryEfficient: the xFormers/CUTLASS kernel (Rabe & Staats 2021), the same memory but
/// also for fp32 and with an additive mask; kFlash3: the Hopper-native fused kernels
/// (FlashAttention-3, Shah et al. 2024; cuDNN's fused attention, Transformer Engine's
/// FusedAttention backend), FlashAttention-2's memory at a higher rate, compute capability 9.0
/// and newer; kFlashTriton: FlashAttention written in Triton (flash_attn_triton.py of the
/// flash-attn package, the kernel llm-foundry's MPT runs with attn_impl: triton), FlashAttention-2's
/// memory at a lower rate; kSdpa: what torch.nn.functional.scaled_dot_product_attention
/// dispatches to (models/workload/attention_kernel.h).
enum class AttentionKernel { kEager, kSdpa, kFlash, kFlash3, kMemoryEfficient, kFlashTriton };
/// How a decoder's causal mask reaches torch.nn.functional.scaled_dot_product_attention
/// (`training.causal_mask`). kIsCausal: as the flag is_causal=True (nanoGPT, litgpt, HF
/// transformers in eager mode), so SDPA may pick FlashAttention and the fused kernels skip the
/// key tiles above the diagonal. kAttnMask: as a materialized boolean attn_mask tensor of
/// (batch, 1, s, s): HF transformers' masking_utils (4.53 and later) skips building the mask
/// only when it is not tracing (_ignore_causal_mask_sdpa: `not is_tracing`, and
/// is_torchdynamo_compiling() is true under torch.compile), so a compiled HF model passes the
/// tensor; SDPA then cannot pick flash (sdp_utils.cpp check_for_attn_mask) and the kernel it
/// picks applies the mask to every tile (models/workload/attention_kernel.h).
enum class CausalMask { kIsCausal, kAttnMask };
/// How torch.optim's SGD and Adam(W) walk the parameter tensors
/// (`training.optimizer_implementation`, torch.optim's own names): kForLoop, one tensor at a
/// time (foreach=False; PyTorch before 2.0; transformers' legacy AdamW, the HF Trainer's
/// `adamw_hf`); kForeach, each op of the update over every tensor at once (foreach=True,
/// torch.optim's default on CUDA since 2.0); kFused, one kernel that does the whole update
/// (fused=True, `adamw_torch_fused`, apex / DeepSpeed FusedAdam, a compiled step).
enum class OptimizerImplementation { kForLoop, kForeach, kFused };
/// What a training run updates (`training.fine_tuning.method`): every parameter (kFull);
/// low-rank adapters beside frozen 16-bit base weights (kLora, Hu et al. 2021, "LoRA:
/// Low-Rank Adaptation of Large Language Models"); adapters beside a quantized frozen base
/// (kQlora, Dettmers et al. 2023, "QLoRA: Efficient Finetuning of Quantized LLMs").
/// The op table: models/workload/fine_tuning.h.
enum class FineTuningMethod { kFull, kLora, kQlora };
/// How the frozen base weights of a LoRA/QLoRA run are stored
/// (`training.fine_tuning.base_precision`): bf16 (2 B), int8 (bitsandbytes LLM.int8 rows,
/// Dettmers et al. 2022), or nf4 (4-bit NormalFloat with double quantization, QLoRA).
/// Bytes per weight: base_weight_element_bytes() (models/workload/fine_tuning.h).
enum class BasePrecision { kBf16, kInt8, kNf4 };
/// The projections a LoRA adapter can attach to (`training.fine_tuning.targets`), named as
/// peft's target_modules for Llama-style models: q_proj, k_proj, v_proj, o_proj, gate_proj,
/// up_proj, down_proj.
enum class LoraTarget { kQ, kK, kV, kO, kGate, kUp, kDown };
/// The element type of a full-precision optimizer's state buffers
/// (`training.optimizer_state_precision`; bytes: models/memory/optimizer_state.h). kParam: the
/// parameter's own dtype, as torch.optim allocates them (zeros_like(param)): bf16 under pure
/// bf16, fp32 wherever the recipe keeps fp32 (master) weights. kFp32 / kBf16 say it outright
/// for a framework that differs (e.g. an fp32-state AdamW beside bf16 weights).
enum class OptimizerStatePrecision { kFp32, kBf16, kParam };

std::string_view name_of(Precision p);
std::string_view name_of(Optimizer o);
std::string_view name_of(MemoryFormat f);
std::string_view name_of(FrameworkOverhead f);
std::string_view name_of(Framework f);
std::string_view name_of(DatasetLayout l);
std::string_view name_of(PreprocessOn p);
std::string_view name_of(ParallelStrategy s);
std::string_view name_of(Sharding s);
std::string_view name_of(OffloadTarget t);
std::string_view name_of(PipelineSchedule s);
std::string_view name_of(Market m);
std::string_view name_of(AttentionKernel k);
std::string_view name_of(CausalMask m);
std::string_view name_of(OptimizerImplementation i);
std::string_view name_of(FineTuningMethod m);
std::string_view name_of(BasePrecision b);
std::string_view name_of(LoraTarget t);
std::string_view name_of(OptimizerStatePrecision p);

/// All accepted names of an enumeration, in declaration order (for "expected one of").
template <typename Enum>
std::vector<std::string_view> names_of();
template <>
std::vector<std::string_view> names_of<Precision>();
template <>
std::vector<std::string_view> names_of<Optimizer>();
template <>
std::vector<std::string_view> names_of<MemoryFormat>();
template <>
std::vector<std::string_view> names_of<FrameworkOverhead>();
template <>
std::vector<std::string_view> names_of<Framework>();
template <>
std::vector<std::string_view> names_of<DatasetLayout>();
template <>
std::vector<std::string_view> names_of<PreprocessOn>();
template <>
std::vector<std::string_view> names_of<ParallelStrategy>();
template <>
std::vector<std::string_view> names_of<Sharding>();
template <>
std::vector<std::string_view> names_of<OffloadTarget>();
template <>
std::vector<std::string_view> names_of<PipelineSchedule>();
template <>
std::vector<std::string_view> names_of<Market>();
template <>
std::vector<std::string_view> names_of<AttentionKernel>();
template <>
std::vector<std::string_view> names_of<CausalMask>();
template <>
std::vector<std::string_view> names_of<OptimizerImplementation>();
template <>
std::vector<std::string_view> names_of<FineTuningMethod>();
template <>
std::vector<std::string_view> names_of<BasePrecision>();
template <>
std::vector<std::string_view> names_of<LoraTarget>();
template <>
std::vector<std::string_view> names_of<OptimizerStatePrecision>();

/// The enumerator whose name_of() is `name`, or nullopt.
template <typename Enum>
std::optional<Enum> from_name(std::string_view name) {
  for (std::string_view candidate : names_of<Enum>()) {
    if (candidate == name) {
      for (int i = 0;; ++i) {
        if (name_of(static_cast<Enum>(i)) == name) {
          return static_cast<Enum>(i);
        }
      }
    }
  }
  return std::nullopt;
}

/// Bytes of one activation element as stored for backward: 4 in fp32/tf32, 2 under AMP
/// (fp16/bf16 autocast), 2 under fp8 training (Transformer Engine keeps most saved
/// activations in 16-bit; NVIDIA TE docs).
double activation_element_bytes(Precision p);
/// True for the autocast precisions that keep fp32 master weights.
bool is_mixed(Precision p);
/// Bytes of one stored parameter, and of one gradient element: 2 in pure bf16, else 4 (the
/// fp32 parameters that AMP keeps as master weights and whose fp32 .grad it fills).
double parameter_element_bytes(Precision p);

}  // namespace gpuplan::models

#pragma once
/// \file footprint.h
/// Tier-1 peak GPU memory of one training process (pure; STYLE.md E2):
///   weights + gradients + optimizer state + saved activations x batch + workspace
///   (+ a quantized base's largest dequantized weight) + CUDA context + allocator slack
///   (DESIGN.md "Memory"); rank_memory (parallel_memory.h) adds, as workspace, what the
///   optimizer step's temporaries exceed the freed activations by
///   (optimizer_step_temporary_bytes, optimizer_state.h), or what the loss's backward
///   allocates exceeds the gradients not yet allocated and the block not yet recomputed by
///   (loss_backward_transient_bytes_per_sample), whichever is more.
/// Conventions (PyTorch eager, torch.amp):
/// - parameters are fp32 (4 B) and so are their gradients; under AMP the fp32 parameters are
///   the master weights and autocast keeps a 16-bit copy of each weight during the step
///   (2 B/param, counted in weights_bytes: autocast_weight_copy_bytes()); pure bf16
///   stores parameters and gradients in bf16 (2 B each) and keeps no master copy;
/// - a LoRA/QLoRA run's frozen base weights (Workload::frozen_weight_bytes(), bf16, int8 or
///   NF4 as stored) add to the weights; they have no gradient or optimizer state, so those
///   count the trained adapters only (Workload::parameters);
/// - optimizer state: optimizer_state_bytes() (optimizer_state.h: SGD 0, SGD momentum one and
///   Adam/AdamW two buffers in the parameters' dtype unless training.optimizer_state_precision
///   says otherwise: 4 or 8 B/param beside fp32 weights, 2 or 4 under pure bf16; 8-bit AdamW
///   about 2 B/param, Adafactor factored);
/// - saved activations: Op::saved_elements x batch x element size: 4 B in fp32/tf32, 2 B under
///   AMP except ops that autocast runs in fp32 (runs_fp32_under_autocast, workload.h:
///   softmax, log-softmax / cross-entropy, layer norm; not Megatron's fused softmax and layer
///   norm under framework_overhead: eager_fused), which keep 4 B; layer norms under fp8 or
///   eager_fused keep only their 16-bit input;
/// - under a fusing compiler (FrameworkOverhead::kCompiled: torch.compile, TorchScript with
///   NVFuser, llm.c's hand-fused kernels) a pointwise activation is not saved twice: the
///   backward keeps its input (GELU: the up projection's output; SwiGLU: gate and up) and
///   recomputes the activation for the next linear's weight gradient, instead of keeping both
///   the input and the result. AOTAutograd's min-cut partitioner does this for every cheap
///   pointwise op (PyTorch torch/_functorch/partitioners.py, min_cut_rematerialization_partition;
///   H. He, "Min-cut optimal recomputation", PyTorch dev-discuss 2022); llm.c recomputes GELU
///   in backward by default (train_gpt2.cu, `-r 1`). Dropout masks stay saved. Megatron-Core's
///   fused activations (framework_overhead: eager_fused) also save only their input, but the
///   next linear keeps its own saved input;
/// - fp8 (Transformer Engine): a linear layer saves the fp8 cast of its input (1 B) for the
///   weight-gradient GEMM, and a norm saves its 16-bit input only (TE's fused RMSNorm /
///   LayerNorm), where HF's RMSNorm keeps an fp32 upcast and its normalized copy;
/// - activation checkpointing (one checkpoint per repeated block, as HF
///   gradient_checkpointing_enable does): only each block's input stays saved, plus the
///   largest block's activations while it is recomputed in backward. {every: N} does the
///   same for the blocks it marks (Op::checkpointed); selective recomputation has already
///   dropped the score chain's saves from the op table (models/workload/activation_recompute.h);
/// - activation offloading (training.activation_offloading): the blocks' saves, or their
///   checkpoint inputs, wait in pinned host memory and only those in flight stay
///   (ActivationOffload::gpu_bytes, models/memory/activation_offload.h).

#include <string>
#include <vector>

#include "models/gpu/gpu_spec.h"
#include "models/job_spec.h"
#include "models/results.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

/// Constants of the memory model that are not per-GPU facts.
struct MemoryModelParams {
  /// CUDA context + loaded kernels: 1343 MB measured after the first CUDA tensor with
  /// PyTorch on a V100 (huggingface/transformers docs, model_memory_anatomy.md).
  double cuda_context_bytes = 0.0;
  /// cuBLAS/cuDNN workspaces: cuBLAS 8 x 4 MiB by default plus cuDNN convolution
  /// workspaces; 256 MiB.
  double workspace_bytes = 0.0;
  /// Caching-allocator fragmentation as a share of activation memory.
  double allocator_slack_fraction = 0.0;
  static MemoryModelParams defaults();
};

/// Saved activation bytes per sample of each op of `workload` (same order as workload.ops)
/// under `training`'s precision and framework mode: Op::saved_elements x element size, with
/// the compiled and eager_fused rematerialization and the fp8 rules above. Under Framework::kTensorflow a dropout op
/// (name ending in "dropout") saves two tensors of its output's size and dtype instead of
/// a mask: TensorFlow 1.x's tf.nn.dropout is divide(x, keep_prob) * floor(keep_prob +
/// uniform), and the Mul gradient keeps both operands, the scaled input and the float mask
/// (tensorflow/python/ops/nn_ops.py, dropout, 1.x). Pure.
std::vector<double> saved_bytes_per_sample(const Workload& workload, const TrainingSpec& training);

/// Bytes autocast keeps per trained parameter of an fp32 weight during a mixed-precision step:
/// its cached 16-bit cast (torch.autocast's weight cast cache, aten/src/ATen/autocast_mode.cpp,
/// cached_cast for leaf tensors that require grad, kept until the autocast region exits).
constexpr double kAutocastWeightCopyBytes = 2.0;

/// Autocast's 16-bit copies of `workload`'s trained parameters under a mixed precision
/// (parameters x kAutocastWeightCopyBytes), bytes; 0 under fp32, tf32 and pure bf16. Part of
/// MemoryBreakdown::weights_bytes.
double autocast_weight_copy_bytes(const Workload& workload, Precision precision);

/// The 16-bit copy of the largest quantized frozen weight matrix of `workload`, bytes:
/// bitsandbytes' MatMul4Bit dequantizes each weight to the compute dtype before its GEMM
/// (F.dequantize_4bit(B, quant_state).to(A.dtype)), in forward and again for the input
/// gradient, and frees it after; one such matrix is live at the peak. 0 without a quantized
/// base. Counted in MemoryBreakdown::workspace_bytes.
double dequantized_weight_bytes(const Workload& workload, Precision precision);

/// Bytes per sample that the backward of `workload`'s last op (the loss, whose backward runs
/// first) allocates beside the saved activations: Op::backward_transient_elements at the op's
/// saved width (F.cross_entropy: nll_loss's zeroed gradient and log_softmax's output, fp32).
/// Counted only where PyTorch runs the loss op by op (framework_overhead eager or cuda_graphs;
/// a fusing compiler or TensorFlow's fused softmax_cross_entropy_with_logits writes one
/// gradient in place of what it saved); 0 otherwise and for an empty op table. Pure.
/// rank_memory (parallel_memory.h) turns it into the loss-backward phase of the peak.
double loss_backward_transient_bytes_per_sample(const Workload& workload, const TrainingSpec& training);

/// Peak memory of one GPU training `workload` with `training` (micro-batch, precision,
/// optimizer, checkpointing). Throws std::invalid_argument for a batch below 1.
MemoryBreakdown training_memory(const Workload& workload, const TrainingSpec& training,
                                const MemoryModelParams& params);

}  // namespace gpuplan::models

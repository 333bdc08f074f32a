#pragma once
/// \file optimizer_state.h
/// The one rule for the bytes of optimizer state (STYLE.md S5): the memory model, the
/// checkpoint size and the optimizer kernel's traffic all read it. Pure (STYLE.md E2).
///
/// Per parameter, besides the parameter and its gradient, with s the bytes of one state
/// element (optimizer_state_element_bytes()):
/// - sgd 0; sgd_momentum one buffer (s); adam / adamw two moments (2 s; Kingma & Ba 2015);
/// - s follows `training.optimizer_state_precision`: `param` (the default) is the parameter's
///   dtype, as torch.optim allocates the buffers: torch/optim/adamw.py and adam.py
///   `_init_group` create exp_avg and exp_avg_sq with torch.zeros_like(p,
///   memory_format=torch.preserve_format), torch/optim/sgd.py's momentum_buffer is
///   torch.clone(grad) of the parameter's gradient. So pure bf16 (model.to(torch.bfloat16),
///   litgpt's bf16-true) keeps 2 B moments, while AMP, fp32/tf32 and fp8 recipes, whose
///   optimizer updates fp32 (master) weights (Micikevicius et al. 2018; Megatron-LM's and
///   DeepSpeed's mixed-precision optimizers keep fp32 main params and fp32 moments), keep
///   4 B. `fp32` and `bf16` state it outright for a framework that differs;
/// - adamw_8bit / paged_adamw_8bit (bitsandbytes bnb.optim.AdamW8bit / PagedAdamW8bit): both
///   moments block-wise quantized to 8 bit with one fp32 absmax per block of 2,048 values
///   (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", sec. 2; the
///   bitsandbytes docs, "8-bit optimizers": blocksize 2048): 2·(1 + 4/2048) B whatever the
///   parameter dtype (config/ refuses an optimizer_state_precision beside them). The paged
///   variant keeps the same bytes in unified memory that can be evicted to the host under
///   pressure; its peak on the GPU is the same;
/// - adafactor (Shazeer & Stern 2018; HF transformers Adafactor with its default beta1 = None:
///   no first moment): per weight matrix of r x c, the row and column means of g² (r + c
///   values); other parameters (biases, norms, convolution kernels, a head tied to the
///   embedding) a full second moment; s bytes each, where `param` means fp32 (HF's
///   Adafactor.step casts a bf16/fp16 gradient to fp32 before it creates the state:
///   transformers/optimization.py). A fused q/k/v or gate/up projection counts as one matrix
///   (its r + c is O(width), negligible beside the O(width²) weights).

#include "models/job_spec.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

/// Bytes of one element of a full-precision optimizer's state buffer under `training`
/// (precision, optimizer and optimizer_state_precision): 4 (fp32) or 2 (bf16), by the rule
/// above. For the 8-bit optimizers, whose state is quantized, it is not used.
double optimizer_state_element_bytes(const TrainingSpec& training);

/// Optimizer state of `workload` under `training`, bytes (AMP's 16-bit weight copies are
/// not optimizer state: footprint.h adds them).
double optimizer_state_bytes(const Workload& workload, const TrainingSpec& training);

/// Mean state bytes per parameter of an optimizer whose state is per element (all but
/// adafactor, whose factored state depends on the matrix shapes: 0 here).
double elementwise_state_bytes_per_parameter(const TrainingSpec& training);

/// Bytes the optimizer step allocates besides its state while it runs, given the state it
/// holds on this GPU (`local_state_bytes`, after any sharding). torch.optim's foreach Adam and
/// AdamW (optimizer_implementation_of, job_spec.h: the default of eager scripts; op_time.cpp
/// optimizer_work counts its passes), compute s = sqrt(v) for every tensor in one
/// torch._foreach_sqrt before dividing and adding ε in place (torch/optim/adam.py,
/// _multi_tensor_adam): one second moment's worth, half the two moments. Checked on an H200:
/// Llama-3-8B's pure-bf16 full fine-tune peaks at 80.37 GB (validation case H009), weights,
/// gradients and moments 64.2 GB plus that 16.1 GB. Looping over the tensors (for_loop:
/// _single_tensor_adam, transformers' legacy AdamW) holds one tensor's sqrt at a time: the
/// largest op's trained parameters at the state's element width. 0 for a fused step, for
/// ZeRO (DeepSpeed's FusedAdam), for Megatron's distributed optimizer, for an offloaded
/// optimizer and for every other optimizer.
double optimizer_step_temporary_bytes(const JobSpec& job, double local_state_bytes);

}  // namespace gpuplan::models

#pragma once
/// \file optimizer_state.h
/// The one rule for the bytes of optimizer state (STYLE.md S5): the memory model, the
/// checkpoint size and the optimizer kernel's traffic all read it. Pure (STYLE.md E2).
///
/// Per parameter, besides the parameter and its gradient:
/// - sgd 0; sgd_momentum one fp32 buffer (4 B); adam / adamw two fp32 moments (8 B; Kingma &
///   Ba 2015), also under pure bf16 (the state stays fp32 unless the optimizer says otherwise);
/// - adamw_8bit / paged_adamw_8bit (bitsandbytes bnb.optim.AdamW8bit / PagedAdamW8bit): both
///   moments block-wise quantized to 8 bit with one fp32 absmax per block of 2,048 values
///   (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", sec. 2; the
///   bitsandbytes docs, "8-bit optimizers": blocksize 2048): 2·(1 + 4/2048) B. The paged
///   variant keeps the same bytes in unified memory that can be evicted to the host under
///   pressure; its peak on the GPU is the same;
/// - adafactor (Shazeer & Stern 2018; HF transformers Adafactor with its default beta1 = None:
///   no first moment): per weight matrix of r x c, the fp32 row and column means of g² (r + c
///   values, 4 B each); other parameters (biases, norms, convolution kernels, a head tied to
///   the embedding) a full fp32 second moment (4 B). A fused q/k/v or gate/up projection
///   counts as one matrix (its r + c is O(width), negligible beside the O(width²) weights).

#include "models/precision.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

/// Optimizer state of `workload` under `optimizer`, bytes (AMP's 16-bit weight copies are
/// not optimizer state: footprint.h adds them).
double optimizer_state_bytes(const Workload& workload, Optimizer optimizer);

/// Mean state bytes per parameter of an optimizer whose state is per element (all but
/// adafactor, whose factored state depends on the matrix shapes: 0 here).
double elementwise_state_bytes_per_parameter(Optimizer optimizer);

}  // namespace gpuplan::models

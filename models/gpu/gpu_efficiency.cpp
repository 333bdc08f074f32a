#include "models/gpu/gpu_efficiency.h"

#include "core/units.h"

namespace gpuplan::models {

GpuEfficiency GpuEfficiency::defaults() {
  GpuEfficiency e;
  // MAMF measurements (V095, V097) and Jia et al. 2018 for Volta.
  e.matmul_tensor_core_cc7 = 0.66;
  e.matmul_tensor_core_cc8 = 0.87;
  e.matmul_tensor_core_cc9 = 0.80;
  // cuBLAS SGEMM on V100 reaches ~14 of 15.7 TFLOP/s for large squares (NVIDIA cuBLAS
  // performance notes); 0.88.
  e.matmul_cuda_core = 0.88;
  // Fitted once across all validation cases (tests/validation, README): cuDNN convolutions
  // of ResNet-50 run at 70 % of GEMM efficiency on tensor cores, 95 % on CUDA cores.
  e.conv_tensor_core_relative = 0.70;
  e.conv_cuda_core_relative = 0.95;
  // Fitted once on the transformer validation cases (BERT-large, A100 and V100, TF32, FP32
  // and AMP; tests/validation/README.md) after their heads, padding and the fused attention
  // chain were stated as facts: a model's linear layers run at 75 % of the best-case GEMM,
  // as the convolutions run at 70 % (above).
  e.matmul_relative_to_gemm = 0.75;
  // Per-head batched GEMMs with k = 64: about 60 % of a large GEMM.
  e.attention_relative_to_matmul = 0.60;
  // STREAM-like copy on A100/H100 HBM reaches ~85 %; 0.80 leaves room for non-ideal access.
  e.memory_bandwidth = 0.80;
  // Minimum kernel duration on recent NVIDIA GPUs is 2-5 us (NVIDIA Nsight guidance).
  e.kernel_fixed_s = core::microseconds(3.0);
  // Eager PyTorch: a bare aten op costs ~10 us of Python, dispatcher and launch ("Making Deep
  // Learning Go Brrrr From First Principles", He 2022); model code adds nn.Module calls and
  // Python per op: HF BERT at batch 1 is CPU-bound at ~40 us per forward kernel. Fitted once
  // on the validation cases at 40 us forward and 15 us per backward kernel (autograd's C++
  // engine). Both only matter when kernels are shorter than that: small batches.
  e.eager_forward_dispatch_s = core::microseconds(40.0);
  e.eager_backward_dispatch_s = core::microseconds(15.0);
  // torch.compile wrappers launch Triton kernels from C++-like code: a few us.
  e.compiled_dispatch_s = core::microseconds(3.0);
  // A bare aten op from Python costs ~10 us (He 2022, above).
  e.eager_optimizer_dispatch_s = core::microseconds(10.0);
  e.eager_autocast_dispatch_factor = 1.5;
  // CUDA graph replay: ~1 us per kernel node amortised.
  e.cuda_graphs_dispatch_s = core::microseconds(1.0);
  e.compiled_memory_bound_share = 0.5;
  e.pcie_pinned = 0.78;
  e.pcie_pageable_relative = 0.5;
  return e;
}

}  // namespace gpuplan::models

#include "models/gpu/gpu_efficiency.h"

#include "core/units.h"

namespace gpuplan::models {

GpuEfficiency GpuEfficiency::defaults() {
  GpuEfficiency e;
  // Between the A100 (0.87) and H100 (0.80) MAMF measurements (V095, V097).
  e.matmul_tensor_core = 0.82;
  // cuBLAS SGEMM on V100 reaches ~14 of 15.7 TFLOP/s for large squares (NVIDIA cuBLAS
  // performance notes); 0.88.
  e.matmul_cuda_core = 0.88;
  // Fitted once across all validation cases (tests/validation, see README): cuDNN convs of
  // ResNet-50 run at about 60 % of GEMM efficiency.
  e.conv_relative_to_matmul = 0.60;
  // Per-head batched GEMMs with k = 64: about 60 % of a large GEMM.
  e.attention_relative_to_matmul = 0.60;
  // STREAM-like copy on A100/H100 HBM reaches ~85 %; 0.80 leaves room for non-ideal access.
  e.memory_bandwidth = 0.80;
  // Minimum kernel duration on recent NVIDIA GPUs is 2-5 us (NVIDIA Nsight guidance).
  e.kernel_fixed_s = core::microseconds(3.0);
  // Eager PyTorch: ~10 us of Python + dispatcher + launch per op forward, autograd's C++
  // engine ~5 us per backward kernel (PyTorch performance tuning guide; "Making Deep Learning
  // Go Brrrr From First Principles", He 2022: overhead ~10 us per op).
  e.eager_forward_dispatch_s = core::microseconds(10.0);
  e.eager_backward_dispatch_s = core::microseconds(5.0);
  // torch.compile wrappers launch Triton kernels from C++-like code: a few us.
  e.compiled_dispatch_s = core::microseconds(3.0);
  // CUDA graph replay: ~1 us per kernel node amortised.
  e.cuda_graphs_dispatch_s = core::microseconds(1.0);
  e.compiled_memory_bound_share = 0.5;
  e.channels_first_tensor_core_penalty = 0.75;
  e.pcie_pinned = 0.78;
  e.pcie_pageable_relative = 0.5;
  return e;
}

}  // namespace gpuplan::models

#include "models/gpu/gpu_efficiency.h"

#include <cmath>

#include "core/units.h"

namespace gpuplan::models {

GpuEfficiency GpuEfficiency::defaults() {
  GpuEfficiency e;
  // MAMF measurements (gpu_efficiency.h; V095, V097) and Jia et al. 2018 for Volta.
  e.matmul_tensor_core_cc7 = 0.66;
  e.matmul_tensor_core_cc8 = 0.87;
  e.matmul_tensor_core_cc9 = 0.80;
  e.matmul_tensor_core_cc10 = 1745.0 / 2250.0;
  e.matmul_tensor_core_fp8_cc9 = 1402.6 / 1979.0;
  e.matmul_tensor_core_fp8_cc10 = 3432.5 / 4500.0;
  // cuBLAS SGEMM on V100 reaches ~14 of 15.7 TFLOP/s for large squares (NVIDIA cuBLAS
  // performance notes); 0.88.
  e.matmul_cuda_core = 0.88;
  // The four fractions below are FITTED by one command, `gpuplan fit tests/validation`
  // (cli/model_fit.h: Levenberg-Marquardt on ln(predicted/measured) of the 111 throughput rows
  // of tests/validation after the Blackwell and fp8 GEMM fractions above (2026-12-03): A100
  // 40/80 GB, V100 16 GB, RTX 3090, TITAN RTX, A10G, H100 SXM, H200, B200, GB200 and GB300,
  // every group D to X included; every fraction started at 0.5; 84 evaluations), rounded to
  // three digits. After a model change, rerun the command and copy its "fitted" column here.
  // Refit with the H200 rows H001-H013 and the eager-pass, foreach-optimizer and unaligned-GEMM
  // terms (2026-12-04, 124 rows): conv 1.000, linear 0.830, attention 1.000 (its bound),
  // memory 0.748, throughput MAPE 8.2 % against 8.3 % with the values below. Not shipped: a
  // fraction at its bound for 0.1 point absorbs other errors of the fp32 eager-attention rows
  // (R20, V105-V108) rather than measuring attention.
  // Previous fit (93 rows at dc24abe, 2026-12-02): conv 0.970, linear 0.848, attention 0.672,
  // memory 0.787.
  // Previous fit (75 rows, before the P and O groups, 2026-12-01): conv 0.989, linear 0.828,
  // attention 0.483, memory 0.795. Before that (75 rows, without tile/wave quantization of
  // linear layers and FlashAttention-2's Hopper fraction):
  // conv 1.000, linear 0.706, attention 0.586, memory 0.742. Fits before that:
  // linear 0.684, attention 0.643, memory 0.779 (39 rows, before the GPU Boost clock term).
  // Values before any fit: conv 0.70 / 0.95, linear 0.75, attention 0.60 (fitted by hand on
  // ResNet-50 and BERT), memory 0.80 (STREAM-like copies reach ~85 % on HBM).
  // cuDNN convolutions relative to a GEMM of the same path: close to 1, as the fits before
  // this one found (they ran it to its bound, 1.000): with NCHW transposes and memory-bound
  // ops modelled apart, the convolutions themselves are about as efficient as the best-shape
  // GEMM of the path. One fraction, not one per path: only the V100's fp32 ResNet-50 rows
  // (V005, V007) ran convolutions on CUDA cores, so a CUDA-core fraction was left at its 0.5
  // start by a refit without the V100, which predicted those rows at half speed.
  e.conv_relative_to_gemm = 1.000;
  // A model's linear layers (forward, grad-input, grad-weight GEMMs with the bias pass)
  // relative to the best-shape GEMM, on top of their shape's tile and wave efficiency.
  e.matmul_relative_to_gemm = 0.839;
  // Measured on an H200 (catalogs/calibrations/h200-2026-12-04.torch-steps-profiled.json): the
  // three GEMMs of HF GPT-2's 768 x 50,257 head at 16,384 tokens ran cutlass_75 align1
  // kernels in eager at 124.6 TFLOP/s together (3.79 TFLOP in 30.45 ms), the same GEMMs
  // padded by torch.compile at 802 TFLOP/s (4.73 ms): 0.155. Hopper only: no other GPU's
  // unaligned GEMM was measured here.
  e.unaligned_gemm_relative = 124.6 / 802.0;
  // Per-head batched attention GEMMs (k = head_dim = 64) relative to a GEMM.
  e.attention_relative_to_matmul = 0.636;
  // A fused attention kernel's fixed cost per 128-row query block, in key tiles: least
  // squares over FlashAttention-3's bf16 forward at head dim 128 on an H100 SXM, with and
  // without a causal mask, sequence 512 to 16k (Shah et al. 2024, arXiv:2407.08608, figure 5:
  // 467-648 TFLOP/s without, 292-616 with; FLOP of a causal run counted as half the square).
  // Rate = P·t / (t + c) at t tiles per query block (n without a mask, (n + 1) / 2 with one,
  // n = s / 128) reproduces all twelve bars within 5 % at c = 1.85 (P = 666 TFLOP/s). Fitted
  // on that figure only, not on the validation cases. The published rates below were read at
  // t = n tiles per block, so each is divided by fused_attention_block_share(n) to give the
  // per-tile rate.
  e.fused_attention_block_overhead_tiles = 1.85;
  // FlashAttention-2 forward + backward on an A100 SXM 80GB, head dim 64, sequence 2k, no
  // causal mask: about 176 TFLOP/s (Dao 2023, "FlashAttention-2", fig. 4, FLOP counted as
  // 4·s²·d·heads forward and 2.5× that backward), of the 0.87 × 312 = 271 TFLOP/s that a
  // large GEMM reaches: 0.65. Not fitted on the validation cases (none ran fused attention).
  e.flash_attention_relative_to_matmul = 0.65 / e.fused_attention_block_share(2048.0 / 128.0);
  // FlashAttention-2 on an H100 SXM: about 35 % of the dense bf16 peak (Shah et al. 2024,
  // "FlashAttention-3", arXiv:2407.08608, abstract), of the 0.80 a large GEMM reaches:
  // 0.35 / 0.80 = 0.44 (at long sequences: 16k). Not fitted: the validation cases on Hopper and Blackwell that ran
  // FlashAttention-2 (llm-foundry MPT, F001-F013) are the ones it is checked on.
  e.flash_attention_relative_to_matmul_cc9 = 0.44 / e.fused_attention_block_share(16384.0 / 128.0);
  // FlashAttention-3 in bf16 on an H100 SXM (clock fixed at 1830 MHz, 989 TFLOP/s dense),
  // sequence 16k, no causal mask (Shah et al. 2024, "FlashAttention-3", arXiv:2407.08608,
  // figures 5a/5c and 6a/6b; FLOP 4·s²·d·heads forward, 2.5x that backward, as the model
  // counts them). Head dim 128: forward about 649, backward about 581 TFLOP/s; together
  // 3.5 / (1/649 + 2.5/581) = 599 TFLOP/s, 0.606 of the peak, of the 0.80 a large GEMM reaches
  // on Hopper: 0.76. Head dim 64: forward about 497, backward about 476 TFLOP/s; together 482
  // TFLOP/s, 0.487 of the peak: 0.61. cuDNN's fused attention (Transformer Engine's default
  // backend on Hopper, llm.c's) is within about 10 % of it at 1k+ tokens in the same figures.
  // Blackwell's kernels (FlashAttention-4, cuDNN) are assumed to reach the same share of
  // their GEMM rate: no published forward + backward figure was read here.
  e.flash3_attention_relative_to_matmul_d64 = 0.61 / e.fused_attention_block_share(16384.0 / 128.0);
  e.flash3_attention_relative_to_matmul_d128 = 0.76 / e.fused_attention_block_share(16384.0 / 128.0);
  // xFormers' CUTLASS kernel (PyTorch's memory-efficient backend) reaches about 60 % of
  // FlashAttention-2's forward + backward rate in the same figure.
  e.memory_efficient_attention_relative_to_flash = 0.6;
  // FlashAttention-2 is 1.3-2.5x faster than FlashAttention in Triton on an A100 over its
  // benchmark's sequence lengths, head dims and masks (Dao 2023, "FlashAttention-2",
  // sec. 4.1): the middle of that range on a log scale, sqrt(1.3 x 2.5) = 1.80, gives 0.555.
  // Not fitted on the validation cases.
  e.flash_triton_attention_relative_to_flash = 1.0 / std::sqrt(1.3 * 2.5);
  // Achieved share of datasheet bandwidth by memory-bound kernels (STREAM-like copy reaches
  // ~85 % on A100/H100 HBM), one for every memory type (gpu_efficiency.h says why).
  e.memory_bandwidth = 0.744;
  // litgpt's Llama 2 7B on one A10G, LoRA and QLoRA (bnb.nf4, no double quantization) with
  // the same r = 32 adapters on q, v, batch 2 x 512, 4 epochs of Alpaca2k: 32.82 and 45.67 min
  // (rows X126, X127 of shared/data/cross-gpu-measurements.csv; the same run of the same
  // batches, so the difference is what the 4-bit base adds, whatever the padded lengths). 771 s
  // over 8,100 dequantization passes (3,800 micro-steps x forward and backward, and 500
  // evaluation forwards: 10 validations of 50 batches) is 95.2 ms a pass, where 6.476 G layer
  // weights x 2.5625 B (16.6 GB) at the A10G's streaming rate (600 GB/s x 0.744) take 37.2 ms,
  // plus 224 kernels x 3 us: 0.393. Fitted on that one pair (the only LoRA/QLoRA pair of the
  // same run in the data), not on the validation cases; eval-time generation (10 x 100 tokens,
  // faster on the 4-bit base) is left out, about 2 % of the difference the other way.
  e.nf4_dequantize_relative_to_stream = 0.393;
  // Measured on an H200 (catalogs/calibrations/h200-2026-12-04.torch-steps-profiled.json,
  // ResNet-50 at batch 256, NCHW, fp16 AMP and TF32): the 1C11 kernels of the stem's batch norm
  // (64 channels of 256 x 112 x 112 elements) and of the eleven at 256 x 56 x 56 took 2.33 /
  // 0.67 ms forward and 4.46 / 1.19 ms backward in fp16, 1.82 / 0.60 and 4.63 / 1.28 ms in fp32,
  // whatever the channel count (64 to 256): 2.4-3.5 G element passes per second and channel,
  // median 2.73 G, at the 1,935 MHz the GPU held (nvidia-smi dmon of the same run): 1.41 per
  // cycle. The same layers in NHWC (cuDNN's semi-persistent kernels) ran 3x faster. Not fitted
  // on the validation cases.
  e.nchw_batch_norm_passes_per_cycle = 2.73e9 / 1.935e9;
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
  // Read off three fp16 AMP steps measured on an H200 (GradScaler syncs the host before the
  // optimizer, so its Python shows as GPU idle): step time less GPU-busy time per parameter
  // tensor, ResNet-50 NHWC 3.3 ms / 161 tensors = 20 us, BERT-large eager attention 10.3 ms /
  // 391 = 26 us, BERT-large SDPA 19.1 ms / 391 = 49 us; the middle one, 25 us
  // (catalogs/calibrations/h200-2026-12-04.torch-steps-profiled.json). Not fitted otherwise.
  e.eager_optimizer_tensor_s = core::microseconds(25.0);
  e.eager_autocast_dispatch_factor = 1.5;
  // CUDA graph replay: ~1 us per kernel node amortised.
  e.cuda_graphs_dispatch_s = core::microseconds(1.0);
  e.compiled_memory_bound_share = 0.5;
  e.pcie_pinned = 0.78;
  e.pcie_pageable_relative = 0.5;
  return e;
}

}  // namespace gpuplan::models

#include "models/gpu/op_time.h"

#include <doctest/doctest.h>

#include <cmath>

#include "../test_gpus.h"
#include "core/units.h"
#include "models/workload/attention_kernel.h"

using namespace gpuplan;
using namespace gpuplan::models;

namespace {
Op matmul(double flop, double elements, double parameters) {
  Op op;
  op.name = "fc";
  op.op_class = OpClass::kMatmul;
  op.forward_flop = flop;
  op.input_elements = elements;
  op.output_elements = elements;
  op.parameters = parameters;
  op.saved_elements = elements;
  return op;
}
Op elementwise(double elements) {
  Op op;
  op.name = "relu";
  op.op_class = OpClass::kElementwise;
  op.forward_flop = elements;
  op.input_elements = elements;
  op.output_elements = elements;
  op.backward_flop_ratio = 1.0;
  return op;
}
/// A fused attention op of 1e12 forward FLOP over 1e6 elements in and out (compute-bound on
/// every test GPU), backward 2x plus the recomputed QKᵀ, at head dimension 128.
Op fused_attention(AttentionKernel kernel) {
  Op op;
  op.name = "layers.0.attn.fused";
  op.op_class = OpClass::kAttention;
  op.forward_flop = 1e12;
  op.input_elements = 1e6;
  op.output_elements = 1e6;
  op.backward_flop_ratio = 2.0;
  op.backward_recompute_flop_ratio = 0.5;
  op.attention_kernel = kernel;
  op.head_dim = 128.0;
  return op;
}
TrainingSpec training(Precision p) {
  TrainingSpec t;
  t.batch_size = 1;
  t.precision = p;
  return t;
}
}  // namespace

TEST_SUITE("models.gpu.op_time") {
  TEST_CASE("compute-bound matmul in tf32 runs at peak x efficiency plus the fixed kernel cost") {
    const GpuEfficiency e = testing::hand_efficiency();
    const Op op = matmul(1e12, 1e6, 0);
    const OpWork w = op_work(op, 1, testing::ampere_like(), training(Precision::kTf32), e);
    // forward: 1e12 FLOP / (160e12 * 0.87 (Ampere GEMM) * 0.75 (linear layer vs GEMM))
    // = 9.5785e-3 s, bytes 2e6*4 = 8e6 B / (2e12*0.8) = 5e-6 s -> compute-bound;
    // + 1 kernel * 3e-6 s = 9.5815e-3 s
    CHECK(w.forward.gpu_time_s == doctest::Approx(9.5815e-3).epsilon(1e-4));
    CHECK(w.forward.gpu_time_s == doctest::Approx(1e12 / (160e12 * 0.87 * 0.75) + 3e-6).scale(0));
    // backward: twice the FLOP, 2 kernels (grad input, grad weight: parameters > 0 is false here -> 1)
    CHECK(w.backward.flop == doctest::Approx(2e12));
    CHECK(w.backward.gpu_time_s == doctest::Approx(2e12 / (160e12 * 0.87 * 0.75) + 3e-6).scale(0));
  }

  TEST_CASE("a GPU Boost card computes at its observed load clock") {
    const GpuEfficiency e = testing::hand_efficiency();
    GpuSpec gpu = testing::ampere_like();
    gpu.boost_clock_hz = 1.0e9;
    gpu.observed_load_clock_hz = 1.2e9;
    const Op op = matmul(1e12, 1e6, 0);
    // 1.2 GHz / 1.0 GHz = 1.2 x the datasheet rate
    const OpWork w = op_work(op, 1, gpu, training(Precision::kTf32), e);
    CHECK(w.forward.gpu_time_s == doctest::Approx(1e12 / (160e12 * 0.87 * 0.75 * 1.2) + 3e-6).scale(0));
    // no observed clock (datacenter parts): the datasheet rate
    gpu.observed_load_clock_hz = 0.0;
    const OpWork capped = op_work(op, 1, gpu, training(Precision::kTf32), e);
    CHECK(capped.forward.gpu_time_s == doctest::Approx(1e12 / (160e12 * 0.87 * 0.75) + 3e-6).scale(0));
  }

  TEST_CASE("an attention matmul runs at its own factor, not the linear layers'") {
    const GpuEfficiency e = testing::hand_efficiency();
    Op op = matmul(1e12, 1e6, 0);
    op.op_class = OpClass::kAttention;
    const OpWork w = op_work(op, 1, testing::ampere_like(), training(Precision::kTf32), e);
    // 1e12 / (160e12 * 0.87 * 0.60) = 11.973e-3 s; + 3e-6
    CHECK(w.forward.gpu_time_s == doctest::Approx(1e12 / (160e12 * 0.87 * 0.60) + 3e-6).scale(0));
  }

  TEST_CASE("memory-bound elementwise op runs at bandwidth x efficiency") {
    const GpuEfficiency e = testing::hand_efficiency();
    const OpWork w = op_work(elementwise(1e8), 4, testing::ampere_like(), training(Precision::kFp32), e);
    // bytes = (1e8 + 1e8) * 4 samples * 4 B = 3.2e9 B; / (2000e9 * 0.8) = 2.0e-3 s; + 3e-6
    CHECK(w.forward.bytes == doctest::Approx(3.2e9));
    CHECK(w.forward.gpu_time_s == doctest::Approx(2.0e-3 + 3e-6));
    // backward reads and writes twice the activations: 6.4e9 B -> 4.0e-3 s
    CHECK(w.backward.gpu_time_s == doctest::Approx(4.0e-3 + 3e-6));
  }

  TEST_CASE("compiled: memory-bound ops keep the default share or their own") {
    const GpuEfficiency e = testing::hand_efficiency();
    TrainingSpec t = training(Precision::kFp32);
    t.framework_overhead = FrameworkOverhead::kCompiled;
    Op op = elementwise(1e8);
    // default share 0.5: 3.2e9 B / 4 samples... here 1 sample: 8e8 B * 0.5 = 4e8 B, 1 kernel
    const OpWork shared = op_work(op, 1, testing::ampere_like(), t, e);
    CHECK(shared.forward.bytes == doctest::Approx(4e8));
    CHECK(shared.forward.kernels == 1);
    // folded into the softmax kernel: no traffic, no kernel of its own; only its nominal
    // arithmetic remains: 1e8 FLOP / (20e12 * 0.88) = 5.682e-6 s, no fixed kernel cost
    op.compiled_traffic_share = 0.0;
    const OpWork folded = op_work(op, 1, testing::ampere_like(), t, e);
    CHECK(folded.forward.bytes == 0.0);
    CHECK(folded.forward.kernels == 0);
    CHECK(folded.backward.kernels == 0);
    CHECK(folded.forward.gpu_time_s == doctest::Approx(1e8 / (20e12 * 0.88)).scale(0));
    // the fused softmax keeps its read and write: 8e8 B / 1.6e12 B/s = 5e-4 s; + 3e-6
    op.compiled_traffic_share = 1.0;
    const OpWork kept = op_work(op, 1, testing::ampere_like(), t, e);
    CHECK(kept.forward.bytes == doctest::Approx(8e8));
    CHECK(kept.forward.gpu_time_s == doctest::Approx(5e-4 + 3e-6).scale(0));
    // eager ignores the share
    const OpWork eager = op_work(op, 1, testing::ampere_like(), training(Precision::kFp32), e);
    CHECK(eager.forward.bytes == doctest::Approx(8e8));
  }

  TEST_CASE("eager_fused: the score chain's own shares, everything else unfused, eager dispatch") {
    const GpuEfficiency e = testing::hand_efficiency();
    TrainingSpec t = training(Precision::kFp32);
    t.framework_overhead = FrameworkOverhead::kEagerFused;
    Op op = elementwise(1e8);
    // no share of its own (a layer norm, a GeLU): one kernel of the eager traffic, 8e8 B,
    // where compiled would keep the default 0.5
    CHECK(memory_bound_traffic_share(op, FrameworkOverhead::kEagerFused, e) == 1.0);
    CHECK(memory_bound_traffic_share(op, FrameworkOverhead::kCompiled, e) == 0.5);
    CHECK(op_work(op, 1, testing::ampere_like(), t, e).forward.bytes == doctest::Approx(8e8));
    // the mask, folded into FusedScaleMaskSoftmax: no traffic, no kernel
    op.compiled_traffic_share = 0.0;
    const OpWork folded = op_work(op, 1, testing::ampere_like(), t, e);
    CHECK(folded.forward.bytes == 0.0);
    CHECK(folded.forward.kernels == 0);
    // the attention dropout after it: Megatron's own torch dropout, 8e8 B, 1 kernel; a
    // compiler folds it (0)
    op.fused_by_compiler_only = true;
    const OpWork dropout = op_work(op, 1, testing::ampere_like(), t, e);
    CHECK(dropout.forward.bytes == doctest::Approx(8e8));
    CHECK(dropout.forward.kernels == 1);
    CHECK(memory_bound_traffic_share(op, FrameworkOverhead::kCompiled, e) == 0.0);
    CHECK(memory_bound_traffic_share(op, FrameworkOverhead::kEager, e) == 1.0);
    CHECK(memory_bound_traffic_share(op, FrameworkOverhead::kCudaGraphs, e) == 1.0);
    // kernels launch at the eager cost: 40 us forward, 15 us backward (the defaults)
    CHECK(dispatch_time_s(FrameworkOverhead::kEagerFused, false, e) == doctest::Approx(40e-6));
    CHECK(dispatch_time_s(FrameworkOverhead::kEagerFused, true, e) == doctest::Approx(15e-6));
  }

  TEST_CASE("the roofline switches from memory- to compute-bound at the ridge point") {
    const GpuEfficiency e = testing::hand_efficiency();
    const GpuSpec g = testing::ampere_like();
    // fp32 CUDA-core path: compute rate 20e12 * 0.88 * 0.75 = 13.2e12 FLOP/s; memory 1.6e12 B/s.
    // Ridge intensity = 13.2e12 / 1.6e12 = 8.25 FLOP/B. Bytes of the op: 2e6 elements * 4 B = 8e6 B.
    const double bytes = 8e6;
    const double ridge_flop = 8.25 * bytes;  // 6.6e7 FLOP
    const OpWork below = op_work(matmul(ridge_flop * 0.9, 1e6, 0), 1, g, training(Precision::kFp32), e);
    const OpWork above = op_work(matmul(ridge_flop * 1.1, 1e6, 0), 1, g, training(Precision::kFp32), e);
    CHECK(below.forward.gpu_time_s == doctest::Approx(bytes / 1.6e12 + 3e-6).scale(0));
    CHECK(above.forward.gpu_time_s == doctest::Approx(ridge_flop * 1.1 / 13.2e12 + 3e-6).scale(0));
  }

  TEST_CASE("tensor cores only where the GPU has them for the precision") {
    CHECK(uses_tensor_cores(OpClass::kMatmul, Precision::kFp16Amp, testing::volta_like()));
    CHECK_FALSE(uses_tensor_cores(OpClass::kMatmul, Precision::kTf32, testing::volta_like()));
    CHECK_FALSE(uses_tensor_cores(OpClass::kMatmul, Precision::kFp16Amp, testing::pascal_like()));
    CHECK_FALSE(uses_tensor_cores(OpClass::kElementwise, Precision::kFp16Amp, testing::ampere_like()));
    CHECK(math_peak_flop_per_s(OpClass::kMatmul, Precision::kFp32, testing::ampere_like()) == doctest::Approx(20e12));
    CHECK(math_peak_flop_per_s(OpClass::kMatmul, Precision::kBf16Amp, testing::ampere_like()) == doctest::Approx(320e12));
    // Pascal fp16 path: min(0.17, 11) TFLOP/s
    CHECK(math_peak_flop_per_s(OpClass::kMatmul, Precision::kFp16Amp, testing::pascal_like()) == doctest::Approx(0.17e12));
  }

  TEST_CASE("AMP speeds a matmul up on Volta and slows it down on Pascal") {
    const GpuEfficiency e = testing::hand_efficiency();
    const Op op = matmul(1e12, 1e6, 1e6);
    const double volta_fp32 = op_work(op, 1, testing::volta_like(), training(Precision::kFp32), e).forward.gpu_time_s;
    const double volta_amp = op_work(op, 1, testing::volta_like(), training(Precision::kFp16Amp), e).forward.gpu_time_s;
    const double pascal_fp32 = op_work(op, 1, testing::pascal_like(), training(Precision::kFp32), e).forward.gpu_time_s;
    const double pascal_amp = op_work(op, 1, testing::pascal_like(), training(Precision::kFp16Amp), e).forward.gpu_time_s;
    // Volta: 1e12/(16e12*0.88) = 71.0 ms fp32 vs 1e12/(128e12*0.66) = 11.8 ms fp16 (+ cast kernel)
    CHECK(volta_fp32 / volta_amp > 5.5);
    CHECK(pascal_amp > pascal_fp32);
  }

  TEST_CASE("channels_first convolutions on tensor cores add cuDNN's layout transposes; CUDA cores do not") {
    const GpuEfficiency e = testing::hand_efficiency();
    Op conv = matmul(1e12, 1e6, 0);
    conv.op_class = OpClass::kConv;
    TrainingSpec last = training(Precision::kFp16Amp);
    last.memory_format = MemoryFormat::kChannelsLast;
    TrainingSpec first = last;
    first.memory_format = MemoryFormat::kChannelsFirst;
    const GpuSpec g = testing::ampere_like();
    const OpWork w_last = op_work(conv, 1, g, last, e);
    const OpWork w_first = op_work(conv, 1, g, first, e);
    // NHWC: 1e12 / (320e12 * 0.87 * 0.70) + one 3 us kernel.
    CHECK(w_last.forward.gpu_time_s == doctest::Approx(1e12 / (320e12 * 0.87 * 0.70) + 3e-6));
    // NCHW forward: x (1e6 x 2 B) and y (1e6 x 2 B) each read and written once: 8e6 B at
    // 2000 GB/s x 0.80 = 5 us, in 2 more kernels of 3 us.
    CHECK(w_first.forward.gpu_time_s - w_last.forward.gpu_time_s == doctest::Approx(5e-6 + 2 * 3e-6));
    CHECK(w_first.forward.bytes - w_last.forward.bytes == doctest::Approx(8e6));
    CHECK(w_first.forward.kernels - w_last.forward.kernels == 2);
    // NCHW backward: dy and x in, dx out: 2 x (2e6 + 2e6 + 2e6) = 12e6 B = 7.5 us, 3 kernels.
    CHECK(w_first.backward.gpu_time_s - w_last.backward.gpu_time_s == doctest::Approx(7.5e-6 + 3 * 3e-6));
    CHECK(w_first.backward.kernels - w_last.backward.kernels == 3);
    last.precision = first.precision = Precision::kFp32;
    CHECK(op_work(conv, 1, g, first, e).forward.gpu_time_s == doctest::Approx(op_work(conv, 1, g, last, e).forward.gpu_time_s));
  }

  TEST_CASE("an NCHW convolution runs on the CUDA cores where that beats tensor cores plus transposes") {
    const GpuEfficiency e = testing::hand_efficiency();
    const GpuSpec g = testing::ampere_like();
    TrainingSpec first = training(Precision::kFp16Amp);
    first.memory_format = MemoryFormat::kChannelsFirst;
    // A narrow convolution: 5e8 FLOP over 1e7 input and 1e7 output elements (2 B each).
    Op narrow = matmul(5e8, 1e7, 0);
    narrow.op_class = OpClass::kConv;
    // Tensor cores: max(5e8 / (320e12 x 0.87 x 0.70) = 2.6 us, 4e7 B / 1.6e12 B/s = 25 us) + 3 us,
    // plus transposes 8e7 B = 50 us in 2 kernels: 84 us. CUDA cores: 5e8 / (20e12 x 0.88 x 0.70)
    // = 40.6 us against 25 us of traffic, + 3 us: 43.6 us, without transposes.
    const OpWork w = op_work(narrow, 1, g, first, e);
    CHECK(w.forward.gpu_time_s == doctest::Approx(5e8 / (20e12 * 0.88 * 0.70) + 3e-6));
    CHECK(w.forward.kernels == 1);
    CHECK(w.forward.bytes == doctest::Approx(4e7));
    // In NHWC there are no transposes, and the tensor cores win: 25 us + 3 us.
    TrainingSpec last = first;
    last.memory_format = MemoryFormat::kChannelsLast;
    CHECK(op_work(narrow, 1, g, last, e).forward.gpu_time_s == doctest::Approx(4e7 / 1.6e12 + 3e-6));
    // A depthwise convolution (one input channel per group) has no GEMM for the tensor cores:
    // CUDA cores at 20e12 x 0.88 (no convolution factor), max(28.4 us, 25 us) + 3 us, in
    // either layout.
    Op depthwise = narrow;
    depthwise.conv_group_input_channels = 1.0;
    CHECK(op_work(depthwise, 1, g, last, e).forward.gpu_time_s == doctest::Approx(5e8 / (20e12 * 0.88) + 3e-6));
    CHECK(op_work(depthwise, 1, g, first, e).forward.gpu_time_s == doctest::Approx(5e8 / (20e12 * 0.88) + 3e-6));
  }

  TEST_CASE("NCHW batch norm: each channel's N·H·W elements at 1.41 passes per cycle, or the bandwidth if slower") {
    const GpuEfficiency e = testing::hand_efficiency();
    CHECK(e.nchw_batch_norm_passes_per_cycle == doctest::Approx(2.73 / 1.935));
    GpuSpec g = testing::ampere_like();
    g.boost_clock_hz = 1.5e9;
    // ResNet-50's stem batch norm: 64 channels of 112 x 112 per sample, batch 256.
    Op bn = elementwise(64.0 * 112 * 112);
    bn.name = "bn1";
    bn.op_class = OpClass::kNormalization;
    bn.parameters = 128.0;
    bn.batch_norm_channels = 64.0;
    TrainingSpec first = training(Precision::kFp16Amp);
    first.memory_format = MemoryFormat::kChannelsFirst;
    TrainingSpec last = first;
    last.memory_format = MemoryFormat::kChannelsLast;
    // Per channel 256 x 12,544 = 3,211,264 elements; a channel moves 2.73 / 1.935 x 1.5e9 =
    // 2.1163e9 element passes per second: forward 2 passes = 3.0349 ms, backward 4 = 6.0698 ms.
    const double per_channel_s = 256.0 * 112 * 112 / (2.73 / 1.935 * 1.5e9);
    CHECK(per_channel_s == doctest::Approx(1.51744e-3).epsilon(1e-4));
    const OpWork nchw = op_work(bn, 256, g, first, e);
    CHECK(nchw.forward.gpu_time_s == doctest::Approx(2.0 * per_channel_s + 3e-6));
    CHECK(nchw.backward.gpu_time_s == doctest::Approx(4.0 * per_channel_s + 2 * 3e-6));
    // NHWC: the bandwidth alone. Forward reads x and writes y, 2 x 205,520,896 x 2 B, and the
    // 128 weights at 2 B: 822,083,840 B at 2000 GB/s x 0.80 = 0.5138 ms.
    const OpWork nhwc = op_work(bn, 256, g, last, e);
    CHECK(nhwc.forward.gpu_time_s == doctest::Approx(822'083'840.0 / 1.6e12 + 3e-6));
    CHECK(nchw.forward.bytes == doctest::Approx(nhwc.forward.bytes));
    // 2,048 channels of the same elements: 100,352 per channel, 0.095 ms; the bandwidth rules.
    Op wide = bn;
    wide.batch_norm_channels = 2048.0;
    wide.parameters = 4096.0;
    CHECK(op_work(wide, 256, g, first, e).forward.gpu_time_s ==
          doctest::Approx(op_work(wide, 256, g, last, e).forward.gpu_time_s));
    // MIOpen's batch norm on an AMD GPU is not cuDNN's: no such bound; nor a layer norm.
    GpuSpec amd = g;
    amd.vendor = GpuVendor::kAmd;
    CHECK(op_work(bn, 256, amd, first, e).forward.gpu_time_s == doctest::Approx(nhwc.forward.gpu_time_s));
    Op layer_norm = bn;
    layer_norm.batch_norm_channels = 0.0;
    CHECK(op_work(layer_norm, 256, g, first, e).forward.gpu_time_s == doctest::Approx(nhwc.forward.gpu_time_s));
  }

  TEST_CASE("optimizer step is memory-bound: Adam moves 28 B per parameter") {
    const GpuEfficiency e = testing::hand_efficiency();
    TrainingSpec t = training(Precision::kFp32);
    t.optimizer = Optimizer::kAdamW;
    t.framework_overhead = FrameworkOverhead::kCompiled;
    const KernelWork k = optimizer_work(1e9, 128, testing::ampere_like(), t, e);
    // 1e9 * 28 B = 28e9 B / 1.6e12 B/s = 17.5 ms; a multi_tensor_apply launch covers at most
    // 320 x 65,536 = 20,971,520 elements: ceil(1e9 / that) = 48 launches (more than the
    // ceil(128/64) = 2 the tensor count needs) per op, 6 ops = 288 kernels -> + 864 us.
    CHECK(k.bytes == doctest::Approx(28e9));
    CHECK(k.kernels == 288);
    CHECK(k.gpu_time_s == doctest::Approx(17.5e-3 + 288 * 3e-6));
    // ... and 2 launches per op for 1e7 parameters in 128 tensors: 12 kernels.
    CHECK(optimizer_work(1e7, 128, testing::ampere_like(), t, e).kernels == 12);
    t.optimizer = Optimizer::kSgd;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(12e9));
    // eager torch.optim SGD: one foreach op, 48 launches
    t.framework_overhead = FrameworkOverhead::kEager;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).kernels == 48);
    // fp16 AMP adds GradScaler's fused unscale: + 8 B/param, + 48 kernels
    t.precision = Precision::kFp16Amp;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).kernels == 96);
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(20e9));
    // bf16 AMP runs without a loss scaler: SGD's 12 B only
    t.precision = Precision::kBf16Amp;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(12e9));
  }

  TEST_CASE("eager torch.optim Adam(W) moves whole arrays once per foreach op") {
    const GpuEfficiency e = testing::hand_efficiency();
    TrainingSpec t = training(Precision::kFp32);
    t.framework_overhead = FrameworkOverhead::kEager;
    t.optimizer = Optimizer::kAdamW;
    // mul_(p), lerp_(m, g), mul_(v), addcmul_(v, g, g), sqrt(v) -> s, div_(s), add_(s),
    // addcdiv_(p, m, s): p 4, g 2, m 3, v 5, s 6 arrays = 20 x 4 B = 80 B per parameter;
    // 8 ops x 48 launches.
    const KernelWork adamw = optimizer_work(1e9, 128, testing::ampere_like(), t, e);
    CHECK(adamw.bytes == doctest::Approx(80e9));
    CHECK(adamw.kernels == 8 * 48);
    CHECK(adamw.gpu_time_s == doctest::Approx(80e9 / 1.6e12 + 384 * 3e-6));
    // foreach=False (transformers' legacy AdamW, PyTorch before 2.0): the same 80 B, one launch
    // per tensor and op: 8 x 128.
    t.optimizer_implementation = OptimizerImplementation::kForLoop;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(80e9));
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).kernels == 8 * 128);
    // fused=True in an eager script: one pass, 28 B (p 8, g 4, m and v 16), 6 ops x 48 launches.
    t.optimizer_implementation = OptimizerImplementation::kFused;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(28e9));
    CHECK(optimizer_tensor_host_time_s(128, t, e) == 0.0);
    // A compiled model's eager foreach optimizer: the passes, the Python per tensor, aten launches.
    t.framework_overhead = FrameworkOverhead::kCompiled;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(28e9));
    CHECK(optimizer_dispatch_time_s(t, e) == doctest::Approx(e.compiled_dispatch_s));
    t.optimizer_implementation = OptimizerImplementation::kForeach;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(80e9));
    CHECK(optimizer_tensor_host_time_s(128, t, e) == doctest::Approx(128 * e.eager_optimizer_tensor_s));
    CHECK(optimizer_dispatch_time_s(t, e) == doctest::Approx(10e-6));
    t.framework_overhead = FrameworkOverhead::kEager;
    t.optimizer_implementation.reset();
    // Adam without weight decay skips mul_(p): 18 arrays, 72 B.
    t.optimizer = Optimizer::kAdam;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(72e9));
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).kernels == 7 * 48);
    // SGD momentum: mul_(buf), add_(buf, g), add_(p, buf): buf 5, g 1, p 2 arrays = 32 B.
    t.optimizer = Optimizer::kSgdMomentum;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(32e9));
    // pure bf16: every array 2 B, AdamW 40 B; fp16 AMP: fp32 arrays plus the unscale, 88 B.
    t.optimizer = Optimizer::kAdamW;
    t.precision = Precision::kBf16;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(40e9));
    t.precision = Precision::kFp16Amp;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(88e9));
    // The step's Python per parameter tensor: 128 x 25 us in eager, none once fused.
    CHECK(optimizer_tensor_host_time_s(128, t, e) == doctest::Approx(128 * e.eager_optimizer_tensor_s));
    CHECK(e.eager_optimizer_tensor_s > 0.0);
    t.framework_overhead = FrameworkOverhead::kEagerFused;
    CHECK(optimizer_tensor_host_time_s(128, t, e) == 0.0);
    t.framework_overhead = FrameworkOverhead::kEager;
    t.optimizer = Optimizer::kAdamW8bit;
    CHECK(optimizer_tensor_host_time_s(128, t, e) == 0.0);
  }

  TEST_CASE("optimizer state precision and 8-bit AdamW") {
    const GpuEfficiency e = testing::hand_efficiency();
    TrainingSpec t = training(Precision::kFp32);
    // pure bf16 torch AdamW: p 2 B read + written, g 2 B read, bf16 m and v (zeros_like(p))
    // read + written 8 B = 14 B/param; no GradScaler. Compiled: 6 ops x 48 launches.
    t.precision = Precision::kBf16;
    t.optimizer = Optimizer::kAdamW;
    t.framework_overhead = FrameworkOverhead::kCompiled;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(14e9));
    // fp32 moments beside bf16 weights (optimizer_state_precision: fp32): 6 + 16 = 22 B/param.
    t.optimizer_state_precision = OptimizerStatePrecision::kFp32;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(22e9));
    t.optimizer_state_precision = OptimizerStatePrecision::kParam;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).kernels == 288);
    // 8-bit AdamW in fp32: 8 + 4 B for p and g, 2 x 2.00390625 B of state = 16.0078125 B/param;
    // one bitsandbytes kernel per tensor even when compiled.
    t.precision = Precision::kFp32;
    t.optimizer = Optimizer::kAdamW8bit;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(16.0078125e9));
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).kernels == 128);
    // Adafactor: p read + written, g read twice = 16 B/param; 12 kernels per tensor.
    t.optimizer = Optimizer::kAdafactor;
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).bytes == doctest::Approx(16e9));
    CHECK(optimizer_work(1e9, 128, testing::ampere_like(), t, e).kernels == 12 * 128);
    // the optimizer's eager loop costs a bare aten call per kernel, not model-code dispatch
    t.framework_overhead = FrameworkOverhead::kEager;
    CHECK(optimizer_dispatch_time_s(t, e) == doctest::Approx(10e-6));
  }

  TEST_CASE("fused FlashAttention: tensor cores at the flash fraction, backward 2.5x forward") {
    const GpuEfficiency e = testing::hand_efficiency();
    Op flash;
    flash.name = "layers.0.attn.fused";
    flash.op_class = OpClass::kAttention;
    flash.forward_flop = 3'221'225'472.0;  // 4·s²·h, s = 1024, h = 768
    flash.input_elements = 3.0 * 786'432.0;
    flash.output_elements = 786'432.0;
    flash.backward_flop_ratio = 2.0;
    flash.backward_recompute_flop_ratio = 0.5;
    flash.attention_kernel = AttentionKernel::kFlash;
    const OpWork w = op_work(flash, 1, testing::ampere_like(), training(Precision::kBf16Amp), e);
    // rate 320 TFLOP/s x matmul_tensor_core(8) x flash_attention_relative_to_matmul; compute
    // bound: the 4·s·h·2 B = 6.3 MB read and written take 3.9 us at 1.6 TB/s.
    const double rate = 320e12 * e.matmul_tensor_core(8) * e.flash_attention_relative_to_matmul;
    CHECK(w.forward.gpu_time_s == doctest::Approx(3'221'225'472.0 / rate + 3e-6));
    CHECK(w.backward.flop == doctest::Approx(2.5 * 3'221'225'472.0));
    CHECK(w.backward.gpu_time_s == doctest::Approx(2.5 * 3'221'225'472.0 / rate + 3e-6));
    // the memory-efficient kernel runs at its fraction of flash.
    flash.attention_kernel = AttentionKernel::kMemoryEfficient;
    const OpWork m = op_work(flash, 1, testing::ampere_like(), training(Precision::kBf16Amp), e);
    CHECK(m.forward.gpu_time_s ==
          doctest::Approx(3'221'225'472.0 / (rate * e.memory_efficient_attention_relative_to_flash) + 3e-6));
  }

  TEST_CASE("FlashAttention-2 on Hopper runs at its own fraction: 0.35 of peak against a GEMM's 0.80") {
    const GpuEfficiency e = GpuEfficiency::defaults();
    // The published rates, read at 2k tokens (A100: 16 query blocks of 128) and 16k (Hopper:
    // 128 blocks), are what the per-tile rates give at those sequences.
    CHECK(e.flash_attention_relative_to(8) * e.fused_attention_block_share(16) == doctest::Approx(0.65));
    CHECK(e.flash_attention_relative_to(9) * e.fused_attention_block_share(128) == doctest::Approx(0.44));
    CHECK(e.flash_attention_relative_to(10) == e.flash_attention_relative_to(9));
    const Op flash = fused_attention(AttentionKernel::kFlash);  // no sequence stated: per-tile rate
    GpuSpec hopper = testing::ampere_like();
    hopper.compute_capability_major = 9;
    const OpWork w = op_work(flash, 1, hopper, training(Precision::kBf16Amp), e);
    // 1e12 FLOP / (320 TFLOP/s x 0.80 (Hopper GEMM) x 0.44 / (128 / 129.85)) + 3 us.
    CHECK(w.forward.gpu_time_s == doctest::Approx(1e12 / (320e12 * 0.80 * 0.44 * 129.85 / 128.0) + 3e-6));
  }

  TEST_CASE("fused attention: a causal kernel computes (n+1)/(2n) of the tiles, each query block costs 1.85 tiles more") {
    const GpuEfficiency e = GpuEfficiency::defaults();
    CHECK(e.fused_attention_block_overhead_tiles == doctest::Approx(1.85));
    // The constant's source: rate = P·t / (t + 1.85) at t tiles per query block, P = 666
    // TFLOP/s, reproduces FlashAttention-3's twelve forward bars (head dim 128, H100, figure 5)
    // within 5 %: without a mask t = n, with one t = (n + 1) / 2 and FLOP counted as half.
    const double blocks[] = {4, 8, 16, 32, 64, 128};
    const double full[] = {467, 565, 625, 638, 646, 648};
    const double causal[] = {292, 423, 521, 579, 602, 616};
    for (int i = 0; i < 6; ++i) {
      CHECK(666.0 * e.fused_attention_block_share(blocks[i]) == doctest::Approx(full[i]).epsilon(0.05));
      CHECK(666.0 * blocks[i] / (blocks[i] + 1.0 + 2.0 * 1.85) == doctest::Approx(causal[i]).epsilon(0.05));
    }
    Op op = fused_attention(AttentionKernel::kFlash3);
    op.attention_tokens = 2048.0;  // 16 query blocks
    CHECK(fused_attention_query_blocks(op) == 16.0);
    CHECK(fused_attention_tile_share(op) == 1.0);
    op.causal = true;
    CHECK(fused_attention_tile_share(op) == doctest::Approx(17.0 / 32.0));
    GpuSpec hopper = testing::ampere_like();
    hopper.compute_capability_major = 9;
    const OpWork w = op_work(op, 1, hopper, training(Precision::kBf16Amp), e);
    // 17/32 of 1e12 FLOP at the per-tile rate x 8.5 / (8.5 + 1.85) (8.5 tiles per block).
    const double rate = 320e12 * 0.80 * e.flash3_attention_relative_to(128) * 8.5 / 10.35;
    CHECK(w.forward.flop == doctest::Approx(1e12 * 17.0 / 32.0));
    CHECK(w.forward.gpu_time_s == doctest::Approx(1e12 * 17.0 / 32.0 / rate + 3e-6));
    CHECK(w.backward.flop == doctest::Approx(2.5e12 * 17.0 / 32.0));
    // One sequence: 2,049 tokens are 17 blocks, 18/34 of the square.
    op.attention_tokens = 2049.0;
    CHECK(fused_attention_tile_share(op) == doctest::Approx(18.0 / 34.0));
  }

  TEST_CASE("flash_triton (FlashAttention in Triton) runs at 1 / sqrt(1.3 x 2.5) of FlashAttention-2") {
    const GpuEfficiency e = GpuEfficiency::defaults();
    CHECK(e.flash_triton_attention_relative_to_flash == doctest::Approx(0.5547).epsilon(0.001));
    const OpWork fa2 = op_work(fused_attention(AttentionKernel::kFlash), 1, testing::ampere_like(),
                               training(Precision::kBf16Amp), e);
    const OpWork triton = op_work(fused_attention(AttentionKernel::kFlashTriton), 1, testing::ampere_like(),
                                  training(Precision::kBf16Amp), e);
    CHECK((triton.forward.gpu_time_s - 3e-6) / (fa2.forward.gpu_time_s - 3e-6) == doctest::Approx(std::sqrt(1.3 * 2.5)));
  }

  TEST_CASE("flash3 (FlashAttention-3, cuDNN fused attention) at its published share of a Hopper's peak, by head dim") {
    const GpuEfficiency e = GpuEfficiency::defaults();
    // FlashAttention-3 paper, forward + backward (2.5x the FLOP): head dim 128,
    // 3.5 / (1/649 + 2.5/581) = 599 of 989 TFLOP/s; head dim 64, 3.5 / (1/497 + 2.5/476) = 482.
    CHECK(3.5 / (1.0 / 649.0 + 2.5 / 581.0) / 989.0 == doctest::Approx(0.606).epsilon(0.002));
    CHECK(3.5 / (1.0 / 497.0 + 2.5 / 476.0) / 989.0 == doctest::Approx(0.487).epsilon(0.002));
    // Relative to the 0.80 a large GEMM reaches on Hopper.
    // Read at 16k tokens (128 query blocks): the per-tile rate times that block share.
    const double at_16k = e.fused_attention_block_share(128);
    CHECK(e.flash3_attention_relative_to(128) * at_16k == doctest::Approx(0.606 / 0.80).epsilon(0.005));
    CHECK(e.flash3_attention_relative_to(64) * at_16k == doctest::Approx(0.487 / 0.80).epsilon(0.005));
    CHECK(e.flash3_attention_relative_to(96) * at_16k == doctest::Approx((0.61 + 0.76) / 2.0));
    CHECK(e.flash3_attention_relative_to(192) * at_16k == doctest::Approx(0.76));  // held past 128
    CHECK(e.flash3_attention_relative_to(32) * at_16k == doctest::Approx(0.61));   // held below 64
    Op flash = fused_attention(AttentionKernel::kFlash3);
    GpuSpec hopper = testing::ampere_like();
    hopper.compute_capability_major = 9;
    const OpWork w = op_work(flash, 1, hopper, training(Precision::kBf16Amp), e);
    // 1e12 FLOP / (320 TFLOP/s x 0.80 x the per-tile 0.76 / (128 / 129.85)) + 3 us; backward 2.5x
    // the FLOP.
    const double tile_rate = 320e12 * 0.80 * 0.76 * 129.85 / 128.0;
    CHECK(w.forward.gpu_time_s == doctest::Approx(1e12 / tile_rate + 3e-6));
    CHECK(w.backward.gpu_time_s == doctest::Approx(2.5e12 / tile_rate + 3e-6));
    // 1.73x FlashAttention-2 on the same GPU (0.76 / 0.44).
    flash.attention_kernel = AttentionKernel::kFlash;
    const OpWork fa2 = op_work(flash, 1, hopper, training(Precision::kBf16Amp), e);
    CHECK((fa2.forward.gpu_time_s - 3e-6) / (w.forward.gpu_time_s - 3e-6) == doctest::Approx(0.76 / 0.44));
  }

  TEST_CASE("under fp8 only the blocks' linear layers run fp8 GEMMs: attention and the output head run bf16") {
    const GpuEfficiency e = testing::hand_efficiency();
    GpuSpec hopper = testing::ampere_like();
    hopper.compute_capability_major = 9;
    hopper.peak_fp8_flop_per_s = core::teraflop_per_s(640);
    REQUIRE(hopper.has_fp8());
    // 1e12 FLOP on every op; no GEMM shape (weight_rows 0), compute-bound.
    Op block_linear = matmul(1e12, 1e6, 1e6);
    block_linear.name = "layers.3.mlp.up";
    Op head = matmul(1e12, 1e6, 1e6);
    head.name = "lm_head";
    const Op attention = fused_attention(AttentionKernel::kFlash3);
    CHECK(runs_fp8_gemm(block_linear));
    CHECK_FALSE(runs_fp8_gemm(head));
    CHECK_FALSE(runs_fp8_gemm(attention));
    const TrainingSpec fp8 = training(Precision::kFp8);
    const double gemm = e.matmul_tensor_core(9) * e.matmul_relative_to_gemm;
    // fp8 GEMMs reach a smaller share of their peak than bf16 ones on Hopper (MAMF: H100 fp8
    // 1402.6 of 1979 TFLOP/s, bf16 794.5 of 989).
    const double fp8_gemm = e.matmul_tensor_core(9, true) * e.matmul_relative_to_gemm;
    CHECK(e.matmul_tensor_core(9, true) == doctest::Approx(0.709).epsilon(0.001));
    CHECK(e.matmul_tensor_core(9) == doctest::Approx(0.80));
    // The block's linear at 640 TFLOP/s, the head at the 320 TFLOP/s bf16 peak; the autocast
    // weight cast (1 kernel, 6 B per weight) rides along: 6e6 B at 1.6 TB/s is under the GEMM.
    // The block's linear also casts its 1e6 input elements to fp8 and their transpose (read 2 B,
    // write 1 + 1 B: 4e6 B at 1.6 TB/s) in a kernel of its own, and in backward its 1e6 output
    // gradient elements the same way.
    const OpWork linear_work = op_work(block_linear, 1, hopper, fp8, e);
    CHECK(linear_work.forward.gpu_time_s == doctest::Approx(1e12 / (640e12 * fp8_gemm) + 2 * 3e-6 + 4e6 / 1.6e12 + 3e-6));
    CHECK(linear_work.forward.kernels == 3);
    CHECK(linear_work.backward.kernels == 2 + 1);
    CHECK(linear_work.backward.bytes - op_work(block_linear, 1, hopper, training(Precision::kBf16Amp), e).backward.bytes ==
          doctest::Approx(4e6));
    CHECK(op_work(head, 1, hopper, fp8, e).forward.gpu_time_s == doctest::Approx(1e12 / (320e12 * gemm) + 2 * 3e-6));
    CHECK(op_work(attention, 1, hopper, fp8, e).forward.gpu_time_s ==
          doctest::Approx(1e12 / (320e12 * e.matmul_tensor_core(9) * e.flash3_attention_relative_to(128)) + 3e-6));
  }

  TEST_CASE("under AMP Megatron's fused softmax (eager_fused) moves 16-bit elements, autocast's softmax 32-bit") {
    const GpuEfficiency e = testing::hand_efficiency();
    Op softmax = elementwise(1e9);
    softmax.name = "layers.0.attn.softmax";
    softmax.op_class = OpClass::kSoftmax;
    softmax.autocast_fp32 = true;
    softmax.compiled_traffic_share = 1.0;  // one kernel already: nothing for a fuser to remove
    TrainingSpec eager = training(Precision::kFp16Amp);
    TrainingSpec fused = eager;
    fused.framework_overhead = FrameworkOverhead::kEagerFused;
    // 1e9 elements read and written at 1.6 TB/s: 8e9 B in fp32, 4e9 B in fp16, + 3 us.
    CHECK(op_work(softmax, 1, testing::ampere_like(), eager, e).forward.gpu_time_s ==
          doctest::Approx(8e9 / 1.6e12 + 3e-6));
    CHECK(op_work(softmax, 1, testing::ampere_like(), fused, e).forward.gpu_time_s ==
          doctest::Approx(4e9 / 1.6e12 + 3e-6));
    // The loss's softmax (outside a block) stays fp32 under eager_fused.
    softmax.name = "loss";
    CHECK(op_work(softmax, 1, testing::ampere_like(), fused, e).forward.gpu_time_s ==
          doctest::Approx(8e9 / 1.6e12 + 3e-6));
  }

  TEST_CASE("memory-bound kernels stream at the datasheet bandwidth x the achieved share, on every memory type") {
    GpuEfficiency e = testing::hand_efficiency();
    e.memory_bandwidth = 0.60;
    GpuSpec gddr = testing::ampere_like();
    gddr.memory_type = MemoryType::kGddr6x;
    // 2000 GB/s x 0.60.
    CHECK(achieved_memory_bytes_per_s(gddr, e) == doctest::Approx(1.2e12));
    const OpWork w = op_work(elementwise(1e9), 1, gddr, training(Precision::kFp32), e);
    // 1e9 elements read and written, 4 B each: 8e9 B / 1.2e12 B/s + 3 us.
    CHECK(w.forward.gpu_time_s == doctest::Approx(8e9 / 1.2e12 + 3e-6));
  }

  TEST_CASE("under AMP, ops autocast keeps in fp32 move 4-byte elements and feed a cast") {
    const GpuEfficiency e = testing::hand_efficiency();
    Op norm = elementwise(1e6);
    norm.op_class = OpClass::kNormalization;
    norm.autocast_fp32 = true;
    const TrainingSpec amp = training(Precision::kFp16Amp);
    // (1e6 + 1e6) elements * 4 B = 8e6 B, as in fp32
    CHECK(op_work(norm, 1, testing::ampere_like(), amp, e).forward.bytes == doctest::Approx(8e6));
    norm.autocast_fp32 = false;
    CHECK(op_work(norm, 1, testing::ampere_like(), amp, e).forward.bytes == doctest::Approx(4e6));
    // a matmul fed by an fp32 op casts its 1e6-element input: + 1 kernel, + 6e6 B
    const Op mm = matmul(1e9, 1e6, 0);
    const OpWork plain = op_work(mm, 1, testing::ampere_like(), amp, e, false);
    const OpWork cast = op_work(mm, 1, testing::ampere_like(), amp, e, true);
    CHECK(cast.forward.kernels == plain.forward.kernels + 1);
    CHECK(cast.forward.bytes == doctest::Approx(plain.forward.bytes + 6e6));
  }

  TEST_CASE("H2D bandwidth from the PCIe generation: pinned and pageable") {
    const GpuEfficiency e = testing::hand_efficiency();
    // Gen3 x16: 0.985 GB/s/lane * 16 = 15.76 GB/s raw; * 0.78 = 12.29 GB/s pinned (R12: 11-12)
    CHECK(h2d_bytes_per_s(testing::volta_like(), true, e) == doctest::Approx(15.76e9 * 0.78));
    CHECK(h2d_bytes_per_s(testing::volta_like(), false, e) == doctest::Approx(15.76e9 * 0.78 * 0.5));
    // Gen4 x16: 1.969 * 16 * 0.78 = 24.57 GB/s (V089 measured 25.13)
    CHECK(h2d_bytes_per_s(testing::ampere_like(), true, e) == doctest::Approx(1.969e9 * 16 * 0.78));
  }

  TEST_CASE("dispatch cost per kernel by framework mode") {
    const GpuEfficiency e = testing::hand_efficiency();
    CHECK(dispatch_time_s(FrameworkOverhead::kEager, false, e) == doctest::Approx(40e-6));
    CHECK(dispatch_time_s(FrameworkOverhead::kEager, true, e) == doctest::Approx(15e-6));
    // autocast: x1.5 in eager only
    CHECK(dispatch_time_s(FrameworkOverhead::kEager, false, e, Precision::kBf16Amp) == doctest::Approx(60e-6));
    CHECK(dispatch_time_s(FrameworkOverhead::kCompiled, false, e, Precision::kBf16Amp) == doctest::Approx(3e-6));
    CHECK(dispatch_time_s(FrameworkOverhead::kCudaGraphs, false, e) < dispatch_time_s(FrameworkOverhead::kCompiled, false, e));
  }
}

#include "models/memory/optimizer_state.h"

#include <doctest/doctest.h>

#include "models/memory/parallel_memory.h"
#include "parameter_op.h"

using namespace gpuplan::models;

namespace {
TrainingSpec with(Optimizer optimizer, Precision precision,
                  OptimizerStatePrecision state = OptimizerStatePrecision::kParam) {
  TrainingSpec t;
  t.optimizer = optimizer;
  t.precision = precision;
  t.optimizer_state_precision = state;
  return t;
}
}  // namespace

TEST_SUITE("models.memory.optimizer_state") {
  TEST_CASE("per-element state: SGD, momentum, Adam, bitsandbytes 8-bit, fp32 parameters") {
    Workload w;
    w.parameters = 1e6;
    CHECK(optimizer_state_bytes(w, with(Optimizer::kSgd, Precision::kFp32)) == 0.0);
    CHECK(optimizer_state_bytes(w, with(Optimizer::kSgdMomentum, Precision::kFp32)) == doctest::Approx(4e6));
    CHECK(optimizer_state_bytes(w, with(Optimizer::kAdamW, Precision::kFp32)) == doctest::Approx(8e6));
    // two 8-bit moments + one fp32 absmax per 2,048 values each: 2 · (1 + 4/2048) B
    // = 2.00390625 B per parameter.
    CHECK(optimizer_state_bytes(w, with(Optimizer::kAdamW8bit, Precision::kFp32)) == doctest::Approx(2'003'906.25));
    CHECK(optimizer_state_bytes(w, with(Optimizer::kPagedAdamW8bit, Precision::kFp32)) ==
          doctest::Approx(2'003'906.25));
  }

  TEST_CASE("state in the parameter dtype: bf16 moments under pure bf16, fp32 where fp32 master weights exist") {
    Workload w;
    w.parameters = 1e6;
    // torch.optim.AdamW under model.to(torch.bfloat16): exp_avg, exp_avg_sq = zeros_like(p),
    // 2 B each: 1e6 · 2 · 2 B = 4e6 B. Momentum SGD: one 2 B buffer = 2e6 B.
    CHECK(optimizer_state_bytes(w, with(Optimizer::kAdamW, Precision::kBf16)) == doctest::Approx(4e6));
    CHECK(optimizer_state_bytes(w, with(Optimizer::kAdam, Precision::kBf16)) == doctest::Approx(4e6));
    CHECK(optimizer_state_bytes(w, with(Optimizer::kSgdMomentum, Precision::kBf16)) == doctest::Approx(2e6));
    // AMP and fp8 update fp32 master weights: the moments are fp32, 1e6 · 2 · 4 B.
    CHECK(optimizer_state_bytes(w, with(Optimizer::kAdamW, Precision::kBf16Amp)) == doctest::Approx(8e6));
    CHECK(optimizer_state_bytes(w, with(Optimizer::kAdamW, Precision::kFp16Amp)) == doctest::Approx(8e6));
    CHECK(optimizer_state_bytes(w, with(Optimizer::kAdamW, Precision::kFp8)) == doctest::Approx(8e6));
    // 8-bit state is 8-bit whatever the parameters are.
    CHECK(optimizer_state_bytes(w, with(Optimizer::kAdamW8bit, Precision::kBf16)) == doctest::Approx(2'003'906.25));
  }

  TEST_CASE("optimizer_state_precision overrides the parameter dtype") {
    Workload w;
    w.parameters = 1e6;
    // An fp32-state AdamW beside bf16 weights (e.g. a framework that upcasts): 8 B/param.
    CHECK(optimizer_state_bytes(w, with(Optimizer::kAdamW, Precision::kBf16, OptimizerStatePrecision::kFp32)) ==
          doctest::Approx(8e6));
    // bf16 moments beside fp32 weights: 4 B/param.
    CHECK(optimizer_state_bytes(w, with(Optimizer::kAdamW, Precision::kBf16Amp, OptimizerStatePrecision::kBf16)) ==
          doctest::Approx(4e6));
    CHECK(elementwise_state_bytes_per_parameter(
              with(Optimizer::kSgdMomentum, Precision::kFp32, OptimizerStatePrecision::kBf16)) == 2.0);
  }

  TEST_CASE("Adafactor factors the second moment of each weight matrix") {
    Workload w;
    Op linear;  // 1000 x 500 weight + 1000 bias
    linear.parameters = 501'000;
    linear.weight_rows = 1000;
    linear.weight_columns = 500;
    Op norm;  // 1000 weights, no matrix
    norm.parameters = 1000;
    Op tied_head;  // the embedding's matrix, owns no parameters
    tied_head.weight_rows = 50'000;
    tied_head.weight_columns = 500;
    w.ops = {linear, norm, tied_head};
    w.parameters = 502'000;
    // linear: (1000 + 500) · 4 B row/column means + 1000 · 4 B bias = 10,000 B;
    // norm: 1000 · 4 B = 4,000 B; tied head: 0. HF's Adafactor keeps fp32 state under pure
    // bf16 too (it casts the gradient to fp32 first); bf16 state halves it.
    CHECK(optimizer_state_bytes(w, with(Optimizer::kAdafactor, Precision::kFp32)) == doctest::Approx(14'000.0));
    CHECK(optimizer_state_bytes(w, with(Optimizer::kAdafactor, Precision::kBf16)) == doctest::Approx(14'000.0));
    CHECK(optimizer_state_bytes(w, with(Optimizer::kAdafactor, Precision::kBf16, OptimizerStatePrecision::kBf16)) ==
          doctest::Approx(7'000.0));
  }

  TEST_CASE("the optimizer step's temporaries: foreach Adam(W)'s sqrt(v) over every tensor, or one tensor's") {
    // Two tensors of 3e8 and 1e8 parameters in pure bf16: moments 4e8 x 2 x 2 B = 1.6e9 B.
    JobSpec job;
    job.workload.ops = {testing::parameter_op("embed", 3e8), testing::parameter_op("mlp", 1e8)};
    job.workload.parameters = 4e8;
    job.training = with(Optimizer::kAdamW, Precision::kBf16);
    const double state = optimizer_state_bytes(job.workload, job.training);
    CHECK(state == doctest::Approx(1.6e9));
    // foreach: torch._foreach_sqrt(exp_avg_sq) of every tensor, half the moments: 8e8 B.
    CHECK(optimizer_step_temporary_bytes(job, state) == doctest::Approx(8e8));
    // A loop over the tensors holds the largest one's sqrt: 3e8 x 2 B.
    job.training.optimizer_implementation = OptimizerImplementation::kForLoop;
    CHECK(optimizer_step_temporary_bytes(job, state) == doctest::Approx(6e8));
    // fused=True in an eager script: one kernel, no temporary; a compiled model's foreach step keeps it.
    job.training.optimizer_implementation = OptimizerImplementation::kFused;
    CHECK(optimizer_step_temporary_bytes(job, state) == 0.0);
    JobSpec compiled_model = job;
    compiled_model.training.framework_overhead = FrameworkOverhead::kCompiled;
    compiled_model.training.optimizer_implementation = OptimizerImplementation::kForeach;
    CHECK(optimizer_step_temporary_bytes(compiled_model, state) == doctest::Approx(8e8));
    job.training.optimizer_implementation.reset();
    // Fused steps, other optimizers, DeepSpeed, Megatron's distributed optimizer, offload: none.
    JobSpec fused = job;
    fused.training.framework_overhead = FrameworkOverhead::kCompiled;
    CHECK(optimizer_step_temporary_bytes(fused, state) == 0.0);
    JobSpec momentum = job;
    momentum.training.optimizer = Optimizer::kSgdMomentum;
    CHECK(optimizer_step_temporary_bytes(momentum, state) == 0.0);
    JobSpec zero = job;
    zero.parallelism.strategy = ParallelStrategy::kZero;
    CHECK(optimizer_step_temporary_bytes(zero, state) == 0.0);
    JobSpec megatron = job;
    megatron.parallelism.distributed_optimizer = true;
    CHECK(optimizer_step_temporary_bytes(megatron, state) == 0.0);
    JobSpec offload = job;
    offload.parallelism.optimizer_offload = OffloadTarget::kCpu;
    CHECK(optimizer_step_temporary_bytes(offload, state) == 0.0);
  }

  TEST_CASE("the step's temporaries raise the peak by what they exceed the freed activations by") {
    // 4e8 bf16 parameters, no activations: weights 8e8, gradients 8e8, moments 1.6e9, and the
    // step's 8e8 of sqrt(v) on top, counted as workspace.
    JobSpec job;
    job.workload.ops = {testing::parameter_op("embed", 3e8), testing::parameter_op("mlp", 1e8)};
    job.workload.parameters = 4e8;
    job.training = with(Optimizer::kAdamW, Precision::kBf16);
    job.training.batch_size = 1;
    MemoryModelParams params;
    params.workspace_bytes = 1e6;
    const MemoryBreakdown m = rank_memory(job, params);
    CHECK(m.workspace_bytes == doctest::Approx(1e6 + 8e8));
    CHECK(m.total_bytes() == doctest::Approx(8e8 + 8e8 + 1.6e9 + 1e6 + 8e8));
    // Activations of 5e8 B per sample are freed before the step: 8e8 - 5e8 = 3e8 B remain on top.
    job.workload.ops.edit()[1].saved_elements = 2.5e8;  // 2 B each under bf16
    CHECK(rank_memory(job, params).workspace_bytes == doctest::Approx(1e6 + 3e8));
    // More activations than temporaries: the backward's peak stands.
    job.training.batch_size = 2;
    CHECK(rank_memory(job, params).workspace_bytes == doctest::Approx(1e6));
  }
}


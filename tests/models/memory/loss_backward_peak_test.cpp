// The loss-backward phase of the peak (footprint.h loss_backward_transient_bytes_per_sample,
// parallel_memory.h rank_memory): hand-computed from round-number op tables.
#include <doctest/doctest.h>

#include "models/memory/footprint.h"
#include "models/memory/parallel_memory.h"
#include "models/workload/layer_ops.h"
#include "models/workload/tensor_parallel_shard.h"
#include "parameter_op.h"

using namespace gpuplan::models;

namespace {
/// 1e8 parameters in one linear that saves 1e6 elements, then F.cross_entropy over 1,000 rows
/// of 50,000 classes (5e7 logits).
Workload linear_and_loss() {
  Workload w;
  w.family = "transformer_decoder";
  w.ops = {testing::parameter_op("layers.0.fc", 1e8), cross_entropy_op("loss", 1000.0, 50000.0)};
  w.ops.edit()[0].saved_elements = 1e6;
  w.parameters = 1e8;
  return w;
}

TrainingSpec training(Precision precision, FrameworkOverhead overhead = FrameworkOverhead::kEager) {
  TrainingSpec t;
  t.precision = precision;
  t.optimizer = Optimizer::kAdamW;
  t.framework_overhead = overhead;
  t.batch_size = 1;
  return t;
}

}  // namespace

TEST_SUITE("models.memory.loss_backward_peak") {
  TEST_CASE("F.cross_entropy's backward: two fp32 tensors of the logits in every precision, op by op only") {
    const Workload w = linear_and_loss();
    // nll_loss's zeroed gradient and log_softmax's output: 2 x 5e7 x 4 B.
    CHECK(loss_backward_transient_bytes_per_sample(w, training(Precision::kBf16Amp)) == doctest::Approx(4e8));
    CHECK(loss_backward_transient_bytes_per_sample(w, training(Precision::kFp32)) == doctest::Approx(4e8));
    // Pure bf16 too: the recipes upcast the logits (HF's logits.float()), so the saved
    // log-probabilities are fp32 as well: 5e7 x 4 B.
    CHECK(loss_backward_transient_bytes_per_sample(w, training(Precision::kBf16)) == doctest::Approx(4e8));
    CHECK(saved_bytes_per_sample(w, training(Precision::kBf16))[1] == doctest::Approx(2e8));
    CHECK(loss_backward_transient_bytes_per_sample(w, training(Precision::kBf16Amp, FrameworkOverhead::kCudaGraphs)) ==
          doctest::Approx(4e8));
    // A fusing compiler or TensorFlow runs the loss as one kernel: nothing counted.
    CHECK(loss_backward_transient_bytes_per_sample(w, training(Precision::kBf16Amp, FrameworkOverhead::kCompiled)) ==
          0.0);
    TrainingSpec tf = training(Precision::kFp32);
    tf.framework = Framework::kTensorflow;
    CHECK(loss_backward_transient_bytes_per_sample(w, tf) == 0.0);
  }

  TEST_CASE("the fused losses: flash-attn's writes one 16-bit gradient, Liger's none, Megatron's vocab-parallel none") {
    Workload w = linear_and_loss();
    w.ops.edit()[1] = fused_cross_entropy_op("loss", 1000.0, 50000.0);
    CHECK(loss_backward_transient_bytes_per_sample(w, training(Precision::kBf16Amp)) == doctest::Approx(1e8));
    w.ops.edit()[1] = fused_linear_cross_entropy_op("loss", 1000.0, 4096.0, 50000.0);
    CHECK(loss_backward_transient_bytes_per_sample(w, training(Precision::kBf16Amp)) == 0.0);
    const Workload sharded = tensor_parallel_rank_workload(linear_and_loss(), 2, false);
    CHECK(loss_backward_transient_bytes_per_sample(sharded, training(Precision::kBf16Amp)) == 0.0);
    // The last op only: a loss anywhere else is not the first op of the backward.
    w = linear_and_loss();
    std::swap(w.ops.edit()[0], w.ops.edit()[1]);
    CHECK(loss_backward_transient_bytes_per_sample(w, training(Precision::kBf16Amp)) == 0.0);
  }

  TEST_CASE("the phase adds what the transients exceed the gradients not yet made by; the larger phase wins") {
    JobSpec job;
    job.workload = linear_and_loss();
    job.training = training(Precision::kFp32);
    // fp32 AdamW: weights 4e8, gradients 4e8, moments 8e8; activations 4e6 + 2e8 per sample.
    // Batch 1: transients 4e8 against the 4e8 of gradients not yet allocated: the loss's
    // phase adds nothing, and the optimizer step's (foreach AdamW's sqrt(v), 4e8, after the
    // 2.04e8 of activations are freed) is the larger: 1.96e8.
    MemoryBreakdown m = rank_memory(job, testing::zero_overheads());
    CHECK(m.activations_bytes == doctest::Approx(2.04e8));
    CHECK(m.workspace_bytes == doctest::Approx(1.96e8));
    // Batch 2: the loss's 8e8 - 4e8; the step's 4e8 - 4.08e8 adds nothing.
    job.training.batch_size = 2;
    m = rank_memory(job, testing::zero_overheads());
    CHECK(m.workspace_bytes == doctest::Approx(4e8));
    CHECK(m.total_bytes() == doctest::Approx(4e8 + 4e8 + 8e8 + 4.08e8 + 4e8));
    // Accumulating over micro-batches: the earlier ones' gradients are live, all 8e8 add.
    job.training.gradient_accumulation = 2;
    CHECK(rank_memory(job, testing::zero_overheads()).workspace_bytes == doctest::Approx(8e8));
    // So under ZeRO, whose gradient partitions persist (one rank: all of them).
    job.training.gradient_accumulation = 1;
    job.parallelism.strategy = ParallelStrategy::kZero;
    job.parallelism.zero_stage = 2;
    CHECK(rank_memory(job, testing::zero_overheads()).workspace_bytes == doctest::Approx(8e8));
    // Compiled: no transient; the optimizer step's foreach sqrt(v) is fused away too.
    job.parallelism.strategy = ParallelStrategy::kNone;
    job.training.framework_overhead = FrameworkOverhead::kCompiled;
    CHECK(rank_memory(job, testing::zero_overheads()).workspace_bytes == doctest::Approx(0.0));
  }

  TEST_CASE("under full checkpointing the block not yet recomputed is not live when the loss's backward runs") {
    JobSpec job;
    job.workload = linear_and_loss();
    job.training = training(Precision::kFp32);
    job.training.batch_size = 2;
    job.training.activation_checkpointing = true;
    // The block (layers.0) keeps its input (1e8 parameters' op reads nothing: 0 B) plus, once,
    // its 4e6 B per sample of saves while recomputed: 8e6 B at batch 2, not yet there at the
    // loss's backward: 8e8 - 4e8 - 8e6.
    const MemoryBreakdown m = rank_memory(job, testing::zero_overheads());
    CHECK(m.activations_bytes == doctest::Approx(8e6 + 4e8));
    CHECK(m.workspace_bytes == doctest::Approx(4e8 - 8e6));
  }
}

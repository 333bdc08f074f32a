// Megatron's distributed optimizer (models/memory/distributed_optimizer.h): the bytes per
// parameter of the Megatron Core developer guide's table, and the memory of one GPU, worked
// out by hand.

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "models/memory/distributed_optimizer.h"
#include "models/memory/footprint.h"
#include "parameter_op.h"
#include "models/memory/parallel_memory.h"
#include "models/memory/sharding.h"

namespace gpuplan::models {
namespace {

using testing::parameter_op;

/// 1e9 parameters in round numbers: an embedding of 1e8, 8 blocks of 1e8, a head of 1e8.
/// No saved activations (the optimizer's bytes are what is tested).
Workload one_b() {
  Workload w;
  w.name = "1b";
  w.ops.push_back(parameter_op("embed.tokens", 1e8));
  for (int i = 0; i < 8; ++i) w.ops.push_back(parameter_op("layers." + std::to_string(i) + ".mlp", 1e8));
  w.ops.push_back(parameter_op("lm_head", 1e8));
  w.parameters = 1e9;
  return w;
}

/// Adam under `precision`, batch 1, on 8 GPUs of one node, DDP with the distributed optimizer.
JobSpec job_with(Precision precision) {
  JobSpec job;
  job.workload = one_b();
  job.training.batch_size = 1;
  job.training.precision = precision;
  job.training.optimizer = Optimizer::kAdam;
  job.hardware.gpus_per_node = 8;
  job.parallelism.strategy = ParallelStrategy::kDdp;
  job.parallelism.distributed_optimizer = true;
  return job;
}

}  // namespace

TEST_SUITE("models.distributed_optimizer") {
  TEST_CASE("bytes per parameter: the three rows of Megatron Core's table") {
    // fp16 params, fp16 grads: 2 + 2 + (4 master + 8 moments + the step's 4 B fp32 grad copy)
    // = 4 + 16/d.
    TrainingSpec t;
    t.optimizer = Optimizer::kAdam;
    t.precision = Precision::kFp16Amp;
    DistributedOptimizerBytes b = distributed_optimizer_bytes_per_parameter(t);
    CHECK(b.parameter_bytes == 2.0);
    CHECK(b.gradient_bytes == 2.0);
    CHECK(b.sharded_bytes == 12.0);
    CHECK(b.gradient_copy_bytes == 4.0);
    CHECK(b.per_gpu_bytes(1) == 20.0);  // the non-distributed column
    CHECK(b.per_gpu_bytes(8) == 6.0);   // 4 + 16/8
    // bf16 params, fp32 main grads: 2 + 4 + (4 master + 8 moments) = 6 + 12/d; the same for
    // bf16_amp and fp8 (Transformer Engine's fp8 GEMMs on bf16 parameters).
    for (const Precision p : {Precision::kBf16, Precision::kBf16Amp, Precision::kFp8}) {
      t.precision = p;
      b = distributed_optimizer_bytes_per_parameter(t);
      CHECK(b.parameter_bytes == 2.0);
      CHECK(b.gradient_bytes == 4.0);
      CHECK(b.sharded_bytes == 12.0);
      CHECK(b.gradient_copy_bytes == 0.0);
      CHECK(b.per_gpu_bytes(1) == 18.0);
    }
    // fp32 params and grads: 4 + 4 + 8 moments = 8 + 8/d.
    t.precision = Precision::kFp32;
    b = distributed_optimizer_bytes_per_parameter(t);
    CHECK(b.per_gpu_bytes(1) == 16.0);
    CHECK(b.per_gpu_bytes(4) == 10.0);
  }

  TEST_CASE("grad_reduce_in_fp32 chooses the main grads' width of 16-bit parameters only") {
    TrainingSpec t;
    t.optimizer = Optimizer::kAdam;
    t.precision = Precision::kBf16Amp;
    // NeMo's grad_sync_dtype: bf16 -- bf16 params and grads: Megatron's first row, 4 + 16/d.
    DistributedOptimizerBytes b = distributed_optimizer_bytes_per_parameter(t, false);
    CHECK(b.gradient_bytes == 2.0);
    CHECK(b.gradient_copy_bytes == 4.0);
    CHECK(b.per_gpu_bytes(1) == 20.0);
    CHECK(b.per_gpu_bytes(2) == 12.0);  // 4 + 16/2
    // fp16 with fp32 main grads: the second row, 6 + 12/d.
    t.precision = Precision::kFp16Amp;
    b = distributed_optimizer_bytes_per_parameter(t, true);
    CHECK(b.gradient_bytes == 4.0);
    CHECK(b.gradient_copy_bytes == 0.0);
    CHECK(b.per_gpu_bytes(1) == 18.0);
    // fp32 parameters keep fp32 grads whatever is asked (config/ refuses false first).
    t.precision = Precision::kFp32;
    CHECK(distributed_optimizer_bytes_per_parameter(t, false).gradient_bytes == 4.0);
  }

  TEST_CASE("the step's fp32 gradient copy adds only what it exceeds the freed activations by") {
    // bf16 AMP, bf16 main grads, 1e9 parameters over 8 ranks: resident 2e9 + 2e9 + 1.5e9; the
    // copy of the shard is 1e9 x 4 / 8 = 5e8 B, made after backward frees the activations.
    JobSpec job = job_with(Precision::kBf16Amp);
    job.parallelism.grad_reduce_in_fp32 = false;
    MemoryBreakdown m;
    m.activations_bytes = 2e8;
    m.allocator_slack_bytes = 1e8;
    apply_distributed_optimizer(job, job.workload, m);
    CHECK(m.weights_bytes == doctest::Approx(2e9));
    CHECK(m.gradients_bytes == doctest::Approx(2e9));
    CHECK(m.optimizer_state_bytes == doctest::Approx(1.5e9 + 2e8));  // 5e8 - (2e8 + 1e8)
    m.activations_bytes = 6e8;
    apply_distributed_optimizer(job, job.workload, m);
    CHECK(m.optimizer_state_bytes == doctest::Approx(1.5e9));  // the backward phase is the peak
  }

  TEST_CASE("bytes per parameter: SGD, momentum and bf16 moments; 8-bit AdamW refused") {
    TrainingSpec t;
    t.precision = Precision::kBf16Amp;
    t.optimizer = Optimizer::kSgd;
    CHECK(distributed_optimizer_bytes_per_parameter(t).sharded_bytes == 4.0);  // the fp32 master alone
    t.optimizer = Optimizer::kSgdMomentum;
    CHECK(distributed_optimizer_bytes_per_parameter(t).sharded_bytes == 8.0);  // + one fp32 buffer
    t.optimizer = Optimizer::kAdamW;
    t.optimizer_state_precision = OptimizerStatePrecision::kBf16;
    CHECK(distributed_optimizer_bytes_per_parameter(t).sharded_bytes == 8.0);  // 4 + 2 x 2
    t.optimizer = Optimizer::kAdamW8bit;
    CHECK_THROWS_AS(distributed_optimizer_bytes_per_parameter(t), std::invalid_argument);
  }

  TEST_CASE("one GPU of 8: 1e9 parameters under bf16 AMP keep 2 + 4 + 12/8 B each, no bucket copy") {
    const JobSpec job = job_with(Precision::kBf16Amp);
    CHECK(distributed_optimizer_shard_ranks(job) == 8);
    const MemoryBreakdown m = rank_memory(job, MemoryModelParams{});
    CHECK(m.weights_bytes == doctest::Approx(2e9));            // bf16 parameters
    CHECK(m.gradients_bytes == doctest::Approx(4e9));          // fp32 main grads
    CHECK(m.optimizer_state_bytes == doctest::Approx(1.5e9));  // 1e9 x 12 / 8
    CHECK(m.data_parallel_bytes == 0.0);
    // Without the distributed optimizer: fp32 weights 4e9 + autocast copies 2e9, grads 4e9,
    // moments 8e9, DDP's fp32 bucket copy 4e9.
    JobSpec plain = job;
    plain.parallelism.distributed_optimizer = false;
    CHECK(distributed_optimizer_shard_ranks(plain) == 1);
    const MemoryBreakdown d = rank_memory(plain, MemoryModelParams{});
    CHECK(d.weights_bytes == doctest::Approx(6e9));
    CHECK(d.optimizer_state_bytes == doctest::Approx(8e9));
    CHECK(d.data_parallel_bytes == doctest::Approx(4e9));
  }

  TEST_CASE("tensor and pipeline parallelism: the state splits over the data-parallel ranks of a stage") {
    // 8 GPUs, pipeline_parallel 2: 4 data-parallel ranks per stage. Stage 0 holds the
    // embedding and layers 0-3 (5e8 parameters), stage 1 layers 4-7 and the head (5e8).
    // fp16: 5e8 x (2 + 2 + 16/4) = 4e9 B of parameter state on each stage.
    JobSpec job = job_with(Precision::kFp16Amp);
    job.parallelism.pipeline_parallel = 2;
    job.training.gradient_accumulation = 2;
    CHECK(distributed_optimizer_shard_ranks(job) == 4);
    const MemoryBreakdown m = rank_memory(job, MemoryModelParams{});
    CHECK(m.weights_bytes == doctest::Approx(1e9));
    CHECK(m.gradients_bytes == doctest::Approx(1e9));
    CHECK(m.optimizer_state_bytes == doctest::Approx(2e9));  // 5e8 x (12 + the 4 B grad copy: no activations) / 4
    CHECK(m.data_parallel_bytes == 0.0);
  }

  TEST_CASE("FSDP and ZeRO-1 under a pipeline: the distributed optimizer's layout, 2 + 4 + 12/4 B per parameter") {
    // 8 GPUs, pipeline_parallel 2, bf16 AMP: 4 data-parallel ranks per stage of 5e8
    // parameters. torchtitan's FSDP keeps the stage's bf16 parameters gathered (5e8 x 2) and
    // its fp32 gradients unsharded across micro-batches (5e8 x 4), the fp32 parameter shard and
    // moments split over the 4 ranks (5e8 x 12 / 4); no gathered units, no bucket copy.
    JobSpec job = job_with(Precision::kBf16Amp);
    job.parallelism.distributed_optimizer = false;
    job.parallelism.pipeline_parallel = 2;
    job.training.gradient_accumulation = 2;
    for (const std::pair<ParallelStrategy, int>& s : {std::pair{ParallelStrategy::kFsdp, 0}, std::pair{ParallelStrategy::kZero, 1}}) {
      job.parallelism.strategy = s.first;
      job.parallelism.zero_stage = s.second;
      const std::string_view strategy = name_of(s.first);  // (doctest's CAPTURE cannot take a structured binding under clang)
      CAPTURE(strategy);
      CHECK(runs_distributed_optimizer(job.parallelism));
      CHECK(distributed_optimizer_shard_ranks(job) == 4);
      CHECK_FALSE(sharding_layout(job).sharded_strategy);
      const MemoryBreakdown m = rank_memory(job, MemoryModelParams{});
      CHECK(m.weights_bytes == doctest::Approx(1e9));
      CHECK(m.gradients_bytes == doctest::Approx(2e9));
      CHECK(m.optimizer_state_bytes == doctest::Approx(1.5e9));
      CHECK(m.gathered_bytes == 0.0);
      CHECK(m.data_parallel_bytes == 0.0);
    }
    // FSDP prefetches the first micro-batch's gather (Megatron needs overlap_param_gather).
    CHECK(overlaps_parameter_gather(job.parallelism) == false);  // zero: as Megatron without the flag
    job.parallelism.strategy = ParallelStrategy::kFsdp;
    CHECK(overlaps_parameter_gather(job.parallelism));
    // Not under a pipeline, or what config/ refuses there: FSDP's and ZeRO's own layouts.
    job.parallelism.sharding = Sharding::kHybridShard;
    CHECK_FALSE(runs_distributed_optimizer(job.parallelism));
    job.parallelism.sharding = Sharding::kShardGradOp;
    CHECK(runs_distributed_optimizer(job.parallelism));
    job.parallelism.pipeline_parallel = 1;
    CHECK_FALSE(runs_distributed_optimizer(job.parallelism));
    CHECK(sharding_layout(job).sharded_strategy);
    job.parallelism.strategy = ParallelStrategy::kZero;
    job.parallelism.zero_stage = 2;
    job.parallelism.pipeline_parallel = 2;
    CHECK_FALSE(runs_distributed_optimizer(job.parallelism));
  }

  TEST_CASE("other strategies are untouched") {
    JobSpec job = job_with(Precision::kBf16Amp);
    job.parallelism.strategy = ParallelStrategy::kZero;
    job.parallelism.zero_stage = 1;
    CHECK(distributed_optimizer_shard_ranks(job) == 1);
    MemoryBreakdown m;
    m.weights_bytes = 7.0;
    apply_distributed_optimizer(job, job.workload, m);
    CHECK(m.weights_bytes == 7.0);
  }
}

}  // namespace gpuplan::models

// Memory per GPU under FSDP and ZeRO (models/memory/parallel_memory.h, sharding.h), each
// term in bytes worked out by hand from the ZeRO paper's partitioning (Rajbhandari et al.
// 2020, Fig. 1) and FSDP's gathered units.

#include <doctest/doctest.h>

#include <string>

#include "../workload/catalog_models.h"
#include "models/memory/footprint.h"
#include "parameter_op.h"
#include "models/memory/parallel_memory.h"
#include "models/memory/sharding.h"

namespace gpuplan::models {
namespace {

using testing::parameter_op;

/// A 7 B decoder in round numbers: an embedding of 1.3e8 parameters, 32 blocks of 2.0e8
/// (attention 6e7 + MLP 1.4e8), a final norm without parameters and a head of 1.3e8:
/// n = 2.6e8 + 32 x 2e8 = 6.66e9. No saved activations (the sharding is what is tested).
Workload seven_b() {
  Workload w;
  w.name = "7b";
  w.ops.push_back(parameter_op("embed", 1.3e8));
  for (int i = 0; i < 32; ++i) {
    w.ops.push_back(parameter_op("layers." + std::to_string(i) + ".attn", 6e7));
    w.ops.push_back(parameter_op("layers." + std::to_string(i) + ".mlp", 1.4e8));
  }
  w.ops.push_back(parameter_op("norm", 0.0));
  w.ops.push_back(parameter_op("lm_head", 1.3e8));
  w.parameters = 6.66e9;
  return w;
}

/// AdamW under bf16 AMP, batch 1, on `gpus_per_node` x `nodes` GPUs with `strategy`.
JobSpec job_on(int gpus_per_node, int nodes, ParallelStrategy strategy) {
  JobSpec job;
  job.workload = seven_b();
  job.training.batch_size = 1;
  job.training.precision = Precision::kBf16Amp;
  job.training.optimizer = Optimizer::kAdamW;
  job.hardware.gpus_per_node = gpus_per_node;
  job.hardware.nodes = nodes;
  job.parallelism.strategy = strategy;
  return job;
}

MemoryBreakdown memory_of(const JobSpec& job) {
  return per_gpu_memory(job, training_memory(job.workload, job.training, MemoryModelParams{}));
}

}  // namespace

TEST_SUITE("models.sharded_memory") {
  TEST_CASE("TP x FSDP: the tensor-parallel rank's shard of every state divided by the data-parallel ranks") {
    // GPT-2 at tensor_parallel 2 on 8 GPUs, FSDP full_shard over the 4 data-parallel ranks,
    // AdamW under bf16 AMP. The rank's shard (models.workload.tensor_parallel_shard): wte
    // 38,597,376 / 2 = 19,298,688, wpe 786,432, 12 layers of 3,072 + 7,084,800 / 2 =
    // 3,545,472, ln_f 1,536, the tied head 0: 62,632,320 parameters.
    JobSpec job;
    job.workload = testing::build_catalog_model("gpt2");
    job.training.batch_size = 1;
    job.training.precision = Precision::kBf16Amp;
    job.training.optimizer = Optimizer::kAdamW;
    job.hardware.gpus_per_node = 8;
    job.parallelism.strategy = ParallelStrategy::kFsdp;
    job.parallelism.tensor_parallel = 2;
    const Workload rank = rank_workload(job);
    REQUIRE(rank.parameters == 62'632'320.0);
    const MemoryBreakdown m = per_gpu_memory(job, training_memory(rank, job.training, MemoryModelParams{}));
    // fp32 weights and gradients / 4: 62,632,320 x 4 / 4; AdamW's two fp32 moments / 4:
    // 125,264,640; no 16-bit copies at rest (the gathered units are the compute copies).
    CHECK(m.weights_bytes == doctest::Approx(62'632'320.0));
    CHECK(m.gradients_bytes == doctest::Approx(62'632'320.0));
    CHECK(m.optimizer_state_bytes == doctest::Approx(125'264'640.0));
    // Gathered: the largest unit is the embedding run (wte shard + wpe = 20,085,120): two in
    // flight in bf16 (80,340,480 B) plus its fp32 gradient before the reduce-scatter
    // (80,340,480 B) = 160,680,960 B.
    CHECK(m.gathered_bytes == doctest::Approx(160'680'960.0));
    CHECK(m.data_parallel_bytes == 0.0);
  }

  TEST_CASE("fp8 all-gather: the float8 linears' weights gathered in 1 B, biases, norms and the head in bf16") {
    // One block: a norm of 2e4 parameters, an MLP linear of 1e4 x 1e4 weights (1e8) plus a
    // 1e4 bias; then lm_head 5e3 x 1e4 (5e7), left in bf16 by torchtitan's float8 filter.
    Workload w;
    Op norm = parameter_op("layers.0.norm", 2e4);
    norm.op_class = OpClass::kNormalization;
    Op mlp = parameter_op("layers.0.mlp", 1e8 + 1e4);
    mlp.weight_rows = 1e4;
    mlp.weight_columns = 1e4;
    Op head = parameter_op("lm_head", 5e7);
    head.weight_rows = 5e3;
    head.weight_columns = 1e4;
    w.ops = {norm, mlp, head};
    w.parameters = 2e4 + 1e8 + 1e4 + 5e7;
    const std::vector<ShardUnit> units = shard_units(w);
    REQUIRE(units.size() == 2);
    // bf16 gathers: (2e4 + 1e8 + 1e4) x 2 B = 200,060,000 B, with or without the key.
    CHECK(gathered_unit_bytes(w, units[0], Precision::kBf16Amp, false) == doctest::Approx(200'060'000.0));
    CHECK(gathered_unit_bytes(w, units[0], Precision::kFp8, false) == doctest::Approx(200'060'000.0));
    // fp8: 1e8 x 1 B + (2e4 + 1e4) x 2 B = 100,060,000 B; the head stays 5e7 x 2 B.
    CHECK(gathered_unit_bytes(w, units[0], Precision::kFp8, true) == doctest::Approx(100'060'000.0));
    CHECK(gathered_unit_bytes(w, units[1], Precision::kFp8, true) == doctest::Approx(1e8));

    // FSDP full_shard on 8 GPUs: two units in flight at their gathered width plus the largest
    // unit's full-width gradient (fp8 keeps fp32 master weights and gradients: 4 B).
    // bf16 gathers: 2 x 200,060,000 + 100,030,000 x 4 = 800,240,000 B;
    // fp8 gathers: 2 x 100,060,000 + 100,030,000 x 4 = 600,240,000 B.
    JobSpec job;
    job.workload = w;
    job.training.batch_size = 1;
    job.training.precision = Precision::kFp8;
    job.hardware.gpus_per_node = 8;
    job.parallelism.strategy = ParallelStrategy::kFsdp;
    CHECK(data_parallel_memory_bytes(job) == doctest::Approx(800'240'000.0));
    job.parallelism.fp8_all_gather = true;
    CHECK(data_parallel_memory_bytes(job) == doctest::Approx(600'240'000.0));
  }

  TEST_CASE("units: one per block, the embedding and the head runs their own") {
    const std::vector<ShardUnit> units = shard_units(seven_b());
    REQUIRE(units.size() == 34);
    CHECK(units[0].name == "embed");
    CHECK(units[0].parameters == 1.3e8);
    CHECK(units[1].name == "layers.0");
    CHECK(units[1].first_op == 1);
    CHECK(units[1].end_op == 3);
    CHECK(units[1].parameters == doctest::Approx(2e8));
    CHECK(units[33].name == "norm");  // norm + lm_head: the run after the last block
    CHECK(units[33].end_op == 67);
    CHECK(units[33].parameters == 1.3e8);
  }

  TEST_CASE("the unsharded footprint: 4 + 2 + 4 + 8 B per parameter") {
    const MemoryBreakdown one =
        training_memory(seven_b(), job_on(1, 1, ParallelStrategy::kNone).training, MemoryModelParams{});
    CHECK(one.weights_bytes == doctest::Approx(39.96e9));         // 6.66e9 x (4 B fp32 + 2 B autocast copy)
    CHECK(one.gradients_bytes == doctest::Approx(26.64e9));       // fp32 .grad
    CHECK(one.optimizer_state_bytes == doctest::Approx(53.28e9));  // 8 B AdamW moments
  }

  TEST_CASE("fsdp full_shard on 8 GPUs = ZeRO-3") {
    JobSpec job = job_on(8, 1, ParallelStrategy::kFsdp);
    const MemoryBreakdown m = memory_of(job);
    CHECK(m.weights_bytes == doctest::Approx(3.33e9));          // 6.66e9 x 4 B / 8
    CHECK(m.gradients_bytes == doctest::Approx(3.33e9));        // 6.66e9 x 4 B / 8
    CHECK(m.optimizer_state_bytes == doctest::Approx(6.66e9));  // 6.66e9 x 8 B / 8; no bf16 copy of the model
    // Gathered: 2 units (current + prefetched) of the largest, a 2e8 block, in bf16
    // (2 x 2e8 x 2 B = 0.8e9), plus that block's fp32 gradient before its reduce-scatter
    // (2e8 x 4 B = 0.8e9).
    CHECK(m.gathered_bytes == doctest::Approx(1.6e9));
    CHECK(m.total_bytes() == doctest::Approx(14.92e9));
    // DeepSpeed's ZeRO-3 holds the bf16 parameter partition (6.66e9 x 2 B / 8 = 1.665e9) as
    // the weights, and the fp32 master partition (3.33e9) in the optimizer: 1.665e9 more.
    job.parallelism.strategy = ParallelStrategy::kZero;
    job.parallelism.zero_stage = 3;
    const MemoryBreakdown z = memory_of(job);
    CHECK(z.weights_bytes == doctest::Approx(1.665e9));
    CHECK(z.optimizer_state_bytes == doctest::Approx(9.99e9));  // 6.66e9 x (8 + 4) B / 8
    CHECK(z.total_bytes() == doctest::Approx(16.585e9));
  }

  TEST_CASE("offload: the optimizer state, fp32 weights and gradient shards leave the GPU, then the parameter shards") {
    // ZeRO-3 on 8 GPUs as above: weights 1.665e9, gradients 3.33e9, state 9.99e9, gathered 1.6e9.
    // With the optimizer offloaded the gradient partitions live on the host beside it
    // (ZeRO-Offload, Ren et al. 2021, sec. 4.1; DeepSpeed's grad_partitions_flat_buffer on the
    // optimizer's device): the GPU keeps the unit gradient in flight, part of gathered_bytes.
    JobSpec job = job_on(8, 1, ParallelStrategy::kZero);
    job.parallelism.zero_stage = 3;
    job.parallelism.optimizer_offload = OffloadTarget::kCpu;
    const MemoryBreakdown m = memory_of(job);
    CHECK(m.weights_bytes == doctest::Approx(1.665e9));  // the bf16 shard only: 6.66e9 x 2 B / 8
    CHECK(m.gradients_bytes == 0.0);
    CHECK(m.optimizer_state_bytes == 0.0);
    CHECK(m.gathered_bytes == doctest::Approx(1.6e9));    // the units in flight stay
    CHECK(m.total_bytes() == doctest::Approx(3.265e9));   // 1.665 + 1.6 (16.585 without offload)
    job.parallelism.parameter_offload = OffloadTarget::kCpu;
    const MemoryBreakdown both = memory_of(job);
    CHECK(both.weights_bytes == 0.0);
    CHECK(both.gathered_bytes == doctest::Approx(1.6e9));
    CHECK(both.total_bytes() == doctest::Approx(1.6e9));

    // ZeRO-2 with the optimizer on the host: the whole bf16 model stays (6.66e9 x 2 B), the
    // fp32 weights, the moments, the bf16 copy and the gradient shards leave; the reduce
    // buckets stay (data_parallel_bytes).
    JobSpec two = job_on(8, 1, ParallelStrategy::kZero);
    two.parallelism.zero_stage = 2;
    two.parallelism.optimizer_offload = OffloadTarget::kNvme;
    const MemoryBreakdown z2 = memory_of(two);
    CHECK(z2.weights_bytes == doctest::Approx(13.32e9));
    CHECK(z2.gradients_bytes == 0.0);
    CHECK(z2.data_parallel_bytes > 0.0);
    CHECK(z2.optimizer_state_bytes == 0.0);
    // A parameter offload needs sharded parameters: the layout ignores it on ZeRO-2 (config/
    // refuses it there).
    two.parallelism.parameter_offload = OffloadTarget::kCpu;
    CHECK(sharding_layout(two).parameter_offload == OffloadTarget::kNone);
    CHECK(memory_of(two).weights_bytes == doctest::Approx(13.32e9));
  }

  TEST_CASE("host optimizer bytes: AdamW under AMP reads 4 + 8 + 4 and writes 4 + 8 + 2 B per parameter") {
    const JobSpec job = job_on(8, 1, ParallelStrategy::kZero);
    CHECK(host_optimizer_bytes_per_parameter(job.workload, job.training) == doctest::Approx(30.0));
    // Pure bf16 with bf16 moments: reads 2 + 4 + 2, writes 2 + 4, no copy = 14 B.
    TrainingSpec bf16 = job.training;
    bf16.precision = Precision::kBf16;
    CHECK(host_optimizer_bytes_per_parameter(job.workload, bf16) == doctest::Approx(14.0));
  }

  TEST_CASE("fsdp shard_grad_op keeps every unit gathered from forward to backward") {
    JobSpec job = job_on(8, 1, ParallelStrategy::kFsdp);
    job.parallelism.sharding = Sharding::kShardGradOp;
    const MemoryBreakdown m = memory_of(job);
    CHECK(m.weights_bytes == doctest::Approx(3.33e9));
    CHECK(m.gradients_bytes == doctest::Approx(3.33e9));
    CHECK(m.optimizer_state_bytes == doctest::Approx(6.66e9));
    // All 6.66e9 parameters in bf16 (13.32e9) + the largest unit's fp32 gradient (0.8e9).
    CHECK(m.gathered_bytes == doctest::Approx(14.12e9));
  }

  TEST_CASE("LoRA under FSDP: the frozen base is gathered too, at its stored width, with no gradient") {
    // seven_b() with every weight frozen in bf16 and 1e6 adapter parameters in each block
    // (a LoRA run's shape; models/workload/fine_tuning.h).
    JobSpec job = job_on(8, 1, ParallelStrategy::kFsdp);
    for (Op& op : job.workload.ops.edit()) {
      op.frozen_parameters = op.parameters;
      op.frozen_element_bytes = 2.0;
      op.parameters = op.name.rfind("layers.", 0) == 0 ? 5e5 : 0.0;  // attn and mlp: 1e6 per block
    }
    job.workload.parameters = 3.2e7;
    job.workload.frozen_parameters = 6.66e9;
    const std::vector<ShardUnit> units = shard_units(job.workload);
    CHECK(units[1].parameters == doctest::Approx(1e6));
    CHECK(units[1].frozen_bytes == doctest::Approx(4e8));  // 2e8 frozen x 2 B
    CHECK(units[0].frozen_bytes == doctest::Approx(2.6e8));
    CHECK(gathered_unit_bytes(job.workload, units[1], Precision::kBf16Amp, false) == doctest::Approx(4.02e8));
    // full_shard: 2 units in flight of the largest, (2e8 x 2 B + 1e6 x 2 B) each, plus that
    // block's fp32 adapter gradient (1e6 x 4 B).
    CHECK(memory_of(job).gathered_bytes == doctest::Approx(2 * 4.02e8 + 4e6));
    // shard_grad_op: the whole base stays gathered, 13.32e9 B of bf16 plus the adapters' 6.4e7:
    // the case a GPU cannot hold for a 70 B base (issue 11's new-user trial).
    job.parallelism.sharding = Sharding::kShardGradOp;
    CHECK(memory_of(job).gathered_bytes == doctest::Approx(13.32e9 + 3.2e7 * 2 + 4e6));
  }

  TEST_CASE("fsdp hybrid_shard shards within a node of 4, replicates across 2 nodes") {
    JobSpec job = job_on(4, 2, ParallelStrategy::kFsdp);
    job.parallelism.sharding = Sharding::kHybridShard;
    const ShardingLayout l = sharding_layout(job);
    CHECK(l.shard_ranks == 4);
    CHECK(l.replicas == 2);
    const MemoryBreakdown m = memory_of(job);
    CHECK(m.weights_bytes == doctest::Approx(6.66e9));  // 26.64e9 / 4
    CHECK(m.gradients_bytes == doctest::Approx(6.66e9));
    CHECK(m.optimizer_state_bytes == doctest::Approx(13.32e9));  // 53.28e9 / 4
    CHECK(m.gathered_bytes == doctest::Approx(1.6e9));
  }

  TEST_CASE("fsdp no_shard keeps everything, with no DDP bucket copy") {
    JobSpec job = job_on(8, 1, ParallelStrategy::kFsdp);
    job.parallelism.sharding = Sharding::kNoShard;
    const MemoryBreakdown m = memory_of(job);
    CHECK(m.weights_bytes == doctest::Approx(39.96e9));  // fp32 + the autocast copies
    CHECK(m.gradients_bytes == doctest::Approx(26.64e9));
    CHECK(m.optimizer_state_bytes == doctest::Approx(53.28e9));
    CHECK(m.data_parallel_bytes == 0.0);
    CHECK(m.gathered_bytes == 0.0);  // nothing sharded, nothing gathered
  }

  TEST_CASE("ZeRO-1 shards the optimizer state, ZeRO-2 the gradients too") {
    JobSpec job = job_on(8, 1, ParallelStrategy::kZero);
    job.parallelism.zero_stage = 1;
    // DeepSpeed's mixed precision (zero_keeps_master_in_optimizer): the module in bf16
    // (6.66e9 x 2 B), no autocast copy, the fp32 master weights partitioned with the moments.
    const MemoryBreakdown one = memory_of(job);
    CHECK(zero_keeps_master_in_optimizer(job));
    CHECK(one.weights_bytes == doctest::Approx(13.32e9));
    CHECK(one.gradients_bytes == doctest::Approx(26.64e9));
    CHECK(one.optimizer_state_bytes == doctest::Approx(9.99e9));                // 6.66e9 x (8 + 4) B / 8
    CHECK(one.data_parallel_bytes == doctest::Approx(2 * 25.0 * 1024 * 1024));  // two 25 MiB buckets
    job.parallelism.zero_stage = 2;
    const MemoryBreakdown two = memory_of(job);
    CHECK(two.gradients_bytes == doctest::Approx(3.33e9));
    CHECK(two.weights_bytes == doctest::Approx(13.32e9));
    CHECK(two.optimizer_state_bytes == doctest::Approx(9.99e9));
    // Pure bf16 has no master weights to move: the footprint's 2 B weights, moments / 8.
    job.training.precision = Precision::kBf16;
    CHECK_FALSE(zero_keeps_master_in_optimizer(job));
    const MemoryBreakdown pure = memory_of(job);
    CHECK(pure.weights_bytes == doctest::Approx(13.32e9));
    CHECK(pure.optimizer_state_bytes == doctest::Approx(3.33e9));  // two bf16 moments: 6.66e9 x 4 B / 8
  }

  TEST_CASE("ddp and one GPU are unchanged by the sharding rule") {
    const JobSpec ddp = job_on(8, 1, ParallelStrategy::kDdp);
    const MemoryBreakdown m = memory_of(ddp);
    CHECK_FALSE(zero_keeps_master_in_optimizer(ddp));
    CHECK(m.weights_bytes == doctest::Approx(39.96e9));  // fp32 + the autocast copies
    CHECK(m.data_parallel_bytes == doctest::Approx(26.64e9));  // the reducer's fp32 bucket copy
    CHECK(sharding_layout(job_on(1, 1, ParallelStrategy::kFsdp)).shard_ranks == 1);
  }
}

}  // namespace gpuplan::models

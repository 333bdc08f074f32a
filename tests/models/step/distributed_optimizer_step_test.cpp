// Megatron's distributed optimizer in one rank's step (step_plan.cpp,
// models/memory/distributed_optimizer.h): the gradient buckets reduce-scattered instead of
// all-reduced, the updated parameters all-gathered, the optimizer on the rank's shard.
#include <doctest/doctest.h>

#include "../workload/catalog_models.h"
#include "models/collective/builtin.h"
#include "models/collective/fastest_collective.h"
#include "models/interconnect/interconnect_table.h"
#include "models/step/step_plan.h"
#include "models/step/step_simulation.h"
#include "nvswitch_node_job.h"

using namespace gpuplan::models;

namespace {

/// GPT-2 124M (124,439,808 parameters, the head tied to the embedding), bf16 AMP, AdamW, on
/// one node of 4 NVSwitch GPUs with DDP, with or without the distributed optimizer.
JobSpec gpt2_ddp(bool distributed_optimizer) {
  JobSpec job = testing::nvswitch_node_job(testing::build_catalog_model("gpt2"), 4, 32, 8, AttentionKernel::kEager);
  job.parallelism.distributed_optimizer = distributed_optimizer;
  return job;
}

double bucket_bytes(const StepPlan& plan) {
  double bytes = 0.0;
  for (const GradientBucket& b : plan.comm.buckets) bytes += b.bytes;
  return bytes;
}

}  // namespace

TEST_SUITE("models.step.distributed_optimizer") {
  TEST_CASE("buckets reduce-scattered, the parameters all-gathered in bf16, the optimizer on a quarter") {
    const JobSpec job = gpt2_ddp(true);
    REQUIRE(job.workload.parameters == 124'439'808.0);
    const StepPlan d = plan_step(job, GpuEfficiency::defaults());
    const StepPlan ddp = plan_step(gpt2_ddp(false), GpuEfficiency::defaults());
    // The same buckets of fp32 main grads, 124,439,808 x 4 B in all, reduced by reduce-scatter.
    CHECK(d.comm.bucket_collective == Collective::kReduceScatter);
    CHECK(ddp.comm.bucket_collective == Collective::kAllReduce);
    CHECK(bucket_bytes(d) == doctest::Approx(124'439'808.0 * 4.0));
    CHECK(bucket_bytes(ddp) == doctest::Approx(bucket_bytes(d)));
    REQUIRE(d.comm.buckets.size() == ddp.comm.buckets.size());
    CHECK_FALSE(d.comm.every_micro_step);  // main grads accumulate; reduced on the last micro-step
    // Then one all-gather of the updated bf16 parameters over the 4 ranks: 124,439,808 x 2 B.
    Topology node;
    node.gpus_per_node = 4;
    node.intra_node = intra_node_link("nvlink3_nvswitch");
    const double gather_s =
        fastest_collective(builtin_collective_registry(), Collective::kAllGather, 124'439'808.0 * 2.0, node).time_s;
    CHECK(d.comm.parameter_all_gather_s == doctest::Approx(gather_s));
    CHECK(ddp.comm.parameter_all_gather_s == 0.0);
    // A reduce-scatter plus an all-gather move (n-1)/n of the data each, an all-reduce 2(n-1)/n:
    // the first bucket's reduce-scatter takes less than its all-reduce.
    CHECK(d.comm.buckets[0].all_reduce_s < ddp.comm.buckets[0].all_reduce_s);
    // Each rank updates 1/4 of the parameters: the optimizer's GPU time is a quarter of DDP's.
    double d_s = 0.0;
    double ddp_s = 0.0;
    for (const DispatchUnit& u : d.optimizer) d_s += u.gpu_s;
    for (const DispatchUnit& u : ddp.optimizer) ddp_s += u.gpu_s;
    CHECK(d_s == doctest::Approx(ddp_s / 4.0).epsilon(0.02));
  }

  TEST_CASE("overlap_param_gather: the first bucket's share of the parameter all-gather") {
    JobSpec job = gpt2_ddp(true);
    job.parallelism.overlap_param_gather = true;
    const StepPlan d = plan_step(job, GpuEfficiency::defaults());
    Topology node;
    node.gpus_per_node = 4;
    node.intra_node = intra_node_link("nvlink3_nvswitch");
    // bucket_size (25 MiB) of the 124,439,808 x 2 B of bf16 parameters first; the whole as before.
    const double first_s = fastest_collective(builtin_collective_registry(), Collective::kAllGather,
                                              job.parallelism.bucket_bytes, node)
                               .time_s;
    CHECK(job.parallelism.bucket_bytes == doctest::Approx(25.0 * 1024 * 1024));
    CHECK(d.comm.parameter_all_gather_first_s == doctest::Approx(first_s));
    CHECK(d.comm.parameter_all_gather_first_s < d.comm.parameter_all_gather_s);
    CHECK(plan_step(gpt2_ddp(true), GpuEfficiency::defaults()).comm.parameter_all_gather_first_s == 0.0);
    // Simulated: overlapping gives the step at most what the gather less its first bucket took.
    const double exposed = simulate_steps(plan_step(gpt2_ddp(true), GpuEfficiency::defaults())).breakdown.step_time_s;
    const double overlapped = simulate_steps(d).breakdown.step_time_s;
    CHECK(overlapped < exposed);
    CHECK(exposed - overlapped <= d.comm.parameter_all_gather_s - first_s + 1e-9);
  }

  TEST_CASE("FSDP under a pipeline steps as the distributed optimizer with overlap_param_gather; ZeRO-1 without") {
    // GPT-2 on 4 GPUs, 2 stages x 2 data-parallel ranks, 4 micro-batches of 1F1B.
    JobSpec megatron = gpt2_ddp(true);
    megatron.parallelism.pipeline_parallel = 2;
    megatron.training.gradient_accumulation = 4;
    JobSpec fsdp = megatron;
    fsdp.parallelism.strategy = ParallelStrategy::kFsdp;
    fsdp.parallelism.distributed_optimizer = false;
    JobSpec zero = fsdp;
    zero.parallelism.strategy = ParallelStrategy::kZero;
    zero.parallelism.zero_stage = 1;
    const StepPlan plain = plan_step(megatron, GpuEfficiency::defaults());
    megatron.parallelism.overlap_param_gather = true;
    const StepPlan overlapped = plan_step(megatron, GpuEfficiency::defaults());
    const StepPlan f = plan_step(fsdp, GpuEfficiency::defaults());
    const StepPlan z = plan_step(zero, GpuEfficiency::defaults());
    // Stage 0's fp32 gradients reduce-scattered on the last micro-step over its 2 ranks, its
    // bf16 parameters all-gathered once. It holds the token and position embeddings
    // (50,257 x 768 + 1,024 x 768) and 6 blocks of 7,087,872: 81,911,040 parameters x 4 B.
    CHECK(f.comm.bucket_collective == Collective::kReduceScatter);
    CHECK_FALSE(f.comm.every_micro_step);
    CHECK(bucket_bytes(f) == doctest::Approx(bucket_bytes(overlapped)));
    CHECK(bucket_bytes(f) == doctest::Approx((50'257.0 * 768 + 1'024.0 * 768 + 6 * 7'087'872.0) * 4.0));
    CHECK(f.comm.parameter_all_gather_s == doctest::Approx(overlapped.comm.parameter_all_gather_s));
    CHECK(f.comm.parameter_all_gather_first_s == doctest::Approx(overlapped.comm.parameter_all_gather_first_s));
    CHECK(f.comm.parameter_all_gather_first_s > 0.0);
    CHECK(z.comm.parameter_all_gather_first_s == 0.0);
    CHECK(z.comm.parameter_all_gather_s == doctest::Approx(plain.comm.parameter_all_gather_s));
    // And so the same step, to the event.
    CHECK(simulate_steps(f).breakdown.step_time_s == simulate_steps(overlapped).breakdown.step_time_s);
    CHECK(simulate_steps(z).breakdown.step_time_s == simulate_steps(plain).breakdown.step_time_s);
    CHECK(simulate_steps(f).breakdown.step_time_s < simulate_steps(z).breakdown.step_time_s);
  }

  TEST_CASE("fp16: the main grads are 2 B, so are the buckets") {
    JobSpec job = gpt2_ddp(true);
    job.training.precision = Precision::kFp16Amp;
    const StepPlan d = plan_step(job, GpuEfficiency::defaults());
    CHECK(bucket_bytes(d) == doctest::Approx(124'439'808.0 * 2.0));
  }
}

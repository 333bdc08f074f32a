// FSDP and ZeRO in the step graph (step_graph.cpp emit_unit_gathers / emit_unit_reduces,
// sharded_data_parallel_plan.h): steps worked out by hand, and the plan's collectives.
#include <doctest/doctest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "../collective/collective_topologies.h"
#include "dispatch_unit.h"
#include "models/collective/builtin.h"
#include "models/collective/fastest_collective.h"
#include "models/step/sharded_data_parallel_plan.h"
#include "models/step/step_graph.h"
#include "models/step/step_simulation.h"

using namespace gpuplan::models;
using gpuplan::sim::ActivityFinished;
using testing::unit;

namespace {

/// Two FSDP units of one op each, synthetic data, no host time (dispatch 0), no slowdown of
/// overlapped kernels. Forward f0 then f1 (`forward_s` each), backward b1 then b0
/// (`backward_s` each), optimizer 1 ms. Unit 0 is gathered before its forward and again
/// before its backward (`gather_s`); unit 1, the last of forward, stays gathered for the
/// backward that starts with it (FSDP's root); each unit's gradients are reduce-scattered
/// after its backward (`reduce_s`).
StepPlan two_unit_plan(double forward_s, double backward_s, double gather_s, double reduce_s) {
  StepPlan p;
  p.forward = {unit("f0", 0.0, forward_s), unit("f1", 0.0, forward_s)};
  p.backward = {unit("b1", 0.0, backward_s), unit("b0", 0.0, backward_s)};
  p.optimizer = {unit("optimizer.step", 0.0, 1e-3)};
  p.micro_batch = 8;
  p.loader.synthetic = true;
  p.comm.strategy = ParallelStrategy::kFsdp;
  p.comm.ranks = 8;
  p.comm.every_micro_step = true;
  ShardedUnitComm u0;
  u0.name = "layers.0";
  u0.forward_begin = 0;
  u0.forward_end = 1;
  u0.backward_begin = 1;
  u0.backward_end = 2;
  u0.forward_all_gather_s = gather_s;
  u0.backward_all_gather_s = gather_s;
  u0.gradient_reduce_s = reduce_s;
  ShardedUnitComm u1 = u0;
  u1.name = "layers.1";
  u1.forward_begin = 1;
  u1.forward_end = 2;
  u1.backward_begin = 0;
  u1.backward_end = 1;
  u1.backward_all_gather_s = 0.0;
  p.comm.units = {u0, u1};
  return p;
}

/// Counts the finished activities of each kind.
struct Counter {
  std::map<StepActivity, int> by_kind;
  explicit Counter(StepGraph& g) {
    g.graph().activity_finished().subscribe(
        [this](const ActivityFinished& e) { ++by_kind[static_cast<StepActivity>(e.kind)]; });
  }
};

/// A decoder of two blocks of 1e8 parameters (one op each) under bf16 AMP on 8 H200s.
JobSpec two_block_job(ParallelStrategy strategy) {
  JobSpec job;
  for (int i = 0; i < 2; ++i) {
    Op op;
    op.name = "layers." + std::to_string(i) + ".mlp";
    op.op_class = OpClass::kMatmul;
    op.parameters = 1e8;
    job.workload.ops.push_back(op);
  }
  job.workload.parameters = 2e8;
  job.training.batch_size = 1;
  job.training.precision = Precision::kBf16Amp;
  job.training.optimizer = Optimizer::kAdamW;
  job.hardware.gpus_per_node = 8;
  job.hardware.topology = testing::h200_node();
  job.parallelism.strategy = strategy;
  return job;
}

/// Units as plan_step makes them for two_block_job: one forward and one backward unit per op.
StepPlan two_block_units() {
  StepPlan p;
  p.forward = {unit("layers.0.mlp fwd", 0.0, 1e-3), unit("layers.1.mlp fwd", 0.0, 1e-3)};
  p.backward = {unit("layers.1.mlp bwd", 0.0, 2e-3, 4e8), unit("layers.0.mlp bwd", 0.0, 2e-3, 4e8)};
  return p;
}

/// f 2 + 2 ms, b 4 + 4 ms, optimizer 1 ms, one bucket of 1e8 B reduce-scattered in 3 ms after
/// b1, and the updated parameters' all-gather of 2 ms (ZeRO-1/2, Megatron's distributed
/// optimizer under `strategy`).
StepPlan gathered_update_plan(ParallelStrategy strategy) {
  StepPlan p;
  p.forward = {unit("f0", 0.0, 2e-3), unit("f1", 0.0, 2e-3)};
  p.backward = {unit("b1", 0.0, 4e-3), unit("b0", 0.0, 4e-3)};
  p.optimizer = {unit("optimizer.step", 0.0, 1e-3)};
  p.micro_batch = 8;
  p.loader.synthetic = true;
  p.comm.strategy = strategy;
  p.comm.ranks = 8;
  p.comm.bucket_collective = Collective::kReduceScatter;
  p.comm.buckets = {{0, 1e8, 3e-3}};
  p.comm.parameter_all_gather_s = 2e-3;
  return p;
}

}  // namespace

TEST_SUITE("models.step.sharded_step") {
  TEST_CASE("fsdp, compute exceeds communication: only the first gather and the last reduce-scatter show") {
    // f 4 ms, b 8 ms, optimizer 1 ms; gathers 1 ms, reduce-scatters 2 ms. From the previous
    // optimizer's end (0): gather 0 runs 0-1, gather 1 (prefetched) 1-2; f0 1-5, f1 5-9.
    // Backward starts with unit 1 (still gathered); unit 0's gather is issued then: 9-10.
    // b1 9-17, its reduce-scatter 17-19; b0 17-25, its reduce-scatter 25-27; the optimizer
    // waits for it: 27-28. Step 28 ms = compute 25 + first gather 1 + last reduce-scatter 2.
    const StepStats s = simulate_steps(two_unit_plan(4e-3, 8e-3, 1e-3, 2e-3));
    CHECK(s.breakdown.step_time_s == doctest::Approx(28e-3));
    CHECK(s.breakdown.gpu_compute_s == doctest::Approx(24e-3));
    CHECK(s.breakdown.optimizer_s == doctest::Approx(1e-3));
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(3e-3));
  }

  TEST_CASE("an offloaded optimizer step: optimizer time with the GPU idle, after the last reduce-scatter") {
    // The first case's plan (step 28 ms with a 1 ms GPU optimizer) with the optimizer replaced
    // by 10 ms off the GPU: it still waits for the last reduce-scatter (27 ms), so the step is
    // 27 + 10 = 37 ms, 10 ms of it optimizer time, and the GPU busy only for its 24 ms of
    // compute (not the 25 of compute + optimizer it would be on the GPU).
    StepPlan p = two_unit_plan(4e-3, 8e-3, 1e-3, 2e-3);
    p.optimizer = {unit("optimizer.step offloaded", 0.0, 10e-3)};
    p.optimizer[0].off_gpu = true;
    const StepStats s = simulate_steps(p);
    CHECK(s.breakdown.step_time_s == doctest::Approx(37e-3));
    CHECK(s.breakdown.optimizer_s == doctest::Approx(10e-3));
    CHECK(s.breakdown.gpu_compute_s == doctest::Approx(24e-3));
    CHECK(s.gpu_busy_s == doctest::Approx(24e-3));
  }

  TEST_CASE("fsdp, communication exceeds compute: the step is the communication stream's") {
    // f 1 ms, b 2 ms; gathers 4 ms, reduce-scatters 6 ms. Gathers 0-4 and 4-8; f0 4-5, f1
    // 8-9. Backward: unit 0's gather is issued when b1 starts (9): 9-13; b1 9-11; its
    // reduce-scatter queues behind the gather: 13-19; b0 13-15; its reduce-scatter 19-25;
    // optimizer 25-26. Step 26 ms = the stream's 24 ms of collectives (4 + 4 + 4 + 6 + 6)
    // + f1, before which unit 0's backward gather cannot be issued (1) + the optimizer (1).
    const StepStats s = simulate_steps(two_unit_plan(1e-3, 2e-3, 4e-3, 6e-3));
    CHECK(s.breakdown.step_time_s == doctest::Approx(26e-3));
    CHECK(s.breakdown.gpu_compute_s == doctest::Approx(6e-3));
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(19e-3));
  }

  TEST_CASE("fsdp reduces on every micro-step, gathers on every micro-step") {
    const StepPlan plan = two_unit_plan(4e-3, 8e-3, 1e-3, 2e-3);
    StepGraph g(plan, 2, false, 4);  // two optimizer steps of two micro-steps
    Counter c(g);
    g.run_until_started(4);
    // Per micro-step: 2 forward gathers + 1 backward gather, 2 reduce-scatters.
    CHECK(c.by_kind[StepActivity::kAllGather] == 12);
    CHECK(c.by_kind[StepActivity::kReduceScatter] == 8);
    CHECK(c.by_kind[StepActivity::kOptimizerKernel] == 2);
  }

  TEST_CASE("--overlap-param-gather: the forward waits for the first bucket, its last kernel for the rest") {
    // The ZeRO-1/2 case's plan below, as Megatron's distributed optimizer runs it with the
    // gather's first bucket 0.5 ms of its 2 ms: first bucket 0-0.5, the rest 0.5-2 behind f0
    // (0.5-2.5); f1 2.5-4.5, b1 4.5-8.5, bucket 8.5-11.5, b0 8.5-12.5, optimizer 12.5-13.5.
    // Step 13.5 ms, 0.5 ms exposed (15 and 2 with the whole gather before the forward).
    StepPlan p = gathered_update_plan(ParallelStrategy::kDdp);
    p.comm.parameter_all_gather_first_s = 0.5e-3;
    StepStats s = simulate_steps(p);
    CHECK(s.breakdown.step_time_s == doctest::Approx(13.5e-3));
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(0.5e-3));
    // A gather longer than the forward: the rest (0.5-6) holds f1 back to 6-8; b1 8-12,
    // bucket 12-15, b0 12-16, optimizer 16-17. Step 17 ms, exposed 0.5 + (6 - 2.5) = 4 ms.
    p.comm.parameter_all_gather_s = 6e-3;
    s = simulate_steps(p);
    CHECK(s.breakdown.step_time_s == doctest::Approx(17e-3));
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(4e-3));
  }

  TEST_CASE("zero-1/2: buckets, then the updated parameters gathered before the next forward") {
    // f 2 + 2 ms, b 4 + 4 ms, optimizer 1 ms; one bucket filled by b1, reduce-scattered in
    // 3 ms under b0; after the optimizer, the all-gather of the updated parameters (2 ms)
    // that the next forward waits for. From the previous optimizer's end (0): gather 0-2, f
    // 2-6, b1 6-10, bucket 10-13, b0 10-14, optimizer 14-15. Step 15 ms, 2 ms exposed.
    StepPlan p = gathered_update_plan(ParallelStrategy::kZero);
    const StepStats s = simulate_steps(p);
    CHECK(s.breakdown.step_time_s == doctest::Approx(15e-3));
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(2e-3));
    // Stage 2 reduce-scatters its buckets on every micro-step, stage 1 only on the last.
    p.comm.every_micro_step = true;
    {
      StepGraph g(p, 2, false, 4);
      Counter c(g);
      g.run_until_started(4);
      CHECK(c.by_kind[StepActivity::kReduceScatter] == 4);
      // The first optimizer step's gather has finished; the second's starts with micro-step 4.
      CHECK(c.by_kind[StepActivity::kAllGather] == 1);
    }
    p.comm.every_micro_step = false;
    {
      StepGraph g(p, 2, false, 4);
      Counter c(g);
      g.run_until_started(4);
      CHECK(c.by_kind[StepActivity::kReduceScatter] == 2);
    }
  }

  TEST_CASE("the plan: per-unit collectives of the unit's bytes on the job's topology") {
    const CollectiveRegistry& registry = builtin_collective_registry();
    const Topology node = testing::h200_node();
    // Gathered in bf16: 1e8 x 2 B; gradients reduce-scattered in fp32: 1e8 x 4 B.
    const double gather_s = fastest_collective(registry, Collective::kAllGather, 2e8, node).time_s;
    const double reduce_s = fastest_collective(registry, Collective::kReduceScatter, 4e8, node).time_s;
    StepPlan p = two_block_units();
    const JobSpec fsdp = two_block_job(ParallelStrategy::kFsdp);
    plan_sharded_communication(fsdp, sharding_layout(fsdp), p);
    REQUIRE(p.comm.units.size() == 2);
    CHECK(p.comm.units[0].name == "layers.0");
    CHECK(p.comm.units[0].backward_begin == 1);
    CHECK(p.comm.units[1].backward_begin == 0);
    CHECK(p.comm.units[0].parameter_bytes == 2e8);
    CHECK(p.comm.units[0].forward_all_gather_s == doctest::Approx(gather_s));
    CHECK(p.comm.units[0].backward_all_gather_s == doctest::Approx(gather_s));
    CHECK(p.comm.units[1].backward_all_gather_s == 0.0);  // the last unit stays gathered
    CHECK(p.comm.units[0].gradient_reduce_s == doctest::Approx(reduce_s));
    CHECK(p.comm.units[1].replica_all_reduce_s == 0.0);
    CHECK(p.comm.every_micro_step);

    // ZeRO-2: one bucket per 25 MiB of gradients reduce-scattered, then 2e8 x 2 B gathered.
    JobSpec zero = two_block_job(ParallelStrategy::kZero);
    zero.parallelism.zero_stage = 2;
    StepPlan z = two_block_units();
    plan_sharded_communication(zero, sharding_layout(zero), z);
    CHECK(z.comm.units.empty());
    CHECK(z.comm.bucket_collective == Collective::kReduceScatter);
    CHECK(z.comm.every_micro_step);
    REQUIRE(z.comm.buckets.size() == 2);  // one per backward unit: each 4e8 B exceeds the cap
    CHECK(z.comm.buckets[0].all_reduce_s == doctest::Approx(reduce_s));
    CHECK(z.comm.parameter_all_gather_s ==
          doctest::Approx(fastest_collective(registry, Collective::kAllGather, 4e8, node).time_s));
    // ZeRO-1: the same collectives, the reduce-scatters on the last micro-step only.
    zero.parallelism.zero_stage = 1;
    StepPlan one = two_block_units();
    plan_sharded_communication(zero, sharding_layout(zero), one);
    CHECK(one.comm.bucket_collective == Collective::kReduceScatter);
    CHECK_FALSE(one.comm.every_micro_step);
    CHECK(one.comm.buckets[0].all_reduce_s == doctest::Approx(reduce_s));
  }

  TEST_CASE("offload: the gradient shard down, the update up, the host's AdamW, by hand") {
    // ZeRO-3 over 8 GPUs of 2e8 parameters: a shard of 2.5e7 per rank. 64 cores per node:
    // 8 per rank. A host link of 25 GB/s per rank.
    JobSpec job = two_block_job(ParallelStrategy::kZero);
    job.parallelism.zero_stage = 3;
    job.hardware.cpu_cores = 64;
    job.hardware.storage.read_bytes_per_s = 7e9;
    job.hardware.storage.write_bytes_per_s = 4.2e9;
    const double link = 25e9;
    CHECK(offload_costs(job, sharding_layout(job), link).step_s() == 0.0);  // nothing offloaded
    job.parallelism.optimizer_offload = OffloadTarget::kCpu;
    const OffloadCosts cpu = offload_costs(job, sharding_layout(job), link);
    CHECK(cpu.d2h_bytes == doctest::Approx(1e8));  // 2.5e7 fp32 gradients
    CHECK(cpu.h2d_bytes == doctest::Approx(5e7));  // 2.5e7 bf16 parameters
    CHECK(cpu.d2h_s == doctest::Approx(4e-3));     // 1e8 B / 25e9 B/s, during backward (ZeRO-3)
    CHECK(cpu.d2h_overlaps_backward);
    CHECK(cpu.h2d_s == doctest::Approx(2e-3));  // 5e7 B / 25e9 B/s, after the host step
    // Per parameter: AdamW's 30 B (reads 4 + 8 + 4, writes 4 + 8 + 2), the gradient's DMA
    // write 4, the bf16 copy's DMA read 2, the conversion's read of the fp32 weight 4 and
    // ZeRO-3's unscale pass 4 + 4: 48 B. 2.5e7 x 48 B = 1.2e9 B at 8 cores x 614.4e9 / 112
    // B/s x CPU-Adam's 0.322 of it (385.4 GB in 1.9455 s on a 614.4 GB/s DGX host, fitted on
    // O001/O002) = 1.2e9 x 112 / 4,915.2e9 / 0.32244 = 84.80 ms.
    const double share = 8.0 * 1.0037e9 * 48.0 / 1.9455 / 614.4e9;
    CHECK(kCpuAdamHostMemoryShare == doctest::Approx(0.32244).epsilon(1e-4));
    CHECK(cpu.host_optimizer_s == doctest::Approx(84.80e-3).epsilon(1e-3));
    const double host_s = 27.34375e-3 / share;
    CHECK(cpu.host_optimizer_bytes == doctest::Approx(1.2e9));
    CHECK(cpu.host_optimizer_s == doctest::Approx(host_s));
    CHECK(cpu.nvme_s == 0.0);
    CHECK(cpu.step_s() == doctest::Approx(2e-3 + host_s));
    // nvme: the moments and fp32 weights (8 + 4 B) read and written: 3e8 B each way at
    // 7e9 / 8 and 4.2e9 / 8 B/s = 0.342857 + 0.571429 s.
    job.parallelism.optimizer_offload = OffloadTarget::kNvme;
    const OffloadCosts nvme = offload_costs(job, sharding_layout(job), link);
    CHECK(nvme.nvme_bytes == doctest::Approx(6e8));
    CHECK(nvme.nvme_s == doctest::Approx(0.3e9 / 0.875e9 + 0.3e9 / 0.525e9));
    CHECK(nvme.step_s() == doctest::Approx(2e-3 + host_s + 0.3e9 / 0.875e9 + 0.3e9 / 0.525e9));
    CHECK_THROWS_AS(offload_costs(job, sharding_layout(job), 0.0), std::invalid_argument);
    // ZeRO-2 copies the gradients after backward and has no unscale pass: 30 + 10 = 40 B per
    // parameter, 1e9 B = 22.786 ms / 0.32244, plus both copies (6 ms).
    JobSpec two = job;
    two.parallelism.zero_stage = 2;
    two.parallelism.optimizer_offload = OffloadTarget::kCpu;
    const OffloadCosts z2 = offload_costs(two, sharding_layout(two), link);
    CHECK_FALSE(z2.d2h_overlaps_backward);
    CHECK(z2.host_optimizer_bytes == doctest::Approx(1e9));
    CHECK(z2.step_s() == doctest::Approx(6e-3 + 1e9 * 112.0 / (8.0 * 614.4e9) / share));

    // The plan: one optimizer unit of the whole chain; each gather preceded by the shard's
    // copy, 2e8 B gathered / 8 = 2.5e7 B over 25 GB/s = 1 ms.
    job.parallelism.optimizer_offload = OffloadTarget::kCpu;
    job.parallelism.parameter_offload = OffloadTarget::kCpu;
    StepPlan p = two_block_units();
    p.optimizer = {unit("optimizer.step", 1e-4, 1e-3), unit("optimizer.step", 1e-4, 1e-3)};
    const ShardingLayout layout = sharding_layout(job);
    plan_sharded_communication(job, layout, p);
    const double gather_s = p.comm.units[0].forward_all_gather_s;
    apply_offload(job, layout, link, p);
    REQUIRE(p.optimizer.size() == 1);
    CHECK(p.optimizer[0].gpu_s == doctest::Approx(2e-3 + host_s));
    CHECK(p.optimizer[0].dispatch_s == doctest::Approx(1e-4));
    CHECK(p.comm.units[0].forward_all_gather_s == doctest::Approx(gather_s + 1e-3));
    CHECK(p.comm.units[0].backward_all_gather_s == doctest::Approx(gather_s + 1e-3));
    CHECK(p.comm.units[1].backward_all_gather_s == 0.0);  // the last unit stays gathered: no copy
  }

  TEST_CASE("one GPU with ZeRO-3 offload: no collective, each unit's parameters copied in, by hand") {
    // ZeRO-Offload's one-GPU case: the layout of ZeRO-3 over one rank (shard = the whole
    // 2e8 parameters), each unit's 1e8 bf16 parameters (2e8 B) copied to the GPU before its
    // forward (and before unit 0's backward) at 25 GB/s: 8 ms; no gather, no reduce-scatter.
    JobSpec job = two_block_job(ParallelStrategy::kZero);
    job.hardware.gpus_per_node = 1;
    job.hardware.topology.gpus_per_node = 1;
    job.hardware.cpu_cores = 8;
    job.parallelism.zero_stage = 3;
    job.parallelism.optimizer_offload = OffloadTarget::kCpu;
    job.parallelism.parameter_offload = OffloadTarget::kCpu;
    const ShardingLayout layout = sharding_layout(job);
    CHECK(layout.sharded_strategy);
    CHECK(layout.shard_ranks == 1);
    CHECK(layout.parameter_offload == OffloadTarget::kCpu);
    StepPlan p = two_block_units();
    p.optimizer = {unit("optimizer.step", 1e-4, 1e-3)};
    plan_sharded_communication(job, layout, p);
    REQUIRE(p.comm.units.size() == 2);
    for (const ShardedUnitComm& u : p.comm.units) {
      CHECK(u.forward_all_gather_s == 0.0);
      CHECK(u.gradient_reduce_s == 0.0);
      CHECK(u.gathers_forward);
    }
    apply_offload(job, layout, 25e9, p);
    CHECK(p.comm.units[0].forward_all_gather_s == doctest::Approx(8e-3));
    CHECK(p.comm.units[0].backward_all_gather_s == doctest::Approx(8e-3));
    CHECK(p.comm.units[1].backward_all_gather_s == 0.0);  // the last unit stays on the GPU
    // The whole 2e8-parameter state goes down and up: 8e8 B of fp32 gradients at 25 GB/s.
    CHECK(offload_costs(job, layout, 25e9).d2h_bytes == doctest::Approx(8e8));
    // Without an offload one GPU shards nothing: no sharded layout.
    job.parallelism.optimizer_offload = OffloadTarget::kNone;
    job.parallelism.parameter_offload = OffloadTarget::kNone;
    CHECK_FALSE(sharding_layout(job).sharded_strategy);
  }

  TEST_CASE("fp8 all-gather: each unit's float8 weights gathered in 1 B, half the bf16 volume") {
    const CollectiveRegistry& registry = builtin_collective_registry();
    JobSpec fsdp = two_block_job(ParallelStrategy::kFsdp);
    fsdp.training.precision = Precision::kFp8;
    for (Op& op : fsdp.workload.ops.edit()) {
      op.weight_rows = 1e4;  // 1e4 x 1e4 = the op's 1e8 parameters, all weight
      op.weight_columns = 1e4;
    }
    StepPlan bf16 = two_block_units();
    plan_sharded_communication(fsdp, sharding_layout(fsdp), bf16);
    fsdp.parallelism.fp8_all_gather = true;
    StepPlan fp8 = two_block_units();
    plan_sharded_communication(fsdp, sharding_layout(fsdp), fp8);
    // 1e8 weights x 2 B = 2e8 B gathered in bf16; x 1 B = 1e8 B in float8.
    CHECK(bf16.comm.units[0].parameter_bytes == 2e8);
    CHECK(fp8.comm.units[0].parameter_bytes == 1e8);
    CHECK(fp8.comm.units[0].forward_all_gather_s ==
          doctest::Approx(fastest_collective(registry, Collective::kAllGather, 1e8, testing::h200_node()).time_s));
    CHECK(fp8.comm.units[0].backward_all_gather_s == doctest::Approx(fp8.comm.units[0].forward_all_gather_s));
    CHECK(fp8.comm.units[0].forward_all_gather_s < bf16.comm.units[0].forward_all_gather_s);
    // The gradients are reduce-scattered as before (fp32 master gradients: 1e8 x 4 B).
    CHECK(fp8.comm.units[0].gradient_reduce_s == doctest::Approx(bf16.comm.units[0].gradient_reduce_s));
  }

  TEST_CASE("hybrid_shard: gathers within the node, the shard all-reduced across nodes") {
    JobSpec job = two_block_job(ParallelStrategy::kFsdp);
    job.parallelism.sharding = Sharding::kHybridShard;
    job.hardware.nodes = 2;
    job.hardware.topology = testing::ib_cluster(2, 8, "nvlink4_nvswitch");
    StepPlan p = two_block_units();
    plan_sharded_communication(job, sharding_layout(job), p);
    const CollectiveRegistry& registry = builtin_collective_registry();
    CHECK(p.comm.units[0].forward_all_gather_s ==
          doctest::Approx(fastest_collective(registry, Collective::kAllGather, 2e8, testing::h200_node()).time_s));
    Topology nodes = testing::ib_cluster(2, 1);
    nodes.intra_node = job.hardware.topology.intra_node;
    CHECK(p.comm.units[0].replica_all_reduce_s ==
          doctest::Approx(fastest_collective(registry, Collective::kAllReduce, 4e8, nodes).time_s));
    CHECK(p.comm.units[0].replica_all_reduce_s > 0.0);
  }
}

// Context parallelism (ring attention) in one rank's step and memory, by hand
// (models/step/context_parallel_plan.h, models/workload/context_parallel_shard.h).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../collective/collective_topologies.h"
#include "../test_gpus.h"
#include "nvswitch_node_job.h"
#include "../workload/catalog_models.h"
#include "models/interconnect/interconnect_table.h"
#include "models/memory/footprint.h"
#include "models/memory/parallel_memory.h"
#include "models/step/context_parallel_plan.h"
#include "models/step/pipeline_parallel_plan.h"
#include "models/step/step_plan.h"
#include "models/step/step_simulation.h"
#include "models/workload/attention_kernel.h"
#include "models/workload/context_parallel_shard.h"

using namespace gpuplan::models;

namespace {

/// Llama 3 8B at `tokens` tokens (FlashAttention), bf16 AMP, AdamW, batch 1, synthetic
/// data, DDP with context_parallel `c` on one node of 8 NVSwitch GPUs.
JobSpec llama_on_node(int c, double tokens = 8192.0) {
  JobSpec job = testing::nvswitch_node_job(
      with_attention_kernel(testing::build_catalog_model("llama3-8b", {{"sequence_length", tokens}}),
                            AttentionKernel::kFlash),
      8, 64, 1, AttentionKernel::kFlash);
  job.parallelism.context_parallel = c;
  return job;
}

/// A rank's memory of `job` as it is (context_parallel c) and with context_parallel 1.
struct MemoryByContext {
  MemoryBreakdown without;
  MemoryBreakdown with;
};
MemoryByContext memory_by_context(const JobSpec& job) {
  JobSpec one = job;
  one.parallelism.context_parallel = 1;
  const MemoryModelParams params = MemoryModelParams::defaults();
  return {rank_memory(one, params), rank_memory(job, params)};
}

const DispatchUnit* unit_labelled(const std::vector<DispatchUnit>& units, const std::string& label) {
  for (const DispatchUnit& u : units) {
    if (u.label == label) return &u;
  }
  return nullptr;
}

}  // namespace

TEST_SUITE("models.step.context_parallel") {
  TEST_CASE("the ring's closed form: (c - 1) sends, each hidden behind one block's compute") {
    // 4 ranks, a block of 1 ms, a send of 3 ms: 3 x (3 - 1) = 6 ms exposed; the whole op
    // b + (c - 1) max(b, t) = 1 + 9 = 10 ms against 4 ms of compute.
    CHECK(ring_exposed_s(4, 1e-3, 3e-3) == doctest::Approx(6e-3));
    CHECK(ring_exposed_s(4, 3e-3, 1e-3) == 0.0);  // sends shorter than a block hide
    CHECK(ring_exposed_s(1, 1e-3, 3e-3) == 0.0);  // no ring
  }

  TEST_CASE("a rank's op table: every per-token quantity / c, the weights whole") {
    const Workload whole = llama_on_node(1).workload;
    const Workload rank = context_parallel_rank_workload(whole, 4);
    CHECK(rank.parameters == whole.parameters);
    CHECK(rank.forward_flop_per_sample() == doctest::Approx(whole.forward_flop_per_sample() / 4.0));
    CHECK(rank.saved_elements_per_sample() == doctest::Approx(whole.saved_elements_per_sample() / 4.0));
    // Llama 3 8B: q 32 x 128 = 4,096 and K, V 8 x 128 = 1,024 wide each: 2 x 1,024 x 8,192
    // = 16,777,216 key/value elements per layer and sample, 4,194,304 on each of 4 ranks.
    CHECK(key_value_elements_per_layer(whole) == 16'777'216.0);
    CHECK(key_value_elements_per_layer(rank) == 4'194'304.0);
    CHECK_THROWS_AS(context_parallel_rank_workload(whole, 0), std::invalid_argument);
  }

  TEST_CASE("memory per GPU at 131,072 tokens: activations / c, weights and states whole") {
    const JobSpec cp = llama_on_node(8, 131072.0);
    const auto [whole, rank] = memory_by_context(cp);
    CHECK(rank.weights_bytes == doctest::Approx(whole.weights_bytes));
    CHECK(rank.optimizer_state_bytes == doctest::Approx(whole.optimizer_state_bytes));
    CHECK(rank.activations_bytes == doctest::Approx(whole.activations_bytes / 8.0));
    // The fused attention op saves Q, K, V (3·s·h) and the fp32 log-sum-exp (2 elements per
    // row and head, 2·a·s): (3 x 131,072 x 4,096 + 2 x 32 x 131,072) / 8 = 202,375,168
    // elements per sample on a rank.
    const Workload shard = rank_workload(cp);
    double fused_saved = 0.0;
    for (const Op& op : shard.ops) {
      if (op.name == "layers.0.attn.fused") fused_saved = op.saved_elements;
    }
    CHECK(fused_saved == 202'375'168.0);
  }

  TEST_CASE("the step: each attention op followed by its ring's exposed time; gradients over DP x CP") {
    const JobSpec job = llama_on_node(2);
    const StepPlan plan = plan_step(job, GpuEfficiency::defaults());
    const DispatchUnit* attention = unit_labelled(plan.forward, "layers.0.attn.fused fwd");
    const DispatchUnit* ring = unit_labelled(plan.forward, "layers.0.attn.fused fwd key/value ring (context parallel)");
    REQUIRE(attention != nullptr);
    REQUIRE(ring != nullptr);
    CHECK(ring->communication);
    // The rank's K and V: 2 x 1,024 x 4,096 tokens x 2 B = 16,777,216 B per ring step
    // forward, twice that with dK, dV in backward, over the node's NVLink.
    const LinkSpec link = intra_node_link("nvlink3_nvswitch");
    const double send_s = point_to_point_s(link, 16'777'216.0, 1.0);
    CHECK(ring->gpu_s == doctest::Approx(ring_exposed_s(2, attention->gpu_s / 2.0, send_s)));
    const DispatchUnit* backward = unit_labelled(plan.backward, "layers.0.attn.fused bwd");
    const DispatchUnit* backward_ring =
        unit_labelled(plan.backward, "layers.0.attn.fused bwd key/value ring (context parallel)");
    REQUIRE(backward != nullptr);
    REQUIRE(backward_ring != nullptr);
    CHECK(backward_ring->gpu_s ==
          doctest::Approx(ring_exposed_s(2, backward->gpu_s / 2.0, point_to_point_s(link, 33'554'432.0, 1.0))));
    // 8 GPUs / CP 2 = 4 data-parallel replicas; DDP reduces over all 8 (DP x CP).
    CHECK(job.parallelism.data_parallel_size(8) == 4);
    CHECK(plan.comm.ranks == 8);
    // A rank's model FLOP: half of each sample's.
    CHECK(plan.model_flop_per_step == doctest::Approx(job.workload.training_flop_per_sample() / 2.0));
  }

  TEST_CASE("with a pipeline: each stage's attention keeps its ring, sends s / c tokens, reduces over DP x CP") {
    // CP 2 x PP 2 on 8 GPUs: 2 data-parallel replicas. Llama 3 8B's 32 layers, 16 per stage,
    // 4 micro-batches per step (1F1B).
    JobSpec job = llama_on_node(2);
    job.parallelism.pipeline_parallel = 2;
    job.training.gradient_accumulation = 4;
    const GpuEfficiency e = GpuEfficiency::defaults();
    const StepPlan first = plan_step(job, e, 0);
    const StepPlan last = plan_step(job, e, 1);
    const std::string ring = " fwd key/value ring (context parallel)";
    CHECK(unit_labelled(first.forward, "layers.0.attn.fused" + ring) != nullptr);
    CHECK(unit_labelled(first.forward, "layers.16.attn.fused" + ring) == nullptr);
    CHECK(unit_labelled(last.forward, "layers.16.attn.fused" + ring) != nullptr);
    CHECK(unit_labelled(last.forward, "layers.31.attn.fused" + ring) != nullptr);
    // The ring of a stage's layer is the one without a pipeline (same rank shard, same link).
    const StepPlan no_pipeline = plan_step(llama_on_node(2), e);
    CHECK(unit_labelled(first.forward, "layers.0.attn.fused" + ring)->gpu_s ==
          doctest::Approx(unit_labelled(no_pipeline.forward, "layers.0.attn.fused" + ring)->gpu_s));
    // Between the stages each rank sends its 4,096 tokens' residual stream: 4,096 x 4,096 x
    // 2 B = 33,554,432 B, over the node's NVLink.
    CHECK(first.pipeline.stages == 2);
    CHECK(first.pipeline.send_s == doctest::Approx(pipeline_send_s(job, 33'554'432.0)));
    // Gradients: each stage's replicas over DP 2 x CP 2 = 4 ranks.
    CHECK(job.parallelism.data_parallel_size(8) == 2);
    CHECK(first.comm.ranks == 4);
    // Memory: a stage's activations halve with CP 2, its weights do not.
    const auto [without_cp, with_cp] = memory_by_context(job);
    CHECK(with_cp.weights_bytes == doctest::Approx(without_cp.weights_bytes));
    CHECK(with_cp.activations_bytes == doctest::Approx(without_cp.activations_bytes / 2.0).epsilon(0.01));
  }

  TEST_CASE("across nodes the ring waits for the network: sends longer than the blocks show") {
    // CP 16 over 2 nodes of 8 GPUs, each GPU on one of its node's 8 200 Gbit/s NICs; at
    // 8,192 tokens a block is 512 tokens: sends of 2 x 1,024 x 512 x 2 B = 2,097,152 B.
    JobSpec job = llama_on_node(16);
    job.hardware.nodes = 2;
    job.hardware.topology = testing::ib_cluster(2, 8);
    const double send_s = context_parallel_send_s(job, 2'097'152.0);
    CHECK(send_s == doctest::Approx(point_to_point_s(*job.hardware.topology.inter_node, 2'097'152.0, 1.0)));
    CHECK(send_s > point_to_point_s(job.hardware.topology.intra_node, 2'097'152.0, 1.0));
    const StepPlan plan = plan_step(job, GpuEfficiency::defaults());
    const DispatchUnit* attention = unit_labelled(plan.forward, "layers.0.attn.fused fwd");
    const DispatchUnit* ring = unit_labelled(plan.forward, "layers.0.attn.fused fwd key/value ring (context parallel)");
    REQUIRE(attention != nullptr);
    REQUIRE(ring != nullptr);
    CHECK(ring->gpu_s == doctest::Approx(15.0 * std::max(0.0, send_s - attention->gpu_s / 16.0)));
    const StepStats s = simulate_steps(plan);
    CHECK(s.breakdown.communication_exposed_s > 0.0);
  }
}

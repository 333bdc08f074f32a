// Expert parallelism in one rank's step: the all-to-alls per MoE layer, the experts' share
// of the weights and gradients, the load imbalance, by hand.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../test_gpus.h"
#include "nvswitch_node_job.h"
#include "../workload/catalog_models.h"
#include "models/collective/builtin.h"
#include "models/collective/fastest_collective.h"
#include "models/interconnect/interconnect_table.h"
#include "models/memory/distributed_optimizer.h"
#include "models/memory/parallel_memory.h"
#include "models/step/expert_parallel_plan.h"
#include "models/step/step_plan.h"
#include "models/step/step_simulation.h"
#include "models/workload/fine_tuning.h"

using namespace gpuplan::models;

namespace {

constexpr double kTokens = 512.0;
constexpr double kHidden = 1024.0;
constexpr double kExpertsPerToken = 2.0;
constexpr int kBatch = 4;

/// A 2-layer MoE decoder (h 1024, 8 heads, 8 SwiGLU experts of width 2048, top-2, vocab
/// 32000, s 512), bf16 AMP, flash attention, synthetic data, DDP on one node of 8 NVSwitch GPUs.
JobSpec moe_on_node(int expert_parallel) {
  JobSpec job = testing::nvswitch_node_job(testing::build("transformer_decoder", {{"layers", 2},
                                                                                {"hidden", kHidden},
                                                                                {"heads", 8},
                                                                                {"ffn_hidden", 2048},
                                                                                {"vocab", 32000},
                                                                                {"sequence_length", kTokens},
                                                                                {"experts", 8},
                                                                                {"experts_per_token", kExpertsPerToken}}),
                                           8, 64, kBatch, AttentionKernel::kEager);
  job.parallelism.expert_parallel = expert_parallel;
  return job;
}

double all_to_all_s(double bytes, int ranks) {
  Topology group;
  group.gpus_per_node = ranks;
  group.intra_node = intra_node_link("nvlink3_nvswitch");
  return fastest_collective(builtin_collective_registry(), Collective::kAllToAll, bytes, group).time_s;
}

std::vector<std::string> communication_labels(const std::vector<DispatchUnit>& units) {
  std::vector<std::string> labels;
  for (const DispatchUnit& u : units) {
    if (u.communication) labels.push_back(u.label);
  }
  return labels;
}

const DispatchUnit& unit(const std::vector<DispatchUnit>& units, const std::string& label) {
  for (const DispatchUnit& u : units) {
    if (u.label == label) return u;
  }
  throw std::logic_error("no unit " + label);
}

}  // namespace

TEST_SUITE("models.step.expert_parallel") {
  TEST_CASE("two all-to-alls per MoE layer in forward and two in backward, of k·s·b·h at 2 B") {
    const StepPlan plan = plan_step(moe_on_node(8), GpuEfficiency::defaults());
    // Each carries the routed token copies: k·s·b·h·2 B = 2·512·4·1024·2 = 8,388,608 B per
    // rank, over the 8 GPUs of the expert-parallel group.
    const double bytes = kExpertsPerToken * kTokens * kBatch * kHidden * 2.0;
    CHECK(bytes == 8'388'608.0);
    CHECK(communication_labels(plan.forward) ==
          std::vector<std::string>{"layers.0.mlp.experts_gate_up fwd dispatch all_to_all (expert parallel)",
                                   "layers.0.mlp.experts_down fwd combine all_to_all (expert parallel)",
                                   "layers.1.mlp.experts_gate_up fwd dispatch all_to_all (expert parallel)",
                                   "layers.1.mlp.experts_down fwd combine all_to_all (expert parallel)"});
    CHECK(communication_labels(plan.backward) ==
          std::vector<std::string>{"layers.1.mlp.experts_down bwd combine all_to_all (expert parallel)",
                                   "layers.1.mlp.experts_gate_up bwd dispatch all_to_all (expert parallel)",
                                   "layers.0.mlp.experts_down bwd combine all_to_all (expert parallel)",
                                   "layers.0.mlp.experts_gate_up bwd dispatch all_to_all (expert parallel)"});
    for (const auto* units : {&plan.forward, &plan.backward}) {
      for (const DispatchUnit& u : *units) {
        if (u.communication) CHECK(u.gpu_s == doctest::Approx(all_to_all_s(bytes, 8)));
      }
    }
    // The dispatch precedes the experts' first GEMM in forward (and follows it in backward).
    const auto& forward = plan.forward;
    for (std::size_t i = 0; i + 1 < forward.size(); ++i) {
      if (forward[i].label == "layers.0.mlp.experts_gate_up fwd dispatch all_to_all (expert parallel)") {
        CHECK(forward[i + 1].label == "layers.0.mlp.experts_gate_up fwd");
      }
    }
    CHECK(communication_labels(plan_step(moe_on_node(1), GpuEfficiency::defaults()).forward).empty());
  }

  TEST_CASE("the all-to-alls are on the critical path of the simulated step") {
    const StepPlan plan = plan_step(moe_on_node(8), GpuEfficiency::defaults());
    double comm_s = 0.0;
    for (const auto* units : {&plan.forward, &plan.backward}) {
      for (const DispatchUnit& u : *units) {
        if (u.communication) comm_s += u.gpu_s;
      }
    }
    // 2 layers x 4 all-to-alls.
    CHECK(comm_s == doctest::Approx(8.0 * all_to_all_s(8'388'608.0, 8)));
    const StepStats s = simulate_steps(plan);
    CHECK(s.breakdown.communication_exposed_s >= comm_s * (1.0 - 1e-6));
  }

  TEST_CASE("each rank holds 1/e of the experts; its expert FLOP are the mean's x imbalance") {
    const JobSpec whole_job = moe_on_node(1);
    const Workload whole = rank_workload(whole_job);
    // Per layer: 8 experts x 3·1024·2048 = 50,331,648 parameters; on each of 8 ranks one
    // expert, 6,291,456; the two layers: 100,663,296 -> 12,582,912.
    const double experts = 2.0 * 8.0 * 3.0 * 1024.0 * 2048.0;
    JobSpec ep_job = moe_on_node(8);
    CHECK(rank_workload(ep_job).parameters == doctest::Approx(whole.parameters - experts + experts / 8.0));
    // The expert GEMMs of the busiest rank: its tokens are the mean's (k·s·b copies) x 1.5.
    ep_job.parallelism.expert_load_imbalance = 1.5;
    const StepPlan balanced = plan_step(moe_on_node(8), GpuEfficiency::defaults());
    const StepPlan skewed = plan_step(ep_job, GpuEfficiency::defaults());
    const std::string up = "layers.0.mlp.experts_gate_up fwd";
    CHECK(unit(skewed.forward, up).flop == doctest::Approx(1.5 * unit(balanced.forward, up).flop));
    // 2·(k·s·b = 4096)·1024·4096 = 34,359,738,368 FLOP at balance.
    CHECK(unit(balanced.forward, up).flop == doctest::Approx(34'359'738'368.0));
    const std::string dispatch = "layers.0.mlp.experts_gate_up fwd dispatch all_to_all (expert parallel)";
    CHECK(unit(skewed.forward, dispatch).gpu_s == doctest::Approx(all_to_all_s(1.5 * 8'388'608.0, 8)));
    // The activation between the expert GEMMs runs on the same routed tokens: x 1.5 too.
    const std::string act = "layers.0.mlp.experts_act fwd";
    CHECK(unit(skewed.forward, act).flop == doctest::Approx(1.5 * unit(balanced.forward, act).flop));
    // Model FLOP (MFU's numerator) are the model's whatever the imbalance or the split.
    CHECK(skewed.model_flop_per_step ==
          doctest::Approx(plan_step(whole_job, GpuEfficiency::defaults()).model_flop_per_step));
  }

  TEST_CASE("under LoRA the busiest rank saves the frozen experts' activations x imbalance") {
    // A frozen expert GEMM saves nothing (its input gradient needs only its weight), but the
    // SwiGLU between them keeps 3 x (k·s = 1024) x 2048 elements per sample and layer at
    // balance (moe_layer.cpp, as transformer_block.cpp's). The busiest rank of 1.5 keeps 1.5 x
    // that (a new-user trial found LoRA's peak unmoved by the imbalance).
    JobSpec job = moe_on_node(8);
    FineTuningSpec lora;
    lora.method = FineTuningMethod::kLora;
    lora.targets = {LoraTarget::kQ, LoraTarget::kV};
    job.workload = with_fine_tuning(job.workload, lora, job.training.precision);
    const auto saved = [](const Workload& w, const std::string& name) {
      for (const Op& op : w.ops) {
        if (op.name == name) return op.saved_elements;
      }
      return -1.0;
    };
    const Workload balanced = rank_workload(job);
    job.parallelism.expert_load_imbalance = 1.5;
    const Workload skewed = rank_workload(job);
    const double act = saved(balanced, "layers.0.mlp.experts_act");
    CHECK(act == doctest::Approx(3.0 * kExpertsPerToken * kTokens * 2048.0));
    CHECK(saved(skewed, "layers.0.mlp.experts_act") == doctest::Approx(1.5 * act));
    CHECK(saved(balanced, "layers.0.mlp.experts_gate_up") == 0.0);  // frozen 16-bit: nothing saved
  }

  TEST_CASE("expert gradients are all-reduced over the ranks holding the same experts only") {
    // e = 8 on 8 GPUs: each expert lives on one rank, so only the dense gradients go into
    // DDP's buckets: fp32 x (all parameters - the 100,663,296 expert parameters).
    const double experts = 2.0 * 8.0 * 3.0 * 1024.0 * 2048.0;
    const JobSpec job = moe_on_node(8);
    const double dense = rank_workload(job).parameters - experts / 8.0;
    const auto bucket_bytes = [](const StepPlan& plan) {
      double bytes = 0.0;
      for (const GradientBucket& b : plan.comm.buckets) bytes += b.bytes;
      return bytes;
    };
    const StepPlan ep8 = plan_step(job, GpuEfficiency::defaults());
    CHECK(bucket_bytes(ep8) == doctest::Approx(4.0 * dense));
    // e = 2: 4 experts per rank, their gradients all-reduced over the 4 ranks holding them.
    const StepPlan ep2 = plan_step(moe_on_node(2), GpuEfficiency::defaults());
    CHECK(bucket_bytes(ep2) == doctest::Approx(4.0 * (dense + experts / 2.0)));
    const Topology node = moe_on_node(2).hardware.topology;
    CHECK(expert_data_parallel_topology(moe_on_node(2), node).ranks() == 4);
    CHECK(expert_parallel_topology(moe_on_node(2), node).ranks() == 2);
    for (std::size_t i = 1; i < ep2.comm.buckets.size(); ++i) {
      CHECK(ep2.comm.buckets[i - 1].ready_after_unit <= ep2.comm.buckets[i].ready_after_unit);
    }
  }

  TEST_CASE("the distributed optimizer: expert state and gradients shard over the ranks holding the same experts") {
    // e = 2 on 8 GPUs: the dense gradients reduce-scattered over the 8 ranks, the rank's 4
    // experts' over the 4 ranks holding them; then the bf16 parameters all-gathered over the
    // same groups; each GPU keeps the fp32 copy and moments (12 B) of dense / 8 + experts / 4.
    const double experts = 2.0 * 8.0 * 3.0 * 1024.0 * 2048.0 / 2.0;  // the rank's
    JobSpec job = moe_on_node(2);
    job.parallelism.distributed_optimizer = true;
    const Workload rank = rank_workload(job);
    const double dense = rank.parameters - experts;
    CHECK(expert_parameters(rank) == doctest::Approx(experts));
    CHECK(expert_data_parallel_shard_ranks(job) == 4);
    CHECK(distributed_optimizer_local_parameters(job, rank) == doctest::Approx(dense / 8.0 + experts / 4.0));
    const StepPlan plan = plan_step(job, GpuEfficiency::defaults());
    CHECK(plan.comm.bucket_collective == Collective::kReduceScatter);
    CHECK_FALSE(plan.comm.every_micro_step);
    double bytes = 0.0;
    for (const GradientBucket& b : plan.comm.buckets) bytes += b.bytes;
    CHECK(bytes == doctest::Approx(4.0 * (dense + experts)));
    const Topology node = job.hardware.topology;
    const auto gather_s = [](double b, const Topology& group) {
      return fastest_collective(builtin_collective_registry(), Collective::kAllGather, b, group).time_s;
    };
    CHECK(plan.comm.parameter_all_gather_s ==
          doctest::Approx(gather_s(2.0 * dense, node) +
                          gather_s(2.0 * experts, expert_data_parallel_topology(job, node))));
    const MemoryBreakdown m = rank_memory(job, MemoryModelParams{});
    CHECK(m.weights_bytes == doctest::Approx(2.0 * rank.parameters));
    CHECK(m.gradients_bytes == doctest::Approx(4.0 * rank.parameters));
    CHECK(m.optimizer_state_bytes == doctest::Approx(12.0 * (dense / 8.0 + experts / 4.0)));
  }

  TEST_CASE("groups across nodes: e = 16 on 2 nodes of 8 spans both; the same experts 1 rank apart per node") {
    JobSpec job = moe_on_node(8);
    Topology dp;
    dp.gpus_per_node = 8;
    dp.nodes = 4;
    dp.intra_node = intra_node_link("nvlink3_nvswitch");
    dp.inter_node = job.hardware.topology.intra_node;  // any link: only the shape is checked
    dp.nics_per_node = 8;
    job.parallelism.expert_parallel = 16;
    const Topology group = expert_parallel_topology(job, dp);
    CHECK(group.gpus_per_node == 8);
    CHECK(group.nodes == 2);
    const Topology same = expert_data_parallel_topology(job, dp);
    CHECK(same.gpus_per_node == 1);
    CHECK(same.nodes == 2);
    CHECK(same.nics_per_node == 1);  // 8 concurrent groups share the node's 8 NICs
  }
}

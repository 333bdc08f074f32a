// Tensor and sequence parallelism in one rank's step: Megatron's collectives per block, by hand.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../collective/collective_topologies.h"
#include "../test_gpus.h"
#include "nvswitch_node_job.h"
#include "../workload/catalog_models.h"
#include "models/collective/builtin.h"
#include "models/collective/fastest_collective.h"
#include "models/interconnect/interconnect_table.h"
#include "models/memory/parallel_memory.h"
#include "models/memory/sharding.h"
#include "models/step/step_plan.h"
#include "models/step/step_simulation.h"
#include "models/step/tensor_parallel_plan.h"

using namespace gpuplan::models;

namespace {

constexpr double kTokens = 1024.0;  // GPT-2's sequence
constexpr double kHidden = 768.0;
constexpr int kBatch = 8;

/// GPT-2 124M, bf16 AMP, eager attention, synthetic data, on one node of 4 NVSwitch GPUs.
JobSpec gpt2_on_node(int tensor_parallel, bool sequence_parallel) {
  JobSpec job = testing::nvswitch_node_job(testing::build_catalog_model("gpt2"), 4, 32, kBatch, AttentionKernel::kEager);
  job.parallelism.tensor_parallel = tensor_parallel;
  job.parallelism.sequence_parallel = sequence_parallel;
  return job;
}

/// The units of `units` from the one labelled `first` to the one labelled `last`.
std::vector<DispatchUnit> between(const std::vector<DispatchUnit>& units, const std::string& first,
                                  const std::string& last) {
  std::vector<DispatchUnit> out;
  bool in = false;
  for (const DispatchUnit& u : units) {
    if (u.label == first) in = true;
    if (in) out.push_back(u);
    if (u.label == last) break;
  }
  return out;
}

double time_of(Collective c, double bytes, int ranks) {
  Topology group;
  group.gpus_per_node = ranks;
  group.intra_node = intra_node_link("nvlink3_nvswitch");
  return fastest_collective(builtin_collective_registry(), c, bytes, group).time_s;
}

}  // namespace

TEST_SUITE("models.step.tensor_parallel") {
  TEST_CASE("a block's forward: its GEMMs / t plus two all-reduces of s·b·h at 2 B") {
    const StepPlan whole = plan_step(gpt2_on_node(1, false), GpuEfficiency::defaults());
    const StepPlan tp = plan_step(gpt2_on_node(4, false), GpuEfficiency::defaults());
    const std::vector<DispatchUnit> block =
        between(tp.forward, "layers.0.norm1 fwd", "layers.0.mlp.residual fwd");
    // Each all-reduce carries the block's whole bf16 activation: s·b·h·2 B = 1024·8·768·2
    // = 12,582,912 B, over the 4 GPUs of the tensor-parallel group.
    const double bytes = kTokens * kBatch * kHidden * 2.0;
    CHECK(bytes == 12'582'912.0);
    const double all_reduce_s = time_of(Collective::kAllReduce, bytes, 4);
    std::vector<std::string> comm;
    double block_s = 0.0;
    double math_s = 0.0;
    for (const DispatchUnit& u : block) {
      block_s += u.gpu_s;
      if (u.communication) {
        comm.push_back(u.label);
        CHECK(u.gpu_s == doctest::Approx(all_reduce_s));
      } else {
        math_s += u.gpu_s;
      }
    }
    CHECK(comm == std::vector<std::string>{"layers.0.attn.out fwd all_reduce (tensor parallel)",
                                           "layers.0.mlp.down fwd all_reduce (tensor parallel)"});
    CHECK(block_s == doctest::Approx(math_s + 2.0 * all_reduce_s));
    // The column-parallel qkv GEMM does a quarter of the FLOP and the time: (2·s·b·h·3h +
    // s·b·3h for the bias) / 4 = (28,991,029,248 + 18,874,368) / 4 = 7,252,475,904.
    const auto qkv = between(tp.forward, "layers.0.attn.qkv fwd", "layers.0.attn.qkv fwd");
    const auto whole_qkv = between(whole.forward, "layers.0.attn.qkv fwd", "layers.0.attn.qkv fwd");
    REQUIRE(qkv.size() == 1);
    REQUIRE(whole_qkv.size() == 1);
    CHECK(qkv[0].flop == doctest::Approx(7'252'475'904.0));
    CHECK(qkv[0].gpu_s == doctest::Approx(whole_qkv[0].gpu_s / 4.0).epsilon(0.05));
    // The model FLOP of a rank is a quarter of the model's (MFU's numerator per GPU).
    CHECK(tp.model_flop_per_step == doctest::Approx(whole.model_flop_per_step / 4.0));
    // 4 GPUs in one tensor-parallel group: one data-parallel rank, no DDP buckets.
    CHECK(tp.comm.buckets.empty());
  }

  TEST_CASE("backward all-reduces the input gradients of the column-parallel linears") {
    const StepPlan tp = plan_step(gpt2_on_node(4, false), GpuEfficiency::defaults());
    const std::vector<DispatchUnit> block =
        between(tp.backward, "layers.0.mlp.residual bwd", "layers.0.norm1 bwd");
    std::vector<std::string> comm;
    for (const DispatchUnit& u : block) {
      if (u.communication) comm.push_back(u.label);
    }
    CHECK(comm == std::vector<std::string>{"layers.0.mlp.up bwd all_reduce (tensor parallel)",
                                           "layers.0.attn.qkv bwd all_reduce (tensor parallel)"});
  }

  TEST_CASE("sequence parallelism: an all-gather and a reduce-scatter of the same bytes per all-reduce") {
    const StepPlan sp = plan_step(gpt2_on_node(4, true), GpuEfficiency::defaults());
    const double bytes = kTokens * kBatch * kHidden * 2.0;
    std::vector<std::string> comm;
    double comm_s = 0.0;
    for (const DispatchUnit& u : between(sp.forward, "layers.0.norm1 fwd", "layers.0.mlp.residual fwd")) {
      if (!u.communication) continue;
      comm.push_back(u.label);
      comm_s += u.gpu_s;
    }
    CHECK(comm == std::vector<std::string>{"layers.0.attn.qkv fwd all_gather (tensor parallel)",
                                           "layers.0.attn.out fwd reduce_scatter (tensor parallel)",
                                           "layers.0.mlp.up fwd all_gather (tensor parallel)",
                                           "layers.0.mlp.down fwd reduce_scatter (tensor parallel)"});
    CHECK(comm_s == doctest::Approx(2.0 * time_of(Collective::kAllGather, bytes, 4) +
                                    2.0 * time_of(Collective::kReduceScatter, bytes, 4)));
  }

  TEST_CASE("the collectives are on the critical path of the simulated step") {
    const StepPlan tp = plan_step(gpt2_on_node(4, false), GpuEfficiency::defaults());
    double comm_s = 0.0;
    double gpu_s = 0.0;
    for (const auto* units : {&tp.forward, &tp.backward, &tp.optimizer}) {
      for (const DispatchUnit& u : *units) {
        gpu_s += u.gpu_s;
        if (u.communication) comm_s += u.gpu_s;
      }
    }
    // Per layer 2 + 2 all-reduces, the embedding's in forward, the head's in backward: 50.
    CHECK(comm_s == doctest::Approx(50.0 * time_of(Collective::kAllReduce, kTokens * kBatch * kHidden * 2.0, 4)));
    const StepStats s = simulate_steps(tp);
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(comm_s).epsilon(1e-6));
    CHECK(s.breakdown.step_time_s >= gpu_s);
  }

  TEST_CASE("DDP over the data-parallel group: 8 GPUs at t = 2 all-reduce over 4") {
    JobSpec job = gpt2_on_node(2, false);
    job.hardware.gpus_per_node = 8;
    job.hardware.topology.gpus_per_node = 8;
    CHECK(data_parallel_topology(job).ranks() == 4);
    const StepPlan plan = plan_step(job, GpuEfficiency::defaults());
    CHECK(plan.comm.ranks == 4);
    double bucket_bytes = 0.0;
    for (const GradientBucket& b : plan.comm.buckets) bucket_bytes += b.bytes;
    // fp32 gradients of the rank's shard (wte / 2, layers' linears / 2, norms and wpe whole).
    CHECK(bucket_bytes == doctest::Approx(rank_workload(job).parameters * 4.0));
    CHECK(rank_workload(job).parameters < 0.6 * job.workload.parameters);
  }

  TEST_CASE("TP x FSDP: each unit's rank shard gathered and reduced over the data-parallel group") {
    // GPT-2 at t = 2 on 8 GPUs with FSDP full_shard: 4 data-parallel ranks share each
    // tensor-parallel shard. A layer's shard holds 3,072 norm parameters whole and half of
    // its 7,084,800 linear parameters: 3,545,472 (models.workload.tensor_parallel_shard),
    // gathered in bf16 (7,090,944 B) and reduce-scattered in fp32 (14,181,888 B) over 4 GPUs.
    JobSpec job = gpt2_on_node(2, false);
    job.hardware.gpus_per_node = 8;
    job.hardware.topology.gpus_per_node = 8;
    job.parallelism.strategy = ParallelStrategy::kFsdp;
    const StepPlan plan = plan_step(job, GpuEfficiency::defaults());
    CHECK(plan.comm.ranks == 4);
    const ShardedUnitComm* layer = nullptr;
    for (const ShardedUnitComm& u : plan.comm.units) {
      if (u.name == "layers.0") layer = &u;
    }
    REQUIRE(layer != nullptr);
    CHECK(layer->parameter_bytes == 7'090'944.0);
    CHECK(layer->forward_all_gather_s == doctest::Approx(time_of(Collective::kAllGather, 7'090'944.0, 4)));
    CHECK(layer->backward_all_gather_s == doctest::Approx(layer->forward_all_gather_s));
    CHECK(layer->gradient_reduce_s == doctest::Approx(time_of(Collective::kReduceScatter, 14'181'888.0, 4)));
    // The unit spans the block's kernels and its tensor-parallel all-reduces.
    CHECK(plan.forward[layer->forward_begin].label == "layers.0.norm1 fwd");
    CHECK(plan.forward[layer->forward_end - 1].label == "layers.0.mlp.residual fwd");
    CHECK(plan.backward[layer->backward_begin].label == "layers.0.mlp.residual bwd");
    CHECK(plan.backward[layer->backward_end - 1].label == "layers.0.norm1 bwd");
    int tp_collectives = 0;
    for (std::size_t i = layer->forward_begin; i < layer->forward_end; ++i) tp_collectives += plan.forward[i].communication;
    for (std::size_t i = layer->backward_begin; i < layer->backward_end; ++i) {
      tp_collectives += plan.backward[i].communication;
    }
    CHECK(tp_collectives == 4);  // two all-reduces in forward, two in backward
    // The simulated step: the tensor-parallel collectives stay on the critical path; FSDP's
    // gathers and reduce-scatters run beside compute on the communication stream.
    double tp_s = 0.0;
    double stream_s = 0.0;  // every unit of the compute stream, one after another
    for (const auto* units : {&plan.forward, &plan.backward, &plan.optimizer}) {
      for (const DispatchUnit& u : *units) {
        tp_s += u.communication ? u.gpu_s : 0.0;
        stream_s += u.gpu_s;
      }
    }
    const StepStats step = simulate_steps(plan);
    CHECK(step.breakdown.communication_exposed_s >= tp_s * (1.0 - 1e-9));
    CHECK(step.breakdown.step_time_s >= stream_s * (1.0 - 1e-9));
  }

  TEST_CASE("TP x FSDP with the node's GPUs in one tensor-parallel group: FSDP runs over the network") {
    // t = 4 fills each node of 4 GPUs; 2 nodes: the data-parallel group is one GPU per node,
    // each of the node's 4 groups on a quarter of its 8 NICs (2 NICs of 200 Gbit/s).
    JobSpec job = gpt2_on_node(4, false);
    job.hardware.nodes = 2;
    job.hardware.topology = testing::ib_cluster(2, 4);
    job.parallelism.strategy = ParallelStrategy::kFsdp;
    const Topology group = data_parallel_topology(job);
    CHECK(group.gpus_per_node == 1);
    CHECK(group.nodes == 2);
    CHECK(group.nics_per_node == 2);
    const StepPlan plan = plan_step(job, GpuEfficiency::defaults());
    CHECK(plan.comm.ranks == 2);
    CHECK(sharding_layout(job).shard_ranks == 2);
    // A layer's shard at t = 4: 1,774,272 parameters, 3,548,544 B gathered in bf16.
    const ShardedUnitComm& layer = plan.comm.units[1];
    CHECK(layer.name == "layers.0");
    CHECK(layer.parameter_bytes == 3'548'544.0);
    CHECK(layer.forward_all_gather_s ==
          doctest::Approx(
              fastest_collective(builtin_collective_registry(), Collective::kAllGather, 3'548'544.0, group).time_s));
    // The optimizer updates the rank's shard of its tensor-parallel shard: 31,728,576 / 2.
    CHECK(rank_workload(job).parameters == 31'728'576.0);
  }

  TEST_CASE("AsyncTP's closed form: the collective less what (t - 1) / t of its GEMM hides") {
    // t = 4, a collective of 3 ms beside a GEMM of 2 ms: 3 - 2 x 3/4 = 1.5 ms shows; the
    // pair takes max(G, C + G / t) = 3.5 ms. A 1 ms collective beside it hides entirely.
    CHECK(async_exposed_s(4, 3e-3, 2e-3) == doctest::Approx(1.5e-3));
    CHECK(async_exposed_s(4, 1e-3, 2e-3) == 0.0);
    CHECK(async_exposed_s(1, 1e-3, 2e-3) == doctest::Approx(1e-3));
  }

  TEST_CASE("AsyncTP: each all-gather and reduce-scatter of a linear decomposed with its GEMM") {
    JobSpec job = gpt2_on_node(4, true);
    job.parallelism.async_tensor_parallel = true;
    const StepPlan sp = plan_step(gpt2_on_node(4, true), GpuEfficiency::defaults());
    const StepPlan async = plan_step(job, GpuEfficiency::defaults());
    const double bytes = kTokens * kBatch * kHidden * 2.0;
    const auto qkv = between(async.forward, "layers.0.attn.qkv fwd", "layers.0.attn.qkv fwd");
    const auto gather =
        between(async.forward, "layers.0.attn.qkv fwd all_gather (tensor parallel) async",
                "layers.0.attn.qkv fwd all_gather (tensor parallel) async");
    REQUIRE(qkv.size() == 1);
    REQUIRE(gather.size() == 1);
    CHECK(gather[0].gpu_s == doctest::Approx(async_exposed_s(4, time_of(Collective::kAllGather, bytes, 4), qkv[0].gpu_s)));
    const auto down = between(async.forward, "layers.0.mlp.down fwd", "layers.0.mlp.down fwd");
    const auto scatter = between(async.forward, "layers.0.mlp.down fwd reduce_scatter (tensor parallel) async",
                                 "layers.0.mlp.down fwd reduce_scatter (tensor parallel) async");
    REQUIRE(scatter.size() == 1);
    CHECK(scatter[0].gpu_s ==
          doctest::Approx(async_exposed_s(4, time_of(Collective::kReduceScatter, bytes, 4), down[0].gpu_s)));
    // The embedding's reduce-scatter has no GEMM to hide behind: as without AsyncTP.
    const auto embed = between(async.forward, "embed.tokens fwd reduce_scatter (tensor parallel)",
                               "embed.tokens fwd reduce_scatter (tensor parallel)");
    REQUIRE(embed.size() == 1);
    CHECK(embed[0].gpu_s == doctest::Approx(time_of(Collective::kReduceScatter, bytes, 4)));
    double sp_comm = 0.0;
    double async_comm = 0.0;
    for (const DispatchUnit& u : sp.forward) sp_comm += u.communication ? u.gpu_s : 0.0;
    for (const DispatchUnit& u : async.forward) async_comm += u.communication ? u.gpu_s : 0.0;
    CHECK(async_comm < sp_comm);
  }

  TEST_CASE("TP across nodes: a group of 2 whole nodes all-reduces over the network") {
    // Llama 3 8B (32 heads, 8 key/value heads) at t = 8 on 2 nodes of 4 GPUs: each group
    // fills both nodes and has all 8 NICs of each; its all-reduce of s·b·h x 2 B (8,192 x 1 x
    // 4,096 x 2 = 67,108,864 B) is priced on that two-node topology.
    JobSpec job = gpt2_on_node(8, false);
    job.workload = testing::build_catalog_model("llama3-8b");
    job.training.batch_size = 1;
    job.hardware.nodes = 2;
    job.hardware.topology = testing::ib_cluster(2, 4);
    const Topology group = tensor_parallel_topology(job);
    CHECK(group.gpus_per_node == 4);
    CHECK(group.nodes == 2);
    CHECK(group.nics_per_node == 8);
    const StepPlan plan = plan_step(job, GpuEfficiency::defaults());
    const auto out = between(plan.forward, "layers.0.attn.out fwd all_reduce (tensor parallel)",
                             "layers.0.attn.out fwd all_reduce (tensor parallel)");
    REQUIRE(out.size() == 1);
    const double across = fastest_collective(builtin_collective_registry(), Collective::kAllReduce, 67'108'864.0,
                                             group).time_s;
    CHECK(out[0].gpu_s == doctest::Approx(across));
    // The group has the nodes' NICs: with one NIC per node the same all-reduce is slower.
    Topology one_nic = group;
    one_nic.nics_per_node = 1;
    CHECK(across < fastest_collective(builtin_collective_registry(), Collective::kAllReduce, 67'108'864.0, one_nic)
                       .time_s);
    // 8 GPUs in one group: one replica, no data-parallel group.
    CHECK(plan.comm.buckets.empty());
  }
}

// The layouts `gpuplan plan` tries (cli/layout_search.h): counts computed by hand, the
// validity rules, and the overrides a layout writes.
#include "cli/layout_search.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

using namespace gpuplan;

namespace {
std::size_t count_if(const std::vector<cli::Layout>& layouts, const std::string& dp, int tp) {
  std::size_t n = 0;
  for (const cli::Layout& l : layouts) n += l.data_parallel_label() == dp && l.tensor_parallel == tp ? 1 : 0;
  return n;
}
cli::LayoutProblem problem(int gpus_per_node, int nodes, int heads, int kv_heads, long long global_batch) {
  cli::LayoutProblem p;
  p.gpus_per_node = gpus_per_node;
  p.nodes = nodes;
  p.heads = heads;
  p.kv_heads = kv_heads;
  p.global_batch_samples = global_batch;
  return p;
}
}  // namespace

TEST_SUITE("cli.layout_search") {
  TEST_CASE("a layout needing more than kPlanMaxAccumulation micro-batches is not tried, and counted") {
    // 1 node x 8 GPUs, global batch 65,536; ddp without tensor parallelism: 8 ranks of 8,192
    // samples, so micro-batch 1 would take 8,192 micro-batches (skipped), 2 takes 4,096 (kept).
    cli::LayoutProblem p = problem(8, 1, 64, 8, 65536);
    std::size_t skipped = 0;
    const std::vector<cli::Layout> layouts = cli::enumerate_layouts(p, &skipped);
    for (const cli::Layout& l : layouts) CHECK(l.gradient_accumulation <= cli::kPlanMaxAccumulation);
    bool micro2_tp1 = false;
    for (const cli::Layout& l : layouts) {
      micro2_tp1 = micro2_tp1 || (l.data_parallel_label() == "ddp" && l.tensor_parallel == 1 && l.micro_batch == 2 &&
                                  l.gradient_accumulation == 4096);
    }
    CHECK(micro2_tp1);
    CHECK(count_if(layouts, "ddp", 1) == 5 * 3);  // micro-batch 2-32, x 3 recomputation choices
    // Skipped (micro-batches above 4,096): ddp at TP 1/2/4/8 has 8/4/2/1 ranks of
    // 8,192/16,384/32,768/65,536 samples, so micro-batch 1; 1-2; 1-4; 1-8: 1 + 2 + 3 + 4 = 10;
    // the five sharded choices of one node (not hybrid_shard) need 2+ ranks (not TP 8): 5 x 6.
    CHECK(skipped == 10 + 5 * 6);
    // At 64 nodes (512 GPUs, 128 samples per ddp rank) nothing is skipped.
    std::size_t none = 0;
    cli::enumerate_layouts(problem(8, 64, 64, 8, 65536), &none);
    CHECK(none == 0);
  }

  TEST_CASE("2 nodes x 8 GPUs, 64 heads (8 key/value), global batch 64: 324 layouts, counted by hand") {
    const std::vector<cli::Layout> layouts = cli::enumerate_layouts(problem(8, 2, 64, 8, 64));
    // ddp, TP 1/2/4/8: 16/8/4/2 data-parallel ranks of 4/8/16/32 samples; the micro-batches
    // of {1,2,4,8,16,32} dividing them: 3, 4, 5, 6; x 3 recomputation choices.
    CHECK(count_if(layouts, "ddp", 1) == 9);
    CHECK(count_if(layouts, "ddp", 2) == 12);
    CHECK(count_if(layouts, "ddp", 4) == 15);
    CHECK(count_if(layouts, "ddp", 8) == 18);
    // The six sharded choices (hybrid_shard too: 2 nodes) shard the ranks TP leaves, as ddp
    // has them (torchtitan's 2-D FSDP + TP); hybrid_shard needs 2 ranks inside a node, so not TP 8.
    for (const char* dp : {"fsdp/full_shard", "fsdp/hybrid_shard", "fsdp/shard_grad_op", "zero-1", "zero-2", "zero-3"}) {
      CAPTURE(dp);
      CHECK(count_if(layouts, dp, 1) == 9);
      CHECK(count_if(layouts, dp, 2) == 12);
      CHECK(count_if(layouts, dp, 4) == 15);
      CHECK(count_if(layouts, dp, 8) == (std::string(dp) == "fsdp/hybrid_shard" ? 0 : 18));
    }
    CHECK(layouts.size() == 54 + 6 * 54 - 18);
    for (const cli::Layout& l : layouts) {
      // Megatron's distributed optimizer under ddp only: FSDP and ZeRO shard the states themselves.
      CHECK(l.distributed_optimizer() == (l.data_parallel.strategy == "ddp" && l.tensor_parallel > 1));
      CHECK(l.sequence_parallel() == (l.tensor_parallel > 1));
    }
    for (const cli::Layout& l : layouts) {
      const int ranks = 16 / l.tensor_parallel;
      CHECK(l.micro_batch * l.gradient_accumulation * ranks == 64);  // the global batch is kept
      CHECK(l.pipeline_parallel == 1);
    }
  }

  TEST_CASE("8 decoder layers on 2 x 8 GPUs: pipeline stages 1/2/4/8 under ddp and fsdp full_shard: 753 layouts") {
    cli::LayoutProblem p = problem(8, 2, 64, 8, 64);
    p.layers = 8;
    const std::vector<cli::Layout> layouts = cli::enumerate_layouts(p);
    // ddp, (TP, PP) with TP x PP dividing 16 and PP dividing 8 layers (16 stages do not):
    // TP x PP = 1: (1,1); 2: (1,2) (2,1); 4: three pairs; 8: four; 16: (2,8) (4,4) (8,2).
    // TP x PP = 1/2/4/8/16 leaves 16/8/4/2/1 ranks of 4/8/16/32/64 samples: 3/4/5/6/6
    // micro-batches. (1x3 + 2x4 + 3x5 + 4x6 + 3x6) x 3 recomputation choices = 204; the six
    // sharded choices keep their 9 + 12 + 15 + 18 at TP 1, 2, 4, 8 (PP 1; hybrid_shard not
    // at TP 8): 6 x 54 - 18 = 306.
    // Interleaved with 2 virtual stages where 2 x PP divides the 8 layers (PP 2 or 4) and the
    // accumulation is a multiple of PP: (TP, PP) = (1,2): accumulations 8/4/2 of {8,4,2,1};
    // (1,4): 16/8/4; (2,2): 16/8/4/2; (2,4): 32/16/8/4; (4,2): 32/16/8/4/2; (4,4): 64/32/16/8/4;
    // (8,2): all six. (3 + 3 + 4 + 4 + 5 + 5 + 6) x 3 = 90.
    // fsdp full_shard also runs under a pipeline (as the distributed optimizer's layout;
    // config/scenario_model_parallel.cpp check_sharded_pipeline), where TP x PP leaves 2+ ranks
    // to shard over: ddp's 150 1F1B pipeline layouts less the 54 of TP x PP = 16 (3 pairs x 6
    // micro-batches x 3), 96; and its interleaved ones less (4,4) and (8,2): (3 + 3 + 4 + 4 + 5)
    // x 3 = 57: 153. shard_grad_op and zero-1, accepted there too, would repeat the jobs of
    // full_shard and ddp (runs_under_pipeline); hybrid_shard, zero-2 and zero-3 are refused.
    CHECK(layouts.size() == 204 + 306 + 90 + 153);
    std::size_t pipelined = 0;
    std::size_t interleaved = 0;
    std::size_t sharded_pipelined = 0;
    for (const cli::Layout& l : layouts) {
      CHECK(l.context_parallel == 1);  // no sequence length given: no context parallelism
      if (l.pipeline_parallel == 1) {
        CHECK(l.virtual_stages == 1);
        continue;
      }
      if (l.data_parallel.strategy != "ddp") {
        const std::string label = l.data_parallel_label();
        CHECK(label == "fsdp/full_shard");
        CHECK(16 / (l.tensor_parallel * l.pipeline_parallel) >= 2);
        CHECK_FALSE(l.distributed_optimizer());  // the strategy itself, not the ddp key
        ++sharded_pipelined;
        continue;
      }
      ++pipelined;
      CHECK(8 % l.pipeline_parallel == 0);
      const int ranks = 16 / (l.tensor_parallel * l.pipeline_parallel);
      CHECK(l.micro_batch * l.gradient_accumulation * ranks == 64);
      if (l.virtual_stages == 1) continue;
      ++interleaved;
      CHECK(l.virtual_stages == 2);
      CHECK(8 % (2 * l.pipeline_parallel) == 0);
      CHECK(l.gradient_accumulation % l.pipeline_parallel == 0);
      CHECK(l.pipeline_schedule() == "interleaved_1f1b");
    }
    CHECK(pipelined == 204 - 54 + 90);
    CHECK(interleaved == 90);
    CHECK(sharded_pipelined == 153);
    // No CPU offload under a pipeline (the validator refuses it there).
    cli::Layout zero1_pipeline;
    zero1_pipeline.data_parallel = {"zero", "", 1};
    zero1_pipeline.pipeline_parallel = 2;
    CHECK(cli::offloaded_layouts(zero1_pipeline).empty());
    zero1_pipeline.pipeline_parallel = 1;
    CHECK(cli::offloaded_layouts(zero1_pipeline).size() == 1);
  }

  TEST_CASE("32 layers, 32 heads, sequence 8,192, fused attention on 2 x 8 GPUs, global batch 64: context parallel "
            "counted by hand") {
    cli::LayoutProblem p = problem(8, 2, 32, 0, 64);
    p.layers = 32;
    p.sequence_tokens = 8192;
    p.fused_attention = true;
    p.selective_recompute = false;  // fused attention: recompute false or full
    const std::vector<cli::Layout> layouts = cli::enumerate_layouts(p);
    // CP 4 and 8 would keep 2,048 and 1,024 tokens a rank, below kMinContextParallelTokens: not
    // tried. CP 2: 8,192 is a multiple of 4; TP x 2 (2..16 GPUs) divides or fills the 8-GPU nodes; TP
    // x PP x 2 must divide 16, so TP x PP <= 8 (all PP divide 32 layers), leaving 8 / (TP x PP)
    // replicas of 64 / replicas samples. (TP, PP) by product: 1 (1,1) 8 samples, 4
    // micro-batches; 2 (1,2) (2,1) 16 samples, 5; 4 (1,4) (2,2) (4,1) 32 samples, 6; 8 (1,8)
    // (2,4) (4,2) (8,1) 64 samples, 6.
    // Without a pipeline: 4 + 5 + 6 + 6 = 21. With one (1F1B): 5 + 6 + 6 + 3 x 6 = 35.
    // Interleaved (2 x PP divides 32; accumulation a multiple of PP): (1,2) 16/8/4/2 of
    // 16..1: 4; (1,4) 32/16/8/4: 4; (2,2) 32..2: 5; (1,8) 64/32/16/8: 4; (2,4) 64..4: 5;
    // (4,2) 64..2: 6: 28.
    // ddp, fsdp full_shard: 21 + 35 + 28 = 84 each (TP x PP <= 8 leaves 2+ ranks to shard
    // over); shard_grad_op, zero-1, zero-2, zero-3: no pipeline, 21 each; hybrid_shard: no
    // pipeline, TP <= 4 (2 ranks in a node): 4 + 5 + 6 = 15. 2 x 84 + 4 x 21 + 15 = 267,
    // x 2 recomputation choices = 534.
    std::size_t cp2 = 0;
    for (const cli::Layout& l : layouts) cp2 += l.context_parallel == 2 ? 1 : 0;
    CHECK(cp2 == 534);
    // CP 1: TP x PP up to 16 leaves 16 / (TP x PP) replicas: products 1, 2, 4, 8, 16 with 1, 2,
    // 3, 4, 4 pairs and 3, 4, 5, 6, 6 micro-batches. ddp: no pipeline 3 + 4 + 5 + 6 = 18; 1F1B
    // 4 + 2 x 5 + 3 x 6 + 4 x 6 = 56; interleaved (1,2) 3, (1,4) 3, (2,2) 4, (1,8) 3, (2,4) 4,
    // (4,2) 5, (1,16) 3, (2,8) 4, (4,4) 5, (8,2) 6 = 40: 114. fsdp full_shard (products up to
    // 8): 18 + 32 + 22 = 72; shard_grad_op, zero-1, zero-2, zero-3 18 each; hybrid_shard 3 + 4 +
    // 5 = 12. 114 + 72 + 4 x 18 + 12 = 270, x 2 = 540.
    CHECK(layouts.size() == 540 + 534);
    bool fsdp_pp2 = false;
    bool zero2_pp2 = false;
    for (const cli::Layout& l : layouts) {
      const int c = l.context_parallel;
      CHECK(8192 % (2 * c) == 0);
      CHECK(16 % (l.tensor_parallel * l.pipeline_parallel * c) == 0);
      const int replicas = 16 / (l.tensor_parallel * l.pipeline_parallel * c);
      CHECK(l.micro_batch * l.gradient_accumulation * replicas == 64);  // the global batch is kept
      CHECK(l.distributed_optimizer() ==
            (l.data_parallel.strategy == "ddp" && (l.tensor_parallel > 1 || l.pipeline_parallel > 1 || c > 1)));
      fsdp_pp2 = fsdp_pp2 || (l.data_parallel_label() == "fsdp/full_shard" && l.pipeline_parallel == 2);
      zero2_pp2 = zero2_pp2 || (l.data_parallel_label() == "zero-2" && l.pipeline_parallel == 2);
    }
    CHECK(fsdp_pp2);
    CHECK_FALSE(zero2_pp2);
    // 32,768 tokens: CP 8 keeps 4,096 a rank. Beside TP 2 it fills 2 whole nodes: TP x CP =
    // 16, no pipeline.
    p.sequence_tokens = 32768;
    std::size_t tp2_cp8 = 0;
    for (const cli::Layout& l : cli::enumerate_layouts(p)) {
      if (l.context_parallel != 8 || l.tensor_parallel != 2) continue;
      ++tp2_cp8;
      CHECK(l.pipeline_parallel == 1);
    }
    // One replica of 64 samples: 6 micro-batches x 2 recomputation choices, under each of the 7
    // strategies (the sharded ones shard over 16 / TP = 8 data x context ranks; hybrid_shard
    // keeps 4 of them in a node): 7 x 12.
    CHECK(tp2_cp8 == 7 * 12);
    // 16,388 tokens are a multiple of 4, not of 8: CP 2 only (CP 4 would keep 4,097 a rank).
    // Eager attention: none.
    p.sequence_tokens = 16388;
    std::size_t above2 = 0;
    cp2 = 0;
    for (const cli::Layout& l : cli::enumerate_layouts(p)) {
      cp2 += l.context_parallel == 2 ? 1 : 0;
      above2 += l.context_parallel > 2 ? 1 : 0;
    }
    CHECK(cp2 == 534);
    CHECK(above2 == 0);
    p.sequence_tokens = 8192;
    p.fused_attention = false;
    for (const cli::Layout& l : cli::enumerate_layouts(p)) CHECK(l.context_parallel == 1);
  }

  TEST_CASE("a context-parallel layout writes parallelism.context_parallel, and counts its replicas") {
    cli::Layout l;
    l.data_parallel = {"fsdp", "full_shard", 0};
    const auto value_of = [](const cli::Layout& layout, const std::string& path) {
      for (const models::ScenarioOverride& o : layout.overrides()) {
        if (o.path == path) return o.value;
      }
      return std::string("(absent)");
    };
    CHECK(value_of(l, "parallelism.context_parallel") == "1");
    l.context_parallel = 4;
    CHECK(value_of(l, "parallelism.context_parallel") == "4");
    CHECK_FALSE(l.distributed_optimizer());  // FSDP shards the state itself
    l.data_parallel = {"ddp", "", 0};
    CHECK(l.distributed_optimizer());  // Megatron's CP over ddp runs its distributed optimizer
    CHECK(value_of(l, "parallelism.distributed_optimizer") == "true");
  }

  TEST_CASE("one node: no hybrid_shard; 2 key/value heads: no TP 4 or 8; one GPU: strategy none") {
    cli::LayoutProblem p = problem(8, 1, 64, 8, 64);
    // ddp: TP 1/2/4/8 over 8/4/2/1 ranks of 8/16/32/64: 4 + 5 + 6 + 6 micro-batches; five
    // sharded choices over the 8/4/2 ranks of TP 1/2/4 (TP 8 leaves one rank: nothing to
    // shard): 4 + 5 + 6 each; x 3.
    CHECK(cli::enumerate_layouts(p).size() == (21 + 5 * 15) * 3);
    CHECK(count_if(cli::enumerate_layouts(p), "zero-3", 8) == 0);
    CHECK(count_if(cli::enumerate_layouts(p), "fsdp/hybrid_shard", 1) == 0);
    p.kv_heads = 2;
    CHECK(count_if(cli::enumerate_layouts(p), "ddp", 4) == 0);
    CHECK(count_if(cli::enumerate_layouts(p), "ddp", 2) == 15);
    p.heads = 0;  // not a transformer: no tensor parallelism
    CHECK(count_if(cli::enumerate_layouts(p), "ddp", 2) == 0);
    p.gpus_per_node = 1;
    const std::vector<cli::Layout> one = cli::enumerate_layouts(p);
    CHECK(one.size() == 6 * 3);  // every micro-batch divides 64
    CHECK(count_if(one, "none", 1) == 18);
    // 3 GPUs do not divide a global batch of 64: nothing keeps it.
    p.gpus_per_node = 3;
    CHECK(cli::enumerate_layouts(p).empty());
  }

  TEST_CASE("a layout's overrides: the keys it does not use are removed") {
    cli::Layout l;
    l.data_parallel = {"zero", "", 2};
    l.micro_batch = 4;
    l.gradient_accumulation = 8;
    l.recompute = "selective";
    std::string text;
    for (const models::ScenarioOverride& o : l.overrides()) text += o.path + "=" + o.value + ";";
    CHECK(text ==
          "parallelism.strategy=zero;parallelism.sharding=~;parallelism.zero_stage=2;parallelism.tensor_parallel=1;"
          "parallelism.sequence_parallel=~;parallelism.distributed_optimizer=~;parallelism.pipeline_parallel=1;"
          "parallelism.pipeline_schedule=~;"
                 "parallelism.virtual_stages=~;parallelism.context_parallel=1;training.batch_size=4;training.gradient_accumulation=8;"
          "training.activation_checkpointing=selective;parallelism.offload=~;");
    CHECK(l.data_parallel_label() == "zero-2");
    // An interleaved pipeline writes its schedule and chunks.
    l.data_parallel = {"ddp", "", 0};
    l.pipeline_parallel = 4;
    l.virtual_stages = 2;
    text.clear();
    for (const models::ScenarioOverride& o : l.overrides()) text += o.path + "=" + o.value + ";";
    CHECK(text.find(";parallelism.pipeline_parallel=4;parallelism.pipeline_schedule=interleaved_1f1b;"
                    "parallelism.virtual_stages=2;") != std::string::npos);
  }

  TEST_CASE("a tensor-parallel layout runs with sequence parallelism, the others leave the key unset") {
    cli::Layout l;
    l.data_parallel = {"ddp", "", 0};
    const auto value_of = [](const cli::Layout& layout, const std::string& path) {
      for (const models::ScenarioOverride& o : layout.overrides()) {
        if (o.path == path) return o.value;
      }
      return std::string("(absent)");
    };
    CHECK_FALSE(l.sequence_parallel());
    CHECK(value_of(l, "parallelism.sequence_parallel") == "~");
    l.tensor_parallel = 2;
    CHECK(l.sequence_parallel());
    CHECK(value_of(l, "parallelism.sequence_parallel") == "true");
    CHECK(value_of(l, "parallelism.tensor_parallel") == "2");
  }

  TEST_CASE("a Megatron layout (ddp with TP, PP, CP or EP > 1) runs the distributed optimizer, the others leave the "
            "key unset") {
    cli::Layout l;
    l.data_parallel = {"ddp", "", 0};
    const auto value_of = [](const cli::Layout& layout) {
      for (const models::ScenarioOverride& o : layout.overrides()) {
        if (o.path == "parallelism.distributed_optimizer") return o.value;
      }
      return std::string("(absent)");
    };
    CHECK(value_of(l) == "~");
    l.pipeline_parallel = 4;
    CHECK(l.distributed_optimizer());
    CHECK(value_of(l) == "true");
    l.pipeline_parallel = 1;
    l.tensor_parallel = 8;
    CHECK(value_of(l) == "true");
    // Expert parallelism alone (a mixture-of-experts model runs TP 1 here): Megatron-Core's,
    // whose MoE recipes pass --use-distributed-optimizer; the validator accepts it.
    l.tensor_parallel = 1;
    l.mixture_of_experts = true;
    l.expert_parallel = 2;
    CHECK(l.distributed_optimizer());
    CHECK(value_of(l) == "true");
    // Plain ddp (every model parallelism 1) stays PyTorch DDP; fsdp / zero never set the key.
    l.expert_parallel = 1;
    CHECK_FALSE(l.distributed_optimizer());
    l.data_parallel = {"zero", "", 1};
    l.pipeline_parallel = 2;
    CHECK(value_of(l) == "~");
  }

  TEST_CASE("a mixture-of-experts model: no TP, expert parallel 1/2/4/8 under ddp only, counted by hand") {
    // 8 experts (Mixtral) on 2 nodes x 8 GPUs, global batch 64: TP is not tried (experts are
    // not split by it here). ddp: 16 ranks of 4 samples, micro-batches 1/2/4 (3), x EP 1/2/4/8
    // (each divides 8 experts and 16 ranks, and the node's 8 GPUs; 16 divides no 8 experts),
    // x 3 recomputation choices: 36. Each sharded choice runs EP 1 only: 3 x 3 = 9.
    cli::LayoutProblem p = problem(8, 2, 32, 8, 64);
    p.experts = 8;
    const std::vector<cli::Layout> layouts = cli::enumerate_layouts(p);
    CHECK(layouts.size() == 36 + 6 * 9);
    std::size_t ep_layouts = 0;
    for (const cli::Layout& l : layouts) {
      CHECK(l.tensor_parallel == 1);
      CHECK(l.mixture_of_experts);
      if (l.expert_parallel > 1) {
        ++ep_layouts;
        CHECK(l.data_parallel.strategy == "ddp");
      }
      CHECK(l.distributed_optimizer() == (l.expert_parallel > 1));
    }
    CHECK(ep_layouts == 3 * 3 * 3);
    // 4 GPUs per node, one node: EP 2/4 (8 does not divide the 4 ranks).
    p.gpus_per_node = 4;
    p.nodes = 1;
    std::size_t max_ep = 0;
    for (const cli::Layout& l : cli::enumerate_layouts(p)) max_ep = std::max<std::size_t>(max_ep, l.expert_parallel);
    CHECK(max_ep == 4);
    // The overrides write the expert count, and remove the scenario's load imbalance at EP 1
    // (the validator wants 2 or more with it); a dense model's layout writes neither key.
    cli::Layout l;
    l.data_parallel = {"ddp", "", 0};
    l.mixture_of_experts = true;
    l.expert_parallel = 1;
    std::string text;
    for (const models::ScenarioOverride& o : l.overrides()) text += o.path + "=" + o.value + ";";
    CHECK(text.find("parallelism.expert_parallel=1;parallelism.expert_load_imbalance=~;") != std::string::npos);
    l.expert_parallel = 4;
    l.pipeline_parallel = 2;
    text.clear();
    for (const models::ScenarioOverride& o : l.overrides()) text += o.path + "=" + o.value + ";";
    CHECK(text.find("parallelism.expert_parallel=4;") != std::string::npos);
    CHECK(text.find("expert_load_imbalance") == std::string::npos);
    // Megatron's distributed optimizer beside expert parallelism (the experts' state over the
    // ranks that hold them: models/memory/distributed_optimizer.h).
    CHECK(l.distributed_optimizer());
    CHECK(text.find("parallelism.distributed_optimizer=true;") != std::string::npos);
    l.mixture_of_experts = false;
    l.expert_parallel = 1;
    text.clear();
    for (const models::ScenarioOverride& o : l.overrides()) text += o.path + "=" + o.value + ";";
    CHECK(text.find("expert") == std::string::npos);
  }

  TEST_CASE("a load imbalance above an expert-parallel size is capped at the size, not refused") {
    // The scenario's imbalance 3 (the busiest rank 3x the mean) cannot hold on 2 ranks: at
    // most every token is on one, 2x. EP 2 writes 2; EP 4 and 8 keep the scenario's 3; EP 1
    // removes it. The same 90 layouts as without an imbalance.
    cli::LayoutProblem p = problem(8, 2, 32, 8, 64);
    p.experts = 8;
    p.expert_load_imbalance = 3.0;
    const std::vector<cli::Layout> layouts = cli::enumerate_layouts(p);
    CHECK(layouts.size() == 36 + 6 * 9);
    std::size_t capped = 0;
    for (const cli::Layout& l : layouts) {
      CHECK(l.expert_load_imbalance_cap == (l.expert_parallel == 2 ? 2 : 0));
      if (l.expert_load_imbalance_cap == 0) continue;
      ++capped;
      std::string text;
      for (const models::ScenarioOverride& o : l.overrides()) text += o.path + "=" + o.value + ";";
      CHECK(text.find("parallelism.expert_parallel=2;parallelism.expert_load_imbalance=2;") != std::string::npos);
    }
    CHECK(capped == 3 * 3);
  }

  TEST_CASE("beside fused attention selective recomputation is not tried: two choices, not three") {
    cli::LayoutProblem p = problem(8, 1, 64, 8, 64);
    const std::size_t all = cli::enumerate_layouts(p).size();
    p.selective_recompute = false;
    const std::vector<cli::Layout> layouts = cli::enumerate_layouts(p);
    CHECK(layouts.size() * 3 == all * 2);
    for (const cli::Layout& l : layouts) CHECK(l.recompute != "selective");
  }

  TEST_CASE("the offloads each strategy offers, and what an offloading layout writes") {
    using cli::Offload;
    CHECK(cli::offload_choices({"ddp", "", 0}).empty());
    CHECK(cli::offload_choices({"none", "", 0}).empty());
    CHECK(cli::offload_choices({"fsdp", "shard_grad_op", 0}).empty());  // FSDP offloads parameters with the optimizer
    CHECK(cli::offload_choices({"fsdp", "full_shard", 0}) == std::vector<Offload>{Offload::kOptimizerAndParameters});
    CHECK(cli::offload_choices({"fsdp", "hybrid_shard", 0}) == std::vector<Offload>{Offload::kOptimizerAndParameters});
    CHECK(cli::offload_choices({"zero", "", 1}) == std::vector<Offload>{Offload::kOptimizer});
    CHECK(cli::offload_choices({"zero", "", 2}) == std::vector<Offload>{Offload::kOptimizer});
    CHECK(cli::offload_choices({"zero", "", 3}) ==
          std::vector<Offload>{Offload::kOptimizer, Offload::kOptimizerAndParameters});
    // enumerate_layouts itself offloads nothing: the planner adds offload where nothing fits.
    for (const cli::Layout& l : cli::enumerate_layouts(problem(8, 2, 64, 8, 64))) CHECK(l.offload == Offload::kNone);
    cli::Layout l;
    l.data_parallel = {"zero", "", 3};
    l.offload = Offload::kOptimizer;
    std::string text;
    for (const models::ScenarioOverride& o : l.overrides()) text += o.path + "=" + o.value + ";";
    CHECK(text.find(";parallelism.offload.optimizer=cpu;parallelism.offload.parameters=none;") != std::string::npos);
    CHECK(l.offload_label() == "optimizer");
    l.offload = Offload::kOptimizerAndParameters;
    text.clear();
    for (const models::ScenarioOverride& o : l.overrides()) text += o.path + "=" + o.value + ";";
    CHECK(text.find(";parallelism.offload.optimizer=cpu;parallelism.offload.parameters=cpu;") != std::string::npos);
    CHECK(l.offload_label() == "optimizer+parameters");
    // One GPU (strategy none) is tried as ZeRO-3 with each of its offloads; ddp offers none.
    cli::Layout one;
    one.data_parallel = {"none", "", 0};
    const std::vector<cli::Layout> tried = cli::offloaded_layouts(one);
    REQUIRE(tried.size() == 2);
    CHECK(tried[0].data_parallel_label() == "zero-3");
    CHECK(tried[0].offload == Offload::kOptimizer);
    CHECK(tried[1].offload == Offload::kOptimizerAndParameters);
    one.data_parallel = {"ddp", "", 0};
    CHECK(cli::offloaded_layouts(one).empty());
  }
}

/// \file activation_recompute_test.cpp
/// Selective recomputation against Korthikanti et al. 2022's per-layer activation formula,
/// {every: N} block marking and memory, and the hardware FLOP that HFU counts.

#include "models/workload/activation_recompute.h"

#include <doctest/doctest.h>

#include "../test_gpus.h"
#include "catalog_models.h"
#include "models/gpu/op_time.h"
#include "models/memory/footprint.h"
#include "models/step/step_plan.h"
#include "../step/nvswitch_node_job.h"

#include <map>
#include <string>

using namespace gpuplan::models;

namespace {
double layer_saved(const Workload& w, int layer) {
  return testing::sum_over(w, "layers." + std::to_string(layer) + ".", [](const Op& op) { return op.saved_elements; });
}
}  // namespace

TEST_SUITE("models.workload.activation_recompute") {
  TEST_CASE("selective: a GPT-2 layer keeps 34·s·h bytes instead of 34·s·h + 5·a·s²") {
    // Korthikanti et al. 2022, eq. 1 and 2 (16-bit, dropout, no tensor parallelism): per
    // sample 17·s·h + 2.5·a·s² elements without recomputation, 17·s·h with selective.
    const double s = 1024.0;
    const double h = 768.0;
    const double a = 12.0;
    const Workload eager = testing::build_catalog_model("gpt2");
    CHECK(layer_saved(eager, 5) == doctest::Approx(17.0 * s * h + 2.5 * a * s * s));
    const Workload selective = with_selective_recompute(eager);
    CHECK(layer_saved(selective, 5) == doctest::Approx(17.0 * s * h));
    // QKᵀ, scale, mask, softmax and dropout run again before the backward; PV does not.
    for (const Op& op : selective.ops) {
      if (op.name.rfind("layers.5.attn.", 0) != 0) continue;
      const bool chain = op.name == "layers.5.attn.scores" || op.name == "layers.5.attn.scale" ||
                         op.name == "layers.5.attn.mask" || op.name == "layers.5.attn.softmax" ||
                         op.name == "layers.5.attn.dropout";
      CHECK_MESSAGE(op.recompute_in_backward == chain, op.name);
    }
    // Hardware FLOP add the replayed chain (QKᵀ 2·s²·h plus the nominal pointwise FLOP);
    // model FLOP stay.
    CHECK(selective.training_flop_per_sample() == doctest::Approx(eager.training_flop_per_sample()));
    const double replay = testing::sum_over(selective, "layers.", [](const Op& op) {
      return op.recompute_in_backward ? op.forward_flop : 0.0;
    });
    CHECK(replay == doctest::Approx(12.0 * (2.0 * s * s * h + a * s * s * (1.0 + 1.0 + 5.0 + 2.0))));
    CHECK(selective.hardware_flop_per_sample(false) - eager.hardware_flop_per_sample(false) ==
          doctest::Approx(replay));
    // A fused-attention or attention-free model has nothing to recompute.
    CHECK_FALSE(has_eager_attention(testing::build_catalog_model("resnet50")));
    CHECK_THROWS_AS(with_selective_recompute(testing::build_catalog_model("resnet50")), std::invalid_argument);
  }

  TEST_CASE("every N checkpoints blocks 0, N, 2N, ...; memory keeps their inputs only") {
    const Workload gpt2 = testing::build_catalog_model("gpt2");
    CHECK(checkpoint_blocks(gpt2) == 12);
    const Workload every2 = with_checkpoint_every(gpt2, 2);
    for (const Op& op : every2.ops) {
      const std::string block = block_of(op);
      const bool marked = block == "layers.0" || block == "layers.2" || block == "layers.10";
      if (marked) CHECK_MESSAGE(op.checkpointed, op.name);
      if (block == "layers.1" || block == "layers.11" || block.empty()) CHECK_FALSE(op.checkpointed);
    }
    TrainingSpec t;
    t.batch_size = 2;
    t.precision = Precision::kBf16Amp;
    const MemoryModelParams params = MemoryModelParams::defaults();
    const MemoryBreakdown none = training_memory(gpt2, t, params);
    const MemoryBreakdown half = training_memory(every2, t, params);
    TrainingSpec full_t = t;
    full_t.activation_checkpointing = true;
    const MemoryBreakdown full = training_memory(gpt2, full_t, params);
    // With B a block's saves and I its input (bytes), NB the rest: none = NB + 12·B,
    // full = NB + 12·I + B, every 2 = NB + 6·B + 6·I + B = (none + full) / 2 + B / 2.
    const double block_bytes = 2.0 * testing::sum_over(gpt2, "layers.0.", [](const Op& op) {
      return op.saved_elements * (op.autocast_fp32 ? 4.0 : 2.0);
    });
    CHECK(half.activations_bytes ==
          doctest::Approx((none.activations_bytes + full.activations_bytes) / 2.0 + block_bytes / 2.0));
    CHECK(half.activations_bytes < none.activations_bytes);
    // every 1 is full checkpointing for the memory model.
    CHECK(training_memory(with_checkpoint_every(gpt2, 1), t, params).activations_bytes ==
          doctest::Approx(full.activations_bytes));
    CHECK_THROWS_AS(with_checkpoint_every(gpt2, 0), std::invalid_argument);
  }

  TEST_CASE("a recomputed op replays its forward before its backward, at a forward's dispatch") {
    // torch.utils.checkpoint's backward runs the module's Python forward again: the replayed
    // kernels are the forward's, dispatched at the forward's host cost (40 us x 1.5 under
    // autocast), not autograd's (15 us x 1.5). Full checkpointing replays the blocks only;
    // embedding, final norm, head and loss keep their activations (footprint.cpp).
    const GpuEfficiency e = GpuEfficiency::defaults();
    const auto units = [](const StepPlan& plan) {
      std::map<std::string, DispatchUnit> by_label;
      for (const DispatchUnit& u : plan.forward) by_label[u.label] = u;
      for (const DispatchUnit& u : plan.backward) by_label[u.label] = u;
      return by_label;
    };
    JobSpec full = testing::nvswitch_node_job(testing::build_catalog_model("gpt2"), 1, 8, 4, AttentionKernel::kEager);
    full.training.activation_checkpointing = true;
    JobSpec every1 = full;
    every1.training.activation_checkpointing = false;
    every1.workload = with_checkpoint_every(every1.workload, 1);
    JobSpec none = every1;
    none.workload = testing::build_catalog_model("gpt2");
    for (const JobSpec* job : {&full, &every1}) {
      const auto u = units(plan_step(*job, e));
      REQUIRE(u.count("layers.0.mlp.up recompute") == 1);
      const DispatchUnit& fwd = u.at("layers.0.mlp.up fwd");
      const DispatchUnit& replay = u.at("layers.0.mlp.up recompute");
      CHECK(replay.gpu_s == doctest::Approx(fwd.gpu_s));
      CHECK(replay.flop == doctest::Approx(fwd.flop));
      CHECK(replay.dispatch_s == doctest::Approx(fwd.dispatch_s));
      CHECK(fwd.dispatch_s == doctest::Approx(3.0 * 40e-6 * 1.5));  // weight cast, GEMM, bias
      CHECK(u.count("lm_head recompute") == 0);
      CHECK(u.count("embed.tokens recompute") == 0);
      CHECK(u.count("embed.tokens fwd") == 1);
      CHECK(u.count("lm_head fwd") == 1);
      for (const auto& entry : u) {  // not a structured binding: clang cannot capture one in CHECK_MESSAGE
        const std::string& label = entry.first;
        const bool replayed_loss = label.find("loss") != std::string::npos && label.find("recompute") != std::string::npos;
        CHECK_MESSAGE(!replayed_loss, label);
      }
    }
    // The replay adds the blocks' forward FLOP to the hardware FLOP, the head's not.
    CHECK(full.workload.hardware_flop_per_sample(true) - full.workload.hardware_flop_per_sample(false) ==
          doctest::Approx(testing::sum_over(full.workload, "layers.", [](const Op& op) { return op.forward_flop; })));
    CHECK(units(plan_step(none, e)).count("layers.0.mlp.up recompute") == 0);
  }
}

/// \file layout_scale_bench.cpp
/// Model-parallel scale (issue 12 item 5): the 70 B pretraining scenario
/// (scenarios/llama3-70b-pretrain-plan.yaml) in one Megatron layout, tensor parallel 8 (sequence
/// parallel) x pipeline parallel 4 (1F1B) x data parallel (DDP with the distributed
/// optimizer), micro-batch 1 x 16 micro-batches per step, no recomputation, on 8 nodes (64 GPUs, DP 2) up to
/// 2,048 nodes (16,384 GPUs, DP 512) of 8 H100 SXM with 8 x 400 Gbit/s InfiniBand each. The
/// per-rank work is held fixed (the global batch grows with DP), so only the data-parallel
/// exchange changes; one rank per distinct role is simulated, so the cost should stay flat.
/// Reported, not asserted.

#include <fmt/format.h>

#include <string>
#include <vector>

#include "bench_clock.h"
#include "cli/app_context.h"
#include "config/scenario_loader.h"
#include "config/variant_validator.h"
#include "models/run/run_variant.h"

using namespace gpuplan;

void bench_layout_scale() {
  const cli::AppContext context = cli::load_context(cli::default_catalog_dir(), {});
  const config::Scenario s = config::load_scenario(
      std::string(GPUPLAN_SOURCE_DIR) + "/scenarios/llama3-70b-pretrain-plan.yaml", context.catalogs, context.families);
  config::VariantValidator validator(s, s.variants.front(), context.catalogs, context.families);
  for (const int nodes : {8, 64, 512, 2048}) {
    const std::vector<models::ScenarioOverride> layout = {
        {"hardware.nodes", std::to_string(nodes)},
        {"parallelism.strategy", "ddp"},
        {"parallelism.sharding", "~"},
        {"parallelism.tensor_parallel", "8"},
        {"parallelism.sequence_parallel", "true"},
        {"parallelism.distributed_optimizer", "true"},
        {"parallelism.pipeline_parallel", "4"},
        {"training.batch_size", "1"},
        {"training.gradient_accumulation", "16"},
        {"training.activation_checkpointing", "false"},
    };
    config::OverriddenJob j = validator.validate(layout);
    if (!j.job) {
      for (const std::string& e : j.errors) fmt::print("layout scale {} nodes: {}\n", nodes, e);
      continue;
    }
    models::ModelParams params;
    params.scaling_reference = false;  // no one-GPU run: a 70 B model does not fit one GPU
    const bench::Stopwatch watch;
    const models::VariantRun run = models::run_variant(*j.job, "scale", params);
    const bench::Elapsed t = watch.elapsed();
    fmt::print("70 B, TP 8 x PP 4 x DP {:4} = {:6} GPUs: step {:.3f} s, {:8.0f} tokens/s per GPU, exposed comm "
               "{:.1f} ms/step, {:8} events, {:.3f} s wall, {:.3f} s CPU\n",
               nodes * 8 / 32, nodes * 8, run.result.step.step_time_s,
               run.result.throughput_samples_per_s * j.job->workload.tokens_per_sample / (nodes * 8.0),
               run.result.step.communication_exposed_s * 1e3, run.events, t.wall_s, t.cpu_s);
  }
}

// The answer in words before the run table: fastest, cheapest, what limits the first
// strategy (share of its step), out-of-memory strategies.
#include <doctest/doctest.h>

#include "report/run_summary.h"

namespace gpuplan::report {
namespace {

models::VariantResult variant(const std::string& name, double samples_per_s, const std::string& bottleneck) {
  models::VariantResult v;
  v.strategy = name;
  v.throughput_samples_per_s = samples_per_s;
  v.bottleneck = bottleneck;
  v.step.step_time_s = 0.25;
  return v;
}

}  // namespace

TEST_SUITE("report.run_summary") {
  TEST_CASE("fastest against the first, cheapest with dollars, the first's limiter as a share of its step") {
    models::ScenarioResult r;
    models::VariantResult base = variant("baseline", 123.0, "data_loading_cpu");
    base.step.data_wait_s = 0.19;  // 0.19 / 0.25 = 76 %
    base.suggestion = "data_loader.num_workers: 4";
    base.cost_on_demand_usd = 52.0;
    models::VariantResult fast = variant("amp_bs64_workers_4", 578.1, "gpu_compute");
    fast.gpu_utilization = 0.96;
    fast.cost_on_demand_usd = 10.4;
    models::VariantResult oom = variant("bs512", 0.0, "memory");
    oom.fits = false;
    r.variants = {base, fast, oom};
    // 578.1 / 123 = 4.7
    CHECK(run_summary(r) ==
          "Fastest: amp_bs64_workers_4 at 578 samples/s, 4.70x baseline. Cheapest: amp_bs64_workers_4, $10.40 per run.\n"
          "In baseline, the GPU waits for the CPU decode workers 76 % of the time; next: data_loader.num_workers: 4.\n"
          "In amp_bs64_workers_4, the GPU computes 96 % of the time.\n"
          "Out of GPU memory: bs512.\n");
  }

  TEST_CASE("a fastest row that trains on another global batch says so") {
    models::ScenarioResult r;
    models::VariantResult base = variant("tp8", 30.0, "communication");
    base.global_batch_samples = 512;
    base.samples_are_sequences = true;
    models::VariantResult fast = variant("tp4_bs2", 36.0, "gpu_compute");
    fast.global_batch_samples = 1024;
    fast.samples_are_sequences = true;
    r.variants = {base, fast};
    CHECK(run_summary(r).starts_with(
        "Fastest: tp4_bs2 at 36.0 samples/s, 1.20x tp8 (global batch 1024 against 512 sequences).\n"));
    r.variants[1].global_batch_samples = 512;  // the same training: nothing more
    CHECK(run_summary(r).starts_with("Fastest: tp4_bs2 at 36.0 samples/s, 1.20x tp8.\n"));
    // A language model's rows say tokens/s.
    r.variants[0].throughput_tokens_per_s = 30.0 * 4096;
    r.variants[1].throughput_tokens_per_s = 36.0 * 4096;
    CHECK(run_summary(r).starts_with("Fastest: tp4_bs2 at 147,456 tokens/s, 1.20x tp8.\n"));
  }

  TEST_CASE("a row on premises is priced at its amortized dollars, and says so, beside cloud rows") {
    // A new user's QLoRA comparison: an RTX 4090 they own against an L40S instance; the
    // summary named the L40S cheapest at $14.25 while the table showed $1.37 on premises.
    models::ScenarioResult r;
    models::VariantResult cloud = variant("l40s", 1.07, "gpu_compute");
    cloud.gpu_utilization = 0.9;
    cloud.cost_on_demand_usd = 14.25;
    models::VariantResult owned = variant("rtx4090", 0.81, "gpu_compute");
    owned.gpu_utilization = 0.95;
    owned.cost_on_premises_usd = 1.37;
    r.variants = {cloud, owned};
    CHECK(run_summary(r) == "Fastest: l40s at 1.1 samples/s. Cheapest: rtx4090, $1.37 per run on premises.\n"
                            "In l40s, the GPU computes 90 % of the time.\n");
    r.variants = {owned};
    CHECK(run_summary(r) == "rtx4090: 0.8 samples/s, $1.37 per run on premises.\n"
                            "In rtx4090, the GPU computes 95 % of the time.\n");
  }

  TEST_CASE("one strategy; spot is priced at its p50") {
    models::ScenarioResult r;
    models::VariantResult v = variant("spot", 36.1, "communication");
    v.step.communication_exposed_s = 0.05;  // 0.05 / 0.25 = 20 %
    v.market = "spot";
    v.cost_on_demand_usd = 4927.0;
    v.cost_p50_usd = 1051.0;
    r.variants = {v};
    CHECK(run_summary(r) == "spot: 36.1 samples/s, $1,051 per run (spot: p50; no p90, under 90 % of the trials "
                            "finish).\nIn spot, the GPU waits for gradient communication 20 % of the time.\n");
  }

  TEST_CASE("the cheapest spot run shows its p90 beside its p50") {
    models::ScenarioResult r;
    models::VariantResult od = variant("on_demand", 36.1, "gpu_compute");
    od.gpu_utilization = 0.9;
    od.cost_on_demand_usd = 2184.0;
    models::VariantResult spot = variant("spot", 36.1, "gpu_compute");
    spot.market = "spot";
    spot.cost_p50_usd = 1130.0;
    spot.cost_p90_usd = 2481.0;
    r.variants = {od, spot};
    CHECK(run_summary(r).rfind("Fastest: on_demand at 36.1 samples/s. Cheapest: spot, $1,130 per run (spot: p50; p90 "
                               "$2,481).\n", 0) == 0);
  }

  TEST_CASE("on spot the fastest step is not the shortest run: the summary names the run done soonest") {
    // A new user's node sweep on p5 spot: 64 nodes step fastest but lose 93 % of their wall
    // time to preemptions (p50 3.04 d), 16 nodes finish first (p50 2.15 d).
    models::ScenarioResult r;
    models::VariantResult one = variant("nodes=1", 24.1, "gpu_compute");
    one.market = "spot";
    one.time_p50_s = 13.16 * 86400.0;
    one.cost_p50_usd = 8986.0;
    one.cost_p90_usd = 9056.0;
    models::VariantResult sixteen = variant("nodes=16", 384.0, "gpu_compute");
    sixteen.market = "spot";
    sixteen.time_p50_s = 2.15 * 86400.0;
    sixteen.cost_p50_usd = 24200.0;
    models::VariantResult sixty_four = variant("nodes=64", 1510.0, "gpu_compute");
    sixty_four.market = "spot";
    sixty_four.time_p50_s = 3.04 * 86400.0;
    sixty_four.cost_p50_usd = 139658.0;
    r.variants = {one, sixteen, sixty_four};
    CHECK(run_summary(r).rfind("Fastest: nodes=64 at 1,510 samples/s, 62.7x nodes=1. Done soonest: nodes=16, in 2.15 d "
                               "(spot: p50). Cheapest: nodes=1, $8,986 per run (spot: p50; p90 $9,056).\n",
                               0) == 0);
    // When the fastest step is also the shortest run, nothing more is said.
    r.variants[2].time_p50_s = 1.0 * 86400.0;
    CHECK(run_summary(r).find("Done soonest") == std::string::npos);
  }

  TEST_CASE("a strategy name with a newline or tab prints on one line") {
    models::ScenarioResult r;
    models::VariantResult v = variant("s\tp\not", 36.1, "communication");
    v.step.communication_exposed_s = 0.05;  // 0.05 / 0.25 = 20 %
    v.market = "spot";
    v.cost_p50_usd = 1051.0;
    r.variants = {v};
    CHECK(run_summary(r) == "s\\tp\\not: 36.1 samples/s, $1,051 per run (spot: p50; no p90, under 90 % of the "
                            "trials finish).\n"
                            "In s\\tp\\not, the GPU waits for gradient communication 20 % of the time.\n");
  }
}

}  // namespace gpuplan::report

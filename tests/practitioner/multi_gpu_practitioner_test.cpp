// Practitioner reports of data parallelism (shared/data/practitioner-reports.md R20, R24,
// R32) as scenarios beside this file, run through the same loader and runner as `gpuplan
// run`. Each test asserts what the report measured: the ordering of the strategies and the
// size of each ratio, within a band around the reported figure.

#include <doctest/doctest.h>

#include <map>
#include <string>

#include "cli/advisor.h"
#include "cli/app_context.h"
#include "cli/scenario_runner.h"
#include "config/scenario_loader.h"

using namespace gpuplan;

namespace {

const cli::AppContext& context() {
  static const cli::AppContext c = cli::load_context(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs", {});
  return c;
}

std::map<std::string, models::VariantResult> rows_of(const std::string& name) {
  const config::Scenario s = config::load_scenario(std::string(GPUPLAN_SOURCE_DIR) + "/tests/practitioner/" + name,
                                                   context().catalogs, context().families);
  cli::ScenarioRun run = cli::run_scenario(s, {});
  cli::advise(run, s, context(), {});
  std::map<std::string, models::VariantResult> rows;
  for (const auto& v : run.result.variants) rows[v.strategy] = v;
  return rows;
}

}  // namespace

TEST_SUITE("practitioner.multi_gpu") {
  TEST_CASE("R20: 2 x TITAN RTX: DDP over NVLink > DataParallel > DDP with P2P disabled") {
    auto rows = rows_of("R20-2x-titan-rtx-dp-vs-ddp.yaml");
    const auto& one = rows["one_gpu"];
    const auto& dp = rows["data_parallel"];
    const auto& ddp = rows["ddp_nvlink"];
    const auto& no_p2p = rows["ddp_p2p_disabled"];
    // Reported wall times of 200 steps: DP 110.6 s, DDP 101.9 s, DDP without P2P 131.4 s, one
    // GPU 102 s (each GPU at batch 4): step-time ratios DP/DDP 1.085, no-P2P/DDP 1.29, DDP/one 1.0.
    CAPTURE(ddp.step.step_time_s);
    CAPTURE(dp.step.step_time_s);
    CAPTURE(no_p2p.step.step_time_s);
    CAPTURE(one.step.step_time_s);
    CHECK(ddp.throughput_samples_per_s > dp.throughput_samples_per_s);
    CHECK(ddp.throughput_samples_per_s > no_p2p.throughput_samples_per_s);
    const double dp_over_ddp = dp.step.step_time_s / ddp.step.step_time_s;
    CHECK(dp_over_ddp > 1.03);
    CHECK(dp_over_ddp < 1.25);
    // Reported 1.29; the model gives about 1.11: it hides more of the host-staged all-reduce
    // behind backward than the 2021 run did (and so ties P2P-disabled DDP with DataParallel,
    // which the report puts 16 % apart). Open; the direction and the exposed share hold.
    const double no_p2p_over_ddp = no_p2p.step.step_time_s / ddp.step.step_time_s;
    CHECK(no_p2p_over_ddp > 1.05);
    CHECK(no_p2p_over_ddp < 1.50);
    CHECK(no_p2p.step.communication_exposed_s > 5.0 * ddp.step.communication_exposed_s);
    const double ddp_over_one = ddp.step.step_time_s / one.step.step_time_s;
    CHECK(ddp_over_one > 0.98);
    CHECK(ddp_over_one < 1.12);
    CHECK(dp.memory.data_parallel_bytes > 0.0);
    REQUIRE(ddp.scaling_efficiency.has_value());
    CHECK(*ddp.scaling_efficiency > *no_p2p.scaling_efficiency);
  }

  TEST_CASE("R24: 4 x V100 with NVLink: DataParallel costs ~25-35 % over DDP") {
    auto rows = rows_of("R24-p3-8xlarge-dp-vs-ddp.yaml");
    const auto& dp = rows["data_parallel"];
    const auto& ddp = rows["ddp"];
    // Reported: 350 ms/step with DataParallel, 260 ms/step with DDP (1.35x).
    CAPTURE(dp.step.step_time_s);
    CAPTURE(ddp.step.step_time_s);
    const double ratio = dp.step.step_time_s / ddp.step.step_time_s;
    CHECK(ratio > 1.15);
    CHECK(ratio < 1.60);
    CHECK(dp.step.communication_exposed_s > ddp.step.communication_exposed_s);
  }

  TEST_CASE("R32: gradient accumulation hides a slow network much more than an intra-node link") {
    auto rows = rows_of("R32-ga-hides-slow-network.yaml");
    const auto& node = rows["one_node"];
    const auto& node_ga = rows["one_node_ga32"];
    const auto& net = rows["three_nodes"];
    const auto& net_ga = rows["three_nodes_ga32"];
    // Reported samples/s: one node 50.3 -> 59.5 (+18 %), three nodes on 10 Gbit/s 21.6 -> 57.1 (2.6x).
    CAPTURE(node.throughput_samples_per_s);
    CAPTURE(node_ga.throughput_samples_per_s);
    CAPTURE(net.throughput_samples_per_s);
    CAPTURE(net_ga.throughput_samples_per_s);
    const double node_gain = node_ga.throughput_samples_per_s / node.throughput_samples_per_s;
    const double net_gain = net_ga.throughput_samples_per_s / net.throughput_samples_per_s;
    CHECK(node_gain > 1.03);
    CHECK(node_gain < 1.40);
    CHECK(net_gain > 1.8);
    CHECK(net_gain < 3.6);
    const double slow_link = net.throughput_samples_per_s / node.throughput_samples_per_s;  // reported 0.43
    CHECK(slow_link > 0.3);
    CHECK(slow_link < 0.6);
    CHECK(net.bottleneck == "communication");
    CHECK(net.suggestion.find("gradient_accumulation") != std::string::npos);
  }
}

// gpuplan plan: the same bytes whatever the thread count or the split across ranks, a
// correct Pareto front, the deadline and budget flags, the notes, and a golden plan CSV.
#include "cli/plan.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "cli/app_context.h"
#include "config/scenario_loader.h"
#include "run_command.h"

using namespace gpuplan;

namespace {
const cli::AppContext& context() {
  static const cli::AppContext c = cli::load_context(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs", {});
  return c;
}
const config::Scenario& scenario() {
  static const config::Scenario s = config::load_scenario(
      std::string(GPUPLAN_SOURCE_DIR) + "/scenarios/capacity-plan-llm-finetune.yaml", context().catalogs,
      context().families);
  return s;
}
cli::PlanOptions gcp_options(unsigned threads) {
  cli::PlanOptions o;
  o.deadline_s = 48 * 3600.0;
  o.budget_usd = 60.0;
  o.providers = {"gcp"};
  o.threads = threads;
  return o;
}
}  // namespace

TEST_SUITE("cli.plan") {
  TEST_CASE("1 thread, 2 threads and a split into 3 ranks give byte-identical plans") {
    const cli::Planner one(scenario(), context().catalogs, gcp_options(1));
    const cli::Planner two(scenario(), context().catalogs, gcp_options(2));
    const std::string a = cli::render_plan(one.finish(one.evaluate()), "csv");
    const std::string b = cli::render_plan(two.finish(two.evaluate()), "csv");
    CHECK(a == b);
    std::vector<cli::PlanPoint> gathered;
    for (std::size_t rank = 0; rank < 3; ++rank) {
      const auto part = cli::deserialize_points(cli::serialize_points(two.evaluate(rank, 3)));
      gathered.insert(gathered.end(), part.begin(), part.end());
    }
    CHECK(cli::render_plan(two.finish(gathered), "csv") == a);
    CHECK(gathered.size() == one.size());
  }

  TEST_CASE("flags: deadline and budget at p90; no Pareto point is dominated; the multi-GPU model is noted") {
    const cli::Planner planner(scenario(), context().catalogs, gcp_options(2));
    const cli::PlanResult r = planner.finish(planner.evaluate());
    int pareto = 0;
    for (const cli::PlanPoint& p : r.points) {
      if (!p.fits) {
        CHECK_FALSE(p.meets_deadline);
        continue;
      }
      CHECK(p.meets_deadline == (p.time_p90_s <= 48 * 3600.0));
      CHECK(p.within_budget == (p.cost_p90_usd <= 60.0));
      CHECK(p.time_p90_s >= p.time_p50_s);
      if (p.market == "on_demand") CHECK(p.time_p50_s == p.time_p90_s);  // no spread on-demand
      if (!p.pareto) continue;
      ++pareto;
      for (const cli::PlanPoint& q : r.points) {
        const bool dominates = q.fits && q.time_p90_s <= p.time_p90_s && q.cost_p90_usd <= p.cost_p90_usd &&
                               (q.time_p90_s < p.time_p90_s || q.cost_p90_usd < p.cost_p90_usd);
        CHECK_FALSE(dominates);
      }
    }
    CHECK(pareto >= 1);
    // Sorted by p90 dollars among fitting points.
    double last = 0.0;
    for (const cli::PlanPoint& p : r.points) {
      if (!p.fits) break;
      CHECK(p.cost_p90_usd >= last);
      last = p.cost_p90_usd;
    }
    REQUIRE_FALSE(r.notes.empty());
    CHECK(r.notes[0].find("every GPU of each instance is simulated: DDP") != std::string::npos);
    const std::string table = cli::render_plan(r, "table");
    CHECK(table.find("Pareto front") != std::string::npos);
    CHECK(table.find("every GPU of each instance is simulated") != std::string::npos);
  }

  TEST_CASE("a tight deadline: spot plans slower than it are simulated and on the front; 1, 2, 4 and 8 nodes") {
    cli::PlanOptions o = gcp_options(2);
    o.deadline_s = 600.0;  // 10 min: no spot plan meets it
    o.budget_usd.reset();
    const cli::Planner planner(scenario(), context().catalogs, o);
    const cli::PlanResult r = planner.finish(planner.evaluate());
    std::set<int> nodes;
    int slow_spot_on_front = 0;
    for (const cli::PlanPoint& p : r.points) {
      nodes.insert(p.nodes);
      if (!p.fits) continue;
      if (p.market == "spot") {
        CHECK(p.expected_preemptions >= 0.0);
        CHECK(p.time_p90_s >= p.time_p50_s);
      }
      if (p.market == "spot" && p.pareto && p.time_p90_s > o.deadline_s) ++slow_spot_on_front;
      if (!p.pareto) continue;
      for (const cli::PlanPoint& q : r.points) {
        const bool dominates = q.fits && q.time_p90_s <= p.time_p90_s && q.cost_p90_usd <= p.cost_p90_usd &&
                               (q.time_p90_s < p.time_p90_s || q.cost_p90_usd < p.cost_p90_usd);
        CHECK_FALSE(dominates);
      }
    }
    // The cheapest fitting plan is always on the front; here it is a spot plan past the deadline.
    REQUIRE(!r.points.empty());
    CHECK(r.points.front().pareto);
    CHECK(slow_spot_on_front >= 1);
    CHECK(nodes == std::set<int>{1, 2, 4, 8});
  }

  TEST_CASE("two nodes of an 8-GPU instance train faster than one, but not twice as fast for free") {
    // ResNet-50 fits on every A100 instance; a full 7B fine-tune does not fit with DDP's buckets.
    const config::Scenario resnet = config::load_scenario(
        std::string(GPUPLAN_SOURCE_DIR) + "/scenarios/dle-resnet50-a100.yaml", context().catalogs, context().families);
    const cli::Planner planner(resnet, context().catalogs, gcp_options(2));
    const cli::PlanResult r = planner.finish(planner.evaluate());
    const auto find = [&](int nodes) -> const cli::PlanPoint* {
      for (const cli::PlanPoint& p : r.points) {
        if (p.instance == "gcp/a2-ultragpu-8g" && p.market == "on_demand" && p.nodes == nodes && p.fits &&
            p.strategy == "tf32") {
          return &p;
        }
      }
      return nullptr;
    };
    const cli::PlanPoint* one = find(1);
    const cli::PlanPoint* two = find(2);
    REQUIRE(one != nullptr);
    REQUIRE(two != nullptr);
    CHECK(two->gpus == 16);
    CHECK(two->time_p50_s < one->time_p50_s);
    // 100 Gbit/s Ethernet between the two nodes costs something: less than 2x.
    CHECK(two->time_p50_s > 0.5 * one->time_p50_s);
    CHECK(two->time_p50_s < 0.7 * one->time_p50_s);
  }

  TEST_CASE("tensor parallelism: instance types whose GPUs do not hold the group are skipped, with a note") {
    const config::Scenario tp = config::parse_scenario(R"(format: gpuplan/v1
workload:
  model: gpt2
  sequence_length: 1024
  dataset: {samples: 100000, synthetic: true}
  epochs: 1
training: {batch_size: 8, precision: bf16_amp, optimizer: adamw}
hardware: {gpu: a100-80gb, cpu_cores: 64, host_memory: "512 GiB", storage: nvme_ssd, gpus_per_node: 8}
parallelism: {strategy: ddp, tensor_parallel: 4}
)",
                                                       "tp.yaml", context().catalogs, context().families);
    const cli::Planner planner(tp, context().catalogs, gcp_options(2));
    const cli::PlanResult r = planner.finish(planner.evaluate());
    REQUIRE_FALSE(r.points.empty());
    for (const cli::PlanPoint& p : r.points) {
      CAPTURE(p.instance);
      CHECK(p.gpus / p.nodes % 4 == 0);
    }
    const auto noted = [&](const std::string& note) {
      return std::find(r.notes.begin(), r.notes.end(), note) != r.notes.end();
    };
    CHECK(noted("gcp/a2-ultragpu-1g is skipped: its 1 GPU does not hold a tensor-parallel group of 4"));
    CHECK(noted("gcp/a2-ultragpu-2g is skipped: its 2 GPUs do not hold a tensor-parallel group of 4"));
  }

  TEST_CASE("command line: bad deadline and unknown provider are usage errors (exit 2)") {
    const std::string s = std::string(GPUPLAN_SOURCE_DIR) + "/scenarios/capacity-plan-llm-finetune.yaml";
    const auto bad = testing::run_gpuplan("plan " + s + " --deadline soon");
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("--deadline 'soon'") != std::string::npos);
    const auto none = testing::run_gpuplan("plan " + s + " --deadline 48h --providers nowhere");
    CHECK(none.exit_code == 2);
    CHECK(testing::run_gpuplan("plan " + s).exit_code == 2);
  }
}

TEST_SUITE("cli.golden") {
  TEST_CASE("the shipped capacity plan (48 h, AWS, GCP, Lambda) matches its golden CSV, same bytes twice") {
    namespace fs = std::filesystem;
    const fs::path source = GPUPLAN_SOURCE_DIR;
    const std::string args = "plan " + (source / "scenarios" / "capacity-plan-llm-finetune.yaml").string() +
                             " --deadline 48h --providers aws,gcp,lambda --format csv";
    const auto first = testing::run_gpuplan(args + " --threads 1");
    const auto second = testing::run_gpuplan(args + " --threads 2");
    REQUIRE_MESSAGE(first.exit_code == 0, first.err);
    CHECK(first.out == second.out);
    const fs::path golden = source / "tests" / "golden" / "capacity-plan-llm-finetune.plan-48h.csv";
    if (std::getenv("GPUPLAN_UPDATE_GOLDEN") != nullptr) {
      std::ofstream(golden, std::ios::binary) << first.out;
      return;
    }
    REQUIRE_MESSAGE(fs::exists(golden), "missing golden file; run make update-golden");
    CHECK(first.out == testing::slurp(golden.string()));
  }
}

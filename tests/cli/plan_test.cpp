// gpuplan plan: the same bytes whatever the thread count or the split across ranks, a
// correct Pareto front, the deadline and budget flags, the notes, and a golden plan CSV.
#include "cli/plan.h"
#include "models/job/hardware_failures.h"
#include "models/job/spot_job.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include "cli/app_context.h"
#include "cli/plan_summary.h"
#include "config/scenario_loader.h"
#include "models/gpu/op_time.h"
#include "models/job/job_time.h"
#include "models/run/run_variant.h"
#include "run_command.h"
#include <fmt/format.h>

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
/// An on-demand point of variant "baseline" with ddp in us-east-1 on `instance` (`gpu`), at
/// `time_s` and `cost_usd` for both p50 and p90; the layout fields keep their defaults.
cli::PlanPoint on_demand_point(const std::string& instance, const std::string& gpu, double time_s, double cost_usd) {
  cli::PlanPoint p;
  p.strategy = "baseline";
  p.instance = instance;
  p.gpu = gpu;
  p.region = "us-east-1";
  p.market = "on_demand";
  p.data_parallel = "ddp";
  p.time_p50_s = p.time_p90_s = time_s;
  p.cost_p50_usd = p.cost_p90_usd = cost_usd;
  return p;
}

cli::PlanOptions gcp_options(unsigned threads) {
  cli::PlanOptions o;
  o.deadline_s = 48 * 3600.0;
  o.budget_usd = 60.0;
  o.providers = {"gcp"};
  o.threads = threads;
  return o;
}
/// A plan on AWS's instances of one catalog GPU on 2 threads, against `deadline_s`.
cli::PlanOptions aws_options(const std::string& gpu, double deadline_s) {
  cli::PlanOptions o;
  o.deadline_s = deadline_s;
  o.providers = {"aws"};
  o.gpus = {gpu};
  o.threads = 2;
  return o;
}
/// The plan over AWS's H100 SXM instances, 1 d deadline, of Llama-3.2-1B at 4 x 2,048 tokens
/// (bf16 AMP, flash, AdamW, FSDP on 8 H100) with `training_extra` appended to its training
/// mapping and `rest` after the parallelism line (strategies).
cli::PlanResult llama1b_h100_plan(const std::string& training_extra, const std::string& hardware_extra,
                                  const std::string& rest) {
  const config::Scenario s = config::parse_scenario(
      "format: gpuplan/v1\nname: g\n"
      "workload: {model: llama3.2-1b, sequence_length: 2048, tokens: 1e8, dataset: {synthetic: true}}\n"
      "training: {batch_size: 4, precision: bf16_amp, attention: flash, optimizer: adamw" + training_extra + "}\n"
      "hardware: {gpu: h100-sxm, gpus_per_node: 8" + hardware_extra + "}\nparallelism: {strategy: fsdp}\n" + rest,
      "g.yaml", context().catalogs, context().families);
  const cli::Planner planner(s, context().catalogs, context().families, aws_options("h100-sxm", 86400.0));
  return planner.finish(planner.evaluate());
}
/// Checks that past the first node count that meets the deadline each instance type doubled
/// on at most twice, and only while each doubling made its fastest plan 1.5x faster (plan.h,
/// kPlanGrowthSpeedup). Returns the (type, node count) pairs searched past the first that met.
int check_growth_past_deadline(const cli::PlanResult& r) {
  std::map<std::string, std::map<int, double>> fastest_s;  // instance -> nodes -> fastest p90
  std::map<std::string, int> first_met;                    // instance -> fewest nodes meeting
  for (const cli::PlanPoint& p : r.points) {
    double& best = fastest_s[p.instance].try_emplace(p.nodes, std::numeric_limits<double>::infinity()).first->second;
    best = std::min(best, p.time_p90_s);
    if (!p.meets_deadline) continue;
    const auto [it, added] = first_met.emplace(p.instance, p.nodes);
    if (!added) it->second = std::min(it->second, p.nodes);
  }
  int grew_past = 0;
  // Not structured bindings: CAPTURE's lambda captures them, which clang 14 (the ASan build) refuses.
  for (const auto& type_entry : fastest_s) {
    const std::string& instance = type_entry.first;
    const std::map<int, double>& by_nodes = type_entry.second;
    const auto met = first_met.find(instance);
    if (met == first_met.end()) continue;
    for (const auto& node_entry : by_nodes) {
      const int count = node_entry.first;
      CAPTURE(instance);
      CAPTURE(count);
      CHECK(count <= 4 * met->second);
      if (count <= met->second) continue;
      ++grew_past;
      // Searched at `count` because the count before it, past the first that met, paid.
      const int before = count / 2;
      if (before > met->second) {
        const auto b = by_nodes.find(before);
        const auto bb = by_nodes.find(before / 2);
        REQUIRE(b != by_nodes.end());
        if (bb != by_nodes.end()) CHECK(b->second * cli::kPlanGrowthSpeedup <= bb->second);
      }
    }
  }
  return grew_past;
}

// The three whole-search property cases below take about 15 s each in a Release build and
// more than 15 minutes together under AddressSanitizer, and the 70 B plan golden several
// minutes more; the sanitizer build runs the same search code through the capacity-plan
// golden at the end of this file and skips them.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAddressSanitizer = true;
#else
constexpr bool kUnderAddressSanitizer = false;
#endif
#else
constexpr bool kUnderAddressSanitizer = false;
#endif
}  // namespace

TEST_SUITE("cli.plan") {
  TEST_CASE("1 and 3 threads give byte-identical plans and counts" * doctest::skip(kUnderAddressSanitizer)) {
    cli::PlanOptions one_thread = gcp_options(1);
    one_thread.gpus = {"a100-80gb", "h100-sxm"};  // a2-ultragpu-*g and a3-highgpu-8g: a small search
    cli::PlanOptions three_threads = one_thread;
    three_threads.threads = 3;
    const cli::Planner one(scenario(), context().catalogs, context().families, one_thread);
    const cli::Planner three(scenario(), context().catalogs, context().families, three_threads);
    const cli::PlanResult r1 = one.finish(one.evaluate());
    const cli::PlanResult r3 = three.finish(three.evaluate());
    CHECK(r1.counts.simulated > 10);
    CHECK(cli::render_plan(r1, "csv") == cli::render_plan(r3, "csv"));
    CHECK(r1.notes == r3.notes);  // the counts too
  }

  TEST_CASE("flags: deadline and budget at p90; no Pareto point is dominated; bound below the time; counts noted" * doctest::skip(kUnderAddressSanitizer)) {
    const cli::Planner planner(scenario(), context().catalogs, context().families, gcp_options(2));
    const cli::PlanResult r = planner.finish(planner.evaluate());
    int pareto = 0;
    REQUIRE_FALSE(r.points.empty());
    for (const cli::PlanPoint& p : r.points) {
      CHECK(p.fits);  // memory is checked before simulating: nothing that does not fit is simulated
      CHECK(p.meets_deadline == (p.time_p90_s <= 48 * 3600.0));
      CHECK(p.within_budget == (p.cost_p90_usd <= 60.0));
      CHECK(p.time_p90_s >= p.time_p50_s);
      CHECK(p.bound_time_s > 0.0);
      CHECK(p.bound_time_s <= p.time_p50_s);  // the lower bound never exceeds the simulated time
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
    // a3-highgpu-8g meets 48 h on one node (3,750 s) and doubles on: 1,998 s on 2, 1,355 s on 4.
    CHECK(check_growth_past_deadline(r) >= 2);
    double last = 0.0;  // sorted by p90 dollars
    for (const cli::PlanPoint& p : r.points) {
      CHECK(p.cost_p90_usd >= last);
      last = p.cost_p90_usd;
    }
    const cli::PlanCounts& c = r.counts;
    CHECK(c.considered == c.invalid + c.duplicate + c.pruned_memory + c.pruned_bound + c.simulated + c.step_reused);
    CHECK(c.simulated > 0);
    CHECK(c.pruned_memory > 0);  // plain SGD on a 7 B model: DDP with micro-batch 32 does not fit 80 GB
    REQUIRE_FALSE(r.notes.empty());
    CHECK(r.notes[0].find(fmt::format("{} candidates", c.considered)) != std::string::npos);
    CHECK(r.notes[0].find(fmt::format("{} step problems simulated", c.simulated)) != std::string::npos);
    CHECK(r.notes[0].find(fmt::format("{} spot plans not evaluated because at most 5 %", c.spot_out_of_reach)) !=
          std::string::npos);
    const std::string table = cli::render_plan(r, "table");
    CHECK(table.find("Pareto front") != std::string::npos);
    CHECK(table.find("Fastest plan") != std::string::npos);
  }

  TEST_CASE("a tight deadline: nodes grow until the bound allows it; plans slower than it stay on the front" * doctest::skip(kUnderAddressSanitizer)) {
    cli::PlanOptions o = gcp_options(2);
    // 20 min: the compute bound alone is about 13,000 H100-seconds (6 x 6.74e9 FLOP x 2048
    // tokens x 156,006 samples at 989 TFLOP/s), 1,630 s on one 8-GPU node: 2 nodes at least.
    o.deadline_s = 1200.0;
    o.budget_usd.reset();
    const cli::Planner planner(scenario(), context().catalogs, context().families, o);
    const cli::PlanResult r = planner.finish(planner.evaluate());
    std::set<int> nodes;
    int slow_on_front = 0;
    for (const cli::PlanPoint& p : r.points) {
      nodes.insert(p.nodes);
      CHECK(p.bound_time_s <= o.deadline_s);  // pruned by the bound otherwise
      if (p.pareto && p.time_p90_s > o.deadline_s) ++slow_on_front;
    }
    CHECK(r.counts.pruned_bound > 0);
    CHECK(r.counts.max_nodes >= 2);
    CHECK(slow_on_front >= 1);

    check_growth_past_deadline(r);  // none here: 8 nodes met it, 1.19x faster than 4
  }

  TEST_CASE("--exhaustive prunes nothing by the bound, keeps every plan the default finds and chooses the same" *
            doctest::skip(kUnderAddressSanitizer)) {
    cli::PlanOptions o = gcp_options(2);
    o.deadline_s = 1200.0;  // tight: the default prunes by the bound (the test above)
    o.budget_usd.reset();
    const cli::Planner pruned_planner(scenario(), context().catalogs, context().families, o);
    const cli::PlanResult pruned = pruned_planner.finish(pruned_planner.evaluate());
    o.exhaustive = true;
    const cli::Planner planner(scenario(), context().catalogs, context().families, o);
    const cli::PlanResult all = planner.finish(planner.evaluate());
    REQUIRE(pruned.counts.pruned_bound > 0);
    CHECK(all.counts.pruned_bound == 0);
    CHECK(all.counts.simulated > pruned.counts.simulated);
    CHECK(all.counts.pruned_memory >= pruned.counts.pruned_memory);
    REQUIRE(all.notes.size() >= 1);
    CHECK(all.notes[0].find("0 pruned by the lower bound (deadline or dominated; off: --exhaustive)") !=
          std::string::npos);
    // Every plan the default evaluated is among the exhaustive search's, at the same time and dollars.
    std::map<std::string, const cli::PlanPoint*> by_key;
    for (const cli::PlanPoint& p : all.points) by_key[cli::plan_point_key(p)] = &p;
    for (const cli::PlanPoint& p : pruned.points) {
      const auto it = by_key.find(cli::plan_point_key(p));
      REQUIRE_MESSAGE(it != by_key.end(), cli::plan_point_key(p));
      CHECK(it->second->time_p90_s == p.time_p90_s);
      CHECK(it->second->cost_p90_usd == p.cost_p90_usd);
    }
    // The plans the bound never rules out are chosen alike: the fastest and the cheapest that meets the deadline.
    const cli::PlanPoint* fastest_pruned = cli::fastest_plan(pruned.points);
    const cli::PlanPoint* fastest_all = cli::fastest_plan(all.points);
    REQUIRE(fastest_pruned != nullptr);
    REQUIRE(fastest_all != nullptr);
    CHECK(cli::plan_point_key(*fastest_all) == cli::plan_point_key(*fastest_pruned));
    const auto meeting_pruned = cli::cheapest_meeting_plans(pruned.points, 1);
    const auto meeting_all = cli::cheapest_meeting_plans(all.points, 1);
    REQUIRE(meeting_pruned.size() == 1);
    REQUIRE(meeting_all.size() == 1);
    CHECK(cli::plan_point_key(*meeting_all[0]) == cli::plan_point_key(*meeting_pruned[0]));
    // A plan whose bound is over the deadline is now simulated, and slower than it.
    CHECK(std::any_of(all.points.begin(), all.points.end(),
                      [&o](const cli::PlanPoint& p) { return p.bound_time_s > o.deadline_s && p.time_p90_s > o.deadline_s; }));
  }

  TEST_CASE("the lower bound never exceeds the simulated time: 70 B on p5, ResNet-50 on 8 A100s, BERT") {
    const auto find_row = [](const std::string& type) {
      for (const models::InstanceSpec& row : context().catalogs.instances.rows()) {
        if (row.instance_type == type) return &row;
      }
      return static_cast<const models::InstanceSpec*>(nullptr);
    };
    struct Case {
      std::string scenario;
      std::string type;
      int nodes;
    };
    for (const Case& k : {Case{"llama3-70b-pretrain-plan.yaml", "p5.48xlarge", 4},
                          Case{"llama3-70b-pretrain-plan.yaml", "p5.48xlarge", 16},
                          Case{"dle-resnet50-8xa100.yaml", "p4d.24xlarge", 1},
                          Case{"multi-node-bert.yaml", "p4d.24xlarge", 2}}) {
      CAPTURE(k.scenario);
      CAPTURE(k.nodes);
      const config::Scenario s = config::load_scenario(std::string(GPUPLAN_SOURCE_DIR) + "/scenarios/" + k.scenario,
                                                       context().catalogs, context().families);
      const models::InstanceSpec* row = find_row(k.type);
      REQUIRE(row != nullptr);
      models::JobSpec job = cli::plan_job(s.variants.front().job, *row, k.nodes, context().catalogs);
      job.cloud.reset();
      job.checkpointing.enabled = false;
      models::ModelParams params;
      params.scaling_reference = false;
      const models::VariantResult run = models::run_variant(job, "x", params).result;
      REQUIRE(run.fits);
      const cli::PlanBound bound = cli::plan_lower_bound(job);
      CHECK(bound.time_s() > 0.0);
      CHECK(bound.time_s() <= run.time_to_train_s);
      if (k.nodes > 1) CHECK(bound.exchange_s > 0.0);
    }
  }

  TEST_CASE("the exchange bound counts the parameters a node holds: a model-parallel group over nodes moves less") {
    // A new user's 12 h plan of the 70 B model stopped at 2 nodes with "no layout can finish in
    // under 63 d": every layout was charged the whole model's all-reduce, also TP x PP = 16 over
    // 2 nodes, which has one replica and no gradient exchange over the network at all.
    const config::Scenario s = config::load_scenario(
        std::string(GPUPLAN_SOURCE_DIR) + "/scenarios/llama3-70b-pretrain-plan.yaml", context().catalogs,
        context().families);
    const models::InstanceSpec* row = nullptr;
    for (const models::InstanceSpec& r : context().catalogs.instances.rows()) {
      if (r.instance_type == "p5.48xlarge") row = &r;
    }
    REQUIRE(row != nullptr);
    const auto exchange_s = [&](int nodes, int tp, int pp) {
      models::JobSpec job = cli::plan_job(s.variants.front().job, *row, nodes, context().catalogs);
      job.parallelism.tensor_parallel = tp;
      job.parallelism.pipeline_parallel = pp;
      job.training.gradient_accumulation *= tp * pp;  // the same global batch: as many steps
      return cli::plan_lower_bound(job).exchange_s;
    };
    // 4 nodes, whole replicas in each node (TP 1 or 4): 2 (4-1)/4 x 2 B x P = 3 P bytes a node.
    const double ddp = exchange_s(4, 1, 1);
    REQUIRE(ddp > 0.0);
    CHECK(exchange_s(4, 4, 1) == doctest::Approx(ddp));
    CHECK(exchange_s(4, 4, 2) == doctest::Approx(ddp));  // TP x PP = 8 = a node
    // TP 4 x PP 4 = 16 GPUs over 2 nodes: a node holds P / 2, 2 replicas: 2 (2-1)/2 x 2 B x P/2 = P.
    CHECK(exchange_s(4, 4, 4) == doctest::Approx(ddp / 3.0));
    // TP 8 x PP 2 on 2 nodes: one replica, nothing to reduce over the network.
    CHECK(exchange_s(2, 8, 2) == 0.0);
  }

  TEST_CASE("the lower bound counts a causal fused kernel's executed tiles: Llama 3 8B at 32K with flash3") {
    // At 32K tokens attention is over half of the whole-square model FLOP; flash3 computes about
    // half of its square, so a bound on the whole square would exceed the simulated time.
    const config::Scenario s = config::parse_scenario(
        "format: gpuplan/v1\nname: long\n"
        "workload: {model: llama3-8b, sequence_length: 32768, tokens: 1e8, dataset: {synthetic: true}}\n"
        "training: {batch_size: 1, precision: bf16_amp, optimizer: adamw, attention: flash3,\n"
        "           activation_checkpointing: full}\n"
        "hardware: {gpu: h100-sxm, gpus_per_node: 8}\n"
        "parallelism: {strategy: fsdp}\n",
        "long.yaml", context().catalogs, context().families);
    models::JobSpec job = s.variants.front().job;
    models::ModelParams params;
    params.scaling_reference = false;
    const models::VariantResult run = models::run_variant(job, "x", params).result;
    REQUIRE(run.fits);
    const cli::PlanBound bound = cli::plan_lower_bound(job);
    CHECK(bound.compute_s <= run.time_to_train_s);
    // The whole square at the peak would not be a bound: more than the bound by the skipped tiles.
    const double whole_s = job.workload.training_flop_per_sample() * models::global_batch_samples(job) /
                           (8 * models::math_peak_flop_per_s(models::OpClass::kMatmul, job.training.precision,
                                                               job.hardware.gpu)) *
                           models::job_times(job, 1.0, 0.0).steps_per_epoch * models::job_times(job, 1.0, 0.0).epochs;
    CHECK(bound.compute_s < 0.8 * whole_s);
  }

  TEST_CASE("the Pareto front of a hand-made point set") {
    const auto point = [](double t, double c, bool fits) {
      cli::PlanPoint p;
      p.time_p90_s = t;
      p.cost_p90_usd = c;
      p.fits = fits;
      return p;
    };
    // A (1 s, $10), B (2, 5), C (3, 6) dominated by B, D (4, 1), E = B again (only the
    // first of equal points), F (0.5, 0.1) does not fit, G (4, 2) dominated by D.
    std::vector<cli::PlanPoint> pts = {point(1, 10, true), point(2, 5, true), point(3, 6, true), point(4, 1, true),
                                       point(2, 5, true),  point(0.5, 0.1, false), point(4, 2, true)};
    cli::mark_pareto(pts);
    std::string flags;
    for (const cli::PlanPoint& p : pts) flags += p.pareto ? "1" : "0";
    CHECK(flags == "1101000");
  }

  TEST_CASE("the cheapest-plans table: one row per instance type, node count and market, the cheapest layout") {
    const auto point = [](const std::string& instance, int nodes, const std::string& market, const std::string& strategy,
                          bool meets) {
      cli::PlanPoint p;
      p.instance = instance;
      p.nodes = nodes;
      p.market = market;
      p.strategy = strategy;
      p.meets_deadline = meets;
      return p;
    };
    // In `points` order (cheapest first): three layouts of the 8 x H100 on-demand offer (the
    // capacity plan's Lambda rows: fsdp/shard_grad_op, fsdp/full_shard, zero-3 within a minute
    // at one price) keep only the first; 2 nodes and spot are other offers; a plan past the
    // deadline or over the budget is not listed.
    std::vector<cli::PlanPoint> pts = {
        point("lambda/gpu_8x_h100_sxm5", 1, "on_demand", "fsdp/shard_grad_op", true),
        point("lambda/gpu_8x_h100_sxm5", 1, "on_demand", "fsdp/full_shard", true),
        point("aws/p5.48xlarge", 1, "spot", "fsdp/full_shard", false),
        point("lambda/gpu_8x_h100_sxm5", 1, "on_demand", "zero-3", true),
        point("lambda/gpu_8x_h100_sxm5", 2, "on_demand", "zero-3", true),
        point("aws/p5.48xlarge", 1, "spot", "fsdp/shard_grad_op", true),
        point("aws/p5.48xlarge", 1, "on_demand", "fsdp/shard_grad_op", true),
    };
    pts[6].within_budget = false;
    std::vector<std::string> rows;
    for (const cli::PlanPoint* p : cli::cheapest_meeting_plans(pts, 10)) {
      rows.push_back(p->instance + " " + std::to_string(p->nodes) + " " + p->market + " " + p->strategy);
    }
    CHECK(rows == std::vector<std::string>{"lambda/gpu_8x_h100_sxm5 1 on_demand fsdp/shard_grad_op",
                                           "lambda/gpu_8x_h100_sxm5 2 on_demand zero-3",
                                           "aws/p5.48xlarge 1 spot fsdp/shard_grad_op"});
    CHECK(cli::cheapest_meeting_plans(pts, 2).size() == 2);
    CHECK(cli::cheapest_meeting_plans(pts, 0).empty());
  }

  TEST_CASE("times within a relative 1e-9 are the same plan time: the cheaper dominates and is the fastest") {
    const auto point = [](double t, double c, const std::string& market) {
      cli::PlanPoint p;
      p.time_p90_s = t;
      p.cost_p90_usd = c;
      p.market = market;
      return p;
    };
    CHECK(cli::same_plan_time(1000.0, 1000.0 + 0.5e-6));   // 5e-10 relative
    CHECK_FALSE(cli::same_plan_time(1000.0, 1000.0 + 2e-6));  // 2e-9 relative
    CHECK(cli::same_plan_time(0.0, 0.0));
    CHECK(cli::faster_plan_time(1000.0, 1000.0 + 2e-6));
    CHECK_FALSE(cli::faster_plan_time(1000.0, 1000.0 + 0.5e-6));
    // The p5en.48xlarge pair of a user's plan (gpuplan plan q1b.yaml --deadline 24h --gpus
    // h200): the same layout on-demand and on spot, 1.1e-13 s apart (1e-16 relative), the
    // on-demand plan 3.5x the dollars. Both were on the front and the on-demand one was
    // named the fastest because its time was the smaller double.
    const cli::PlanPoint on_demand = point(1013.0548128679949, 23.88533333333333, "on_demand");
    const cli::PlanPoint spot = point(1013.054812868, 6.841739666666666, "spot");
    const cli::PlanPoint slower_cheaper = point(2000.0, 2.0, "spot");
    const cli::PlanPoint just_faster = point(1013.0548128679949 * (1 - 3e-9), 30.0, "on_demand");  // beyond 1e-9
    for (const bool dear_first : {false, true}) {
      std::vector<cli::PlanPoint> pts = dear_first ? std::vector<cli::PlanPoint>{on_demand, spot, slower_cheaper}
                                                   : std::vector<cli::PlanPoint>{spot, on_demand, slower_cheaper};
      cli::mark_pareto(pts);
      for (const cli::PlanPoint& p : pts) {
        CHECK(p.pareto == (p.market == "spot"));
      }
      const cli::PlanPoint* fastest = cli::fastest_plan(pts);
      REQUIRE(fastest != nullptr);
      CHECK(fastest->market == "spot");
      CHECK(fastest->cost_p90_usd == spot.cost_p90_usd);
      // A plan faster by more than the tolerance stays on the front and is the fastest.
      pts.push_back(just_faster);
      cli::mark_pareto(pts);
      std::string flags;
      for (const cli::PlanPoint& p : pts) flags += p.pareto ? "1" : "0";
      CHECK(flags == (dear_first ? "0111" : "1011"));
      REQUIRE(cli::fastest_plan(pts) != nullptr);
      CHECK(cli::fastest_plan(pts)->cost_p90_usd == 30.0);
    }
    // Three points in a chain of ties, equal dollars: only the first of `points` order.
    std::vector<cli::PlanPoint> ties = {point(10.0, 5.0, "a"), point(10.0 + 3e-9, 5.0, "b"),
                                        point(10.0 - 3e-9, 5.0, "c")};
    cli::mark_pareto(ties);
    CHECK(ties[0].pareto);
    CHECK_FALSE(ties[1].pareto);
    CHECK_FALSE(ties[2].pareto);
    CHECK(cli::fastest_plan(ties) == &ties[0]);
    // Nothing fits: no fastest plan.
    ties[0].fits = ties[1].fits = ties[2].fits = false;
    CHECK(cli::fastest_plan(ties) == nullptr);
  }

  TEST_CASE("a pipeline plan shows its layout: strategy, DP as a degree, TP and PP in the table, CSV and summary") {
    // 16 nodes x 8 GPUs = 128 GPUs as TP 8 x PP 16: 128 / (8 x 16) = 1 data-parallel
    // replica (the 70 B plan's "ddp 8 1 1024" row, whose PP the table used to hide).
    cli::PlanResult plan;
    plan.scenario_name = "pp";
    plan.deadline_s = 30 * 86400.0;
    cli::PlanPoint p = on_demand_point("aws/p5.48xlarge", "h100-sxm", 20 * 86400.0, 1000.0);
    p.nodes = 16;
    p.gpus = 128;
    p.tensor_parallel = 8;
    p.sequence_parallel = true;
    p.distributed_optimizer = true;
    p.pipeline_parallel = 16;
    p.micro_batch = 1;
    p.gradient_accumulation = 1024;
    p.recompute = "full";
    p.meets_deadline = true;
    p.pareto = true;
    plan.points = {p};
    const std::string csv = cli::render_plan(plan, "csv");
    CHECK(csv.rfind("instance,gpu,nodes,gpus,region,zone,market,variant,strategy,data_parallel,tensor_parallel,"
                    "sequence_parallel,distributed_optimizer,pipeline_parallel,pipeline_schedule,virtual_stages,"
                    "context_parallel,expert_parallel,offload,micro_batch,",
                    0) == 0);
    CHECK(csv.find("\naws/p5.48xlarge,h100-sxm,16,128,us-east-1,,on_demand,baseline,ddp,1,8,true,true,16,1f1b,1,1,1,none,1,1024,"
                   "full,") != std::string::npos);
    const std::string table = cli::render_plan(plan, "table");
    CHECK(table.find("variant  strategy  DP  TP  PP  micro  accum.") != std::string::npos);
    CHECK(table.find("baseline       ddp   1   8  16      1    1024") != std::string::npos);
    CHECK(table.find("schedule") == std::string::npos);  // 1F1B: no schedule column
    CHECK(cli::plan_summary(plan) ==
          "Cheapest plan that meets the deadline: aws/p5.48xlarge (16 nodes x 8 GPUs, on-demand in us-east-1, variant "
          "baseline; ddp with the distributed optimizer, DP 1 x TP 8 (sequence parallel) x PP 16, micro-batch 1 x 1024 "
          "accumulated, recompute full): "
          "20.00 d and $1,000 "
          "at p90.\nFastest plan: the same (no plan simulated is faster).\n");
    // An interleaved schedule is shown with its virtual stages, in the table, CSV and summary.
    plan.points[0].pipeline_schedule = "interleaved_1f1b";
    plan.points[0].virtual_stages = 2;
    CHECK(cli::render_plan(plan, "table").find("interleaved_1f1b x2") != std::string::npos);
    CHECK(cli::render_plan(plan, "csv").find(",16,interleaved_1f1b,2,1,1,none,1,1024,full,") != std::string::npos);
    CHECK(cli::plan_summary(plan).find("DP 1 x TP 8 (sequence parallel) x PP 16 (interleaved_1f1b, 2 virtual stages),") !=
          std::string::npos);
    // Expert parallelism: an EP column in the table (only then), the CSV's expert_parallel and
    // the summary's expert ranks.
    CHECK(cli::render_plan(plan, "table").find(" EP") == std::string::npos);
    plan.points[0].expert_parallel = 4;
    CHECK(cli::render_plan(plan, "table").find("PP             schedule  EP\n") != std::string::npos);
    CHECK(cli::render_plan(plan, "csv").find(",16,interleaved_1f1b,2,1,4,none,1,1024,full,") != std::string::npos);
    CHECK(cli::plan_summary(plan).find("DP 1 (experts over 4 of them) x TP 8") != std::string::npos);
    plan.points[0].expert_parallel = 1;
    // Context parallelism: a CP column in the table (only then), the CSV's context_parallel, the
    // summary's CP, and fewer data-parallel replicas (128 GPUs / (TP 4 x PP 16 x CP 2) = 1).
    CHECK(cli::render_plan(plan, "table").find(" CP") == std::string::npos);
    plan.points[0].tensor_parallel = 4;
    plan.points[0].context_parallel = 2;
    CHECK(plan.points[0].data_parallel_degree() == 1);
    CHECK(cli::render_plan(plan, "table").find("PP             schedule  CP\n") != std::string::npos);
    CHECK(cli::render_plan(plan, "csv").find(",16,interleaved_1f1b,2,2,1,none,1,1024,full,") != std::string::npos);
    CHECK(cli::plan_summary(plan).find("x PP 16 (interleaved_1f1b, 2 virtual stages) x CP 2, micro-batch") !=
          std::string::npos);
    plan.points[0].tensor_parallel = 8;
    plan.points[0].context_parallel = 1;
    // A peak within 5 % of the GPU's memory is named, as gpuplan run's note does (84.1 of 85.9
    // GB is 97.9 %); 81 GB (94.3 %) is not.
    plan.points[0].memory_capacity_bytes = 85.9e9;
    plan.points[0].peak_memory_bytes = 84.1e9;
    CHECK(cli::plan_summary(plan).find("recompute full; peak memory 84.1 of 85.9 GB, within 5 % of capacity): 20.00 d") !=
          std::string::npos);
    CHECK(cli::render_plan(plan, "csv").find(",84100000000,85900000000,") != std::string::npos);
    plan.points[0].peak_memory_bytes = 81e9;
    CHECK(cli::plan_summary(plan).find("peak memory") == std::string::npos);
  }

  TEST_CASE("a spot plan whose p90 trial does not finish has no p90: absent in CSV and JSON, never fastest or on the front") {
    models::SpotSummary s;
    s.trials = 200;
    s.finished = 179;  // 89.5 %
    CHECK(s.finishes_at(0.5));
    CHECK_FALSE(s.finishes_at(0.9));
    s.finished = 180;
    CHECK(s.finishes_at(0.9));
    s.trials = 0;
    CHECK_FALSE(s.finishes_at(0.5));

    cli::PlanResult plan;
    plan.scenario_name = "spot";
    plan.deadline_s = 86400.0;
    cli::PlanPoint done = on_demand_point("aws/p4d.24xlarge", "a100-40gb", 7200.0, 100.0);
    done.recompute = "false";
    cli::PlanPoint capped = done;
    capped.market = "spot";
    capped.zone = "use1-az1";
    capped.finished_share = 0.0;
    capped.time_p50_s = capped.time_p90_s = std::numeric_limits<double>::infinity();
    capped.cost_p50_usd = capped.cost_p90_usd = std::numeric_limits<double>::infinity();
    plan.points = {done, capped};
    cli::mark_pareto(plan.points);
    CHECK(plan.points[0].pareto);
    CHECK_FALSE(plan.points[1].pareto);
    REQUIRE(cli::fastest_plan(plan.points) != nullptr);
    CHECK(cli::fastest_plan(plan.points)->market == "on_demand");
    plan.points = {capped};
    cli::mark_pareto(plan.points);
    CHECK_FALSE(plan.points[0].pareto);
    CHECK(cli::fastest_plan(plan.points) == nullptr);
    const std::string csv = cli::render_plan(plan, "csv");
    CHECK(csv.find(",spot,baseline,ddp,") != std::string::npos);
    CHECK(csv.find("inf") == std::string::npos);
    const std::string json = cli::render_plan(plan, "json");
    CHECK(json.find("\"time_p90_s\": null") != std::string::npos);
  }

  TEST_CASE("the fastest plan is named when it is also the cheapest, as on one provider without spot") {
    // Lambda's catalog has no spot: on --providers lambda the cheapest plan that meets the
    // deadline was also the fastest, and the summary named no fastest plan.
    cli::PlanResult plan;
    plan.deadline_s = 48 * 3600.0;
    cli::PlanPoint fast;
    fast.strategy = "sgd";
    fast.instance = "lambda/gpu_8x_h100_sxm5";
    fast.gpu = "h100-sxm";
    fast.region = "us-east-1";
    fast.market = "on_demand";
    fast.gpus = 8;
    fast.data_parallel = "ddp";
    fast.recompute = "false";
    fast.time_p50_s = fast.time_p90_s = 3600.0;
    fast.cost_p50_usd = fast.cost_p90_usd = 24.0;
    fast.meets_deadline = true;
    cli::PlanPoint slow = fast;  // half the GPUs: twice the time, the same dollars plus a little
    slow.instance = "lambda/gpu_4x_h100_sxm5";
    slow.gpus = 4;
    slow.time_p50_s = slow.time_p90_s = 7200.0;
    slow.cost_p50_usd = slow.cost_p90_usd = 25.0;
    plan.points = {fast, slow};  // sorted by p90 dollars
    const std::string cheapest =
        "Cheapest plan that meets the deadline: lambda/gpu_8x_h100_sxm5 (1 node x 8 GPUs, on-demand in us-east-1, "
        "variant sgd; ddp, DP 8 x TP 1 x PP 1, micro-batch 1 x 1 accumulated, recompute false): 60.0 min and $24.00 at "
        "p90.\n";
    CHECK(cli::plan_summary(plan) == cheapest + "Fastest plan: the same (no plan simulated is faster).\n");
    // Neither meets the deadline: the fastest is named in full after the deadline sentence.
    plan.deadline_s = 1800.0;
    plan.points[0].meets_deadline = plan.points[1].meets_deadline = false;
    CHECK(cli::plan_summary(plan) ==
          "No plan meets the deadline of 30.0 min at p90.\nFastest plan: lambda/gpu_8x_h100_sxm5 (1 node x 8 GPUs, "
          "on-demand in us-east-1, variant sgd; ddp, DP 8 x TP 1 x PP 1, micro-batch 1 x 1 accumulated, recompute "
          "false): 60.0 min and $24.00 at p90.\n");
    // A search that simulated says how far its node counts grew: the fastest plan is the
    // fastest of those (a new user took it for the fastest possible).
    plan.counts.simulated = 2;
    plan.counts.max_nodes = 4;
    // Nothing met the deadline: no word of what types that meet it do.
    CHECK(cli::plan_summary(plan).find("\n(Node counts grow in powers of two per instance type, up to 4 nodes here.)\n") !=
          std::string::npos);
    // A second new user read "up to 4 here" as every type's reach: the types that met the
    // deadline stopped earlier, and the text says so.
    plan.deadline_s = 3600.0;
    plan.points[0].meets_deadline = true;
    CHECK(cli::plan_summary(plan).find("\n(Node counts grow in powers of two per instance type, up to 4 nodes here; "
                                       "a type that meets the deadline doubles on at most 2 more times, while each "
                                       "doubling makes it at least 1.5x faster. More nodes, which may be faster "
                                       "still, are not searched: a shorter --deadline searches them.)\n") !=
          std::string::npos);
    // One node only: said so, not "up to 1 nodes".
    plan.counts.max_nodes = 1;
    const std::string one = cli::plan_summary(plan);
    CHECK(one.find("up to 1 nodes") == std::string::npos);
    CHECK(one.find("\n(Each instance type was searched on one node: more were not tried, because the catalog gives "
                   "the type no network between nodes") != std::string::npos);
    // Both meet the deadline, neither the budget of $20: the budget is named as what fails,
    // with the cheapest plan that meets the deadline (a trial read only "No plan meets ...").
    plan.points[1].meets_deadline = true;
    plan.budget_usd = 20.0;
    for (cli::PlanPoint& p : plan.points) p.within_budget = false;
    CHECK(cli::plan_summary(plan).starts_with(
        "No plan meets the deadline of 60.0 min within the budget of $20.00 at p90.\nThe budget is what fails: the "
        "cheapest plan that meets the deadline is lambda/gpu_8x_h100_sxm5 (1 node x 8 GPUs, on-demand in us-east-1, "
        "variant sgd; ddp, DP 8 x TP 1 x PP 1, micro-batch 1 x 1 accumulated, recompute false): 60.0 min and $24.00 "
        "at p90. Raise --budget to $24.00, or give a later --deadline.\n"));
  }

  TEST_CASE("the changes suggested where nothing fits are those the scenario can still make") {
    // The shipped capacity plan trains with plain SGD: no 8-bit AdamW to offer (a new user
    // was told to switch to adamw_8bit while already on it). CPU offload is not suggested:
    // the search tries it where nothing fits.
    const cli::Planner sgd(scenario(), context().catalogs, context().families, gcp_options(1));
    CHECK(sgd.finish(cli::PlanSearch{}).memory_suggestions.empty());
    config::Scenario adamw = scenario();
    for (config::Variant& v : adamw.variants) v.job.training.optimizer = models::Optimizer::kAdamW;
    const cli::Planner with_adamw(adamw, context().catalogs, context().families, gcp_options(1));
    CHECK(with_adamw.finish(cli::PlanSearch{}).memory_suggestions ==
          std::vector<std::string>{"training.optimizer: adamw_8bit"});
    for (config::Variant& v : adamw.variants) v.job.training.optimizer = models::Optimizer::kAdamW8bit;
    const cli::Planner eight_bit(adamw, context().catalogs, context().families, gcp_options(1));
    CHECK(eight_bit.finish(cli::PlanSearch{}).memory_suggestions.empty());
  }

  TEST_CASE("CPU offload is tried where no layout fits without it: Llama-3-70B fine-tuned on one p4de node") {
    // 70.6 B parameters with AdamW: 16 B each of weights, gradients and state, 1.13 TB over 8
    // A100 80GB = 141 GB a GPU before activations: no layout of one node fits. With ZeRO-Offload
    // the optimizer state, fp32 master weights and fp32 gradients (12 B + 4 B a parameter,
    // 1.13 TB) go to the node's 1,152 GiB of host memory; the GPU keeps the bf16 shards.
    const config::Scenario s = config::parse_scenario(
        "format: gpuplan/v1\nname: ft70\n"
        "workload: {model: llama3-70b, sequence_length: 4096, tokens: 5e7, dataset: {synthetic: true}}\n"
        "training: {batch_size: 1, gradient_accumulation: 16, precision: bf16_amp, optimizer: adamw,\n"
        "           activation_checkpointing: full}\n"
        "hardware: {gpu: a100-80gb, gpus_per_node: 8, host_memory: 1 TiB}\n"
        "parallelism: {strategy: fsdp, sharding: full_shard}\n",
        "ft70.yaml", context().catalogs, context().families);
    const cli::PlanOptions o = aws_options("a100-80gb", 7 * 86400.0);
    const cli::Planner planner(s, context().catalogs, context().families, o);
    const cli::PlanResult r = planner.finish(planner.evaluate());
    CHECK(r.counts.offload_tried > 0);
    std::map<int, std::set<std::string>> offloads_by_nodes;
    for (const cli::PlanPoint& p : r.points) {
      if (p.fits) offloads_by_nodes[p.nodes].insert(p.offload);
    }
    // One node: every plan that fits offloads (only zero stages offer the optimizer alone).
    REQUIRE(offloads_by_nodes.count(1) == 1);
    CHECK(offloads_by_nodes[1].count("none") == 0);
    for (const cli::PlanPoint& p : r.points) {
      if (p.fits && p.nodes == 1 && p.offload == "optimizer") CHECK(p.data_parallel.rfind("zero-", 0) == 0);
    }
    // Where a layout fits without offload (4 nodes: TP 4 x PP 8), none is tried.
    REQUIRE(offloads_by_nodes.count(4) == 1);
    CHECK(offloads_by_nodes[4] == std::set<std::string>{"none"});
  }

  TEST_CASE("an instance type that validation refuses at 2 nodes is not grown further: bf16 on V100") {
    // V100 (compute capability 7.0) has no bf16: every candidate on a p3 is refused, at any
    // node count. The search tries 1 and 2 nodes and stops there, not at 1,024.
    const config::Scenario s = config::parse_scenario(
        "format: gpuplan/v1\nname: bf16-v100\n"
        "workload: {model: gpt2, sequence_length: 1024, tokens: 1e9, dataset: {synthetic: true}}\n"
        "training: {batch_size: 8, gradient_accumulation: 1, precision: bf16_amp, optimizer: adamw}\n"
        "hardware: {gpu: a100-80gb, gpus_per_node: 8}\nparallelism: {strategy: ddp}\n",
        "bf16.yaml", context().catalogs, context().families);
    const cli::PlanOptions o = aws_options("v100-16gb", 7 * 86400.0);
    const cli::Planner planner(s, context().catalogs, context().families, o);
    const cli::PlanSearch search = planner.evaluate();
    CHECK(search.counts.max_nodes == 2);
    CHECK(search.counts.invalid == search.counts.considered);
    CHECK(search.points.empty());
  }

  TEST_CASE("a MoE variant's load imbalance: EP 2 plans run it capped at 2, and the notes say so") {
    const config::Scenario s = config::parse_scenario(
        "format: gpuplan/v1\nname: mx\n"
        "workload: {model: mixtral-8x7b, sequence_length: 4096, tokens: 1e8, dataset: {synthetic: true}}\n"
        "training: {batch_size: 1, gradient_accumulation: 8, precision: bf16_amp, attention: flash, optimizer: adamw,\n"
        "           activation_checkpointing: true, fine_tuning: {method: lora, rank: 16, targets: [q, k, v, o]}}\n"
        "hardware: {gpu: h100-sxm, gpus_per_node: 8}\n"
        "parallelism: {strategy: ddp, expert_parallel: 8, expert_load_imbalance: 3}\n",
        "mx.yaml", context().catalogs, context().families);
    const cli::PlanOptions o = aws_options("h100-sxm", 86400.0);
    const cli::Planner planner(s, context().catalogs, context().families, o);
    const cli::PlanResult r = planner.finish(planner.evaluate());
    std::set<int> eps;
    for (const cli::PlanPoint& p : r.points) eps.insert(p.expert_parallel);
    CHECK(eps.count(2) == 1);  // refused before: 3 is above 2
    CHECK(std::find(r.notes.begin(), r.notes.end(),
                    "variant baseline: its expert_load_imbalance 3 holds at each expert-parallel size of at least 3, is "
                    "capped at each size below that (EP 2 runs at 2: every token on one rank), and is dropped at "
                    "EP 1") != r.notes.end());
  }

  TEST_CASE("a strategy that names another GPU is planned on the instances searched, and a note says so") {
    const cli::PlanResult r = llama1b_h100_plan("", "", "strategies: {base: {}, on_b200: {hardware.gpu: b200}}\n");
    bool b200_rows_on_h100 = false;
    for (const cli::PlanPoint& p : r.points) {
      b200_rows_on_h100 = b200_rows_on_h100 || (p.strategy == "on_b200" && p.gpu == "h100-sxm");
      if (!p.fits) continue;
      CAPTURE(p.gpus);
      // On demand: GPUs x rate x time, the run that most likely meets no failure (p50 = its
      // time without them); on spot they are among the preemptions.
      if (p.market == "on_demand") {
        CHECK(p.expected_failures == doctest::Approx(p.gpus * models::kGpuFailureRatePerS * p.time_p50_s).epsilon(0.01));
      } else {
        CHECK(p.expected_failures == 0.0);
      }
    }
    CHECK(b200_rows_on_h100);
    CHECK(std::find(r.notes.begin(), r.notes.end(),
                    "on_b200 (b200) sets a GPU of its own: its rows run on the instance in the row, as every variant's "
                    "do (the rest of its settings is kept); --gpus chooses the GPUs planned") != r.notes.end());
  }

  TEST_CASE("an 8,192-token decoder with flash attention is planned with context parallelism, which validation "
            "accepts") {
    // Llama-3.2-1B (32 heads, 8 key/value heads, 16 layers) at 8,192 tokens on AWS's H100 SXM
    // instances: CP 2 keeps 4,096 tokens a rank (cli/layout_search.h kMinContextParallelTokens).
    const config::Scenario s = config::parse_scenario(
        "format: gpuplan/v1\nname: cp\n"
        "workload: {model: llama3.2-1b, sequence_length: 8192, tokens: 1e8, dataset: {synthetic: true}}\n"
        "training: {batch_size: 1, gradient_accumulation: 2, precision: bf16_amp, attention: flash, optimizer: adamw}\n"
        "hardware: {gpu: h100-sxm, gpus_per_node: 8}\nparallelism: {strategy: fsdp}\n",
        "cp.yaml", context().catalogs, context().families);
    const cli::Planner planner(s, context().catalogs, context().families, aws_options("h100-sxm", 86400.0));
    const cli::PlanSearch search = planner.evaluate();
    // No layout the search wrote was refused for its context parallelism.
    for (const auto& refusal : search.refusals) CHECK(refusal.first.find("context_parallel") == std::string::npos);
    const cli::PlanResult r = planner.finish(search);
    std::size_t context_parallel = 0;
    for (const cli::PlanPoint& p : r.points) {
      CHECK((p.context_parallel == 1 || p.context_parallel == 2));
      if (p.context_parallel == 1) continue;
      ++context_parallel;
      CAPTURE(p.gpus);
      CHECK(p.data_parallel_degree() * p.tensor_parallel * p.pipeline_parallel * 2 == p.gpus);
      // The global batch, 1 x 2 x 8 GPUs = 16 sequences, kept over GPUs / (TP x PP x CP) replicas.
      CHECK(p.micro_batch * p.gradient_accumulation * p.data_parallel_degree() == 16);
    }
    CHECK(context_parallel > 0);
  }

  TEST_CASE("a variant with activation offloading keeps it in every plan, has no pipeline plan, and a note says so") {
    const cli::PlanResult r = llama1b_h100_plan(", activation_offloading: true", ", host_memory: \"2 TiB\"", "");
    REQUIRE_FALSE(r.points.empty());
    for (const cli::PlanPoint& p : r.points) CHECK(p.pipeline_parallel == 1);
    CHECK(std::find(r.notes.begin(), r.notes.end(),
                    "baseline keeps training.activation_offloading: true in every plan (not searched), so no pipeline "
                    "layout is planned for it (offloading is not modelled with pipeline parallelism); a variant "
                    "without it is planned with them") != r.notes.end());
  }

  TEST_CASE("a search where nothing fits in memory says so, not that no plan meets the deadline") {
    cli::PlanResult plan;
    plan.deadline_s = 14 * 86400.0;
    plan.counts.considered = 1200;
    plan.counts.invalid = 168;
    plan.counts.pruned_memory = 1032;
    plan.counts.max_nodes = 1;
    plan.memory_suggestions = {"training.optimizer: adamw_8bit"};
    CHECK(cli::plan_summary(plan) ==
          "No plan: none of the 1032 distinct candidates that validation accepted fits in GPU memory (the largest layouts tried "
          "span 1 node). Try training.optimizer: adamw_8bit, GPUs with more memory "
          "(--gpus), or providers whose catalog gives a network between nodes (--providers; the notes list the instance "
          "types planned on one node only).\n");
    // Some fit but their bound misses the deadline: the deadline sentence, and how far off it is.
    plan.counts.pruned_bound = 5;
    plan.counts.best_bound_s = 20 * 86400.0;
    CHECK(cli::plan_summary(plan) ==
          "No plan meets the deadline of 14.00 d at p90.\nNo layout tried can finish in under 20.00 d (its lower bound: "
          "every kernel at the dense peak, the gradient exchange at the network's rate); give a deadline of at least "
          "that, or GPUs that are faster or more numerous (--gpus, --providers), or --exhaustive to simulate the "
          "layouts that fit anyway.\n");
    // Something simulated but too slow: the deadline sentence.
    plan.counts.pruned_bound = 0;
    plan.counts.simulated = 3;
    CHECK(cli::plan_summary(plan) == "No plan meets the deadline of 14.00 d at p90.\n");
    // A plan that fits but misses the deadline: the global batch every plan keeps is said.
    cli::PlanPoint slow;
    slow.strategy = "baseline";
    slow.instance = "aws/p5.48xlarge";
    slow.gpu = "h100-sxm";
    slow.market = "on_demand";
    slow.time_p50_s = slow.time_p90_s = 20 * 86400.0;
    slow.cost_p50_usd = slow.cost_p90_usd = 1e6;
    plan.points = {slow};
    plan.global_batch_samples = 256;
    plan.samples_are_sequences = true;
    const std::string summary = cli::plan_summary(plan);
    CHECK(summary.starts_with(
        "No plan meets the deadline of 14.00 d at p90.\nEvery plan keeps the scenario's global batch of 256 sequences "
        "per optimizer step, so more GPUs each get less of it; a deadline this short may need a larger one "
        "(training.batch_size or gradient_accumulation), if the training allows it.\nFastest plan: "));
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

namespace {
/// Runs `gpuplan plan SCENARIO ARGS` with 1 and 2 threads: the same bytes, and those of
/// tests/golden/GOLDEN (rewritten under GPUPLAN_UPDATE_GOLDEN).
void check_plan_golden(const std::string& scenario, const std::string& args, const std::string& golden_name) {
  namespace fs = std::filesystem;
  const fs::path source = GPUPLAN_SOURCE_DIR;
  const std::string command = "plan " + (source / "scenarios" / scenario).string() + " " + args;
  const auto first = testing::run_gpuplan(command + " --threads 1");
  const auto second = testing::run_gpuplan(command + " --threads 2");
  REQUIRE_MESSAGE(first.exit_code == 0, first.err);
  CHECK(first.out == second.out);
  const fs::path golden = source / "tests" / "golden" / golden_name;
  if (std::getenv("GPUPLAN_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden, std::ios::binary) << first.out;
    return;
  }
  REQUIRE_MESSAGE(fs::exists(golden), "missing golden file; run make update-golden");
  CHECK(first.out == testing::slurp(golden.string()));
}
}  // namespace

TEST_SUITE("cli.golden") {
  TEST_CASE("the shipped capacity plan (48 h, AWS, GCP, Lambda) matches its golden CSV, same bytes twice") {
    check_plan_golden("capacity-plan-llm-finetune.yaml", "--deadline 48h --providers aws,gcp,lambda --format csv",
                      "capacity-plan-llm-finetune.plan-48h.csv");
  }

  TEST_CASE("the shipped 70 B pretraining plan (30 d, H100 SXM instances) matches its golden table, same bytes twice" *
            doctest::skip(kUnderAddressSanitizer)) {
    check_plan_golden("llama3-70b-pretrain-plan.yaml", "--deadline 30d --gpus h100-sxm --format table",
                      "llama3-70b-pretrain-plan.plan-30d.txt");
  }
}

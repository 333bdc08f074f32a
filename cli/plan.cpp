#include "cli/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "cli/parallel_for.h"
#include "cli/plan_html.h"
#include "cli/plan_summary.h"
#include "cli/scenario_runner.h"
#include "config/instance_hardware.h"
#include "models/cost/cost.h"
#include "models/gpu/op_time.h"
#include "models/job/cloud_job.h"
#include "models/job/job_time.h"
#include "models/run/run_variant.h"
#include "models/workload/attention_kernel.h"
#include "report/human_units.h"
#include "report/field_grid.h"
#include "report/text_table.h"
#include "report/text_wrap.h"

namespace gpuplan::cli {
models::JobSpec plan_job(models::JobSpec base, const models::InstanceSpec& row, int nodes,
                         const config::Catalogs& catalogs) {
  place_plan_job(base, row, nodes, catalogs);
  return base;
}

void place_plan_job(models::JobSpec& j, const models::InstanceSpec& row, int nodes, const config::Catalogs& catalogs) {
  j.hardware = config::instance_hardware(row, nodes, catalogs, j.hardware);
  // All the instance's GPUs train with DDP (DataParallel cannot span nodes).
  if (j.hardware.gpus_per_node * nodes > 1 &&
      (j.parallelism.strategy == models::ParallelStrategy::kNone ||
       (nodes > 1 && j.parallelism.strategy == models::ParallelStrategy::kDataParallel))) {
    j.parallelism.strategy = models::ParallelStrategy::kDdp;
  }
}

namespace {

/// The columns of every plan output (report/field_grid.h), in order; the names of the job-level
/// fields are those of report/variant_fields.cpp.
std::vector<report::ResultField<PlanPoint>> plan_fields() {
  using report::Applies;
  using report::FieldValue;
  using Value = std::optional<FieldValue>;
  const auto count = [](int n) { return Value(FieldValue(static_cast<std::int64_t>(n))); };
  const auto number = [](double x) { return Value(FieldValue(x)); };
  // A spot plan's quantile whose trial did not finish is +infinity (plan_search.cpp): absent.
  const auto finite = [](double x) { return std::isfinite(x) ? Value(FieldValue(x)) : std::nullopt; };
  std::vector<report::ResultField<PlanPoint>> f;
  f.push_back({"instance", "", Applies::kAlways, "provider/instance type",
               [](const PlanPoint& p) { return Value(p.instance); }, "instance"});
  f.push_back({"gpu", "", Applies::kAlways, "GPU catalog name", [](const PlanPoint& p) { return Value(p.gpu); }, "gpu"});
  f.push_back({"nodes", "", Applies::kAlways, "instances", [count](const PlanPoint& p) { return count(p.nodes); },
               "nodes x GPUs",
               [](const PlanPoint& p) { return std::to_string(p.nodes) + " x " + std::to_string(p.gpus / p.nodes); }});
  f.push_back({"gpus", "", Applies::kAlways, "GPUs of all nodes", [count](const PlanPoint& p) { return count(p.gpus); }});
  f.push_back({"region", "", Applies::kAlways, "catalog region", [](const PlanPoint& p) { return Value(p.region); },
               "region/zone", [](const PlanPoint& p) { return p.zone.empty() ? p.region : p.zone; }});
  f.push_back({"zone", "", Applies::kAlways, "spot: the zone whose price is used",
               [](const PlanPoint& p) { return p.zone.empty() ? std::nullopt : Value(p.zone); }});
  f.push_back({"market", "", Applies::kAlways, "on_demand | spot", [](const PlanPoint& p) { return Value(p.market); },
               "market"});
  f.push_back({"variant", "", Applies::kAlways, "variant row name (the scenario's strategies x sweep points)",
               [](const PlanPoint& p) { return Value(p.strategy); }, "variant"});
  f.push_back({"strategy", "", Applies::kAlways, "data-parallel strategy: none | ddp | fsdp/<sharding> | zero-<stage>",
               [](const PlanPoint& p) { return Value(p.data_parallel); }, "strategy"});
  f.push_back({"data_parallel", "", Applies::kAlways,
               "data-parallel replicas: GPUs / (tensor x pipeline x context parallel)",
               [count](const PlanPoint& p) { return count(p.data_parallel_degree()); }, "DP"});
  f.push_back({"tensor_parallel", "", Applies::kAlways, "tensor-parallel GPUs (inside a node)",
               [count](const PlanPoint& p) { return count(p.tensor_parallel); }, "TP"});
  f.push_back({"sequence_parallel", "", Applies::kAlways,
               "Megatron sequence parallelism inside the tensor-parallel group (every layout with TP > 1)",
               [](const PlanPoint& p) { return Value(p.sequence_parallel); }});
  f.push_back({"distributed_optimizer", "", Applies::kAlways,
               "Megatron's distributed optimizer over the data x context parallel ranks (every ddp layout with TP, "
               "PP, CP or EP > 1)",
               [](const PlanPoint& p) { return Value(p.distributed_optimizer); }});
  f.push_back({"pipeline_parallel", "", Applies::kAlways, "pipeline stages",
               [count](const PlanPoint& p) { return count(p.pipeline_parallel); }, "PP"});
  f.push_back({"pipeline_schedule", "", Applies::kAlways,
               "pipeline schedule (gpipe | 1f1b | interleaved_1f1b) when pipeline_parallel > 1; the table shows "
               "it only where it is not 1f1b, with x V for V virtual stages",
               [](const PlanPoint& p) { return p.pipeline_parallel > 1 ? Value(p.pipeline_schedule) : std::nullopt; },
               "schedule",
               [](const PlanPoint& p) {
                 return p.virtual_stages > 1 ? fmt::format("{} x{}", p.pipeline_schedule, p.virtual_stages)
                                             : p.pipeline_schedule;
               },
               [](const PlanPoint& p) { return p.pipeline_parallel > 1 && p.pipeline_schedule != "1f1b"; }});
  f.push_back({"virtual_stages", "", Applies::kAlways,
               "model chunks per pipeline stage when pipeline_parallel > 1 (interleaved_1f1b: 2 or more; else 1)",
               [count](const PlanPoint& p) { return p.pipeline_parallel > 1 ? count(p.virtual_stages) : std::nullopt; }});
  f.push_back({"context_parallel", "", Applies::kAlways,
               "GPUs each sequence is split over (ring attention; 1: none); the table shows it for plans with "
               "context parallelism",
               [count](const PlanPoint& p) { return count(p.context_parallel); }, "CP",
               [](const PlanPoint& p) { return std::to_string(p.context_parallel); },
               [](const PlanPoint& p) { return p.context_parallel > 1; }});
  f.push_back({"expert_parallel", "", Applies::kAlways,
               "ranks the routed experts of a mixture-of-experts model are split over, inside the data-parallel "
               "ranks (1: every rank holds every expert); the table shows it for mixture-of-experts plans",
               [count](const PlanPoint& p) { return count(p.expert_parallel); }, "EP",
               [](const PlanPoint& p) { return std::to_string(p.expert_parallel); },
               [](const PlanPoint& p) { return p.expert_parallel > 1; }});
  f.push_back({"offload", "", Applies::kAlways,
               "CPU offload of the sharded state: none | optimizer (ZeRO-Offload) | optimizer+parameters (FSDP "
               "CPUOffload, ZeRO-Infinity to the CPU); the search tries it where no layout of the instance type and "
               "node count fits without, and the table shows it where used",
               [](const PlanPoint& p) { return Value(p.offload); }, "offload", nullptr,
               [](const PlanPoint& p) { return p.offload != "none"; }});
  f.push_back({"micro_batch", "samples", Applies::kAlways, "per-GPU micro-batch (training.batch_size)",
               [count](const PlanPoint& p) { return count(p.micro_batch); }, "micro"});
  f.push_back({"gradient_accumulation", "", Applies::kAlways, "micro-batches per optimizer step",
               [count](const PlanPoint& p) { return count(p.gradient_accumulation); }, "accum."});
  f.push_back({"recompute", "", Applies::kAlways, "activation checkpointing: false | selective | full",
               [](const PlanPoint& p) { return Value(p.recompute); }, "recompute"});
  f.push_back({"time_p50_s", "s", Applies::kFits, "median wall time to finish",
               [finite](const PlanPoint& p) { return finite(p.time_p50_s); }, "time p50"});
  f.push_back({"time_p90_s", "s", Applies::kFits, "90th percentile of the wall time",
               [finite](const PlanPoint& p) { return finite(p.time_p90_s); }, "time p90"});
  f.push_back({"cost_p50_usd", "USD", Applies::kFits, "median dollars",
               [finite](const PlanPoint& p) { return finite(p.cost_p50_usd); }, "$ p50"});
  f.push_back({"cost_p90_usd", "USD", Applies::kFits, "90th percentile of the dollars",
               [finite](const PlanPoint& p) { return finite(p.cost_p90_usd); }, "$ p90"});
  f.push_back({"expected_preemptions", "", Applies::kFits, "spot: mean preemptions over the trials; 0 on-demand",
               [number](const PlanPoint& p) { return number(p.expected_preemptions); }, "preempt.",
               [](const PlanPoint& p) {
                 return p.market == "spot" ? fmt::format("{:.1f}", p.expected_preemptions) : std::string("-");
               }});
  f.push_back({"expected_failures", "", Applies::kFits,
               "on demand: mean hardware failures over the run (hardware.gpu_failure_rate); on spot among the "
               "preemptions, 0 here",
               [number](const PlanPoint& p) { return number(p.expected_failures); }});
  f.push_back({"fits", "", Applies::kAlways, "peak GPU memory <= capacity", [](const PlanPoint& p) { return Value(p.fits); }});
  f.push_back({"finished_share", "1", Applies::kFits, "spot: share of trials finished within the cap",
               [number](const PlanPoint& p) { return number(p.finished_share); }});
  f.push_back({"checkpoint_interval_s", "s", Applies::kFits, "chosen checkpoint interval (work seconds); 0 = none",
               [number](const PlanPoint& p) { return number(p.checkpoint_interval_s); }});
  f.push_back({"peak_memory_bytes", "B", Applies::kFits,
               "peak memory of the busiest GPU (the worst pipeline stage's), as gpuplan run reports it",
               [number](const PlanPoint& p) { return number(p.peak_memory_bytes); }});
  f.push_back({"memory_capacity_bytes", "B", Applies::kFits, "memory of one GPU",
               [number](const PlanPoint& p) { return number(p.memory_capacity_bytes); }});
  f.push_back({"bound_time_s", "s", Applies::kFits, "lower bound on the time (compute at peak, gradient exchange)",
               [number](const PlanPoint& p) { return number(p.bound_time_s); }});
  f.push_back({"meets_deadline", "", Applies::kAlways, "time p90 <= deadline, and fits",
               [](const PlanPoint& p) { return Value(p.meets_deadline); }});
  f.push_back({"within_budget", "", Applies::kAlways, "dollars p90 <= budget (when given)",
               [](const PlanPoint& p) { return Value(p.within_budget); }});
  f.push_back({"pareto", "", Applies::kAlways, "on the front of (time p90, dollars p90)",
               [](const PlanPoint& p) { return Value(p.pareto); }});
  return f;
}

}  // namespace

std::string plan_point_key(const PlanPoint& p) {
  return fmt::format("{}|{}|{}|{}|{:06}|{}|{}|{:02}|{:02}|{:02}|{:02}|{:04}|{}|{:06}|{:08}|{}", p.instance, p.region,
                     p.zone, p.market, p.nodes, p.strategy, p.data_parallel, p.tensor_parallel, p.pipeline_parallel,
                     p.virtual_stages, p.context_parallel, p.expert_parallel, p.offload, p.micro_batch,
                     p.gradient_accumulation, p.recompute);
}

PlanBound plan_lower_bound(const models::JobSpec& job) {
  const models::JobTimes shape = models::job_times(job, 1.0, 0.0);
  const double steps = shape.steps_per_epoch * shape.epochs;
  const int gpus = job.hardware.gpus_per_node * job.hardware.nodes;
  const double peak = models::math_peak_flop_per_s(models::OpClass::kMatmul, job.training.precision, job.hardware.gpu);
  // Model FLOP as the kernels execute them (models::executed_forward_flop): a causal fused
  // attention kernel skips the masked tiles, so its whole-square FLOP would overstate the work.
  double flop_per_sample = 0.0;
  for (const models::Op& op : job.workload.ops) {
    flop_per_sample += models::executed_forward_flop(op) * (1.0 + op.backward_flop_ratio);
  }
  const double compute_s = flop_per_sample * models::global_batch_samples(job) / (gpus * peak);
  double exchange_s = 0.0;
  const models::Topology& topology = job.hardware.topology;
  if (job.hardware.nodes > 1 && topology.inter_node && job.parallelism.strategy != models::ParallelStrategy::kNone) {
    const double n = job.hardware.nodes;
    const double per_node = job.hardware.gpus_per_node;
    // A node holds the whole model while tensor x pipeline x expert parallel fit inside it;
    // beyond, a share. With experts spread over nodes the bound takes every parameter at the
    // experts' share and replicas, though the dense weights are held whole: still a lower bound.
    const double model_parallel = static_cast<double>(job.parallelism.tensor_parallel) *
                                  job.parallelism.pipeline_parallel * job.parallelism.expert_parallel;
    const double held = model_parallel > per_node ? per_node / model_parallel : 1.0;  // share of the parameters
    const double replicas = model_parallel > per_node ? n * per_node / model_parallel : n;
    const double bytes = 2.0 * (replicas - 1.0) / replicas * 2.0 * held * job.workload.parameters;
    exchange_s = bytes / (topology.inter_node->bytes_per_s_per_direction * topology.nics_per_node);
  }
  return {steps * compute_s, steps * exchange_s};
}

bool same_plan_time(double a_s, double b_s) {
  return std::abs(a_s - b_s) <= kPlanTimeRelativeTolerance * std::max(std::abs(a_s), std::abs(b_s));
}

bool faster_plan_time(double a_s, double b_s) { return a_s < b_s && !same_plan_time(a_s, b_s); }

void mark_pareto(std::vector<PlanPoint>& points) {
  std::vector<std::size_t> by_time;
  for (std::size_t i = 0; i < points.size(); ++i) {
    points[i].pareto = false;
    if (points[i].fits && std::isfinite(points[i].time_p90_s)) by_time.push_back(i);
  }
  std::sort(by_time.begin(), by_time.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(points[a].time_p90_s, points[a].cost_p90_usd, a) <
           std::tie(points[b].time_p90_s, points[b].cost_p90_usd, b);
  });
  // Sweep by time. The points before position `faster_end` are faster than the current
  // one beyond the tolerance: any of them at most as dear dominates it. The points in
  // [faster_end, same_end) have the same plan time as it (a window that only moves
  // forward): one of them dominates it when cheaper, or as cheap and earlier in `points`.
  // `window` keeps the positions of that window whose (dollars, index) may still be its
  // least, in increasing (dollars, index).
  const auto key = [&](std::size_t position) {
    return std::make_pair(points[by_time[position]].cost_p90_usd, by_time[position]);
  };
  double cheapest_faster = std::numeric_limits<double>::infinity();
  std::size_t faster_end = 0;
  std::size_t same_end = 0;
  std::deque<std::size_t> window;
  for (std::size_t position = 0; position < by_time.size(); ++position) {
    const double time_s = points[by_time[position]].time_p90_s;
    while (faster_end < position && faster_plan_time(points[by_time[faster_end]].time_p90_s, time_s)) {
      cheapest_faster = std::min(cheapest_faster, points[by_time[faster_end]].cost_p90_usd);
      ++faster_end;
    }
    while (same_end < by_time.size() &&
           (same_end <= position || same_plan_time(points[by_time[same_end]].time_p90_s, time_s))) {
      while (!window.empty() && key(window.back()) >= key(same_end)) window.pop_back();
      window.push_back(same_end++);
    }
    while (window.front() < faster_end) window.pop_front();
    const double cost_usd = points[by_time[position]].cost_p90_usd;
    points[by_time[position]].pareto = !(cheapest_faster <= cost_usd) && !(key(window.front()) < key(position));
  }
}

const PlanPoint* fastest_plan(const std::vector<PlanPoint>& points) {
  const PlanPoint* least_time = nullptr;
  for (const PlanPoint& p : points) {
    if (p.fits && std::isfinite(p.time_p90_s) && (least_time == nullptr || p.time_p90_s < least_time->time_p90_s)) {
      least_time = &p;
    }
  }
  const PlanPoint* fastest = nullptr;
  for (const PlanPoint& p : points) {
    if (!p.fits || least_time == nullptr || !same_plan_time(p.time_p90_s, least_time->time_p90_s)) continue;
    if (fastest == nullptr || p.cost_p90_usd < fastest->cost_p90_usd) fastest = &p;
  }
  return fastest;
}

std::vector<const PlanPoint*> cheapest_meeting_plans(const std::vector<PlanPoint>& points, std::size_t limit) {
  std::vector<const PlanPoint*> out;
  std::set<std::tuple<std::string, int, std::string>> offers;  // instance, nodes, market
  for (const PlanPoint& p : points) {
    if (out.size() >= limit) break;
    if (p.meets_deadline && p.within_budget && offers.emplace(p.instance, p.nodes, p.market).second) {
      out.push_back(&p);
    }
  }
  return out;
}

std::string render_plan(const PlanResult& plan, const std::string& format) {
  if (format == "html") return render_plan_html(plan);
  const std::vector<report::ResultField<PlanPoint>> fields = plan_fields();
  const auto fits = [](const PlanPoint& p) { return p.fits; };
  if (format == "table" || format == "markdown") {
    const bool md = format == "markdown";
    std::string out = (md ? "## " : "") + plan.scenario_name + "\n\n";
    out += "Deadline " + report::human_duration(plan.deadline_s) + " at p90" +
           (plan.budget_usd ? ", budget " + report::human_usd(*plan.budget_usd) + " at p90" : "") + "\n\n";
    out += (md ? plan_summary(plan) : report::wrap_text(plan_summary(plan), report::kTerminalColumns)) + "\n";
    std::vector<PlanPoint> cheapest;
    for (const PlanPoint* p : cheapest_meeting_plans(plan.points, kPlanTableRows)) cheapest.push_back(*p);
    out += md ? "**Cheapest plans that meet the deadline** (the cheapest layout of each instance type, node count "
                "and market)\n\n"
              : "Cheapest plans that meet the deadline (the cheapest layout of each instance type, node count and "
                "market):\n";
    out += cheapest.empty() ? std::string("  none: no plan meets the deadline (and budget) at p90\n")
                            : report::grid_table(report::make_grid<PlanPoint>(fields, cheapest, fits), md);
    std::vector<PlanPoint> pareto;
    for (const PlanPoint& p : plan.points) {
      if (p.pareto) pareto.push_back(p);
    }
    std::stable_sort(pareto.begin(), pareto.end(),
                     [](const PlanPoint& a, const PlanPoint& b) { return a.time_p90_s < b.time_p90_s; });
    out += md ? "\n**Pareto front: time p90 against dollars p90**\n\n" : "\nPareto front (time p90 against $ p90):\n";
    out += pareto.empty() ? std::string("  none: no plan that fits was simulated\n")
                          : report::grid_table(report::make_grid<PlanPoint>(fields, pareto, fits), md);
    // The columns a new user could not read (a trial asked what "preempt." counts).
    // CP and EP are named only where their columns are shown.
    const bool any_cp = std::any_of(plan.points.begin(), plan.points.end(),
                                    [](const PlanPoint& p) { return p.context_parallel > 1; });
    const bool any_ep = std::any_of(plan.points.begin(), plan.points.end(),
                                    [](const PlanPoint& p) { return p.expert_parallel > 1; });
    const std::string legend =
        std::string("DP x TP x PP") + (any_cp ? " x CP" : "") + " = the GPUs" +
        (any_ep ? " (EP splits the experts among the DP ranks)" : "") +
        "; micro = the micro-batch per GPU, accum. = micro-batches per optimizer step; time and $ p50 / p90 = the median and 90th percentile over "
        "simulated trials, spot preemptions and hardware failures with their restarts included; preempt. = spot "
        "preemptions expected over the run (on demand: -).\n";
    out += "\n" + (md ? legend : report::wrap_text(legend, report::kTerminalColumns));
    out += md ? "\n" : "\nNotes:\n";
    for (const std::string& n : plan.notes) out += (md ? "- " : "  ") + n + "\n";
    return out;
  }
  const report::FieldGrid grid = report::make_grid<PlanPoint>(fields, plan.points, fits);
  if (format == "csv") return report::grid_csv(grid);
  if (format == "json") {
    return report::grid_json({{"scenario", plan.scenario_name},
                              {"summary", plan_summary(plan)},
                              {"deadline_s", plan.deadline_s},
                              {"budget_usd", plan.budget_usd ? std::optional<report::FieldValue>(*plan.budget_usd)
                                                             : std::nullopt},
                              {"notes", plan.notes}},
                             "points", grid);
  }
  throw std::invalid_argument("unknown format '" + format + "'; expected table, markdown, csv or json");
}

}  // namespace gpuplan::cli

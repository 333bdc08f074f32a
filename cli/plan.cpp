#include "cli/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
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
#include "models/job/cloud_job.h"
#include "models/job/job_time.h"
#include "models/run/run_variant.h"
#include "report/human_units.h"
#include "report/field_grid.h"
#include "report/text_table.h"
#include "report/text_wrap.h"

namespace gpuplan::cli {
namespace {

/// Replacement wait of a spot plan when the scenario gives none: 10 min, the example of
/// scenario-format.md (`replacement_wait: "10 min"`).
constexpr double kDefaultReplacementWaitS = 600.0;

}  // namespace

models::JobSpec plan_job(const models::JobSpec& base, const models::InstanceSpec& row, int nodes,
                         const config::Catalogs& catalogs) {
  models::JobSpec j = base;
  j.hardware = config::instance_hardware(row, nodes, catalogs, base.hardware);
  // All the instance's GPUs train with DDP (DataParallel cannot span nodes).
  if (j.hardware.gpus_per_node * nodes > 1 &&
      (j.parallelism.strategy == models::ParallelStrategy::kNone ||
       (nodes > 1 && j.parallelism.strategy == models::ParallelStrategy::kDataParallel))) {
    j.parallelism.strategy = models::ParallelStrategy::kDdp;
  }
  return j;
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
  f.push_back({"strategy", "", Applies::kAlways, "variant row name", [](const PlanPoint& p) { return Value(p.strategy); },
               "strategy"});
  f.push_back({"time_p50_s", "s", Applies::kFits, "median wall time to finish",
               [number](const PlanPoint& p) { return number(p.time_p50_s); }, "time p50"});
  f.push_back({"time_p90_s", "s", Applies::kFits, "90th percentile of the wall time",
               [number](const PlanPoint& p) { return number(p.time_p90_s); }, "time p90"});
  f.push_back({"cost_p50_usd", "USD", Applies::kFits, "median dollars",
               [number](const PlanPoint& p) { return number(p.cost_p50_usd); }, "$ p50"});
  f.push_back({"cost_p90_usd", "USD", Applies::kFits, "90th percentile of the dollars",
               [number](const PlanPoint& p) { return number(p.cost_p90_usd); }, "$ p90"});
  f.push_back({"expected_preemptions", "", Applies::kFits, "spot: mean preemptions over the trials; 0 on-demand",
               [number](const PlanPoint& p) { return number(p.expected_preemptions); }, "preempt.",
               [](const PlanPoint& p) {
                 return p.market == "spot" ? fmt::format("{:.1f}", p.expected_preemptions) : std::string("-");
               }});
  f.push_back({"fits", "", Applies::kAlways, "peak GPU memory <= capacity", [](const PlanPoint& p) { return Value(p.fits); }});
  f.push_back({"finished_share", "1", Applies::kFits, "spot: share of trials finished within the cap",
               [number](const PlanPoint& p) { return number(p.finished_share); }});
  f.push_back({"checkpoint_interval_s", "s", Applies::kFits, "chosen checkpoint interval (work seconds); 0 = none",
               [number](const PlanPoint& p) { return number(p.checkpoint_interval_s); }});
  f.push_back({"meets_deadline", "", Applies::kAlways, "time p90 <= deadline, and fits",
               [](const PlanPoint& p) { return Value(p.meets_deadline); }});
  f.push_back({"within_budget", "", Applies::kAlways, "dollars p90 <= budget (when given)",
               [](const PlanPoint& p) { return Value(p.within_budget); }});
  f.push_back({"pareto", "", Applies::kAlways, "on the front of (time p90, dollars p90)",
               [](const PlanPoint& p) { return Value(p.pareto); }});
  return f;
}

/// The columns of `row` that config::instance_hardware reads: rows with equal signatures get
/// the same hardware, so their step is simulated once.
std::string hardware_signature(const models::InstanceSpec& row) {
  return fmt::format("{}|{}|{:a}|{:a}|{}|{:a}|{}", row.gpu, row.accelerator_count, row.vcpus, row.memory_bytes,
                     row.interconnect, row.network_bytes_per_s, row.storage);
}

std::string key_of(const PlanPoint& p) {
  return p.instance + "|" + p.region + "|" + p.zone + "|" + p.market + "|" + std::to_string(p.nodes) + "|" + p.strategy;
}

std::string hexd(double v) { return fmt::format("{:a}", v); }

}  // namespace

Planner::Planner(const config::Scenario& scenario, const config::Catalogs& catalogs, const PlanOptions& options)
    : scenario_(scenario), catalogs_(catalogs), options_(options) {
  if (!(options.deadline_s > 0.0)) throw std::invalid_argument("plan: the deadline must be positive");
  if (options_.threads == 0) options_.threads = std::max(1U, std::thread::hardware_concurrency());
  std::set<std::string> known_providers;
  for (const models::InstanceSpec& row : catalogs.instances.rows()) known_providers.insert(row.provider);
  for (const std::string& p : options.providers) {
    if (known_providers.count(p) == 0U) {
      throw std::invalid_argument(fmt::format("unknown provider '{}' in --providers; the catalogs hold {}", p,
                                              fmt::join(known_providers, ", ")));
    }
  }
  // Rows per provider/type in catalog order; one on-demand point per region, one spot point per zone.
  std::map<std::string, std::vector<const models::InstanceSpec*>> by_type;
  std::vector<std::string> type_order;
  for (const models::InstanceSpec& row : catalogs.instances.rows()) {
    if (!options.providers.empty() &&
        std::find(options.providers.begin(), options.providers.end(), row.provider) == options.providers.end()) {
      continue;
    }
    if (catalogs.gpus.find(row.gpu) == nullptr || row.accelerator_count < 1) continue;  // not a GPU of ours
    const config::InstanceFacts facts = config::instance_facts(row, catalogs);
    if (!facts.problems.empty() || facts.gpu_interconnect.empty()) {
      skipped_rows_.push_back(config::row_label(row) + " is skipped: " +
                              (facts.problems.empty() ? std::string("it gives no Interconnect")
                                                      : facts.problems.front().problem + facts.problems.front().fix));
      continue;
    }
    const std::string name = row.provider + "/" + row.instance_type;
    if (by_type.find(name) == by_type.end()) type_order.push_back(name);
    by_type[name].push_back(&row);
  }
  if (type_order.empty()) {
    throw std::invalid_argument("plan: no instance of the catalogs matches the providers given");
  }
  for (std::size_t v = 0; v < scenario.variants.size(); ++v) {
    for (const std::string& type : type_order) {
      for (int nodes : options_.node_counts) {
        // Several nodes only of the rows that give a network (instance_hardware's check).
        std::vector<const models::InstanceSpec*> rows;
        // A tensor-parallel group stays inside a node (config/scenario_model_parallel.h); the
        // rows of a type have the same GPUs.
        const int tensor_parallel = scenario.variants[v].job.parallelism.tensor_parallel;
        const int type_gpus = by_type[type].front()->accelerator_count;
        if (type_gpus % tensor_parallel != 0) {
          if (nodes == 1) {
            skipped_rows_.push_back(type + " is skipped: its " + std::to_string(type_gpus) +
                                    (type_gpus == 1 ? " GPU does" : " GPUs do") +
                                    " not hold a tensor-parallel group of " + std::to_string(tensor_parallel));
          }
          continue;
        }
        // A pipeline needs its stages' GPUs and spreads them evenly over the nodes
        // (config/scenario_model_parallel.h): node counts that cannot hold the layout are skipped.
        const int pipeline_parallel = scenario.variants[v].job.parallelism.pipeline_parallel;
        if (pipeline_parallel > 1 && ((type_gpus * nodes) % (tensor_parallel * pipeline_parallel) != 0 ||
                                      (nodes % pipeline_parallel != 0 && pipeline_parallel % nodes != 0))) {
          continue;
        }
        for (const models::InstanceSpec* row : by_type[type]) {
          if (nodes == 1 || row->network_bytes_per_s > 0.0) {
            rows.push_back(row);
          } else if (v == 0 && std::any_of(by_type[type].begin(), by_type[type].end(), [](const auto* r) {
                       return r->network_bytes_per_s > 0.0;
                     })) {
            one_node_rows_.push_back(config::row_label(*row));
          }
        }
        if (rows.empty()) {
          if (v == 0) ++no_network_types_;  // the catalog gives no network: one node only
          continue;
        }
        // One simulation per distinct hardware of the type's rows (a row of a new region from a
        // plain SkyPilot file lacks the columns the shipped rows have).
        std::map<std::string, std::size_t> key_of_hardware;
        const auto step_key = [&](const models::InstanceSpec* row) {
          const auto [it, added] = key_of_hardware.emplace(hardware_signature(*row), step_keys_.size());
          if (added) step_keys_.push_back({v, row, nodes});
          return it->second;
        };
        std::vector<std::string> regions;
        for (const models::InstanceSpec* row : rows) {
          if (std::find(regions.begin(), regions.end(), row->region) == regions.end()) {
            regions.push_back(row->region);
            tasks_.push_back({v, step_key(row), row, models::Market::kOnDemand, nodes});
          }
        }
        for (const models::InstanceSpec* row : rows) {
          if (row->spot_price_usd_per_s > 0.0) tasks_.push_back({v, step_key(row), row, models::Market::kSpot, nodes});
        }
      }
    }
  }
}

Planner::StepResult Planner::step_result(std::size_t key) const {
  const auto& [v, row, nodes] = step_keys_[key];
  models::JobSpec one = plan_job(scenario_.variants[v].job, *row, nodes, catalogs_);
  one.checkpointing.enabled = false;
  one.cloud.reset();
  one.on_premises.reset();
  one.trials = 1;
  models::ModelParams params;
  params.scaling_reference = false;  // the plan reads fits and time only: no single-GPU run
  const models::VariantRun run = models::run_variant(one, "plan", params);
  StepResult s;
  s.fits = run.result.fits;
  s.time_s = run.result.time_to_train_s;
  return s;
}

PlanPoint Planner::evaluate_one(const PlanTask& task, const StepResult& step) const {
  const config::Variant& variant = scenario_.variants[task.variant];
  const models::InstanceSpec& row = *task.row;
  PlanPoint p;
  p.strategy = row_name(variant);
  p.instance = row.provider + "/" + row.instance_type;
  p.gpu = row.gpu;
  p.region = row.region;
  p.zone = task.market == models::Market::kSpot ? row.zone : "";
  p.market = std::string(models::name_of(task.market));
  p.nodes = task.nodes;
  p.gpus = row.accelerator_count * task.nodes;
  p.fits = step.fits && step.time_s > 0.0;
  if (!p.fits) return p;
  models::JobSpec job = plan_job(variant.job, row, task.nodes, catalogs_);
  models::CloudSpec cloud;
  cloud.instance = row;
  cloud.market = task.market;
  cloud.replacement_wait_s =
      variant.job.cloud && variant.job.cloud->replacement_wait_s > 0.0 ? variant.job.cloud->replacement_wait_s
                                                                        : kDefaultReplacementWaitS;
  if (task.market == models::Market::kSpot) {
    const auto def = catalogs_.preemption.find(row.provider, row.instance_type);
    cloud.startup_s = def ? def->startup_s : 0.0;
    if (variant.preemption_source == config::PreemptionSource::kRate && variant.job.cloud) {
      cloud.preemption_rate_per_s = variant.job.cloud->preemption_rate_per_s;
    } else if (variant.preemption_source == config::PreemptionSource::kTrace && variant.job.cloud) {
      cloud.trace = variant.job.cloud->trace;
    } else if (def) {
      cloud.preemption_rate_per_s = def->rate_per_s;
    }
  }
  job.cloud = cloud;
  // A spot plan needs a spread for its p90: the scenario's trials when it asks for several,
  // else kPlanSpotTrials (its own variants may be on-demand, with one trial).
  if (task.market == models::Market::kSpot && job.trials <= 1) job.trials = kPlanSpotTrials;
  const double time_s = step.time_s;
  const models::JobTimes shape = models::job_times(job, 1.0, 0.0);
  const double steps = shape.steps_per_epoch * shape.epochs;
  const models::JobOutcome o = models::run_job_level(job, time_s / steps, 0.0, 0.0);
  p.time_p50_s = o.time_p50_s;
  p.time_p90_s = o.time_p90_s;
  p.checkpoint_interval_s = o.checkpoint_interval_s;
  if (o.spot) {
    p.cost_p50_usd = o.spot->cost_p50_usd;
    p.cost_p90_usd = o.spot->cost_p90_usd;
    p.expected_preemptions = o.spot->preemptions_mean;
    p.finished_share = static_cast<double>(o.spot->finished) / o.spot->trials;
  } else {
    p.cost_p50_usd = models::on_demand_cost_usd(row, task.nodes, o.times.time_to_train_s);
    p.cost_p90_usd = p.cost_p50_usd;
  }
  return p;
}

std::vector<PlanPoint> Planner::evaluate(std::size_t offset, std::size_t stride) const {
  std::vector<std::size_t> mine;
  for (std::size_t i = offset; i < tasks_.size(); i += stride) mine.push_back(i);
  std::vector<std::size_t> keys;
  for (std::size_t i : mine) keys.push_back(tasks_[i].step_key);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<StepResult> steps(step_keys_.size());
  const std::size_t total = keys.size() + mine.size();
  parallel_for(keys.size(), options_.threads, options_.progress, 0, total,
               [&](std::size_t k) { steps[keys[k]] = step_result(keys[k]); });
  std::vector<PlanPoint> out(mine.size());
  parallel_for(mine.size(), options_.threads, options_.progress, keys.size(), total, [&](std::size_t j) {
    const PlanTask& t = tasks_[mine[j]];
    out[j] = evaluate_one(t, steps[t.step_key]);
  });
  return out;
}

PlanResult Planner::finish(std::vector<PlanPoint> points) const {
  PlanResult r;
  r.scenario_name = scenario_.name;
  r.deadline_s = options_.deadline_s;
  r.budget_usd = options_.budget_usd;
  for (PlanPoint& p : points) {
    p.meets_deadline = p.fits && p.time_p90_s <= options_.deadline_s;
    p.within_budget = !options_.budget_usd || (p.fits && p.cost_p90_usd <= *options_.budget_usd);
  }
  std::sort(points.begin(), points.end(), [](const PlanPoint& a, const PlanPoint& b) {
    if (a.fits != b.fits) return a.fits;
    if (a.cost_p90_usd != b.cost_p90_usd) return a.cost_p90_usd < b.cost_p90_usd;
    if (a.time_p90_s != b.time_p90_s) return a.time_p90_s < b.time_p90_s;
    return key_of(a) < key_of(b);
  });
  // Pareto front of (time p90, dollars p90): sweep by time, keep strictly cheaper points.
  std::vector<std::size_t> by_time;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].fits) by_time.push_back(i);
  }
  std::stable_sort(by_time.begin(), by_time.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].time_p90_s != points[b].time_p90_s) return points[a].time_p90_s < points[b].time_p90_s;
    return a < b;
  });
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i : by_time) {
    if (points[i].cost_p90_usd < best) {
      points[i].pareto = true;
      best = points[i].cost_p90_usd;
    }
  }
  std::size_t oom = 0;
  std::size_t unfinished = 0;
  for (const PlanPoint& p : points) {
    oom += p.fits ? 0 : 1;
    unfinished += p.fits && p.finished_share < 1.0 ? 1 : 0;
  }
  r.points = std::move(points);
  r.notes.push_back(
      "every GPU of each instance is simulated: DDP over the instance's interconnect and, with several nodes, its "
      "network (catalog columns; >= 400 Gbit/s counts as an RDMA fabric), identical ranks simulated once");
  for (const std::string& row : skipped_rows_) r.notes.push_back(row);
  for (const std::string& row : one_node_rows_) {
    r.notes.push_back(row + " gives no Network in the catalog: planned on one node only");
  }
  if (no_network_types_ > 0) {
    r.notes.push_back(fmt::format("{} instance types give no network in the catalog: planned on one node only",
                                  no_network_types_));
  }
  r.notes.push_back(fmt::format("{} plans evaluated: {} strategies x instance types x {{{}}} nodes x markets "
                                "(on-demand per region, spot per zone at the zone's spot price); the Pareto front "
                                "is over all of them, spot plans slower than the deadline included",
                                r.points.size(), scenario_.variants.size(), fmt::join(kPlanNodeCounts, ", ")));
  r.notes.push_back("the scenario's own cloud instance and market are replaced by each plan's; spot preemption "
                    "rates come from the scenario when it writes one, else from catalogs/preemption.yaml");
  if (oom > 0) r.notes.push_back(fmt::format("{} plans do not fit in GPU memory (OOM) and are left out", oom));
  if (unfinished > 0) {
    r.notes.push_back(fmt::format("{} spot plans did not finish within the trial cap in some trials (time = cap)",
                                  unfinished));
  }
  return r;
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
    for (const PlanPoint& p : plan.points) {
      if (p.meets_deadline && p.within_budget && cheapest.size() < 10) cheapest.push_back(p);
    }
    out += md ? "**Cheapest plans that meet the deadline**\n\n" : "Cheapest plans that meet the deadline:\n";
    out += cheapest.empty() ? std::string("  none: no plan meets the deadline (and budget) at p90\n")
                            : report::grid_table(report::make_grid<PlanPoint>(fields, cheapest, fits), md);
    std::vector<PlanPoint> pareto;
    for (const PlanPoint& p : plan.points) {
      if (p.pareto) pareto.push_back(p);
    }
    std::stable_sort(pareto.begin(), pareto.end(),
                     [](const PlanPoint& a, const PlanPoint& b) { return a.time_p90_s < b.time_p90_s; });
    out += md ? "\n**Pareto front: time p90 against dollars p90**\n\n" : "\nPareto front (time p90 against $ p90):\n";
    out += report::grid_table(report::make_grid<PlanPoint>(fields, pareto, fits), md);
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

std::string serialize_points(const std::vector<PlanPoint>& points) {
  std::string out;
  for (const PlanPoint& p : points) {
    out += p.strategy + '\x1f' + p.instance + '\x1f' + p.gpu + '\x1f' + p.region + '\x1f' + p.zone + '\x1f' +
           p.market + '\x1f' + std::to_string(p.nodes) + '\x1f' + std::to_string(p.gpus) + '\x1f' +
           (p.fits ? "1" : "0") + '\x1f' + hexd(p.time_p50_s) + '\x1f' + hexd(p.time_p90_s) + '\x1f' +
           hexd(p.cost_p50_usd) + '\x1f' + hexd(p.cost_p90_usd) + '\x1f' + hexd(p.expected_preemptions) + '\x1f' +
           hexd(p.finished_share) + '\x1f' + hexd(p.checkpoint_interval_s) + '\x1e';
  }
  return out;
}

std::vector<PlanPoint> deserialize_points(const std::string& text) {
  std::vector<PlanPoint> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\x1e', start);
    const std::string rec = text.substr(start, end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    std::vector<std::string> f;
    std::size_t s = 0;
    for (std::size_t e = rec.find('\x1f'); ; e = rec.find('\x1f', s)) {
      f.push_back(rec.substr(s, e == std::string::npos ? std::string::npos : e - s));
      if (e == std::string::npos) break;
      s = e + 1;
    }
    if (f.size() != 16) throw std::invalid_argument("deserialize_points: malformed record");
    PlanPoint p;
    p.strategy = f[0];
    p.instance = f[1];
    p.gpu = f[2];
    p.region = f[3];
    p.zone = f[4];
    p.market = f[5];
    p.nodes = std::stoi(f[6]);
    p.gpus = std::stoi(f[7]);
    p.fits = f[8] == "1";
    p.time_p50_s = std::strtod(f[9].c_str(), nullptr);
    p.time_p90_s = std::strtod(f[10].c_str(), nullptr);
    p.cost_p50_usd = std::strtod(f[11].c_str(), nullptr);
    p.cost_p90_usd = std::strtod(f[12].c_str(), nullptr);
    p.expected_preemptions = std::strtod(f[13].c_str(), nullptr);
    p.finished_share = std::strtod(f[14].c_str(), nullptr);
    p.checkpoint_interval_s = std::strtod(f[15].c_str(), nullptr);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace gpuplan::cli

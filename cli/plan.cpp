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
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "cli/plan_html.h"
#include "cli/plan_summary.h"
#include "cli/scenario_runner.h"
#include "config/hardware_topology.h"
#include "models/cost/cost.h"
#include "models/job/cloud_job.h"
#include "models/job/job_time.h"
#include "models/run/run_variant.h"
#include "report/human_units.h"
#include "report/text_table.h"
#include "report/text_wrap.h"

namespace gpuplan::cli {
namespace {

/// Replacement wait of a spot plan when the scenario gives none: 10 min, the example of
/// scenario-format.md (`replacement_wait: "10 min"`).
constexpr double kDefaultReplacementWaitS = 600.0;

/// Runs fn(i) for i in [0, n) on `threads` threads; reports progress from the calling thread.
template <typename F>
void parallel_for(std::size_t n, unsigned threads, const std::function<void(std::size_t, std::size_t)>& progress,
                  std::size_t progress_base, std::size_t progress_total, F fn) {
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  const unsigned workers = std::max(1U, std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(n, 1))));
  std::vector<std::thread> pool;
  std::exception_ptr error;
  std::mutex error_mutex;
  for (unsigned w = 0; w < workers; ++w) {
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < n; i = next++) {
        try {
          fn(i);
        } catch (...) {
          const std::lock_guard<std::mutex> lock(error_mutex);
          if (!error) error = std::current_exception();
        }
        ++done;
      }
    });
  }
  if (progress) {
    while (done.load() < n) {
      progress(progress_base + done.load(), progress_total);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    progress(progress_base + n, progress_total);
  }
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

models::JobSpec on_instance(const models::JobSpec& base, const models::InstanceSpec& row, int gpus_per_node,
                            int nodes, const config::Catalogs& catalogs) {
  models::JobSpec j = base;
  j.hardware.gpu = *catalogs.gpus.find(row.gpu);
  j.hardware.gpus_per_node = gpus_per_node;
  j.hardware.nodes = nodes;
  const double share = static_cast<double>(gpus_per_node) / std::max(1, row.accelerator_count);
  j.hardware.cpu_cores = std::max(1, static_cast<int>(row.vcpus / 2.0 * share));  // 2 threads per core
  j.hardware.host_memory_bytes = row.memory_bytes * share;
  if (!row.storage.empty()) {
    if (const models::StorageSpec* s = catalogs.storage.find(row.storage)) j.hardware.storage = *s;
  }
  if (!row.interconnect.empty()) {
    j.hardware.gpu_interconnect = row.interconnect;
  } else {
    j.hardware.gpu_interconnect = "pcie" + std::to_string(j.hardware.gpu.pcie_generation);
  }
  j.hardware.network_bytes_per_s = nodes > 1 ? row.network_bytes_per_s : 0.0;
  // The instance's links, by the same rules as a scenario's `cloud.instance`
  // (config/hardware_topology.h); all its GPUs train with DDP (DataParallel cannot span nodes).
  const models::LinkSpec link = config::intra_node_link_for(j.hardware.gpu_interconnect, j.hardware.gpu);
  j.hardware.gpus_per_pcie_switch = config::default_gpus_per_pcie_switch(link, gpus_per_node);
  std::optional<config::NetworkChoice> network;
  if (nodes > 1) network = config::instance_network(row.network_bytes_per_s);
  j.hardware.topology = config::make_topology(gpus_per_node, nodes, link, network ? &*network : nullptr);
  if (gpus_per_node * nodes > 1 &&
      (j.parallelism.strategy == models::ParallelStrategy::kNone ||
       (nodes > 1 && j.parallelism.strategy == models::ParallelStrategy::kDataParallel))) {
    j.parallelism.strategy = models::ParallelStrategy::kDdp;
  }
  return j;
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
    if (catalogs.gpus.find(row.gpu) == nullptr || row.accelerator_count < 1) continue;
    const std::string name = row.provider + "/" + row.instance_type;
    if (by_type.find(name) == by_type.end()) type_order.push_back(name);
    by_type[name].push_back(&row);
  }
  if (type_order.empty()) {
    throw std::invalid_argument("plan: no instance of the catalogs matches the providers given");
  }
  for (std::size_t v = 0; v < scenario.variants.size(); ++v) {
    for (const std::string& type : type_order) {
      const std::vector<const models::InstanceSpec*>& rows = by_type[type];
      for (int nodes : kPlanNodeCounts) {
        if (nodes > 1 && !(rows.front()->network_bytes_per_s > 0.0)) {
          if (v == 0) ++no_network_types_;  // the catalog gives no network: one node only
          continue;
        }
        const std::size_t key = step_keys_.size();
        step_keys_.push_back({v, rows.front(), nodes});
        std::vector<std::string> regions;
        for (const models::InstanceSpec* row : rows) {
          if (std::find(regions.begin(), regions.end(), row->region) == regions.end()) {
            regions.push_back(row->region);
            tasks_.push_back({v, key, row, models::Market::kOnDemand, nodes});
          }
        }
        for (const models::InstanceSpec* row : rows) {
          if (row->spot_price_usd_per_s > 0.0) tasks_.push_back({v, key, row, models::Market::kSpot, nodes});
        }
      }
    }
  }
}

Planner::StepResult Planner::step_result(std::size_t key) const {
  const auto& [v, row, nodes] = step_keys_[key];
  models::JobSpec one = on_instance(scenario_.variants[v].job, *row, row->accelerator_count, nodes, catalogs_);
  one.checkpointing.enabled = false;
  one.cloud.reset();
  one.on_premises.reset();
  one.trials = 1;
  const models::VariantRun run = models::run_variant(one, "plan", models::ModelParams{});
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
  models::JobSpec job = on_instance(variant.job, row, row.accelerator_count, task.nodes, catalogs_);
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
  if (task.market == models::Market::kSpot && time_s > options_.deadline_s) {
    p.simulated = false;
    p.time_p50_s = p.time_p90_s = time_s;
    p.cost_p50_usd = p.cost_p90_usd = models::spot_cost_usd(row, task.nodes, time_s);
    return p;
  }
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
    if (points[i].fits && points[i].simulated) by_time.push_back(i);
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
  std::size_t skipped = 0;
  for (const PlanPoint& p : points) {
    oom += p.fits ? 0 : 1;
    skipped += p.fits && !p.simulated ? 1 : 0;
    unfinished += p.fits && p.finished_share < 1.0 ? 1 : 0;
  }
  r.points = std::move(points);
  r.notes.push_back(
      "every GPU of each instance is simulated: DDP over the instance's interconnect and, with 2 nodes, its "
      "network (catalog columns; >= 400 Gbit/s counts as an RDMA fabric), identical ranks simulated once");
  if (no_network_types_ > 0) {
    r.notes.push_back(fmt::format("{} instance types give no network in the catalog: planned on one node only",
                                  no_network_types_));
  }
  r.notes.push_back(fmt::format("{} plans evaluated: {} strategies x instance types x {{1, 2}} nodes x markets "
                                "(on-demand per region, spot per zone at the zone's spot price)",
                                r.points.size(), scenario_.variants.size()));
  r.notes.push_back("the scenario's own cloud instance and market are replaced by each plan's; spot preemption "
                    "rates come from the scenario when it writes one, else from catalogs/preemption.yaml");
  if (oom > 0) r.notes.push_back(fmt::format("{} plans do not fit in GPU memory (OOM) and are left out", oom));
  if (skipped > 0) {
    r.notes.push_back(fmt::format("{} spot plans are slower than the deadline even without preemptions: not "
                                  "simulated (no-preemption lower bounds in the CSV/JSON, simulated = false)",
                                  skipped));
  }
  if (unfinished > 0) {
    r.notes.push_back(fmt::format("{} spot plans did not finish within the trial cap in some trials (time = cap)",
                                  unfinished));
  }
  return r;
}

std::string render_plan(const PlanResult& plan, const std::string& format) {
  if (format == "html") return render_plan_html(plan);
  const auto cells = [](const PlanPoint& p) {
    return std::vector<std::string>{p.instance, p.gpu,  std::to_string(p.nodes) + " x " + std::to_string(p.gpus / p.nodes),
                                    p.zone.empty() ? p.region : p.zone, p.market, p.strategy,
                                    report::human_duration(p.time_p50_s), report::human_duration(p.time_p90_s),
                                    report::human_usd(p.cost_p50_usd), report::human_usd(p.cost_p90_usd),
                                    p.market == "spot" ? fmt::format("{:.1f}", p.expected_preemptions) : "-"};
  };
  const std::vector<std::string> header = {"instance", "gpu", "nodes x GPUs", "region/zone", "market", "strategy",
                                           "time p50", "time p90", "$ p50", "$ p90", "preempt."};
  if (format == "table" || format == "markdown") {
    const bool md = format == "markdown";
    std::string out = (md ? "## " : "") + plan.scenario_name + "\n\n";
    out += "Deadline " + report::human_duration(plan.deadline_s) + " at p90" +
           (plan.budget_usd ? ", budget " + report::human_usd(*plan.budget_usd) + " at p90" : "") + "\n\n";
    out += (md ? plan_summary(plan) : report::wrap_text(plan_summary(plan), report::kTerminalColumns)) + "\n";
    report::TextTable cheapest(header);
    std::size_t shown = 0;
    for (const PlanPoint& p : plan.points) {
      if (p.meets_deadline && p.within_budget && shown < 10) {
        cheapest.add_row(cells(p));
        ++shown;
      }
    }
    out += md ? "**Cheapest plans that meet the deadline**\n\n" : "Cheapest plans that meet the deadline:\n";
    out += shown == 0 ? std::string("  none: no plan meets the deadline (and budget) at p90\n")
                      : (md ? cheapest.to_markdown() : cheapest.to_text(report::kTerminalColumns));
    report::TextTable front(header);
    std::vector<const PlanPoint*> pareto;
    for (const PlanPoint& p : plan.points) {
      if (p.pareto) pareto.push_back(&p);
    }
    std::sort(pareto.begin(), pareto.end(),
              [](const PlanPoint* a, const PlanPoint* b) { return a->time_p90_s < b->time_p90_s; });
    for (const PlanPoint* p : pareto) front.add_row(cells(*p));
    out += md ? "\n**Pareto front: time p90 against dollars p90**\n\n" : "\nPareto front (time p90 against $ p90):\n";
    out += md ? front.to_markdown() : front.to_text(report::kTerminalColumns);
    out += md ? "\n" : "\nNotes:\n";
    for (const std::string& n : plan.notes) out += (md ? "- " : "  ") + n + "\n";
    return out;
  }
  if (format == "csv") {
    std::string out =
        "strategy,instance,gpu,region,zone,market,nodes,gpus,fits,time_p50_s,time_p90_s,cost_p50_usd,cost_p90_usd,"
        "expected_preemptions,finished_share,checkpoint_interval_s,meets_deadline,within_budget,pareto,simulated\n";
    const auto q = [](const std::string& s) {
      return s.find_first_of(",\"") == std::string::npos ? s : "\"" + s + "\"";
    };
    for (const PlanPoint& p : plan.points) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{},{},{}\n",
                         q(p.strategy), p.instance, p.gpu, p.region, p.zone, p.market, p.nodes, p.gpus, p.fits,
                         p.time_p50_s, p.time_p90_s, p.cost_p50_usd, p.cost_p90_usd, p.expected_preemptions,
                         p.finished_share, p.checkpoint_interval_s, p.meets_deadline, p.within_budget, p.pareto,
                         p.simulated);
    }
    return out;
  }
  if (format == "json") {
    nlohmann::ordered_json root;
    root["scenario"] = plan.scenario_name;
    root["summary"] = plan_summary(plan);
    root["deadline_s"] = plan.deadline_s;
    if (plan.budget_usd) root["budget_usd"] = *plan.budget_usd;
    root["notes"] = plan.notes;
    root["points"] = nlohmann::ordered_json::array();
    for (const PlanPoint& p : plan.points) {
      nlohmann::ordered_json j;
      j["strategy"] = p.strategy;
      j["instance"] = p.instance;
      j["gpu"] = p.gpu;
      j["region"] = p.region;
      j["zone"] = p.zone;
      j["market"] = p.market;
      j["nodes"] = p.nodes;
      j["gpus"] = p.gpus;
      j["fits"] = p.fits;
      if (p.fits) {
        j["time_p50_s"] = p.time_p50_s;
        j["time_p90_s"] = p.time_p90_s;
        j["cost_p50_usd"] = p.cost_p50_usd;
        j["cost_p90_usd"] = p.cost_p90_usd;
        j["expected_preemptions"] = p.expected_preemptions;
        j["finished_share"] = p.finished_share;
        j["checkpoint_interval_s"] = p.checkpoint_interval_s;
      }
      j["meets_deadline"] = p.meets_deadline;
      j["within_budget"] = p.within_budget;
      j["pareto"] = p.pareto;
      j["simulated"] = p.simulated;
      root["points"].push_back(j);
    }
    return root.dump(2) + "\n";
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
           hexd(p.finished_share) + '\x1f' + hexd(p.checkpoint_interval_s) + '\x1f' + (p.simulated ? "1" : "0") + '\x1e';
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
    if (f.size() != 17) throw std::invalid_argument("deserialize_points: malformed record");
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
    p.simulated = f[16] == "1";
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace gpuplan::cli

// The planner's search (cli/plan.h): instance types and node counts in rounds, layouts of
// cli/layout_search.h validated as overrides, pruned by memory and by the lower bound, each
// distinct step problem simulated once, then the job level per market.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "cli/layout_search.h"
#include "cli/parallel_for.h"
#include "cli/plan.h"
#include "cli/scenario_runner.h"
#include "config/config_error.h"
#include "config/instance_hardware.h"
#include "config/scenario_hardware.h"
#include "config/variant_validator.h"
#include "core/text_distance.h"
#include "models/cost/cost.h"
#include "models/job/cloud_job.h"
#include "models/job/job_time.h"
#include "models/memory/parallel_memory.h"
#include "models/spot/preemption.h"
#include "models/workload/activation_recompute.h"
#include "models/workload/moe_expert_shard.h"
#include "models/workload/tensor_parallel_shard.h"
#include "models/run/remedies.h"
#include "models/run/run_variant.h"
#include "report/human_units.h"
#include "report/report_format.h"

namespace gpuplan::cli {
namespace {

/// Replacement wait of a spot plan when the scenario gives none: 10 min, the example of
/// scenario-format.md (`replacement_wait: "10 min"`).
constexpr double kDefaultReplacementWaitS = 600.0;

/// The columns of `row` that config::instance_hardware reads: rows with equal signatures get
/// the same hardware, so their step is simulated once.
std::string hardware_signature(const models::InstanceSpec& row) {
  return fmt::format("{}|{}|{:a}|{:a}|{}|{:a}|{}", row.gpu, row.accelerator_count, row.vcpus, row.memory_bytes,
                     row.interconnect, row.network_bytes_per_s, row.storage);
}

/// The overrides that put a variant on `nodes` nodes of instance `row` for validation: the
/// instance as cloud.instance (the rule of `gpuplan run`), the scenario's own hardware keys
/// but its storage (where the dataset lies), placement and market removed (the plan sets its
/// own markets).
std::vector<models::ScenarioOverride> instance_overrides(const models::InstanceSpec& row, int nodes) {
  std::vector<models::ScenarioOverride> o;
  for (const char* key : {"hardware.gpu", "hardware.gpus_per_node", "hardware.gpu_interconnect",
                          "hardware.gpus_per_pcie_switch", "hardware.cpu_cores", "hardware.host_memory",
                          "hardware.network", "on_premises", "cloud.zone", "cloud.preemption_rate",
                          "cloud.replacement_wait"}) {
    o.push_back({key, "~"});
  }
  o.push_back({"hardware.nodes", std::to_string(nodes)});
  o.push_back({"cloud.instance", row.provider + "/" + row.instance_type});
  o.push_back({"cloud.region", row.region});
  o.push_back({"cloud.market", "on_demand"});
  return o;
}

/// A layout validated on an instance: the job (nullopt when validation refused it) and the
/// canonical text of the layout's overrides on its variant (config::override_key).
struct ValidatedLayout {
  std::shared_ptr<const models::JobSpec> job;
  std::string key;
  std::vector<std::string> errors;  ///< the validation's messages when it refused the layout
};

/// A validation to run: `layout` (accumulation 1) on variant `variant` at `nodes` nodes of `row`.
struct Validation {
  std::string key;
  std::size_t variant = 0;
  std::vector<models::ScenarioOverride> layout;
  const models::InstanceSpec* row = nullptr;
  int nodes = 1;
};

/// Layout validations per batch of one thread (the scenario is parsed once per batch and
/// variant): large enough that parsing is a small share, small enough to spread a round over
/// the threads and bound each validator's memory.
constexpr std::size_t kValidationBatch = 256;

constexpr std::size_t kNotSimulated = std::numeric_limits<std::size_t>::max();

/// Relative dollars below which two plans at the same time are the same point of the front
/// (a point tests itself against the front it is on).
constexpr double kFrontCostTolerance = 1e-9;

/// What a step problem (step key) needs before and after its simulation.
struct StepInfo {
  bool fits_memory = false;
  double peak_memory_bytes = 0.0;  ///< models::rank_memory's total: the busiest GPU's peak
  PlanBound bound;
  std::size_t step = kNotSimulated;  ///< index of its simulation
};

/// One candidate of a round.
struct Candidate {
  std::size_t variant = 0;
  Layout layout;
  std::size_t type = 0;
  std::size_t group = 0;
  int nodes = 1;
  std::string validation;  ///< key into the round's validated layouts
  std::shared_ptr<const models::JobSpec> base;  ///< validated, accumulation not yet set
  std::size_t step = 0;    ///< index into the step problems
  double bound_s = 0.0;
  double bound_cost_usd = 0.0;
  double peak_memory_bytes = 0.0;      ///< its step problem's (StepInfo)
  double memory_capacity_bytes = 0.0;  ///< one GPU's memory
};

/// The Pareto staircase of (time, dollars) of the points evaluated so far: sorted by time,
/// dollars strictly falling. Times compare as plan times (same_plan_time, cli/plan.h).
class Front {
 public:
  /// True when a point at most as slow and as dear as (time_s, cost_usd) is on the front.
  bool dominates(double time_s, double cost_usd) const {
    const auto it = std::partition_point(points_.begin(), points_.end(), [&](const std::pair<double, double>& p) {
      return !faster_plan_time(time_s, p.first);
    });
    return it != points_.begin() && std::prev(it)->second <= cost_usd;
  }
  void add(double time_s, double cost_usd) {
    if (dominates(time_s, cost_usd)) return;
    std::erase_if(points_, [&](const std::pair<double, double>& p) {
      return !faster_plan_time(p.first, time_s) && p.second >= cost_usd;
    });
    points_.insert(std::upper_bound(points_.begin(), points_.end(), std::make_pair(time_s, cost_usd)),
                   std::make_pair(time_s, cost_usd));
  }

 private:
  std::vector<std::pair<double, double>> points_;
};

/// The job of a candidate on `row` at its nodes, assigned over `j` (whose storage it reuses):
/// the validated layout with its accumulation, on the instance's hardware (place_plan_job).
void assign_candidate_job(models::JobSpec& j, const Candidate& c, const models::InstanceSpec& row,
                          const config::Catalogs& catalogs) {
  j = *c.base;
  j.training.gradient_accumulation = c.layout.gradient_accumulation;
  place_plan_job(j, row, c.nodes, catalogs);
}

/// The job of a candidate on `row` at its nodes (assign_candidate_job).
models::JobSpec candidate_job(const Candidate& c, const models::InstanceSpec& row, const config::Catalogs& catalogs) {
  models::JobSpec j;
  assign_candidate_job(j, c, row, catalogs);
  return j;
}

/// Row of `rows` with the lowest price (on-demand or spot), first on ties; nullptr when no
/// row has that market.
const models::InstanceSpec* cheapest(const std::vector<const models::InstanceSpec*>& rows, bool spot) {
  const models::InstanceSpec* best = nullptr;
  for (const models::InstanceSpec* r : rows) {
    const double price = spot ? r->spot_price_usd_per_s : r->price_usd_per_s;
    if (price <= 0.0) continue;
    if (best == nullptr || price < (spot ? best->spot_price_usd_per_s : best->price_usd_per_s)) best = r;
  }
  return best;
}

/// The lowest price of a node of `rows` per second over both markets.
double lowest_price_usd_per_s(const std::vector<const models::InstanceSpec*>& rows) {
  double p = std::numeric_limits<double>::infinity();
  for (const models::InstanceSpec* r : rows) {
    if (r->price_usd_per_s > 0.0) p = std::min(p, r->price_usd_per_s);
    if (r->spot_price_usd_per_s > 0.0) p = std::min(p, r->spot_price_usd_per_s);
  }
  return std::isfinite(p) ? p : 0.0;
}

/// The cloud of a plan on `row` in `market`: the scenario's replacement wait (else
/// kDefaultReplacementWaitS) and the catalog's startup time (the hardware failure rate is the
/// hardware's); on spot the scenario's preemption rate or trace when it writes one, else the
/// catalog's rate.
models::CloudSpec plan_cloud(const config::Variant& variant, const models::InstanceSpec& row, models::Market market,
                             const config::Catalogs& catalogs) {
  models::CloudSpec cloud;
  cloud.instance = row;
  cloud.market = market;
  cloud.replacement_wait_s =
      variant.job.cloud && variant.job.cloud->replacement_wait_s > 0.0 ? variant.job.cloud->replacement_wait_s
                                                                        : kDefaultReplacementWaitS;
  const auto def = catalogs.preemption.find(row.provider, row.instance_type);
  cloud.startup_s = def ? def->startup_s : 0.0;
  if (market == models::Market::kSpot) {
    if (variant.preemption_source == config::PreemptionSource::kRate && variant.job.cloud) {
      cloud.preemption_rate_per_s = variant.job.cloud->preemption_rate_per_s;
    } else if (variant.preemption_source == config::PreemptionSource::kTrace && variant.job.cloud) {
      cloud.trace = variant.job.cloud->trace;
    } else if (def) {
      cloud.preemption_rate_per_s = def->rate_per_s;
    }
  }
  return cloud;
}

/// Most distinct refusal messages all_refused_error shows; the rest are counted.
constexpr std::size_t kMaxRefusalReasons = 10;

/// The message of a search whose every candidate validation refused: "all 312 plan
/// candidates ... were refused by validation, for these reasons, the most common first:", one
/// indented line per distinct message with its count ("... [312 candidates]"), at most
/// kMaxRefusalReasons, and the fix.
std::string all_refused_error(const PlanSearch& search) {
  std::vector<std::pair<std::string, std::size_t>> reasons(search.refusals.begin(), search.refusals.end());
  std::stable_sort(reasons.begin(), reasons.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });  // ties: by text
  std::string out = fmt::format(
      "all {} plan candidates (variant x layout x instance x nodes) were refused by validation, for {}:",
      config::grouped_thousands(search.counts.considered),
      reasons.size() == 1 ? "this reason" : "these reasons, the most common first");
  for (std::size_t i = 0; i < reasons.size() && i < kMaxRefusalReasons; ++i) {
    out += fmt::format("\n    {} [{} candidate{}]", reasons[i].first, config::grouped_thousands(reasons[i].second),
                       reasons[i].second == 1 ? "" : "s");
  }
  if (reasons.size() > kMaxRefusalReasons) {
    out += fmt::format("\n    and {} more reasons", reasons.size() - kMaxRefusalReasons);
  }
  return out + "\n  fix the scenario at the keys named (a strategy may set them), or plan other GPUs (--gpus, "
               "--providers)";
}

/// Why no instance type is left to plan: the GPUs and providers asked for, the GPUs the
/// catalogs do have instance rows for (of those providers), and how to add rows.
std::string no_instance_message(const config::Catalogs& catalogs, const PlanOptions& options) {
  std::set<std::string> gpus_with_rows;
  for (const models::InstanceSpec& row : catalogs.instances.rows()) {
    const models::GpuSpec* gpu = catalogs.gpus.find(row.gpu);
    const bool provider_wanted = options.providers.empty() ||
                                 std::find(options.providers.begin(), options.providers.end(), row.provider) !=
                                     options.providers.end();
    if (gpu != nullptr && row.accelerator_count >= 1 && provider_wanted) gpus_with_rows.insert(gpu->name);
  }
  std::vector<std::string> asked;
  for (const std::string& g : options.gpus) asked.push_back(catalogs.gpus.find(g)->name);
  const std::string of_providers =
      options.providers.empty() ? "" : fmt::format(" of {}", fmt::join(options.providers, ", "));
  std::string out = asked.empty() ? fmt::format("plan: no instance{} in the catalogs", of_providers)
                                  : fmt::format("plan: no instance{} in the catalogs has {}", of_providers, fmt::join(asked, " or "));
  if (!gpus_with_rows.empty()) {
    out += fmt::format("; the instances{} in the catalogs have these GPUs: {}", of_providers, fmt::join(gpus_with_rows, ", "));
  }
  return out + "; --catalog FILE adds instance rows (a SkyPilot vms.csv) for other GPUs";
}

}  // namespace

Planner::Planner(const config::Scenario& scenario, const config::Catalogs& catalogs,
                 const core::Registry<models::IWorkloadFamily>& families, const PlanOptions& options)
    : scenario_(scenario), catalogs_(catalogs), families_(families), options_(options) {
  if (!(options.deadline_s > 0.0)) throw std::invalid_argument("plan: the deadline must be positive");
  if (options_.threads == 0) options_.threads = std::max(1U, std::thread::hardware_concurrency());
  if (options_.ranks < 1) options_.ranks = 1;
  std::set<std::string> known_providers;
  for (const models::InstanceSpec& row : catalogs.instances.rows()) known_providers.insert(row.provider);
  for (const std::string& p : options.providers) {
    if (known_providers.count(p) == 0U) {
      const std::string hint = core::did_you_mean(
          core::closest(p, std::vector<std::string>(known_providers.begin(), known_providers.end())));
      throw std::invalid_argument(fmt::format("unknown provider '{}' in --providers{} the catalogs hold {}", p,
                                              hint.empty() ? ";" : hint + " Besides,", fmt::join(known_providers, ", ")));
    }
  }
  for (const std::string& g : options.gpus) {
    if (catalogs.gpus.find(g) == nullptr) {
      const std::string hint = core::did_you_mean(catalogs.gpus.suggestions(g));
      throw std::invalid_argument(fmt::format("unknown GPU '{}' in --gpus{}", g,
                                              hint.empty() ? "; `gpuplan list gpus` names them" : hint));
    }
  }
  const auto wanted = [](const std::vector<std::string>& list, const std::string& name) {
    return list.empty() || std::find(list.begin(), list.end(), name) != list.end();
  };
  std::map<std::string, std::size_t> type_index;
  std::vector<std::map<std::string, std::size_t>> group_index;
  for (const models::InstanceSpec& row : catalogs.instances.rows()) {
    if (!wanted(options.providers, row.provider)) continue;
    const models::GpuSpec* gpu = catalogs.gpus.find(row.gpu);
    if (gpu == nullptr || row.accelerator_count < 1 || !wanted(options.gpus, gpu->name)) continue;
    const config::InstanceFacts facts = config::instance_facts(row, catalogs);
    if (!facts.problems.empty() || facts.gpu_interconnect.empty()) {
      skipped_rows_.push_back(config::row_label(row) + " is skipped: " +
                              (facts.problems.empty() ? std::string("it gives no Interconnect")
                                                      : facts.problems.front().problem + facts.problems.front().fix));
      continue;
    }
    const std::string name = row.provider + "/" + row.instance_type;
    const auto [t, added] = type_index.emplace(name, types_.size());
    if (added) {
      types_.push_back({name, row.accelerator_count, {}, false});
      group_index.emplace_back();
    }
    InstanceType& type = types_[t->second];
    const auto [g, new_group] = group_index[t->second].emplace(hardware_signature(row), type.groups.size());
    if (new_group) type.groups.emplace_back();
    type.groups[g->second].push_back(&row);
    type.network = type.network || row.network_bytes_per_s > 0.0;
  }
  if (types_.empty()) throw std::invalid_argument(no_instance_message(catalogs, options));
  for (const InstanceType& type : types_) {
    if (!type.network) no_network_types_.push_back(type.name);
    for (const std::vector<const models::InstanceSpec*>& group : type.groups) {
      if (!type.network || group.front()->network_bytes_per_s > 0.0) continue;
      for (const models::InstanceSpec* row : group) {
        skipped_rows_.push_back(config::row_label(*row) + " gives no Network in the catalog: planned on one node only");
      }
    }
  }
}

PlanSearch Planner::evaluate() const {
  PlanSearch out;
  PlanCounts& counts = out.counts;
  models::ModelParams params;
  params.scaling_reference = false;  // the plan reads fits and time only: no single-GPU run
  params.step.warmup_steps = kPlanWarmupSteps;
  params.step.min_steps = kPlanMinSteps;
  params.step.stop_when_periodic = true;  // a loader that cannot shape the step: no whole loader cycles

  std::map<std::string, ValidatedLayout> validated;  // by variant | GPU | GPUs per node | 1 or 2 nodes | layout
  std::map<std::string, StepInfo> step_info;         // by step key
  // The busiest GPU's peak memory (models::rank_memory) by validation key | accumulation |
  // nodes: rank_memory reads the job's workload, training and parallelism, which validation
  // and the accumulation fix, and of its hardware only the GPUs per node and the nodes (in
  // the validation key and here), so instance rows that differ in CPUs, host memory,
  // network or storage share it.
  std::map<std::string, double> peak_memory;
  std::vector<std::pair<bool, double>> steps;        // fits, time to train (no checkpoints), s
  std::set<std::string> planned;                     // step key | type | group: once across variants
  Front front;
  double best_meeting_usd = std::numeric_limits<double>::infinity();
  std::vector<bool> growing(types_.size(), true);
  std::vector<int> doublings_past_met(types_.size(), -1);  // -1: no plan of the type met the deadline yet
  std::vector<double> previous_best_s(types_.size(), std::numeric_limits<double>::infinity());

  for (int nodes = 1; nodes <= kPlanMaxNodes; nodes *= 2) {
    std::vector<std::size_t> active;
    for (std::size_t t = 0; t < types_.size(); ++t) {
      if (growing[t] && (nodes == 1 || types_[t].network)) active.push_back(t);
    }
    if (active.empty()) break;
    counts.max_nodes = nodes;

    // 1. Candidates and the validations they need (each distinct one once, in parallel).
    std::vector<Candidate> round;
    std::vector<Validation> to_validate;
    std::vector<bool> any_layout(types_.size(), false);
    std::vector<bool> tried_layout(types_.size(), false);  // a layout of the type was tried (not all left out)
    // Adds candidate `c` on `rep` (its group's first row), and its validation when new.
    const auto add_candidate = [&](Candidate c, const models::InstanceSpec& rep) {
      // Validated once for every accumulation: 1, or the stage count, the interleaved
      // schedule's smallest (it needs a multiple of the stages).
      Layout shape = c.layout;
      shape.gradient_accumulation = c.layout.virtual_stages > 1 ? c.layout.pipeline_parallel : 1;
      const std::vector<models::ScenarioOverride> o = shape.overrides();
      // What validation reads of the hardware is the GPU, its count per node and whether
      // there are several nodes: validated once per (GPU, GPUs per node, 1 or 2+ nodes) on
      // the first row met with them (its hardware is replaced by plan_job). A pipeline's rules
      // read the GPU count itself (TP x PP divides it), as context parallelism's do (TP x PP x
      // CP divides it): validated per node count. An offload's read the node's host memory
      // against the state per node: per node count and row memory.
      const bool offload = c.layout.offload != Offload::kNone;
      const int validation_nodes =
          c.layout.pipeline_parallel > 1 || c.layout.context_parallel > 1 || offload ? c.nodes : std::min(c.nodes, 2);
      c.validation = fmt::format("{}|{}|{}|{}|{}", c.variant, rep.gpu, rep.accelerator_count, validation_nodes,
                                 offload ? fmt::format("{:a}|", rep.memory_bytes) : std::string());
      for (const models::ScenarioOverride& x : o) c.validation += x.path + "=" + x.value + ";";
      if (validated.emplace(c.validation, ValidatedLayout{}).second) {
        to_validate.push_back({c.validation, c.variant, o, &rep, validation_nodes});
      }
      round.push_back(std::move(c));
    };
    for (const std::size_t t : active) {
      const InstanceType& type = types_[t];
      for (std::size_t v = 0; v < scenario_.variants.size(); ++v) {
        const models::JobSpec& job = scenario_.variants[v].job;
        const models::DecoderHeads heads = models::decoder_heads(job.workload);
        LayoutProblem problem;
        problem.gpus_per_node = type.gpus_per_node;
        problem.nodes = nodes;
        problem.heads = heads.heads;
        problem.kv_heads = heads.kv_heads;
        const bool decoder = job.workload.family == "transformer_decoder";
        problem.layers = decoder ? models::decoder_layers(job.workload) : 0;
        problem.sequence_tokens = decoder ? std::llround(job.workload.tokens_per_sample) : 0;
        problem.experts = static_cast<int>(models::routed_experts(job.workload));
        problem.expert_load_imbalance = job.parallelism.expert_load_imbalance;
        // The kernel as validation resolved it on the scenario's own GPU. Under `attention:
        // sdpa` another GPU may choose otherwise (bf16 before sm80 runs math): there a
        // selective layout is not tried, or is refused by validation.
        problem.selective_recompute =
            job.training.attention == models::AttentionKernel::kEager && models::has_eager_attention(job.workload);
        // Likewise context parallelism, which needs a fused kernel: where sdpa resolves to math on
        // another GPU, validation refuses the layout there.
        problem.fused_attention = job.training.attention != models::AttentionKernel::kEager;
        problem.global_batch_samples = static_cast<long long>(models::global_batch_samples(job));
        const std::size_t over_before = counts.over_accumulation;
        const std::vector<Layout> layouts = enumerate_layouts(problem, &counts.over_accumulation);
        // Layouts left out for their accumulation count too: more nodes lower it.
        any_layout[t] = any_layout[t] || !layouts.empty() || counts.over_accumulation > over_before;
        tried_layout[t] = tried_layout[t] || !layouts.empty();
        for (std::size_t g = 0; g < type.groups.size(); ++g) {
          const models::InstanceSpec& rep = *type.groups[g].front();
          if (nodes > 1 && rep.network_bytes_per_s <= 0.0) continue;
          for (const Layout& layout : layouts) {
            Candidate c;
            c.variant = v;
            c.layout = layout;
            c.type = t;
            c.group = g;
            c.nodes = nodes;
            add_candidate(std::move(c), rep);
          }
        }
      }
    }
    // Validates to_validate[from, end) in batches of kValidationBatch, each with its own
    // validators (one per variant, the scenario parsed once per batch and variant;
    // config/variant_validator.h), so that no tree is shared between threads and none keeps
    // more than a batch's value nodes.
    const auto validate_from = [&](std::size_t from) {
      const std::size_t count = to_validate.size() - from;
      std::vector<ValidatedLayout> fresh(count);
      const std::size_t batches = (count + kValidationBatch - 1) / kValidationBatch;
      parallel_for(batches, options_.threads, options_.progress, 0, batches, [&](std::size_t b) {
        std::map<std::size_t, std::unique_ptr<config::VariantValidator>> validators;
        const std::size_t end = std::min(count, (b + 1) * kValidationBatch);
        for (std::size_t i = b * kValidationBatch; i < end; ++i) {
          const Validation& w = to_validate[from + i];
          std::unique_ptr<config::VariantValidator>& validator = validators[w.variant];
          if (!validator) {
            validator = std::make_unique<config::VariantValidator>(scenario_, scenario_.variants[w.variant], catalogs_,
                                                                   families_);
          }
          std::vector<models::ScenarioOverride> all = instance_overrides(*w.row, w.nodes);
          all.insert(all.end(), w.layout.begin(), w.layout.end());
          config::OverriddenJob j = validator->validate(all);
          if (!j.job) {
            fresh[i].errors = std::move(j.errors);
            continue;
          }
          // The layout's own overrides: the same text for every variant that reaches the same job.
          fresh[i].key = validator->key(w.layout);
          fresh[i].job = std::make_shared<const models::JobSpec>(std::move(*j.job));
        }
      });
      for (std::size_t i = 0; i < count; ++i) validated[to_validate[from + i].key] = std::move(fresh[i]);
    };

    // 2. Memory and lower bound once per distinct step problem (in parallel), then the
    //    pruning in candidate order.
    std::vector<std::string> step_keys;
    // Sizes the step problems of round[from, end) not sized before.
    const auto size_steps_from = [&](std::size_t from) {
      step_keys.resize(round.size());
      std::vector<std::size_t> info_todo;
      std::vector<std::string> memory_keys(round.size());
      std::vector<std::size_t> memory_todo;  // candidates whose memory key is new
      for (std::size_t i = from; i < round.size(); ++i) {
        Candidate& c = round[i];
        const ValidatedLayout& vl = validated.at(c.validation);
        if (!vl.job) continue;
        c.base = vl.job;
        step_keys[i] = fmt::format("{}|{}|{}|{}", vl.key, c.layout.gradient_accumulation,
                                   hardware_signature(*types_[c.type].groups[c.group].front()), nodes);
        if (!step_info.emplace(step_keys[i], StepInfo{}).second) continue;
        info_todo.push_back(i);
        memory_keys[i] = fmt::format("{}|{}|{}", c.validation, c.layout.gradient_accumulation, nodes);
        if (peak_memory.emplace(memory_keys[i], 0.0).second) memory_todo.push_back(i);
      }
      // candidate_job into one job per thread, assigned over: its op table's storage is reused
      // from one candidate to the next rather than allocated per op name.
      std::vector<double> peaks(memory_todo.size());
      parallel_for(memory_todo.size(), options_.threads, {}, 0, 0, [&](std::size_t k) {
        const Candidate& c = round[memory_todo[k]];
        thread_local models::JobSpec j;
        assign_candidate_job(j, c, *types_[c.type].groups[c.group].front(), catalogs_);
        // The rule run_variant uses: the busiest GPU, the worst pipeline stage's.
        peaks[k] = models::rank_memory(j, params.memory).total_bytes();
      });
      for (std::size_t k = 0; k < memory_todo.size(); ++k) peak_memory[memory_keys[memory_todo[k]]] = peaks[k];
      std::vector<StepInfo> infos(info_todo.size());
      parallel_for(info_todo.size(), options_.threads, {}, 0, 0, [&](std::size_t k) {
        const Candidate& c = round[info_todo[k]];
        const models::InstanceSpec& row = *types_[c.type].groups[c.group].front();
        infos[k].peak_memory_bytes = peak_memory.at(memory_keys[info_todo[k]]);
        infos[k].fits_memory = infos[k].peak_memory_bytes <= catalogs_.gpus.find(row.gpu)->memory_bytes;
        if (!infos[k].fits_memory) return;
        thread_local models::JobSpec j;
        assign_candidate_job(j, c, row, catalogs_);
        infos[k].bound = plan_lower_bound(j);
      });
      for (std::size_t k = 0; k < info_todo.size(); ++k) step_info[step_keys[info_todo[k]]] = infos[k];
    };
    validate_from(0);
    size_steps_from(0);

    // 2b. CPU offload where nothing fits: on an instance type where no candidate of this node
    //     count fits in GPU memory, every validated candidate is tried again with each offload
    //     its strategy offers (offloaded_layouts; one GPU: ZeRO-3's). Offload trades step time for GPU memory, so
    //     where a layout fits without it, offload is not tried (a bound on effort).
    std::vector<bool> fits_without_offload(types_.size(), false);
    for (std::size_t i = 0; i < round.size(); ++i) {
      if (round[i].base && step_info.at(step_keys[i]).fits_memory) fits_without_offload[round[i].type] = true;
    }
    const std::size_t first_offload = round.size();
    const std::size_t first_offload_validation = to_validate.size();
    for (std::size_t i = 0; i < first_offload; ++i) {
      if (!round[i].base || fits_without_offload[round[i].type]) continue;
      for (const Layout& offloaded : offloaded_layouts(round[i].layout)) {
        Candidate c;
        c.variant = round[i].variant;
        c.layout = offloaded;
        c.type = round[i].type;
        c.group = round[i].group;
        c.nodes = nodes;
        add_candidate(std::move(c), *types_[round[i].type].groups[round[i].group].front());
      }
    }
    validate_from(first_offload_validation);
    size_steps_from(first_offload);
    counts.considered += round.size();
    counts.offload_tried += round.size() - first_offload;

    std::vector<std::size_t> kept;       // candidates evaluated this round
    std::vector<std::size_t> new_steps;  // candidates whose step problem is simulated this round
    std::vector<double> type_lowest_cost(types_.size(), std::numeric_limits<double>::infinity());
    std::vector<bool> type_exchange_ok(types_.size(), false);
    std::vector<bool> type_fits(types_.size(), false);
    std::vector<bool> type_valid(types_.size(), false);  // a candidate of the type passed validation
    for (std::size_t i = 0; i < round.size(); ++i) {
      Candidate& c = round[i];
      if (!c.base) {
        ++counts.invalid;
        // Under its first message: the layout's own errors (at the file's start, where the
        // planner's overrides are) mostly follow from an earlier one of the scenario.
        const std::vector<std::string>& errors = validated.at(c.validation).errors;
        if (!errors.empty()) ++out.refusals[errors.front()];
        continue;
      }
      type_valid[c.type] = true;
      const InstanceType& type = types_[c.type];
      if (!planned.insert(fmt::format("{}|{}|{}", step_keys[i], type.name, c.group)).second) {
        ++counts.duplicate;
        continue;
      }
      StepInfo& info = step_info.at(step_keys[i]);
      if (!info.fits_memory) {
        ++counts.pruned_memory;
        continue;
      }
      type_fits[c.type] = true;
      c.peak_memory_bytes = info.peak_memory_bytes;
      c.memory_capacity_bytes = catalogs_.gpus.find(type.groups[c.group].front()->gpu)->memory_bytes;
      c.bound_s = info.bound.time_s();
      counts.best_bound_s = std::min(counts.best_bound_s, c.bound_s);
      c.bound_cost_usd = c.bound_s * nodes * lowest_price_usd_per_s(type.groups[c.group]);
      type_lowest_cost[c.type] = std::min(type_lowest_cost[c.type], c.bound_cost_usd);
      if (info.bound.exchange_s <= options_.deadline_s) type_exchange_ok[c.type] = true;
      if (!options_.exhaustive && (c.bound_s > options_.deadline_s || front.dominates(c.bound_s, c.bound_cost_usd))) {
        ++counts.pruned_bound;
        continue;
      }
      if (info.step == kNotSimulated) {
        info.step = steps.size();
        steps.emplace_back(false, 0.0);
        new_steps.push_back(i);
        ++counts.simulated;
      } else {
        ++counts.step_reused;
      }
      c.step = info.step;
      kept.push_back(i);
    }

    // 3. Simulate the new step problems (split across MPI ranks, gathered in index order).
    const std::size_t first_new = steps.size() - new_steps.size();
    std::vector<std::pair<bool, double>> simulated(new_steps.size());
    std::vector<std::size_t> mine;
    for (std::size_t k = 0; k < new_steps.size(); ++k) {
      if (static_cast<int>(k % static_cast<std::size_t>(options_.ranks)) == options_.rank) mine.push_back(k);
    }
    parallel_for(mine.size(), options_.threads, options_.progress, 0, mine.size(), [&](std::size_t m) {
      const Candidate& c = round[new_steps[mine[m]]];
      models::JobSpec one = candidate_job(c, *types_[c.type].groups[c.group].front(), catalogs_);
      one.checkpointing.enabled = false;
      one.cloud.reset();
      one.on_premises.reset();
      one.trials = 1;
      const models::VariantRun run = models::run_variant(one, "plan", params);
      simulated[mine[m]] = {run.result.fits && run.result.time_to_train_s > 0.0, run.result.time_to_train_s};
    });
    if (options_.ranks > 1 && options_.all_gather) {
      std::string text;
      for (const std::size_t k : mine) {
        text += fmt::format("{} {} {:a}\n", k, simulated[k].first ? 1 : 0, simulated[k].second);
      }
      const std::string all = options_.all_gather(text);
      std::size_t pos = 0;
      while (pos < all.size()) {
        const std::size_t end = all.find('\n', pos);
        const std::string line = all.substr(pos, end - pos);
        pos = end == std::string::npos ? all.size() : end + 1;
        std::size_t k = 0;
        int fits = 0;
        char time[64] = {0};
        if (std::sscanf(line.c_str(), "%zu %d %63s", &k, &fits, time) == 3 && k < simulated.size()) {
          simulated[k] = {fits != 0, std::strtod(time, nullptr)};
        }
      }
    }
    for (std::size_t k = 0; k < new_steps.size(); ++k) steps[first_new + k] = simulated[k];

    // 4. Job level: on-demand at the cheapest region, then spot at the cheapest zone where its
    //    bound (the step time, at the spot price) is not dominated.
    struct Job {
      std::size_t candidate;
      const models::InstanceSpec* row;
      models::Market market;
    };
    std::vector<Job> jobs;
    for (const std::size_t i : kept) {
      const Candidate& c = round[i];
      const models::InstanceSpec* row = cheapest(types_[c.type].groups[c.group], false);
      if (row != nullptr) jobs.push_back({i, row, models::Market::kOnDemand});
    }
    const auto evaluate_jobs = [&](const std::vector<Job>& list) {
      std::vector<PlanPoint> points(list.size());
      parallel_for(list.size(), options_.threads, options_.progress, 0, list.size(), [&](std::size_t k) {
        const Candidate& c = round[list[k].candidate];
        points[k] = evaluate_point(c.variant, c.layout, *list[k].row, list[k].market, c.nodes,
                                   candidate_job(c, *list[k].row, catalogs_), steps[c.step], c.bound_s);
        points[k].peak_memory_bytes = c.peak_memory_bytes;
        points[k].memory_capacity_bytes = c.memory_capacity_bytes;
      });
      for (const PlanPoint& p : points) {
        if (!p.fits || p.out_of_reach) continue;
        front.add(p.time_p90_s, p.cost_p90_usd);
      }
      return points;
    };
    std::vector<PlanPoint> on_demand = evaluate_jobs(jobs);
    // At one instance type and node count every layout meets the same preemptions and
    // checkpoints, so spot time and dollars grow with the step time: only the fastest
    // layout of each (type, hardware) can be on the front or the cheapest, and only it is
    // evaluated on spot (first in candidate order on ties).
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> fastest;  // (type, group) -> candidate
    std::size_t with_spot = 0;
    for (const std::size_t i : kept) {
      const Candidate& c = round[i];
      if (cheapest(types_[c.type].groups[c.group], true) == nullptr || !steps[c.step].first) continue;
      ++with_spot;
      const auto [it, added] = fastest.emplace(std::make_pair(c.type, c.group), i);
      if (!added && steps[c.step].second < steps[round[it->second].step].second) it->second = i;
    }
    std::vector<Job> spot_jobs;
    const std::size_t unstable_before = counts.spot_unstable;
    for (const std::size_t i : kept) {
      const Candidate& c = round[i];
      const auto it = fastest.find(std::make_pair(c.type, c.group));
      if (it == fastest.end() || it->second != i) continue;
      const models::InstanceSpec* row = cheapest(types_[c.type].groups[c.group], true);
      const double time_s = steps[c.step].second;
      if (front.dominates(time_s, time_s * nodes * row->spot_price_usd_per_s)) continue;
      // A bound on effort: where the nodes are preempted more often than once per restart
      // (rate x nodes x (replacement wait + startup) >= 1) the job mostly waits and its trials
      // run to the cap; such spot plans are not evaluated (counted in the notes).
      const models::CloudSpec cloud = plan_cloud(scenario_.variants[c.variant], *row, models::Market::kSpot, catalogs_);
      if (!cloud.trace && cloud.preemption_rate_per_s * nodes * (cloud.replacement_wait_s + cloud.startup_s) >= 1.0) {
        ++counts.spot_unstable;
        continue;
      }
      spot_jobs.push_back({i, row, models::Market::kSpot});
    }
    counts.spot_pruned += with_spot - spot_jobs.size() - (counts.spot_unstable - unstable_before);
    std::vector<PlanPoint> spot = evaluate_jobs(spot_jobs);

    // 5. Growth: which types try twice the nodes.
    std::vector<bool> met(types_.size(), false);
    std::vector<double> best_s(types_.size(), std::numeric_limits<double>::infinity());
    // A plan of the type that twice the nodes could bring onto the front after this round: at
    // best they halve its time at the same dollars (perfect scaling), so no plan found is as
    // fast as half its time and cheaper. (Its own point on the front is not enough: a type
    // dominated at 1 node by a cheaper one that cannot grow, a single-node instance, is the
    // fastest plan at 2 nodes.)
    std::vector<bool> may_reach_front(types_.size(), false);
    for (std::vector<PlanPoint>* list : {&on_demand, &spot}) {
      const std::vector<Job>& from = list == &on_demand ? jobs : spot_jobs;
      for (std::size_t k = 0; k < list->size(); ++k) {
        PlanPoint& p = (*list)[k];
        if (p.out_of_reach) {
          ++counts.spot_out_of_reach;
          continue;
        }
        const std::size_t t = round[from[k].candidate].type;
        if (p.fits && p.time_p90_s <= options_.deadline_s) {
          met[t] = true;
          best_meeting_usd = std::min(best_meeting_usd, p.cost_p90_usd);
        }
        if (p.fits) best_s[t] = std::min(best_s[t], p.time_p90_s);
        if (p.fits && !front.dominates(p.time_p90_s / 2.0, p.cost_p90_usd * (1.0 - kFrontCostTolerance))) {
          may_reach_front[t] = true;
        }
        out.points.push_back(std::move(p));
      }
    }
    for (const std::size_t t : active) {
      if (met[t] || doublings_past_met[t] >= 0) {
        // Met: on for the front's faster end while twice the nodes could reach it and doubling
        // pays (kPlanGrowthSpeedup).
        ++doublings_past_met[t];
        growing[t] = doublings_past_met[t] < kPlanDoublingsPastDeadline && may_reach_front[t] && std::isfinite(best_s[t]) &&
                     (!std::isfinite(previous_best_s[t]) || best_s[t] * kPlanGrowthSpeedup <= previous_best_s[t]);
      } else {
        const bool bound_out = type_fits[t] && (!type_exchange_ok[t] || type_lowest_cost[t] > best_meeting_usd);
        // From 2 nodes on, a type whose every candidate validation refused stops: what more
        // nodes change (data-parallel ranks, more GPUs per layout) refuses more, not less (a
        // V100 refuses a bf16 variant at any count).
        const bool all_refused = nodes >= 2 && tried_layout[t] && !type_valid[t];
        if (bound_out || all_refused || !any_layout[t]) growing[t] = false;
      }
      previous_best_s[t] = best_s[t];
    }
  }
  return out;
}

PlanPoint Planner::evaluate_point(std::size_t variant_index, const Layout& layout, const models::InstanceSpec& row,
                                  models::Market market, int nodes, models::JobSpec job,
                                  const std::pair<bool, double>& step, double bound_s) const {
  const config::Variant& variant = scenario_.variants[variant_index];
  PlanPoint p;
  p.strategy = row_name(variant);
  p.instance = row.provider + "/" + row.instance_type;
  p.gpu = row.gpu;
  p.region = row.region;
  p.zone = market == models::Market::kSpot ? row.zone : "";
  p.market = std::string(models::name_of(market));
  p.nodes = nodes;
  p.gpus = row.accelerator_count * nodes;
  p.data_parallel = layout.data_parallel_label();
  p.tensor_parallel = layout.tensor_parallel;
  p.sequence_parallel = layout.sequence_parallel();
  p.distributed_optimizer = layout.distributed_optimizer();
  p.pipeline_parallel = layout.pipeline_parallel;
  p.context_parallel = layout.context_parallel;
  p.pipeline_schedule = layout.pipeline_schedule();
  p.virtual_stages = layout.virtual_stages;
  p.expert_parallel = layout.expert_parallel;
  p.offload = layout.offload_label();
  p.micro_batch = layout.micro_batch;
  p.gradient_accumulation = layout.gradient_accumulation;
  p.recompute = layout.recompute;
  p.bound_time_s = bound_s;
  p.fits = step.first;
  if (!p.fits) return p;
  const models::CloudSpec cloud = plan_cloud(variant, row, market, catalogs_);
  job.cloud = cloud;
  // A spot plan needs a spread for its p90: the scenario's trials when it asks for several,
  // else kPlanSpotTrials (its own variants may be on-demand, with one trial).
  job.trials = variant.job.trials;
  if (market == models::Market::kSpot && job.trials <= 1) job.trials = kPlanSpotTrials;
  const models::JobTimes shape = models::job_times(job, 1.0, 0.0);
  const double steps = shape.steps_per_epoch * shape.epochs;
  const models::JobOutcome o = models::run_job_level(job, step.second / steps, 0.0, 0.0, true);
  p.out_of_reach = o.spot_out_of_reach;
  p.time_p50_s = o.time_p50_s;
  p.time_p90_s = o.time_p90_s;
  p.checkpoint_interval_s = o.checkpoint_interval_s;
  if (o.spot) {
    p.cost_p50_usd = o.spot->cost_p50_usd;
    p.cost_p90_usd = o.spot->cost_p90_usd;
    p.expected_preemptions = o.spot->preemptions_mean;
    p.finished_share = static_cast<double>(o.spot->finished) / o.spot->trials;
    // As gpuplan run: no time or dollars at a quantile whose trial did not finish (+infinity
    // here: never the cheapest, the fastest or on the front; absent in the output).
    constexpr double kNone = std::numeric_limits<double>::infinity();
    if (!o.spot->finishes_at(0.9)) p.time_p90_s = p.cost_p90_usd = kNone;
    if (!o.spot->finishes_at(0.5)) p.time_p50_s = p.cost_p50_usd = kNone;
  } else {
    // Hardware failures lengthen the run (+infinity where it does not finish: never the
    // cheapest, the fastest or on the front).
    p.cost_p50_usd = models::on_demand_cost_usd(row, nodes, o.time_p50_s);
    p.cost_p90_usd = models::on_demand_cost_usd(row, nodes, o.time_p90_s);
    if (o.failures) p.expected_failures = o.failures->expected_failures;
  }
  return p;
}

PlanResult Planner::finish(PlanSearch search) const {
  if (search.counts.considered > 0 && search.counts.invalid == search.counts.considered) {
    throw config::ConfigError(all_refused_error(search));
  }
  PlanResult r;
  r.scenario_name = scenario_.name;
  r.deadline_s = options_.deadline_s;
  r.budget_usd = options_.budget_usd;
  r.counts = search.counts;
  r.global_batch_samples = static_cast<long long>(models::global_batch_samples(scenario_.variants.front().job));
  r.samples_are_sequences = scenario_.variants.front().job.workload.is_language_model;
  std::vector<PlanPoint>& points = search.points;
  for (PlanPoint& p : points) {
    p.meets_deadline = p.fits && p.time_p90_s <= options_.deadline_s;
    p.within_budget = !options_.budget_usd || (p.fits && p.cost_p90_usd <= *options_.budget_usd);
  }
  std::sort(points.begin(), points.end(), [](const PlanPoint& a, const PlanPoint& b) {
    if (a.fits != b.fits) return a.fits;
    if (a.cost_p90_usd != b.cost_p90_usd) return a.cost_p90_usd < b.cost_p90_usd;
    if (a.time_p90_s != b.time_p90_s) return a.time_p90_s < b.time_p90_s;
    return plan_point_key(a) < plan_point_key(b);
  });
  mark_pareto(points);
  const auto suggest = [&r](const std::string& change) {
    if (std::find(r.memory_suggestions.begin(), r.memory_suggestions.end(), change) == r.memory_suggestions.end()) {
      r.memory_suggestions.push_back(change);
    }
  };
  for (const config::Variant& v : scenario_.variants) {
    if (const auto o = models::smaller_optimizer_state(v.job.training)) suggest(o->path + ": " + o->value);
  }
  std::size_t unfinished = 0;
  for (const PlanPoint& p : points) unfinished += p.fits && p.finished_share < 1.0 ? 1 : 0;
  r.points = std::move(points);
  const PlanCounts& c = r.counts;
  r.notes.push_back(fmt::format(
      "searched layouts and instances together: {} candidates (variant x layout x instance x nodes, 1 to {} nodes) "
      "considered, {} refused by validation, {} the same job as another row's, {} pruned by memory, {} pruned by the "
      "lower bound (deadline or dominated{}), {} step problems simulated ({} candidates reused one), {} spot "
      "plans not evaluated because their nodes are preempted more often than once per restart, {} spot plans "
      "not evaluated because at most {:.0f} % of their trials would finish within the cap (the moments of "
      "Daly's checkpoint model and Cantelli's bound), {} spot evaluations skipped (spot runs only the fastest "
      "layout of each instance and node count, where not dominated); "
      "{} of the candidates offload to the CPU (tried where no layout of the instance type and node count fits "
      "without)",
      c.considered, c.max_nodes, c.invalid, c.duplicate, c.pruned_memory, c.pruned_bound,
      options_.exhaustive ? "; off: --exhaustive" : "", c.simulated, c.step_reused,
      c.spot_unstable, c.spot_out_of_reach, 100.0 * models::kSpotOutOfReachShare, c.spot_pruned, c.offload_tried));
  r.notes.push_back("layouts: ddp, fsdp (full_shard, hybrid_shard, shard_grad_op) or zero 1-3, tensor parallel 1-8 "
                    "inside a node (with sequence parallelism; beside ddp with Megatron's distributed optimizer, or "
                    "beside fsdp/zero sharding the remaining ranks) and pipeline parallel 1-16 dividing the layers "
                    "(with ddp and Megatron's distributed optimizer, or fsdp full_shard, which shards the optimizer "
                    "state over each stage's ranks and prefetches the parameters' gather; shard_grad_op and zero-1 "
                    "run there as the same jobs as those two; the pipeline runs "
                    "1F1B, or interleaved 1F1B with 2 virtual stages where they divide the layers per stage and the "
                    "micro-batches are a multiple of the stages; the scenario's own pipeline_schedule and virtual_stages "
                    "are not kept), context parallel 1-8 for a decoder with fused attention (ring attention, beside ddp "
                    "with Megatron's distributed optimizer, fsdp or zero; 2 x CP dividing the sequence, 4,096 tokens "
                    "a rank or more, TP x CP dividing or filling whole nodes), expert parallel 1-64 for a "
                    "mixture-of-experts model (with ddp and Megatron's distributed optimizer; dividing the experts and "
                    "the data-parallel ranks), micro-batch 1-32 x "
                    "accumulation keeping the scenario's global batch, CPU offload (zero: the optimizer, zero-3 also the "
                    "parameters; fsdp full_shard / hybrid_shard both; not under a pipeline) where nothing fits without it, "
                    "recompute false/selective/full (selective beside eager attention only: a fused kernel saves no scores); on-demand at each instance type's cheapest region, spot at its "
                    "cheapest zone (other rows of the same hardware take as long and cost more)");
  for (const config::Variant& v : scenario_.variants) {
    // The imbalance a plan's EP column runs at is not a column of its own: say how it was set.
    const double imbalance = v.job.parallelism.expert_load_imbalance;
    if (models::routed_experts(v.job.workload) <= 0.0 || imbalance <= 1.0) continue;
    const std::string held =
        imbalance > 2.0 ? fmt::format("holds at each expert-parallel size of at least {:g}, is capped at each size "
                                      "below that (EP 2 runs at 2: every token on one rank),",
                                      imbalance)
                        : "holds at every expert-parallel size from 2";
    r.notes.push_back(fmt::format("variant {}: its expert_load_imbalance {:g} {} and is dropped at EP 1", v.strategy,
                                  imbalance, held));
  }
  if (c.over_accumulation > 0) {
    r.notes.push_back(fmt::format(
        "{} choices of parallel sizes and micro-batch (per instance type and node count) were not tried: they would "
        "run the scenario's global batch as more than {} micro-batches per optimizer step (a bound on effort); the "
        "search keeps the global batch of the scenario (training.batch_size x gradient_accumulation x its "
        "data-parallel GPUs), so its hardware.nodes sets it too",
        c.over_accumulation, kPlanMaxAccumulation));
  }
  for (const std::string& row : skipped_rows_) r.notes.push_back(row);
  if (!no_network_types_.empty()) {
    r.notes.push_back(fmt::format("{} instance type{} give{} no network in the catalog, planned on one node only: {}",
                                  no_network_types_.size(), no_network_types_.size() == 1 ? "" : "s",
                                  no_network_types_.size() == 1 ? "s" : "", fmt::join(no_network_types_, ", ")));
  }
  r.notes.push_back("the scenario's own hardware, cloud instance and market are replaced by each plan's; spot "
                    "preemption rates come from the scenario when it writes one, else from catalogs/preemption.yaml");
  // The wait for a preempted spot node shapes every spot plan's p90: say which one was used.
  const models::JobSpec& first_job = scenario_.variants.front().job;
  const bool own_wait = first_job.cloud && first_job.cloud->replacement_wait_s > 0.0;
  r.notes.push_back(fmt::format("a preempted spot node comes back after {}{}",
                                report::human_duration(own_wait ? first_job.cloud->replacement_wait_s
                                                                : kDefaultReplacementWaitS),
                                own_wait ? " (the scenario's cloud.replacement_wait)"
                                         : ", an assumption: the scenario writes no cloud.replacement_wait (write "
                                           "the wait your zone sees; a longer one lengthens the spot plans' p90)"));
  if (first_job.on_premises) {
    r.notes.push_back("the scenario's on_premises section is not planned (plan prices cloud instances only): "
                      "gpuplan run on the scenario gives its own hardware's time and dollars to compare");
  }
  // A strategy that names another GPU keeps its name on rows of whatever instance was planned.
  std::vector<std::string> own_gpu;
  for (const config::Variant& v : scenario_.variants) {
    if (v.job.hardware.gpu.name != scenario_.variants.front().job.hardware.gpu.name) {
      own_gpu.push_back(fmt::format("{} ({})", row_name(v), v.job.hardware.gpu.name));
    }
  }
  if (!own_gpu.empty()) {
    r.notes.push_back(fmt::format("{} set{} a GPU of {} own: {} rows run on the instance in the row, as every "
                                  "variant's do (the rest of {} settings is kept); --gpus chooses the GPUs planned",
                                  fmt::join(own_gpu, ", "), own_gpu.size() == 1 ? "s" : "",
                                  own_gpu.size() == 1 ? "its" : "their", own_gpu.size() == 1 ? "its" : "their",
                                  own_gpu.size() == 1 ? "its" : "their"));
  }
  // Kept from the scenario, not searched: activation offloading, which also rules out every
  // pipeline layout (not modelled with it).
  std::vector<std::string> offloading;
  for (const config::Variant& v : scenario_.variants) {
    if (v.job.training.activation_offloading) offloading.push_back(row_name(v));
  }
  if (!offloading.empty()) {
    r.notes.push_back(fmt::format("{} keep{} training.activation_offloading: true in every plan (not searched), so no "
                                  "pipeline layout is planned for {} (offloading is not modelled with pipeline "
                                  "parallelism); a variant without it is planned with them",
                                  fmt::join(offloading, ", "), offloading.size() == 1 ? "s" : "",
                                  offloading.size() == 1 ? "it" : "them"));
  }
  r.notes.push_back(report::kCatalogPricesNote);
  if (unfinished > 0) {
    r.notes.push_back(fmt::format("{} spot plans did not finish within the trial cap in some trials (time = cap)",
                                  unfinished));
  }
  // Hardware failures: the rate of the first variant (its hardware.gpu_failure_rate, which
  // instance_hardware keeps), as every plan's.
  const config::Variant& first = scenario_.variants.front();
  const double failure_rate = first.job.hardware.gpu_failure_rate_per_s;
  if (failure_rate > 0.0) {
    std::size_t stopped = 0;
    for (const PlanPoint& p : points) stopped += p.fits && p.market == "on_demand" && !std::isfinite(p.time_p90_s);
    r.notes.push_back(fmt::format(
        "hardware failures at {:.3g} /h per GPU ({}) lengthen every plan: on demand in closed form, on spot among "
        "the preemptions{}",
        failure_rate * 3600.0,
        first.job.hardware.gpu_failure_rate_source,
        stopped == 0 ? std::string()
                     : fmt::format("; {} on-demand plans do not finish by p90 within {:g}x their time without them "
                                   "(checkpointing.interval: auto resumes from the last checkpoint)",
                                   stopped, models::kTrialCapFactor)));
  }
  return r;
}

}  // namespace gpuplan::cli

#include "cli/plan_summary.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/run/run_variant.h"
#include "report/human_units.h"

namespace gpuplan::cli {

namespace {

std::string describe(const PlanPoint& p) {
  const int per_node = p.gpus / p.nodes;
  std::string schedule;
  if (p.pipeline_parallel > 1 && p.pipeline_schedule != "1f1b") {
    schedule = " (" + p.pipeline_schedule +
               (p.virtual_stages > 1 ? ", " + std::to_string(p.virtual_stages) + " virtual stages" : std::string()) + ")";
  }
  // A plan whose peak is within kTightMemoryShare of the GPU's memory says so, as gpuplan run does.
  const std::string tight =
      p.memory_capacity_bytes > 0.0 && p.peak_memory_bytes > models::kTightMemoryShare * p.memory_capacity_bytes
          ? fmt::format("; peak memory {:.1f} of {:.1f} GB, within {:.0f} % of capacity", p.peak_memory_bytes / 1e9,
                        p.memory_capacity_bytes / 1e9, 100.0 * (1.0 - models::kTightMemoryShare))
          : std::string();
  const std::string experts =
      p.expert_parallel > 1 ? fmt::format(" (experts over {} of them)", p.expert_parallel) : std::string();
  const std::string offload = p.offload == "none" ? std::string() : ", CPU offload of the " + p.offload;
  const std::string context = p.context_parallel > 1 ? fmt::format(" x CP {}", p.context_parallel) : std::string();
  return fmt::format("{} ({} node{} x {} GPU{}, {} in {}, variant {}; {}{}, DP {}{} x TP {}{} x PP {}{}{}, micro-batch {} x {} "
                     "accumulated, recompute {}{}{}): {} and {} at p90",
                     p.instance, p.nodes, p.nodes == 1 ? "" : "s", per_node, per_node == 1 ? "" : "s",
                     p.market == "spot" ? "spot" : "on-demand", p.zone.empty() ? p.region : p.zone, p.strategy,
                     p.data_parallel, p.distributed_optimizer ? " with the distributed optimizer" : "",
                     p.data_parallel_degree(), experts, p.tensor_parallel,
                     p.sequence_parallel ? " (sequence parallel)" : "", p.pipeline_parallel, schedule,
                     context, p.micro_batch, p.gradient_accumulation, p.recompute, offload, tight, report::human_duration(p.time_p90_s),
                     report::human_usd(p.cost_p90_usd));
}

}  // namespace

std::string plan_summary(const PlanResult& plan) {
  const PlanPoint* cheapest = nullptr;  // points are sorted by p90 dollars: the first that qualifies
  for (const PlanPoint& p : plan.points) {
    if (p.fits && p.meets_deadline && p.within_budget) {
      cheapest = &p;
      break;
    }
  }
  const PlanPoint* fastest = fastest_plan(plan.points);
  std::string out;
  if (cheapest != nullptr) {
    out += "Cheapest plan that meets the deadline" + std::string(plan.budget_usd ? " and budget" : "") + ": " +
           describe(*cheapest) + ".\n";
  } else if (fastest == nullptr && plan.counts.pruned_memory > 0 && plan.counts.simulated == 0 &&
             plan.counts.pruned_bound == 0) {
    // Nothing was simulated because nothing fits: say so, not "too slow".
    std::string changes;
    for (const std::string& change : plan.memory_suggestions) changes += change + ", ";
    out += fmt::format("No plan: none of the {} distinct candidates that validation accepted fits in GPU memory (the largest "
                       "layouts tried span {} node{}). Try {}GPUs with more memory (--gpus), or providers "
                       "whose catalog gives a network between nodes (--providers; the notes list the instance types "
                       "planned on one node only).\n",
                       plan.counts.pruned_memory, plan.counts.max_nodes, plan.counts.max_nodes == 1 ? "" : "s", changes);
  } else {
    out += "No plan meets the deadline of " + report::human_duration(plan.deadline_s) +
           (plan.budget_usd ? " within the budget of " + report::human_usd(*plan.budget_usd) : std::string()) +
           " at p90.\n";
    // The budget alone fails: name the cheapest plan that meets the deadline (points are
    // sorted by p90 dollars), so that the user sees what the deadline costs.
    const auto over_budget = std::find_if(plan.points.begin(), plan.points.end(),
                                          [](const PlanPoint& p) { return p.fits && p.meets_deadline; });
    if (plan.budget_usd && over_budget != plan.points.end()) {
      out += "The budget is what fails: the cheapest plan that meets the deadline is " + describe(*over_budget) +
             ". Raise --budget to " + report::human_usd(over_budget->cost_p90_usd) + ", or give a later --deadline.\n";
    }
    if (fastest == nullptr && plan.counts.simulated == 0 && std::isfinite(plan.counts.best_bound_s)) {
      // Every layout that fits was pruned by its lower bound: say how far off the deadline is.
      out += "No layout tried can finish in under " + report::human_duration(plan.counts.best_bound_s) +
             " (its lower bound: every kernel at the dense peak, the gradient exchange at the network's rate); "
             "give a deadline of at least that, or GPUs that are faster or more numerous (--gpus, --providers), "
             "or --exhaustive to simulate the layouts that fit anyway.\n";
    }
    const bool deadline_met = std::any_of(plan.points.begin(), plan.points.end(),
                                          [](const PlanPoint& p) { return p.meets_deadline; });
    if (fastest != nullptr && !deadline_met && plan.global_batch_samples > 0) {
      // The search holds the global batch: past some size more GPUs cannot shorten a step.
      out += fmt::format("Every plan keeps the scenario's global batch of {} {} per optimizer step, so more GPUs each "
                         "get less of it; a deadline this short may need a larger one (training.batch_size or "
                         "gradient_accumulation), if the training allows it.\n",
                         plan.global_batch_samples, plan.samples_are_sequences ? "sequences" : "samples");
    }
  }
  // The fastest plan is always named when a plan fits: a search with a single market or
  // provider often finds the cheapest plan that meets the deadline is also the fastest.
  if (fastest != nullptr && fastest == cheapest) {
    out += "Fastest plan: the same (no plan simulated is faster).\n";
  } else if (fastest != nullptr) {
    out += "Fastest plan: " + describe(*fastest) + ".\n";
  }
  if (fastest != nullptr && plan.counts.simulated > 0) {
    // The search stops growing an instance type's nodes soon after the first count that meets
    // the deadline (plan.h, kPlanDoublingsPastDeadline): the fastest plan is the fastest of those.
    const bool any_met = std::any_of(plan.points.begin(), plan.points.end(),
                                     [](const PlanPoint& p) { return p.meets_deadline; });
    if (plan.counts.max_nodes == 1) {
      // No type grew past one node ("up to 1 nodes" read as nonsense to a new user).
      out += "(Each instance type was searched on one node: more were not tried, because the catalog gives the "
             "type no network between nodes (the notes name those) or because more nodes could not make a plan "
             "of it cheaper, or faster past the deadline.)\n";
    } else if (!any_met) {
      // Nothing met the deadline: only the plan.h bounds stopped the growth.
      out += fmt::format("(Node counts grow in powers of two per instance type, up to {} nodes here.)\n",
                         plan.counts.max_nodes);
    } else {
      out += fmt::format("(Node counts grow in powers of two per instance type, up to {} nodes here; a type that meets "
                         "the deadline doubles on at most {} more times, while each doubling makes it at least {}x "
                         "faster. More nodes, which may be faster still, are not searched: a shorter --deadline "
                         "searches them.)\n",
                         plan.counts.max_nodes, kPlanDoublingsPastDeadline, kPlanGrowthSpeedup);
    }
  }
  return out;
}

}  // namespace gpuplan::cli

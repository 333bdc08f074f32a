#include "cli/plan_html.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/plan_summary.h"
#include "core/units.h"
#include "report/html_page.h"
#include "report/human_units.h"

namespace gpuplan::cli {

std::string render_plan_html(const PlanResult& plan) {
  using nlohmann::json;
  json others = json::array();
  json front = json::array();
  std::vector<const PlanPoint*> pareto;
  double max_usd = 0.0;
  double max_h = core::to_hours(plan.deadline_s);
  for (const PlanPoint& p : plan.points) {
    if (!p.fits || !std::isfinite(p.time_p90_s)) continue;  // a spot plan whose p90 trial did not finish
    const json point = {{"x", core::to_hours(p.time_p90_s)}, {"y", p.cost_p90_usd}};
    max_usd = std::max(max_usd, p.cost_p90_usd);
    max_h = std::max(max_h, core::to_hours(p.time_p90_s));
    if (p.pareto) pareto.push_back(&p);
    else others.push_back(point);
  }
  std::sort(pareto.begin(), pareto.end(), [](const PlanPoint* a, const PlanPoint* b) { return a->time_p90_s < b->time_p90_s; });
  for (const PlanPoint* p : pareto) front.push_back({{"x", core::to_hours(p->time_p90_s)}, {"y", p->cost_p90_usd}});
  if (plan.budget_usd) max_usd = std::max(max_usd, *plan.budget_usd);
  json datasets = json::array();
  datasets.push_back({{"type", "line"}, {"label", "Pareto front (p90)"}, {"data", front}, {"borderColor", "#e15759"},
                      {"backgroundColor", "#e15759"}, {"showLine", true}, {"pointRadius", 4}});
  datasets.push_back({{"type", "scatter"}, {"label", "other plans"}, {"data", others}, {"borderColor", "#4e79a7"},
                      {"backgroundColor", "#4e79a7"}, {"pointRadius", 2}});
  const double deadline_h = core::to_hours(plan.deadline_s);
  datasets.push_back({{"type", "line"}, {"label", "deadline " + report::human_duration(plan.deadline_s)},
                      {"data", json::array({{{"x", deadline_h}, {"y", 0}}, {{"x", deadline_h}, {"y", max_usd}}})},
                      {"borderColor", "#59a14f"}, {"borderDash", {6, 4}}, {"pointRadius", 0}, {"showLine", true}});
  if (plan.budget_usd) {
    datasets.push_back({{"type", "line"}, {"label", "budget " + report::human_usd(*plan.budget_usd)},
                        {"data", json::array({{{"x", 0}, {"y", *plan.budget_usd}}, {{"x", max_h}, {"y", *plan.budget_usd}}})},
                        {"borderColor", "#f28e2b"}, {"borderDash", {6, 4}}, {"pointRadius", 0}, {"showLine", true}});
  }
  const json config = {{"type", "scatter"},
                       {"data", {{"datasets", datasets}}},
                       {"options",
                        {{"scales",
                          {{"x", {{"type", "linear"}, {"min", 0}, {"title", {{"display", true}, {"text", "time to train at p90 (h)"}}}}},
                           {"y", {{"min", 0}, {"title", {{"display", true}, {"text", "dollars at p90 (USD)"}}}}}}}}}};
  std::vector<report::HtmlChart> charts = {{"Time against dollars of every plan simulated", config.dump()}};

  std::vector<std::vector<std::string>> rows;
  for (const PlanPoint* point : cheapest_meeting_plans(plan.points, kPlanTableRows)) {
    const PlanPoint& p = *point;
    rows.push_back({p.instance, p.gpu, std::to_string(p.nodes) + " x " + std::to_string(p.gpus / p.nodes),
                    p.zone.empty() ? p.region : p.zone, p.market, p.strategy, p.data_parallel,
                    std::to_string(p.data_parallel_degree()), std::to_string(p.tensor_parallel),
                    std::to_string(p.pipeline_parallel), std::to_string(p.context_parallel), report::human_duration(p.time_p90_s),
                    report::human_usd(p.cost_p90_usd)});
  }
  std::string body = "<h2>Cheapest plans that meet the deadline</h2>\n<p>The cheapest layout of each instance type, node count and "
                     "market.</p>\n" +
                     (rows.empty() ? std::string("<p>None: no plan meets the deadline (and budget) at p90.</p>\n")
                                   : report::html_table({"instance", "gpu", "nodes x GPUs", "region/zone", "market",
                                                         "variant", "strategy", "DP", "TP", "PP", "CP", "time p90", "$ p90"},
                                                        rows));
  if (!plan.notes.empty()) {
    body += "<h2>Notes</h2>\n<ul>\n";
    for (const auto& n : plan.notes) body += "<li>" + report::html_escape(n) + "</li>\n";
    body += "</ul>\n";
  }
  return report::html_page(plan.scenario_name, plan_summary(plan), charts, body);
}

}  // namespace gpuplan::cli

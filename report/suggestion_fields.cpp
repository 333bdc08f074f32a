#include "report/suggestion_fields.h"

#include <fmt/format.h>

#include <cmath>

#include "report/human_units.h"

namespace gpuplan::report {
namespace {

std::string signed_percent(double change) { return fmt::format("{:+.0f} %", change * 100.0); }

std::string number(double v) { return fmt::format("{:.6g}", v); }

}  // namespace

std::string suggestion_effect(const models::SuggestedChange& c) {
  std::string out = signed_percent(c.throughput_change) + " samples/s, time to train " + signed_percent(c.time_change);
  if (c.cost_change_usd) {
    out += ", " + std::string(*c.cost_change_usd < 0.0 ? "-" : "+") + human_usd(std::abs(*c.cost_change_usd)) +
           " per run";
  }
  if (c.goal == "cost") out += ", ranked on cost";
  return out;
}

std::vector<std::string> suggestion_csv_header() {
  return {"suggestion_overrides",  "suggestion_goal",           "suggestion_gain", "suggested_throughput_samples_per_s",
          "suggested_time_to_train_s", "suggested_cost_usd"};
}

std::vector<std::string> suggestion_csv_cells(const models::VariantResult& row) {
  if (!row.suggested) return std::vector<std::string>(suggestion_csv_header().size());
  const models::SuggestedChange& c = *row.suggested;
  std::string overrides;
  for (const models::ScenarioOverride& o : c.overrides) {
    overrides += (overrides.empty() ? "" : ";") + o.path + "=" + o.value;
  }
  // Paths and catalog names hold no comma or quote; values with units hold a space only.
  return {overrides, c.goal, number(c.gain), number(c.throughput_samples_per_s), number(c.time_to_train_s),
          c.cost_usd ? number(*c.cost_usd) : std::string()};
}

void add_suggestion_json(const models::VariantResult& row, nlohmann::ordered_json& j) {
  if (row.fits && !row.critical_path.empty()) {
    nlohmann::ordered_json path;
    for (const models::CriticalPathPart& p : row.critical_path) path[p.resource] = p.share;
    j["critical_path_share"] = path;
  }
  if (!row.suggested) return;
  const models::SuggestedChange& c = *row.suggested;
  nlohmann::ordered_json s;
  nlohmann::ordered_json overrides = nlohmann::ordered_json::object();
  for (const models::ScenarioOverride& o : c.overrides) overrides[o.path] = o.value;
  s["overrides"] = overrides;
  s["relieves"] = c.relieves;
  s["goal"] = c.goal;
  s["gain"] = c.gain;
  s["throughput_samples_per_s"] = c.throughput_samples_per_s;
  s["throughput_change"] = c.throughput_change;
  s["time_to_train_s"] = c.time_to_train_s;
  s["time_change"] = c.time_change;
  if (c.cost_usd) s["cost_usd"] = *c.cost_usd;
  if (c.cost_change_usd) s["cost_change_usd"] = *c.cost_change_usd;
  j["suggested"] = s;
}

}  // namespace gpuplan::report

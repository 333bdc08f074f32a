#include "models/run/advice.h"

namespace gpuplan::models {

std::optional<double> run_cost_usd(const VariantResult& row) {
  if (row.cost_p50_usd) return row.cost_p50_usd;
  if (row.cost_on_premises_usd) return row.cost_on_premises_usd;
  return row.cost_on_demand_usd;
}

double run_time_s(const VariantResult& row) { return row.time_p50_s.value_or(row.time_to_train_s); }

double goal_value(const VariantResult& row, RemedyGoal goal) {
  if (goal == RemedyGoal::kCost) {
    if (const std::optional<double> usd = run_cost_usd(row)) return *usd;
  }
  return run_time_s(row);
}

std::string overrides_text(const std::vector<ScenarioOverride>& overrides) {
  std::string out;
  for (const ScenarioOverride& o : overrides) out += (out.empty() ? "" : ", ") + o.path + ": " + o.value;
  return out;
}

void apply_advice(VariantResult& row, const std::vector<RemedyOutcome>& outcomes) {
  if (!row.fits) return;
  const RemedyOutcome* best = nullptr;
  double best_gain = kMinimumRemedyGain;
  for (const RemedyOutcome& o : outcomes) {
    if (!o.result.fits) continue;
    const double after = goal_value(o.result, o.remedy.goal);
    if (!(after > 0.0)) continue;
    const double gain = goal_value(row, o.remedy.goal) / after - 1.0;
    if (gain >= best_gain && (best == nullptr || gain > best_gain)) {
      best = &o;
      best_gain = gain;
    }
  }
  if (best == nullptr) return;
  SuggestedChange s;
  s.overrides = best->remedy.overrides;
  s.relieves = best->remedy.relieves;
  s.goal = name_of(best->remedy.goal);
  s.gain = best_gain;
  s.throughput_samples_per_s = best->result.throughput_samples_per_s;
  s.throughput_change =
      row.throughput_samples_per_s > 0.0 ? best->result.throughput_samples_per_s / row.throughput_samples_per_s - 1.0 : 0.0;
  s.time_to_train_s = run_time_s(best->result);
  s.time_change = run_time_s(row) > 0.0 ? s.time_to_train_s / run_time_s(row) - 1.0 : 0.0;
  s.cost_usd = run_cost_usd(best->result);
  const std::optional<double> before = run_cost_usd(row);
  if (s.cost_usd && before) s.cost_change_usd = *s.cost_usd - *before;
  row.bottleneck = s.relieves;
  row.suggestion = overrides_text(s.overrides);
  row.suggested = std::move(s);
}

}  // namespace gpuplan::models

#pragma once
/// \file advice.h
/// The limiter and the suggestion of a row, from remedies that were simulated
/// (models/run/remedies.h): each remedy's gain is its goal before / after - 1 (time to
/// train, or dollars for a cost remedy); the remedy with the largest gain among those whose
/// variant fits in memory is the suggestion, and the resource it relieves is the bottleneck.
/// Without a remedy that gains at least kMinimumRemedyGain (remedies.h), the row keeps the largest part
/// of its critical path and an unchecked hint (models/run/bottleneck.h).

#include <optional>
#include <string>
#include <vector>

#include "models/results.h"
#include "models/run/remedies.h"

namespace gpuplan::models {

/// A remedy and the row its variant produced.
struct RemedyOutcome {
  Remedy remedy;
  VariantResult result;
};

/// Dollars of a run: p50 on its cloud market, else on premises; absent without either.
std::optional<double> run_cost_usd(const VariantResult& row);

/// Time of a run: wall time p50 on a cloud market, else time to train. Seconds.
double run_time_s(const VariantResult& row);

/// What `goal` measures on `row`: run_time_s, or run_cost_usd (run_time_s without dollars).
double goal_value(const VariantResult& row, RemedyGoal goal);

/// "path: value, path: value", in order.
std::string overrides_text(const std::vector<ScenarioOverride>& overrides);

/// Sets row.bottleneck, row.suggestion and row.suggested from the best of `outcomes`
/// (strictly largest gain; the first of equal ones); leaves the row as it is when none
/// fits and gains kMinimumRemedyGain. Throws nothing.
void apply_advice(VariantResult& row, const std::vector<RemedyOutcome>& outcomes);

}  // namespace gpuplan::models

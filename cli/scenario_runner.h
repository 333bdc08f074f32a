#pragma once
/// \file scenario_runner.h
/// Runs every variant of a loaded scenario through the models, in order.

#include <functional>
#include <vector>

#include "cli/app_context.h"
#include "config/scenario.h"
#include "models/results.h"
#include "models/run/run_variant.h"

namespace gpuplan::cli {

struct ScenarioRun {
  models::ScenarioResult result;
  std::vector<models::VariantRun> runs;  ///< per variant, same order as result.variants
  std::uint64_t events = 0;              ///< engine events over all variants
};

/// The row name of a variant: the strategy, plus " [sweep point]" when there is one.
std::string row_name(const config::Variant& variant);

/// Throws LocatedTimeRangeError (cli/located_time_range_error.h): `error` (a job of `variant`,
/// or of a remedy of it, past simulated time's range) at the variant's workload.epochs or
/// workload.tokens, the key that sizes the job, with the fix.
[[noreturn]] void throw_located_time_range_error(const config::Variant& variant, const std::exception& error);

/// Simulates every variant of `scenario` with `params`, calling `progress(done, total)` after
/// each variant when given. Throws std::invalid_argument when a variant cannot run (the
/// loader rejects such input first), sim::TimeRangeError when a step does not fit in
/// simulated time, and LocatedTimeRangeError (at the variant's workload.epochs or tokens)
/// when its time to train does not (models::JobTimeRangeError).
ScenarioRun run_scenario(const config::Scenario& scenario, const models::ModelParams& params,
                         const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace gpuplan::cli

#pragma once
/// \file advisor.h
/// Checks the remedies of every row of a scenario run by simulation and names the limiter
/// (issue 10 item 4): for each fitting row, the candidates of models/run/remedies.h are
/// written into the row's variant through config/variant_overrides.h (the path strategies
/// take), each valid one simulated with models::run_variant, and models::apply_advice keeps
/// the one with the largest gain. Where no single remedy gains
/// kMinimumRemedyGain, the remedies of each of the best ones' own results are tried on top of
/// it (models::pair_starts, models::combined_remedy): a pair such as compiled mode + GPU
/// decoding, each of which alone moves the limit to the other. Remedies that validation refuses (bf16 on a V100, an
/// interconnect the instance lacks) are skipped. Cost: one simulation per distinct job
/// (about 1-4 per row): remedies whose overrides resolve alike (config::override_key; e.g.
/// `data_loader.num_workers: 15` on every point of a num_workers sweep, or a pair that equals
/// another row's single remedy) are simulated once, and one that makes its row into another
/// row of the scenario (files_on_hdd + `workload.dataset.layout: shards` = shards_on_hdd)
/// reads that row's result (the remedies read only its fit, times, dollars, throughput and
/// critical path, which the scaling reference and the trace do not change). Run on all cores; the output does not
/// depend on the number of threads.

#include <functional>
#include <vector>

#include "cli/app_context.h"
#include "cli/scenario_runner.h"
#include "config/scenario.h"
#include "models/run/advice.h"
#include "models/run/run_variant.h"

namespace gpuplan::cli {

/// The remedies of row `index` of `run` (variant `index` of `scenario`) that validate, not
/// yet simulated: their jobs in `jobs`, same order.
std::vector<models::Remedy> valid_remedies(const ScenarioRun& run, std::size_t index, const config::Scenario& scenario,
                                           const AppContext& context, std::vector<models::JobSpec>& jobs);

/// Sets the bottleneck, suggestion and checked remedy of every row of `run` (variant i of
/// `scenario` is row i). `params` as for the rows themselves; remedies record no trace and
/// no scaling reference. `threads` 0 = all cores. Throws what run_variant throws.
void advise(ScenarioRun& run, const config::Scenario& scenario, const AppContext& context,
            const models::ModelParams& params, unsigned threads = 0);

/// The one path from a scenario to the rows `run` and `diagnose` print: every variant
/// simulated (run_scenario, `progress` as there) and then advised (advise above), so both
/// commands name the same limiter and the same checked remedy.
ScenarioRun run_and_advise(const config::Scenario& scenario, const AppContext& context, const models::ModelParams& params,
                           const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace gpuplan::cli

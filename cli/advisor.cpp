#include "cli/advisor.h"

#include <thread>

#include "cli/parallel_for.h"
#include "config/variant_overrides.h"
#include "models/run/remedies.h"

namespace gpuplan::cli {

std::vector<models::Remedy> valid_remedies(const ScenarioRun& run, std::size_t index, const config::Scenario& scenario,
                                           const AppContext& context, std::vector<models::JobSpec>& jobs) {
  const config::Variant& variant = scenario.variants[index];
  models::RemedyOptions options;
  for (const std::string& name : context.catalogs.storage.names()) {
    options.storage_classes.push_back(*context.catalogs.storage.find(name));
  }
  std::vector<models::Remedy> valid;
  for (models::Remedy& remedy : models::candidate_remedies(variant.job, run.result.variants[index], options)) {
    config::OverriddenJob changed =
        config::with_overrides(scenario, variant, remedy.overrides, context.catalogs, context.families);
    if (!changed.job) continue;
    jobs.push_back(std::move(*changed.job));
    valid.push_back(std::move(remedy));
  }
  return valid;
}

void advise(ScenarioRun& run, const config::Scenario& scenario, const AppContext& context,
            const models::ModelParams& params, unsigned threads) {
  struct Task {
    std::size_t row;
    models::JobSpec job;
  };
  std::vector<Task> tasks;
  std::vector<std::vector<models::RemedyOutcome>> outcomes(run.result.variants.size());
  std::vector<std::pair<std::size_t, std::size_t>> slots;  // task -> (row, outcome)
  for (std::size_t i = 0; i < run.result.variants.size(); ++i) {
    std::vector<models::JobSpec> jobs;
    for (models::Remedy& remedy : valid_remedies(run, i, scenario, context, jobs)) {
      slots.emplace_back(i, outcomes[i].size());
      outcomes[i].push_back({std::move(remedy), {}});
    }
    for (models::JobSpec& job : jobs) tasks.push_back({i, std::move(job)});
  }
  models::ModelParams quiet = params;
  quiet.step.trace_steps = 0;
  quiet.scaling_reference = false;
  if (threads == 0) threads = std::max(1U, std::thread::hardware_concurrency());
  parallel_for(tasks.size(), threads, {}, 0, 0, [&](std::size_t t) {
    const auto [row, slot] = slots[t];
    outcomes[row][slot].result = models::run_variant(tasks[t].job, run.result.variants[row].strategy, quiet).result;
  });
  for (std::size_t i = 0; i < run.result.variants.size(); ++i) models::apply_advice(run.result.variants[i], outcomes[i]);
}

ScenarioRun run_and_advise(const config::Scenario& scenario, const AppContext& context, const models::ModelParams& params,
                           const std::function<void(std::size_t, std::size_t)>& progress) {
  ScenarioRun run = run_scenario(scenario, params, progress);
  advise(run, scenario, context, params);
  return run;
}

}  // namespace gpuplan::cli

#include "cli/scenario_runner.h"

namespace gpuplan::cli {

std::string row_name(const config::Variant& variant) {
  return variant.sweep_point.empty() ? variant.strategy : variant.strategy + " [" + variant.sweep_point + "]";
}

ScenarioRun run_scenario(const config::Scenario& scenario, const models::ModelParams& params,
                         const std::function<void(std::size_t, std::size_t)>& progress) {
  ScenarioRun run;
  run.result.scenario_name = scenario.name;
  run.result.scenario_path = scenario.path;
  for (const config::Variant& variant : scenario.variants) {
    models::VariantRun v = models::run_variant(variant.job, row_name(variant), params);
    v.result.sweep_settings = variant.sweep_settings;
    v.result.notes.insert(v.result.notes.begin(), variant.notes.begin(), variant.notes.end());
    run.events += v.events;
    run.result.variants.push_back(v.result);
    run.runs.push_back(std::move(v));
    if (progress) progress(run.runs.size(), scenario.variants.size());
  }
  return run;
}

}  // namespace gpuplan::cli

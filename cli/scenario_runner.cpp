#include "cli/scenario_runner.h"

namespace gpuplan::cli {

std::string row_name(const config::Variant& variant) {
  return variant.sweep_point.empty() ? variant.strategy : variant.strategy + " [" + variant.sweep_point + "]";
}

ScenarioRun run_scenario(const config::Scenario& scenario, const models::ModelParams& params) {
  ScenarioRun run;
  run.result.scenario_name = scenario.name;
  run.result.scenario_path = scenario.path;
  for (const config::Variant& variant : scenario.variants) {
    models::VariantRun v = models::run_variant(variant.job, row_name(variant), params);
    run.events += v.events;
    run.result.variants.push_back(v.result);
    run.runs.push_back(std::move(v));
  }
  return run;
}

}  // namespace gpuplan::cli

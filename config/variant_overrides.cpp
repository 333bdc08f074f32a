#include "config/variant_overrides.h"

#include <filesystem>

#include "config/overrides.h"
#include "config/scenario_validator.h"
#include "config/yaml_reader.h"

namespace gpuplan::config {

OverriddenJob with_overrides(const Scenario& scenario, const Variant& variant,
                             const std::vector<models::ScenarioOverride>& overrides, const Catalogs& catalogs,
                             const core::Registry<models::IWorkloadFamily>& families) {
  const std::string file = scenario.path.empty() ? std::string("<scenario>") : scenario.path;
  const YAML::Node root = parse_yaml(scenario.text, file);
  // The variant's own overrides, read as the loader read them (the file was valid then).
  ErrorSink ignored(file);
  std::vector<Override> all;
  if (variant.strategy_index >= 0 && root["strategies"]) {
    const std::vector<StrategyOverrides> strategies = read_strategies(root["strategies"], ignored);
    const auto s = static_cast<std::size_t>(variant.strategy_index);
    if (s < strategies.size()) all = strategies[s].overrides;
  }
  if (!variant.sweep_values.empty() && root["sweep"]) {
    const std::vector<SweepAxis> axes = read_sweep(root["sweep"], ignored);
    for (std::size_t a = 0; a < axes.size() && a < variant.sweep_values.size(); ++a) {
      const int v = variant.sweep_values[a];
      if (v >= 0) all.push_back(axes[a].values[static_cast<std::size_t>(v)]);
    }
  }
  for (const models::ScenarioOverride& o : overrides) {
    all.push_back({o.path, YAML::Load(o.value), YAML::Mark(), "suggestion." + o.path});
  }
  ErrorSink sink(file);
  const ValidationContext context{catalogs, families, std::filesystem::path(scenario.path).parent_path().string()};
  std::vector<const Override*> written;
  for (const Override& o : all) written.push_back(&o);
  std::optional<ValidatedJob> validated = validate_with_overrides(root, written, context, sink);
  OverriddenJob out;
  out.errors = sink.messages();
  if (validated && out.errors.empty()) {
    out.job = std::move(validated->job);
    out.job->scenario_name = scenario.name;
    out.job->seed = scenario.seed;
  }
  return out;
}

}  // namespace gpuplan::config

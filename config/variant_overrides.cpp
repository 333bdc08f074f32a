#include "config/variant_overrides.h"

#include <yaml-cpp/yaml.h>

#include "config/overrides.h"
#include "config/variant_validator.h"
#include "config/yaml_reader.h"

namespace gpuplan::config {

OverriddenJob with_overrides(const Scenario& scenario, const Variant& variant,
                             const std::vector<models::ScenarioOverride>& overrides, const Catalogs& catalogs,
                             const core::Registry<models::IWorkloadFamily>& families) {
  return VariantValidator(scenario, variant, catalogs, families).validate(overrides);
}

std::string override_key(const Scenario& scenario, const Variant& variant,
                         const std::vector<models::ScenarioOverride>& overrides) {
  const std::string file = scenario.path.empty() ? std::string("<scenario>") : scenario.path;
  std::vector<Override> all =
      variant_overrides(parse_yaml(scenario.text, file), file, variant.strategy_index, variant.sweep_values);
  for (const models::ScenarioOverride& o : overrides) {
    all.push_back({o.path, YAML::Load(o.value), YAML::Mark(), "suggestion." + o.path, ""});
  }
  return canonical_override_key(all);
}

}  // namespace gpuplan::config

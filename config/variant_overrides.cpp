#include "config/variant_overrides.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "config/overrides.h"
#include "config/scenario_validator.h"
#include "config/yaml_reader.h"

namespace gpuplan::config {

namespace {

/// The overrides that built `variant`, read from the file as the loader read them (the file
/// was valid then), then `extra` (positions: the file's start).
std::vector<Override> written_overrides(const YAML::Node& root, const std::string& file, const Variant& variant,
                                        const std::vector<models::ScenarioOverride>& extra) {
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
  for (const models::ScenarioOverride& o : extra) {
    all.push_back({o.path, YAML::Load(o.value), YAML::Mark(), "suggestion." + o.path});
  }
  return all;
}

std::string file_name(const Scenario& scenario) {
  return scenario.path.empty() ? std::string("<scenario>") : scenario.path;
}

}  // namespace

OverriddenJob with_overrides(const Scenario& scenario, const Variant& variant,
                             const std::vector<models::ScenarioOverride>& overrides, const Catalogs& catalogs,
                             const core::Registry<models::IWorkloadFamily>& families) {
  const std::string file = file_name(scenario);
  const YAML::Node root = parse_yaml(scenario.text, file);
  const std::vector<Override> all = written_overrides(root, file, variant, overrides);
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

std::string override_key(const Scenario& scenario, const Variant& variant,
                         const std::vector<models::ScenarioOverride>& overrides) {
  const std::string file = file_name(scenario);
  const std::vector<Override> all = written_overrides(parse_yaml(scenario.text, file), file, variant, overrides);
  // (path, value text) in writing order; a later write of a path replaces the earlier one.
  std::vector<std::pair<std::string, std::string>> entries;
  for (const Override& o : all) {
    YAML::Emitter out;
    out << YAML::Flow;
    if (o.removes()) {
      out << YAML::Null;
    } else {
      out << o.value;
    }
    std::erase_if(entries, [&o](const auto& e) { return e.first == o.path; });
    entries.emplace_back(o.path, out.c_str());
  }
  bool nested = false;
  for (const auto& a : entries) {
    for (const auto& b : entries) nested = nested || b.first.starts_with(a.first + ".");
  }
  if (!nested) std::sort(entries.begin(), entries.end());
  std::string key;
  for (const auto& e : entries) key += e.first + "=" + e.second + ";";
  return key;
}

}  // namespace gpuplan::config

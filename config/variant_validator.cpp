#include "config/variant_validator.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <utility>

#include "config/overrides.h"
#include "config/scenario_validator.h"
#include "config/yaml_reader.h"

namespace gpuplan::config {

namespace {

std::string file_name(const Scenario& scenario) {
  return scenario.path.empty() ? std::string("<scenario>") : scenario.path;
}

}  // namespace

struct VariantValidator::State {
  State(const Scenario& s, const Catalogs& catalogs, const core::Registry<models::IWorkloadFamily>& families)
      : scenario(s),
        file(file_name(s)),
        context{catalogs, families, std::filesystem::path(s.path).parent_path().string(), &memo} {}

  const Scenario& scenario;
  const std::string file;
  /// The op tables of this tree's validations, each built once (before `context`, which points to it).
  WorkloadMemo memo;
  const ValidationContext context;
  YAML::Node root;
  /// The overrides that built the variant, read from the file as the loader read them (the
  /// file was valid then).
  std::vector<Override> own;
  /// Extra override values that are not mappings, by their text, parsed once (a scalar is
  /// never written into).
  std::map<std::string, YAML::Node> values;

  /// The variant's overrides, then `extra` (source paths "suggestion.<path>").
  std::vector<Override> written(const std::vector<models::ScenarioOverride>& extra) {
    std::vector<Override> all = own;
    for (const models::ScenarioOverride& o : extra) {
      auto it = values.find(o.value);
      if (it == values.end()) {
        YAML::Node value = YAML::Load(o.value);
        // Only scalars are shared: a mapping written at two paths, with a path into one of
        // them, would change both.
        if (value.IsDefined() && value.IsMap()) {
          all.push_back({o.path, value, YAML::Mark(), "suggestion." + o.path, ""});
          continue;
        }
        it = values.emplace(o.value, value).first;
      }
      all.push_back({o.path, it->second, YAML::Mark(), "suggestion." + o.path, ""});
    }
    return all;
  }
};

VariantValidator::VariantValidator(const Scenario& scenario, const Variant& variant, const Catalogs& catalogs,
                                   const core::Registry<models::IWorkloadFamily>& families)
    : state_(std::make_unique<State>(scenario, catalogs, families)) {
  State& s = *state_;
  s.root = parse_yaml(scenario.text, s.file);
  s.own = variant_overrides(s.root, s.file, variant.strategy_index, variant.sweep_values);
}

VariantValidator::~VariantValidator() = default;

OverriddenJob VariantValidator::validate(const std::vector<models::ScenarioOverride>& overrides) {
  State& s = *state_;
  const std::vector<Override> all = s.written(overrides);
  ErrorSink sink(s.file);
  std::vector<const Override*> written;
  written.reserve(all.size());
  for (const Override& o : all) written.push_back(&o);
  std::optional<ValidatedJob> validated = validate_with_overrides(s.root, written, s.context, sink);
  OverriddenJob out;
  out.errors = sink.messages();
  if (validated && out.errors.empty()) {
    out.job = std::move(validated->job);
    out.job->scenario_name = s.scenario.name;
    out.job->seed = s.scenario.seed;
  }
  return out;
}

std::string VariantValidator::key(const std::vector<models::ScenarioOverride>& overrides) {
  return canonical_override_key(state_->written(overrides));
}

}  // namespace gpuplan::config

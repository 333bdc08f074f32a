#pragma once
/// \file variant_validator.h
/// One variant of a loaded scenario, ready to be validated with more overrides many times:
/// the scenario's text parsed once and the variant's own strategy and sweep overrides read
/// once, then each with-overrides job written into that one tree and validated by the
/// loader's rules (scenario_validator.h validate_with_overrides) and the tree restored.
/// config::with_overrides and config::override_key (variant_overrides.h) are one call of
/// it; `gpuplan plan` keeps one per variant and thread for its thousands of layouts, where
/// parsing the text again per layout was about 40 % of its CPU.
///
/// Not thread-safe (validation writes into the tree); use one per thread. Each validation
/// keeps a few of its value nodes in the tree's memory pool (yaml-cpp merges pools on
/// insert, and never frees a merged node before the tree), so one validator should see a
/// bounded number of validations, e.g. a batch of them.

#include <memory>
#include <string>
#include <vector>

#include "config/catalogs.h"
#include "config/scenario.h"
#include "config/variant_overrides.h"
#include "core/registry.h"
#include "models/results.h"
#include "models/workload/workload_family.h"

namespace gpuplan::config {

/// Validates `variant` of `scenario` with extra overrides (values as YAML scalar text,
/// positions the file's start). `scenario`, `variant`, `catalogs` and `families` must
/// outlive it.
class VariantValidator {
 public:
  /// Parses `scenario.text` and reads the variant's overrides. Throws ConfigError if the
  /// text itself no longer parses.
  VariantValidator(const Scenario& scenario, const Variant& variant, const Catalogs& catalogs,
                   const core::Registry<models::IWorkloadFamily>& families);
  ~VariantValidator();
  VariantValidator(const VariantValidator&) = delete;
  VariantValidator& operator=(const VariantValidator&) = delete;

  /// The job with `overrides` written after the variant's own, or the validation's messages
  /// (semantics: with_overrides). Throws nothing for invalid overrides.
  OverriddenJob validate(const std::vector<models::ScenarioOverride>& overrides);
  /// The canonical text of what validate(overrides) writes (semantics: override_key).
  std::string key(const std::vector<models::ScenarioOverride>& overrides);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace gpuplan::config

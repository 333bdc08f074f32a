#pragma once
/// \file variant_overrides.h
/// A loaded variant with more overrides: the remedies gpuplan checks (models/run/remedies.h)
/// go through the same override-and-validate path as a strategy (config/overrides.h,
/// scenario_validator.h validate_with_overrides), written after the variant's strategy and
/// sweep point, so they replace what those set.

#include <optional>
#include <string>
#include <vector>

#include "config/catalogs.h"
#include "config/scenario.h"
#include "core/registry.h"
#include "models/results.h"
#include "models/workload/workload_family.h"

namespace gpuplan::config {

/// The job of `variant` (one of `scenario.variants`) with `overrides` written in, or the
/// validation's messages when that job is not valid (e.g. bf16_amp on a GPU before compute
/// capability 8.0, an interconnect the instance lacks, a global batch above the dataset).
struct OverriddenJob {
  std::optional<models::JobSpec> job;
  std::vector<std::string> errors;  ///< "<problem> at <file>:<line>:<column> (<key path>)<fix>"
};

/// Re-validates `variant` of `scenario` with `overrides` (values are YAML scalar text). The
/// overrides' positions are those of the file's start. Throws nothing for invalid overrides
/// (they come back in `errors`); throws ConfigError if the scenario's text itself no longer
/// parses.
OverriddenJob with_overrides(const Scenario& scenario, const Variant& variant,
                             const std::vector<models::ScenarioOverride>& overrides, const Catalogs& catalogs,
                             const core::Registry<models::IWorkloadFamily>& families);

/// What `with_overrides(scenario, variant, overrides, ...)` writes, as one canonical text: the
/// variant's strategy and sweep point, then `overrides`, each "path=value;" (the value in
/// YAML flow form). A later override of a path replaces an earlier one of the same path, as
/// writing them does; when no path lies inside another (`data_loader` and
/// `data_loader.num_workers`) the entries are sorted, since their writing order then changes
/// nothing. Equal keys give equal jobs: the advisor simulates each once (cli/advisor.h), e.g.
/// `data_loader.num_workers: 15` on every point of a num_workers sweep. Throws ConfigError if
/// the scenario's text itself no longer parses.
std::string override_key(const Scenario& scenario, const Variant& variant,
                         const std::vector<models::ScenarioOverride>& overrides);

}  // namespace gpuplan::config

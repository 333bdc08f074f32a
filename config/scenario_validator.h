#pragma once
/// \file scenario_validator.h
/// Validates one variant's YAML tree (the base, or the base with a strategy's and a sweep
/// point's overrides written in) into a JobSpec: every key of scenario-format.md read
/// strictly, documented defaults applied, catalog names looked up, cross-field checks
/// reported at the referencing key (STYLE.md C6). Internal to config/.

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "config/catalogs.h"
#include "config/overrides.h"
#include "config/scenario.h"
#include "config/workload_memo.h"
#include "config/yaml_reader.h"
#include "core/registry.h"
#include "models/workload/workload_family.h"

namespace gpuplan::config {

/// What a variant needs besides its tree.
struct ValidationContext {
  const Catalogs& catalogs;
  const core::Registry<models::IWorkloadFamily>& families;
  std::string scenario_dir;  ///< relative file references (preemption traces) start here
  /// Where not null, the op tables are built by it (once for equal inputs): a tree validated
  /// many times (VariantValidator).
  WorkloadMemo* workload_memo = nullptr;
};

/// A validated variant, without its names (the loader sets strategy and sweep point).
struct ValidatedJob {
  models::JobSpec job;
  PreemptionSource preemption_source = PreemptionSource::kNone;
  std::string preemption_trace;
  std::string duration_key;   ///< see Variant::duration_key
  SourceMark duration_mark;   ///< see Variant::duration_mark
  /// Choices the loader made that the user did not write (Variant::notes).
  std::vector<std::string> notes;
};

/// The names `checkpointing.destination` takes: hardware_storage (the default), local_nvme,
/// object_store, network_fs (or a mapping {write_bandwidth, read_bandwidth, survives_preemption}).
std::vector<std::string_view> checkpoint_destination_names();

/// Validates `root` (the whole scenario mapping; the file-level keys format, name, seed,
/// strategies, sweep and expected are skipped here). Every error goes to `sink`; the result
/// is nullopt when there was any.
std::optional<ValidatedJob> validate_variant(const YAML::Node& root, const ValidationContext& context,
                                             ErrorSink& sink);

/// The one path from a parsed scenario and overrides to a job (strategies, sweep points and
/// checked remedies alike): `overrides` written into `root` in order (config/overrides.h: a
/// later one replaces an earlier one's value; config/applied_overrides.h), validate_variant,
/// and `root` restored as it was. Errors go to `sink`.
std::optional<ValidatedJob> validate_with_overrides(const YAML::Node& root, const std::vector<const Override*>& overrides,
                                                    const ValidationContext& context, ErrorSink& sink);

}  // namespace gpuplan::config

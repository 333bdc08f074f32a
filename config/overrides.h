#pragma once
/// \file overrides.h
/// Strategy and sweep overrides (scenario-format.md `strategies:` and `sweep:`; STYLE.md
/// C9): dotted paths checked against the scenario schema, then written into the base YAML
/// tree for the time one variant is validated, by the same validation as the base
/// (config/applied_overrides.h). Internal to config/: no YAML::Node escapes it (C1).
///
/// Semantics, as config/README.md documents them for users:
/// - A strategy body maps dotted paths (`data_loader.num_workers: 4`) or nested mappings
///   (`data_loader: {num_workers: 4}`, merged key by key) to values.
/// - A mapping given to a key that takes one (`workload.model`, `hardware.gpu`,
///   `hardware.storage`, `hardware.network`, `cloud.preemption_rate`) replaces that whole
///   value; a dotted path into it (`hardware.storage.latency`, `hardware.network.nics`)
///   changes one key of a mapping the base already has.
/// - `~` (null) removes the key, restoring its default.
/// - A path may not be set twice in one strategy, nor by a strategy and the sweep (the
///   sweep would silently win).
/// - `format`, `name`, `seed`, `expected`, `strategies` and `sweep` apply to the whole file
///   and cannot be overridden.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "config/yaml_reader.h"

namespace gpuplan::config {

/// One override: a schema path and the value written for it.
struct Override {
  std::string path;         ///< dotted schema path, e.g. "data_loader.num_workers"
  YAML::Node value;         ///< the value as written (it keeps its mark); null: remove the key
  YAML::Mark key_mark;      ///< where the override's key is written
  /// Its key path in the file, for messages: "strategies.amp.training.precision" or
  /// "sweep.hardware.gpus_per_node[2]".
  std::string source_path;
  /// The mapping written in the override that holds this key ("training.fine_tuning" for
  /// `training.fine_tuning: {method: lora}`), "" for a key written as a dotted path: the
  /// mapping merges into the base's, keeping the base's other keys, which messages say.
  std::string written_in;
  bool removes() const { return !value.IsDefined() || value.IsNull(); }
};

/// One entry of `strategies:`.
struct StrategyOverrides {
  std::string name;
  YAML::Mark mark;  ///< the strategy's name in the file
  std::vector<Override> overrides;
};

/// One key of `sweep:` and its values.
struct SweepAxis {
  std::string path;
  YAML::Mark key_mark;
  std::vector<Override> values;     ///< one override per listed value, in order
  std::vector<std::string> labels;  ///< "hardware.gpus_per_node=4", value as written
};

/// Reads `strategies:` (a mapping of name → body); records errors (unknown paths with a
/// did-you-mean over the schema's paths, paths set twice, wrong shapes) in `sink`.
std::vector<StrategyOverrides> read_strategies(const YAML::Node& node, ErrorSink& sink);

/// Reads `sweep:` (a mapping of path → non-empty list); records errors in `sink`.
std::vector<SweepAxis> read_sweep(const YAML::Node& node, ErrorSink& sink);

/// Records an error for each strategy override whose path overlaps a sweep path.
void check_strategy_sweep_overlap(const std::vector<StrategyOverrides>& strategies,
                                  const std::vector<SweepAxis>& sweep, ErrorSink& sink);

/// Every path a strategy or sweep may set (sections excluded), in schema order; the
/// candidates of did-you-mean. "workload.model.<parameter>" stands for any architecture key.
std::vector<std::string> overridable_paths();

/// One key of the schema table, for the generated reference (config/scenario_schema_docs.h).
struct SchemaPath {
  std::string path;
  bool file_level = false;  ///< applies to the whole file (format, name, seed, ...)
  bool section = false;     ///< a mapping of keys
  bool mapping = false;     ///< a value that may also be a mapping (its sub-keys follow it)
};

/// Every key of the schema table, in its order.
std::vector<SchemaPath> schema_paths();

/// A value as a sweep label shows it: a scalar as written, anything else in flow style.
std::string value_label(const YAML::Node& value);

/// The overrides that built one variant, read from the parsed file `root` as the loader read
/// them (the file was valid then): strategy `strategy_index` under `strategies:` (-1: none),
/// then for each sweep key the value of index `sweep_values[i]` (-1: none).
std::vector<Override> variant_overrides(const YAML::Node& root, const std::string& file, int strategy_index,
                                        const std::vector<int>& sweep_values);

/// The canonical text of what `overrides` write, in order, as config::override_key
/// documents it (variant_overrides.h): "path=value;" with the value in YAML flow form, a
/// later write of a path replacing an earlier one, sorted when no path lies inside another.
std::string canonical_override_key(const std::vector<Override>& overrides);

}  // namespace gpuplan::config

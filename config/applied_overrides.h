#pragma once
/// \file applied_overrides.h
/// Writes one variant's overrides into the parsed scenario tree for as long as the variant
/// is validated, and takes them out again: every strategy and sweep point is validated on
/// the one tree parsed from the file, with no copy of it per variant, so loading grows with
/// the number of variants times the size of their overrides (issue 15; re-parsing the file
/// per variant made a 1,000-value sweep take 113 s). Internal to config/.

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "config/overrides.h"
#include "config/yaml_reader.h"

namespace gpuplan::config {

/// RAII: the constructor writes the overrides (semantics: config/overrides.h), the
/// destructor restores the tree exactly as it was, key order aside (a replaced key moves to
/// the end of its mapping, which no reader depends on: errors are sorted by position).
/// Override values are shared, not copied, so their marks stay those of the override.
class AppliedOverrides {
 public:
  /// Records an error in `sink` when a dotted path runs into a value that is not a mapping
  /// ("cannot set a.b: a is '3', not a mapping at f:l:c (strategies.s.a.b); ...").
  AppliedOverrides(YAML::Node tree, const std::vector<const Override*>& overrides, ErrorSink& sink);
  ~AppliedOverrides();
  AppliedOverrides(const AppliedOverrides&) = delete;
  AppliedOverrides& operator=(const AppliedOverrides&) = delete;

 private:
  /// One key of one mapping as it was before an override changed it.
  struct Change {
    YAML::Node map;
    std::string key;
    // Held in optionals and only ever copy-constructed: Node::operator= on a defined node
    // merges the other tree's whole node pool into its own, which made loading quadratic.
    std::optional<YAML::Node> old_key;    ///< the key node, with its mark; none: the key was absent
    std::optional<YAML::Node> old_value;  ///< its value node
  };
  /// Replaces `key` of `map` by `value` (undefined: removes it), recording the change.
  void replace(YAML::Node map, const std::string& key, const YAML::Node* value);

  std::vector<Change> changes_;
};

}  // namespace gpuplan::config

#pragma once
/// \file scenario_schema_docs.h
/// The user reference of every scenario key, generated: docs/scenario-format.md and
/// docs/scenario.schema.json are what scenario_format_markdown() and scenario_json_schema()
/// print (`gpuplan schema --format markdown|json`), and tests/config/schema_docs_test.cpp
/// fails when the shipped files differ, when a key of the schema table (config/overrides.cpp)
/// has no entry here or an entry names no key, or when an integer range here is not the one
/// the reader enforces.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::config {

/// What a key holds, for the reference and the JSON Schema.
enum class KeyType {
  kSection,   ///< a mapping of keys
  kString,    ///< free text (a name, a path)
  kChoice,    ///< one of KeyDoc::choices()
  kInteger,   ///< a whole number in [min, max]
  kNumber,    ///< a plain number (dimensionless)
  kQuantity,  ///< a number with its unit, as a string: "110 KiB", "6 ms", "100 Gbit/s"
  kBoolean,
  kNameOrMapping,  ///< a catalog name or a mapping of the sub-keys that follow it
  kMapping,        ///< a free-form mapping (strategies, sweep, expected)
};

/// The documentation of one schema key.
struct KeyDoc {
  std::string_view path;
  KeyType type;
  std::string_view unit;           ///< kQuantity: the dimension and example units; else ""
  std::string_view default_value;  ///< "required", or the default and who sets it
  std::string_view range;          ///< allowed values in words ("> 0", "1 to 1024")
  std::string_view meaning;
  std::optional<std::int64_t> min = std::nullopt;  ///< kInteger: inclusive bounds the reader checks
  std::optional<std::int64_t> max = std::nullopt;
  /// kChoice: the accepted names, from the code that reads the key.
  std::vector<std::string_view> (*choices)() = nullptr;
};

/// Every documented key, in the schema table's order.
const std::vector<KeyDoc>& key_docs();

/// docs/scenario-format.md: the key tables by section, each key with its type, unit, default,
/// range and meaning. Deterministic.
std::string scenario_format_markdown();

/// docs/scenario.schema.json: a JSON Schema (draft 2020-12) of the scenario file for editors
/// (YAML language servers read it), pretty-printed with two-space indents and a final newline.
std::string scenario_json_schema();

}  // namespace gpuplan::config

#pragma once
/// \file catalog_file.h
/// The common frame of a YAML catalog (gpus.yaml, storage.yaml, models.yaml):
/// `format: gpuplan/v1` and one mapping section of named entries. Internal to config/.

#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>
#include <string_view>

#include "config/yaml_reader.h"

namespace gpuplan::config {

/// How a catalog's section and entries are called in messages.
struct CatalogSection {
  std::string key;          ///< "gpus", "storage", "models"
  std::string entry;        ///< "GPU", "storage class", "model" ("one entry per GPU")
  std::string indented;     ///< "GPU name", "class", "model" ("one indented entry per ...")
};

/// Checks `format` and the section of `root`, then calls `read_entry(name, value, key_mark)`
/// for every entry of the section in file order. Errors go to `sink`: an unsupported or
/// missing format, a missing section, a section that is not a mapping, unknown top-level
/// keys.
void read_catalog_entries(
    const YAML::Node& root, ErrorSink& sink, const CatalogSection& section,
    const std::function<void(const std::string& name, const YAML::Node& value, const YAML::Mark& key_mark)>&
        read_entry);

/// Whether `text` is a date written YYYY-MM-DD (month 1-12, day 1-31), as every catalog's
/// `retrieved` field must be.
bool is_iso_date(std::string_view text);

}  // namespace gpuplan::config

#pragma once
/// \file storage_catalog.h
/// The storage catalog: catalogs/storage.yaml read strictly into models::StorageSpec
/// classes (nvme_ssd, sata_ssd, hdd, nfs, object_store_fuse, cloud disks), found by name
/// (STYLE.md C3, U5, U8).
///
/// File layout (`format: gpuplan/v1`, then `storage:` name -> entry). Entry keys:
///   summary (one line for users), read_bandwidth (sequential), random_read_bandwidth
///   (optional; small-file random reads, not above read_bandwidth), write_bandwidth,
///   latency (per request), queue_depth (requests served in parallel, 1..65536), source,
///   retrieved (YYYY-MM-DD). Names are snake_case; every dimensional value has its unit.

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/name_index.h"
#include "models/job_spec.h"

namespace gpuplan::config {

/// Storage classes by name, with their one-line summaries; immutable after load.
class StorageCatalog {
 public:
  /// Reads and validates a catalog file. Throws ConfigError with every problem of the file,
  /// each as "<problem> at <file>:<line>:<column> (<key.path>)[; <fix>]": unreadable file,
  /// YAML syntax, duplicate or unknown keys (with did-you-mean), missing keys, values
  /// without units, non-positive values, a random-read bandwidth above the sequential one,
  /// invalid names.
  static StorageCatalog load(const std::string& path);
  /// As load(), from YAML text; `file_name` is used in messages.
  static StorageCatalog parse(const std::string& yaml_text, const std::string& file_name);
  /// A catalog of already-built specs (inline storage, tests). Throws ConfigError when two
  /// specs share a name or a name is empty. Summaries are empty.
  static StorageCatalog from_specs(std::vector<models::StorageSpec> specs);

  /// The class named `name`: exact first, then case-insensitive. nullptr when none.
  const models::StorageSpec* find(std::string_view name) const;
  /// The one-line summary of class `name` ("" when unknown), for `gpuplan list storage`.
  const std::string& summary(std::string_view name) const;
  /// Up to three class names closest to an unknown name, for "did you mean".
  std::vector<std::string> suggestions(std::string_view unknown_name) const;
  /// Class names, sorted.
  std::vector<std::string> names() const;
  /// Every class, in file order.
  const std::vector<models::StorageSpec>& all() const { return specs_; }

 private:
  void build_index();

  std::vector<models::StorageSpec> specs_;
  std::vector<std::string> summaries_;  // parallel to specs_
  NameIndex index_;  // names to positions in file order
};

}  // namespace gpuplan::config

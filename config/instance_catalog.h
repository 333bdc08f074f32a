#pragma once
/// \file instance_catalog.h
/// Cloud instances and their prices: CSV files with the columns of SkyPilot's v7 `vms.csv`
/// (scenario-format.md "Catalog files"), so that a user can drop in a SkyPilot catalog, plus
/// our own optional columns. Rows become models::InstanceSpec, found as "provider/type".
///
/// Columns, in any order (unknown columns are ignored):
///   required: InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Price, Region
///   optional SkyPilot: GpuInfo, SpotPrice, AvailabilityZone
///   optional ours: Interconnect (pcie3 | pcie4 | pcie5 | nvlink2 | nvlink3 | nvlink4 | nvlink5, or a
///     table name such as pcie4_switch: config/hardware_topology.h interconnect_choices()),
///     Network ("100 Gbit/s", the node's total), Storage (a storage class), BillingGranularity ("1 s", "1 min",
///     "1 h"), source, retrieved (YYYY-MM-DD).
/// Units: vCPUs is a count, MemoryGiB is GiB (its unit is in its name). Price and SpotPrice are
/// plain numbers in USD per hour: this is the one documented exception to "every value has a
/// unit" (STYLE.md U5), because the unit is fixed by the SkyPilot format that users drop in.
/// They are converted to USD/s with core::usd_per_hour(). Our own columns carry units.
///
/// Import rules (each skipped or cleaned row leaves a note, see notes()):
/// - GCP prices the GPUs of a VM in separate rows (empty InstanceType, AcceleratorName set).
///   A host row without an accelerator whose type is a GCP accelerator-optimized machine
///   (a2-*, a3-*, a4-*, g2-standard-*) is joined with the GPU row of the same accelerator,
///   count, region and zone: the prices add, spot prices add (no spot if either has none),
///   and the host row gets the accelerator. Unused GPU rows are noted.
/// - Rows without an accelerator (CPU-only) are skipped silently.
/// - GpuInfo is SkyPilot's Python-literal text; MemoryInfo.SizeInMiB, when present, picks the
///   GPU catalog entry: "<AcceleratorName>-<GiB>GB" is tried first ("V100" + 32768 MiB ->
///   "V100-32GB"), then AcceleratorName itself; the entry's memory must match within 15 %.
///   Rows whose accelerator is not in the GPU catalog (TPUs, K80, GH200, ...) are skipped.
/// - Dirty prices: an empty Price, a zero Price, SkyPilot's placeholder 700.0 or more than
///   100 USD/h per GPU skip the row; a SpotPrice above the on-demand Price is dropped (the row
///   is kept as "no spot"); an empty SpotPrice means no spot market. A row repeating the
///   provider, type, region and zone of an earlier row is skipped (the first one wins).
/// - A fractional AcceleratorCount (GPU slices) skips the row.
/// Malformed input throws ConfigError with "<file>:<line>" and the column name: a missing
/// required column, a non-numeric number, an invalid value in one of our columns, a CSV line
/// with too few or too many fields.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "models/job_spec.h"

namespace gpuplan::config {

class GpuCatalog;
class StorageCatalog;

/// Cloud instance rows (one per provider, type, region and zone) from one or more CSV files.
class InstanceCatalog {
 public:
  /// Adds the rows of the CSV file at `path` under `provider` ("aws", "gcp", "azure",
  /// "lambda", or any lower-case name). Every accelerator must resolve in `gpus`; when
  /// `storage` is given, every Storage value must name one of its classes. Throws ConfigError
  /// with all errors of the file (see the file comment); the catalog is unchanged then.
  /// A row of a later file replaces an earlier file's row of the same provider, type,
  /// region and zone, so a newer SkyPilot catalog given with --catalog updates shipped prices
  /// (within one file, the first of repeated rows is kept); hardware columns the new row lacks
  /// (Interconnect, Network, Storage: a plain SkyPilot file has none) are kept from the old row.
  void add_csv(const std::string& path, const std::string& provider, const GpuCatalog& gpus,
               const StorageCatalog* storage = nullptr);
  /// As add_csv(), from CSV text; `file_name` is used in messages and notes.
  void add_csv_text(const std::string& csv_text, const std::string& file_name,
                    const std::string& provider, const GpuCatalog& gpus,
                    const StorageCatalog* storage = nullptr);
  /// Reads every `<provider>.csv` of `dir` (sorted by file name; the provider is the file
  /// name without .csv). Throws ConfigError when the directory cannot be read or a file is
  /// malformed (all files' errors together).
  static InstanceCatalog load_directory(const std::string& dir, const GpuCatalog& gpus,
                                        const StorageCatalog* storage = nullptr);

  /// The row of "provider/type" ("aws/p4d.24xlarge"): with an empty `region`, the first row
  /// of that type in file order; with a region, its first row there; with a zone too, that
  /// zone's row. nullptr when there is none.
  const models::InstanceSpec* find(std::string_view provider_slash_type, std::string_view region = {},
                                   std::string_view zone = {}) const;
  /// Every row of "provider/type", in file order (one per region and zone).
  std::vector<const models::InstanceSpec*> find_all(std::string_view provider_slash_type) const;
  /// Up to three "provider/type" names closest to an unknown one, for "did you mean".
  std::vector<std::string> suggestions(std::string_view unknown_name) const;
  /// Sorted unique "provider/type" names.
  std::vector<std::string> names() const;
  /// Every imported row, in the order the files were added.
  const std::vector<models::InstanceSpec>& rows() const { return rows_; }
  /// "<file>:<line>: <what happened>" for every row skipped or cleaned while importing
  /// (dirty prices, unknown accelerators, unmatched GCP GPU rows, duplicates). CPU-only
  /// rows are not noted.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  std::vector<models::InstanceSpec> rows_;
  std::vector<std::string> notes_;
  std::map<std::string, std::vector<std::size_t>, std::less<>> by_name_;  // "provider/type" -> rows
};

}  // namespace gpuplan::config

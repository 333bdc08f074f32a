#pragma once
/// \file catalogs.h
/// All catalogs of a catalog directory (catalogs/ in the repository, or a user's copy given
/// with --catalog): GPUs, cloud instances, storage classes and models.

#include <string>

#include "config/gpu_catalog.h"
#include "config/instance_catalog.h"
#include "config/model_catalog.h"
#include "config/preemption_catalog.h"
#include "config/storage_catalog.h"

namespace gpuplan::config {

/// Everything a scenario may name: GPUs, instances, storage classes and models.
struct Catalogs {
  GpuCatalog gpus;            ///< <dir>/gpus.yaml (required)
  InstanceCatalog instances;  ///< <dir>/instances/*.csv, provider = file name (optional folder)
  StorageCatalog storage;     ///< <dir>/storage.yaml (required)
  ModelCatalog models;        ///< <dir>/models.yaml (optional file)
  PreemptionCatalog preemption;  ///< <dir>/preemption.yaml (optional file): spot preemption defaults

  /// Loads the catalogs of `catalog_dir`. Instance rows are checked against the GPU and
  /// storage catalogs (every accelerator and Storage value must resolve). Throws ConfigError
  /// with the errors of every file together (STYLE.md C4); instance files are read only when
  /// gpus.yaml and storage.yaml are valid. Skipped instance rows are listed in
  /// instances.notes().
  static Catalogs load(const std::string& catalog_dir);
};

}  // namespace gpuplan::config

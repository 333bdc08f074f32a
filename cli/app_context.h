#pragma once
/// \file app_context.h
/// What every command needs: the catalogs and the registered workload families, loaded once.

#include <optional>
#include <string>
#include <vector>

#include "config/catalogs.h"
#include "core/registry.h"
#include "models/workload/workload_family.h"

namespace gpuplan::cli {

struct AppContext {
  config::Catalogs catalogs;
  core::Registry<models::IWorkloadFamily> families;
};

/// The catalog folder: $GPUPLAN_CATALOG_DIR if set, else the repository's catalogs/.
std::string default_catalog_dir();

/// The provider of a `--catalog` CSV: aws, gcp, azure or lambda named in the file name
/// (aws-vms.csv), else the folder of SkyPilot's own layout (~/.sky/catalogs/v7/aws/vms.csv).
/// nullopt when neither names one.
std::optional<std::string> catalog_provider(const std::string& path);

/// The notes of `notes` ("<file>:<line>: ...", InstanceCatalog::notes()) that name one of
/// `files`, in order: what a user's --catalog files lost.
std::vector<std::string> notes_of_files(const std::vector<std::string>& notes, const std::vector<std::string>& files);

/// Loads the catalogs from `catalog_dir`, adds each SkyPilot CSV of `extra_catalogs`
/// (provider from catalog_provider), registers the built-in
/// workload families. Throws config::ConfigError for unreadable or invalid catalogs.
AppContext load_context(const std::string& catalog_dir, const std::vector<std::string>& extra_catalogs);

}  // namespace gpuplan::cli

#pragma once
/// \file app_context.h
/// What every command needs: the catalogs and the registered workload families, loaded once.

#include <string>

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

/// Loads the catalogs from `catalog_dir`, adds each SkyPilot CSV of `extra_catalogs`
/// (provider taken from the file name: aws, gcp, azure or lambda), registers the built-in
/// workload families. Throws config::ConfigError for unreadable or invalid catalogs.
AppContext load_context(const std::string& catalog_dir, const std::vector<std::string>& extra_catalogs);

}  // namespace gpuplan::cli

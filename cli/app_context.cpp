#include "cli/app_context.h"

#include <cstdlib>
#include <filesystem>

#include "config/config_error.h"

namespace gpuplan::cli {

std::string default_catalog_dir() {
  if (const char* env = std::getenv("GPUPLAN_CATALOG_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return std::string(GPUPLAN_SOURCE_DIR) + "/catalogs";
}

AppContext load_context(const std::string& catalog_dir, const std::vector<std::string>& extra_catalogs) {
  AppContext context{config::Catalogs::load(catalog_dir), {}};
  for (const std::string& path : extra_catalogs) {
    const std::string stem = std::filesystem::path(path).filename().string();
    std::string provider;
    for (const char* p : {"aws", "gcp", "azure", "lambda"}) {
      if (stem.find(p) != std::string::npos) {
        provider = p;
        break;
      }
    }
    if (provider.empty()) {
      throw config::ConfigError("cannot tell the provider of catalog '" + path +
                                "'; name the file after it, e.g. aws-vms.csv, gcp-vms.csv, azure-vms.csv or lambda-vms.csv");
    }
    context.catalogs.instances.add_csv(path, provider, context.catalogs.gpus, &context.catalogs.storage);
  }
  models::register_builtin_workloads(context.families);
  return context;
}

}  // namespace gpuplan::cli

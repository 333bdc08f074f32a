#include "cli/app_context.h"

#include <array>
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

std::optional<std::string> catalog_provider(const std::string& path) {
  static constexpr std::array<const char*, 4> kProviders = {"aws", "gcp", "azure", "lambda"};
  const std::filesystem::path p(path);
  const std::string stem = p.filename().string();
  for (const char* provider : kProviders) {
    if (stem.find(provider) != std::string::npos) {
      return provider;
    }
  }
  // SkyPilot's own layout: ~/.sky/catalogs/v7/<provider>/vms.csv.
  const std::string folder = p.parent_path().filename().string();
  for (const char* provider : kProviders) {
    if (folder == provider) {
      return provider;
    }
  }
  return std::nullopt;
}

std::vector<std::string> notes_of_files(const std::vector<std::string>& notes, const std::vector<std::string>& files) {
  std::vector<std::string> out;
  for (const std::string& note : notes) {
    for (const std::string& file : files) {
      if (note.size() > file.size() && note.starts_with(file) && note[file.size()] == ':') {
        out.push_back(note);
        break;
      }
    }
  }
  return out;
}

AppContext load_context(const std::string& catalog_dir, const std::vector<std::string>& extra_catalogs) {
  // A missing or wrong folder is one error, not one per catalog file it lacks.
  if (!std::filesystem::is_directory(catalog_dir)) {
    throw config::ConfigError("the catalog folder '" + catalog_dir + "' (--catalogs, or GPUPLAN_CATALOG_DIR) " +
                              (std::filesystem::exists(catalog_dir) ? "is not a folder" : "does not exist") +
                              "; name the folder that holds gpus.yaml, storage.yaml, models.yaml and instances/ "
                              "(the repository's catalogs/, the default)");
  }
  AppContext context{config::Catalogs::load(catalog_dir), {}};
  for (const std::string& path : extra_catalogs) {
    if (std::filesystem::is_directory(path)) {
      throw config::ConfigError("--catalog '" + path + "' is a folder; name its vms.csv (" +
                                (std::filesystem::path(path) / "vms.csv").string() + ")");
    }
    const std::optional<std::string> provider = catalog_provider(path);
    if (!provider) {
      throw config::ConfigError("cannot tell the provider of catalog '" + path +
                                "'; name the file after it (aws-vms.csv, gcp-vms.csv, azure-vms.csv or lambda-vms.csv) "
                                "or keep SkyPilot's layout (a folder named after it: ~/.sky/catalogs/v7/aws/vms.csv)");
    }
    context.catalogs.instances.add_csv(path, *provider, context.catalogs.gpus, &context.catalogs.storage);
  }
  models::register_builtin_workloads(context.families);
  return context;
}

}  // namespace gpuplan::cli

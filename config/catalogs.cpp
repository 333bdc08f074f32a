#include "config/catalogs.h"

#include <filesystem>
#include <utility>
#include <vector>

#include "config/config_error.h"

namespace gpuplan::config {

Catalogs Catalogs::load(const std::string& catalog_dir) {
  namespace fs = std::filesystem;
  const fs::path dir(catalog_dir);
  Catalogs catalogs;
  std::vector<std::string> errors;
  const auto collect = [&errors](const ConfigError& e) {
    errors.insert(errors.end(), e.messages().begin(), e.messages().end());
  };
  bool hardware_ok = true;
  try {
    catalogs.gpus = GpuCatalog::load((dir / "gpus.yaml").string());
  } catch (const ConfigError& e) {
    collect(e);
    hardware_ok = false;
  }
  try {
    catalogs.storage = StorageCatalog::load((dir / "storage.yaml").string());
  } catch (const ConfigError& e) {
    collect(e);
    hardware_ok = false;
  }
  std::error_code ec;
  if (fs::exists(dir / "models.yaml", ec)) {
    try {
      catalogs.models = ModelCatalog::load((dir / "models.yaml").string());
    } catch (const ConfigError& e) {
      collect(e);
    }
  }
  if (fs::exists(dir / "preemption.yaml", ec)) {
    try {
      catalogs.preemption = PreemptionCatalog::load((dir / "preemption.yaml").string());
    } catch (const ConfigError& e) {
      collect(e);
    }
  }
  if (hardware_ok && fs::is_directory(dir / "instances", ec)) {
    try {
      catalogs.instances =
          InstanceCatalog::load_directory((dir / "instances").string(), catalogs.gpus, &catalogs.storage);
    } catch (const ConfigError& e) {
      collect(e);
    }
  }
  if (!errors.empty()) {
    throw ConfigError(errors);
  }
  return catalogs;
}

}  // namespace gpuplan::config

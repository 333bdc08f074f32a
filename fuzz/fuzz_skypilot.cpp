/// \file fuzz_skypilot.cpp
/// libFuzzer target: a SkyPilot vms.csv through the instance catalog importer, against the
/// shipped GPU and storage catalogs. Imports or throws ConfigError.
#include "config/config_error.h"
#include "config/instance_catalog.h"
#include "fuzz_target.h"

// The catalogs load before fuzzing starts, so that their one-time cost (seconds under ASan
// on a loaded machine) never counts against the first input's -timeout.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gpuplan::fuzz::shipped_context();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const gpuplan::cli::AppContext& context = gpuplan::fuzz::shipped_context();
  try {
    gpuplan::config::InstanceCatalog catalog;
    catalog.add_csv_text(gpuplan::fuzz::as_text(data, size), "fuzz.csv", "aws", context.catalogs.gpus,
                         &context.catalogs.storage);
  } catch (const gpuplan::config::ConfigError&) {
  }
  return 0;
}

/// \file fuzz_scenario.cpp
/// libFuzzer target: a whole scenario file through the loader (bounds, parse, strategy and
/// sweep expansion, validation against the shipped catalogs). Accepts or throws ConfigError.
#include "config/config_error.h"
#include "config/scenario_loader.h"
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
    gpuplan::config::parse_scenario(gpuplan::fuzz::as_text(data, size), "fuzz.yaml", context.catalogs,
                                    context.families);
  } catch (const gpuplan::config::ConfigError&) {
  }
  return 0;
}

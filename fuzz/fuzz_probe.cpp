/// \file fuzz_probe.cpp
/// libFuzzer target: a cuda_probe output JSON through the probe reader. Reads or throws
/// ConfigError.
#include "config/config_error.h"
#include "config/probe_results.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    gpuplan::config::parse_probe_results(gpuplan::fuzz::as_text(data, size), "fuzz.json");
  } catch (const gpuplan::config::ConfigError&) {
  }
  return 0;
}

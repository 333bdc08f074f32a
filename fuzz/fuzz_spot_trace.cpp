/// \file fuzz_spot_trace.cpp
/// libFuzzer target: a SkyPilot spot-traces JSON through the trace reader. Reads or throws
/// ConfigError.
#include "config/config_error.h"
#include "config/spot_trace.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    gpuplan::config::parse_spot_trace(gpuplan::fuzz::as_text(data, size), "fuzz.json");
  } catch (const gpuplan::config::ConfigError&) {
  }
  return 0;
}

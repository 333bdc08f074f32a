/// \file fuzz_calibration_profile.cpp
/// libFuzzer target: a calibration profile JSON through the profile reader. Reads or throws
/// ConfigError.
#include "config/calibration_profile.h"
#include "config/config_error.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    gpuplan::config::parse_calibration_profile(gpuplan::fuzz::as_text(data, size), "fuzz.json");
  } catch (const gpuplan::config::ConfigError&) {
  }
  return 0;
}

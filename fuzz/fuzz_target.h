#pragma once
/// \file fuzz_target.h
/// What the libFuzzer targets share (fuzz/README.md): the input as text, and the shipped
/// catalogs and workload families loaded once. A target calls one reader and catches only
/// the input errors it documents (config::ConfigError, core::UnitError); anything else
/// escapes, and libFuzzer reports it as a crash: an internal error that input can cause.

#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/app_context.h"

namespace gpuplan::fuzz {

inline std::string as_text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// catalogs/ of the source tree and the built-in families, loaded on first use (a target
/// that uses them calls it from LLVMFuzzerInitialize).
inline const cli::AppContext& shipped_context() {
  static const cli::AppContext context = cli::load_context(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs", {});
  return context;
}

}  // namespace gpuplan::fuzz

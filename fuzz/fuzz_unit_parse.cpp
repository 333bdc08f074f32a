/// \file fuzz_unit_parse.cpp
/// libFuzzer target: core::parse_quantity on every dimension. Accepts a finite value of at
/// most kMaxQuantityMagnitude or throws UnitError; nothing else.
#include <cmath>
#include <stdexcept>

#include "core/unit_parse.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using gpuplan::core::Dimension;
  const std::string text = gpuplan::fuzz::as_text(data, size);
  for (const Dimension d :
       {Dimension::kBytes, Dimension::kSeconds, Dimension::kBytesPerSecond, Dimension::kFlop,
        Dimension::kFlopPerSecond, Dimension::kUsd, Dimension::kUsdPerSecond, Dimension::kUsdPerJoule,
        Dimension::kPerSecond, Dimension::kWatts, Dimension::kJoules, Dimension::kSamplesPerSecond}) {
    try {
      const double value = gpuplan::core::parse_quantity(text, d);
      if (!(std::abs(value) <= gpuplan::core::kMaxQuantityMagnitude)) {
        throw std::logic_error("parse_quantity returned a value out of its documented range");
      }
    } catch (const gpuplan::core::UnitError&) {
    }
  }
  return 0;
}

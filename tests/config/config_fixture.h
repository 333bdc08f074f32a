#pragma once
/// \file config_fixture.h
/// What the config tests share: the shipped catalogs and workload families loaded once, the
/// error messages of a scenario that does not load, and a doctest printer for message lists.

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "config/scenario_loader.h"

// Lets doctest print message lists when a comparison fails.
namespace doctest {
template <>
struct StringMaker<std::vector<std::string>> {
  static String convert(const std::vector<std::string>& messages) {
    std::string out = "{";
    for (const std::string& m : messages) {
      out += "\n  \"" + m + "\"";
    }
    return (out + "\n}").c_str();
  }
};
}  // namespace doctest

namespace gpuplan::config::testing {

using Messages = std::vector<std::string>;

/// A valid one-GPU scenario, so that a test changes one thing (line numbers are part of the
/// expected messages: keep it as it is).
inline constexpr const char* kMinimalScenario = R"(format: gpuplan/v1
name: ResNet-50 on ImageNet-1k, one RTX 3090
seed: 42
workload:
  model: resnet50
  dataset:
    samples: 1281167
    sample_size: "110 KiB"
    decode_time: "6 ms"
  epochs: 90
training:
  batch_size: 32
hardware:
  gpu: rtx3090
  cpu_cores: 8
  host_memory: "64 GiB"
  storage: nvme_ssd
)";

/// catalogs/ of the source tree, loaded once.
inline const Catalogs& shipped_catalogs() {
  static const Catalogs loaded = Catalogs::load(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs");
  return loaded;
}

/// The built-in workload families, registered once.
inline const core::Registry<models::IWorkloadFamily>& builtin_families() {
  static const core::Registry<models::IWorkloadFamily> registry = [] {
    core::Registry<models::IWorkloadFamily> r;
    models::register_builtin_workloads(r);
    return r;
  }();
  return registry;
}

/// Parses `text` as the scenario file "s.yaml" against the shipped catalogs.
inline Scenario parse_text(const std::string& text) {
  return parse_scenario(text, "s.yaml", shipped_catalogs(), builtin_families());
}

/// Every message of the ConfigError that loading `text` as "s.yaml" throws; fails the test
/// (and returns none) when the scenario is accepted. what() joins the messages.
inline Messages scenario_errors(const std::string& text) {
  try {
    parse_text(text);
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find(e.messages().front()) == 0);
    return e.messages();
  }
  FAIL("the scenario was accepted");
  return {};
}

/// The full text (what()) of the ConfigError `f` throws (STYLE.md T4), or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

/// `text` with the first `from` replaced by `to`; unchanged when `from` is empty. Fails the
/// test when `from` does not occur (a fixture that no longer matches its tests).
inline std::string with_replaced(std::string text, const std::string& from, const std::string& to) {
  if (!from.empty()) {
    const auto pos = text.find(from);
    REQUIRE(pos != std::string::npos);
    text.replace(pos, from.size(), to);
  }
  return text;
}

}  // namespace gpuplan::config::testing

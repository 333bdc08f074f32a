// The loader's own bounds on hostile scenarios (issue 15): errors counted but not all
// kept, variants bounded before they are expanded.
#include <doctest/doctest.h>

#include <string>

#include "config_fixture.h"

namespace gpuplan::config::testing {

/// The fix of an unknown top-level key with nothing close: the file's first keys.
const std::string kFileKeys =
    "; remove it, or use a key of the file: format, name, seed, strategies, sweep, expected, workload, training, "
    "data_loader, cloud, hardware, parallelism, ...";

TEST_SUITE("config.hostile_scenario") {
  TEST_CASE("a thousand unknown keys: every one counted, the first 50 shown in file order") {
    std::string text = kMinimalScenario;
    for (int i = 0; i < 1000; ++i) text += "unknown" + std::to_string(i) + ": 1\n";
    try {
      parse_text(text);
      FAIL("accepted");
    } catch (const ConfigError& e) {
      CHECK(e.summary() == "1,000 errors; the first 50 are shown");
      REQUIRE(e.messages().size() == 50);
      // kMinimalScenario has 17 lines, so unknown0 is on line 18.
      CHECK(e.messages().front() == "unknown key 'unknown0' at s.yaml:18:1 (unknown0)" + kFileKeys);
      CHECK(e.messages().back() == "unknown key 'unknown49' at s.yaml:67:1 (unknown49)" + kFileKeys);
    }
  }

  TEST_CASE("strategies x sweep points are bounded before anything is expanded") {
    std::string values;
    for (int i = 1; i <= 200; ++i) values += (i == 1 ? "" : ", ") + std::to_string(i);
    const std::string text = std::string(kMinimalScenario) + "sweep:\n  training.batch_size: [" + values +
                             "]\n  data_loader.num_workers: [" + values + "]\n";
    CHECK(scenario_errors(text) ==
          Messages{"the strategies and sweep make more than 10,000 variants (1 strategy x 200 x 200) at "
                   "s.yaml:19:3 (sweep); gpuplan loads at most 10,000 variants from one file: sweep fewer "
                   "values or split the file"});
  }

  TEST_CASE("a scenario whose strategies alias themselves is an error at the alias") {
    const std::string text = std::string(kMinimalScenario) + "strategies: &s\n  amp: *s\n";
    CHECK(scenario_errors(text) ==
          Messages{"alias '*s' refers to the anchor '&s' that contains it at s.yaml:19:8; an anchor cannot "
                   "contain itself: write the value out instead"});
  }
}

}  // namespace gpuplan::config::testing

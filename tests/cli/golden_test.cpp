#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run_command.h"

using gpuplan::testing::run_gpuplan;
using gpuplan::testing::slurp;

// Golden scenario tests (STYLE.md T5): every shipped scenario runs, twice, with identical
// bytes, and its CSV equals tests/golden/<name>.csv. Golden files change only through
// `make update-golden` (GPUPLAN_UPDATE_GOLDEN=1), in a reviewed commit.
TEST_SUITE("cli.golden") {
  TEST_CASE("every shipped scenario matches its golden output and is deterministic") {
    namespace fs = std::filesystem;
    const fs::path source = GPUPLAN_SOURCE_DIR;
    std::vector<fs::path> scenarios;
    for (const auto& entry : fs::directory_iterator(source / "scenarios")) {
      if (entry.path().extension() == ".yaml") scenarios.push_back(entry.path());
    }
    std::sort(scenarios.begin(), scenarios.end());
    REQUIRE(scenarios.size() >= 3);
    const bool update = std::getenv("GPUPLAN_UPDATE_GOLDEN") != nullptr;
    for (const fs::path& s : scenarios) {
      CAPTURE(s.string());
      const auto first = run_gpuplan("run " + s.string() + " --format csv");
      const auto second = run_gpuplan("run " + s.string() + " --format csv");
      REQUIRE_MESSAGE(first.exit_code == 0, first.err);
      CHECK(first.out == second.out);
      const fs::path golden = source / "tests" / "golden" / (s.stem().string() + ".csv");
      if (update) {
        std::ofstream(golden, std::ios::binary) << first.out;
        continue;
      }
      REQUIRE_MESSAGE(fs::exists(golden), "missing golden file; run make update-golden");
      CHECK(first.out == slurp(golden.string()));
    }
  }
}

// Epoch-level reuse (a steady-state window per epoch kind) against --exact (every batch of
// the job simulated) on a small job: 3 epochs x 313 steps, the first epoch from a SATA SSD,
// the later ones from the page cache, workers restarted every epoch (issue 3, item 9).

#include <doctest/doctest.h>

#include <string>

#include "cli/app_context.h"
#include "cli/scenario_runner.h"
#include "config/scenario_loader.h"

using namespace gpuplan;

TEST_SUITE("practitioner") {
  TEST_CASE("job level: --exact and epoch-level reuse agree within 2 % on a small job") {
    const cli::AppContext context = cli::load_context(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs", {});
    const config::Scenario s = config::load_scenario(
        std::string(GPUPLAN_SOURCE_DIR) + "/tests/practitioner/exact-vs-reuse-small.yaml", context.catalogs,
        context.families);
    models::ModelParams reuse;
    models::ModelParams exact;
    exact.step.exact = true;
    const cli::ScenarioRun a = cli::run_scenario(s, reuse);
    const cli::ScenarioRun b = cli::run_scenario(s, exact);
    REQUIRE(a.result.variants.size() == 2);
    for (std::size_t i = 0; i < a.result.variants.size(); ++i) {
      const auto& r = a.result.variants[i];
      const auto& x = b.result.variants[i];
      CAPTURE(r.strategy);
      CHECK(x.time_to_train_s == doctest::Approx(r.time_to_train_s).epsilon(0.02));
      CHECK(b.events > a.events);  // the exact mode simulated every batch
    }
    // 20,000 x 110 KiB = 2.25 GB fits the 24 GB page cache: later epochs are faster than the
    // first, which pays the SSD.
    bool noted = false;
    for (const auto& n : a.result.variants[0].notes) noted = noted || n.find("page cache") != std::string::npos;
    CHECK(noted);
  }
}

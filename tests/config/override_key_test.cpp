#include "config/variant_overrides.h"

#include <doctest/doctest.h>

#include <string>

#include "config_fixture.h"

namespace gpuplan::config {

using testing::kMinimalScenario;
using testing::parse_text;

TEST_SUITE("config.override_key") {
  TEST_CASE("a remedy that rewrites a sweep key gives every sweep point the same key") {
    // The num_workers sweep's points differ only in that key; a remedy writing it replaces
    // the point's value (as with_overrides writes them), so every point with the remedy
    // resolves to the same job: strategy, then remedy, sorted by path.
    const Scenario s = parse_text(std::string(kMinimalScenario) +
                                  "strategies:\n  amp: {training.precision: bf16_amp}\n"
                                  "sweep:\n  data_loader.num_workers: [2, 4]\n");
    REQUIRE(s.variants.size() == 2);
    const std::vector<models::ScenarioOverride> more{{"data_loader.num_workers", "7"}};
    CHECK(override_key(s, s.variants[0], {}) == "data_loader.num_workers=2;training.precision=bf16_amp;");
    CHECK(override_key(s, s.variants[1], {}) == "data_loader.num_workers=4;training.precision=bf16_amp;");
    CHECK(override_key(s, s.variants[0], more) == "data_loader.num_workers=7;training.precision=bf16_amp;");
    CHECK(override_key(s, s.variants[1], more) == override_key(s, s.variants[0], more));
    // ... and the jobs with_overrides builds agree: the remedy's 7 workers on both points.
    const OverriddenJob j0 = with_overrides(s, s.variants[0], more, testing::shipped_catalogs(), testing::builtin_families());
    const OverriddenJob j1 = with_overrides(s, s.variants[1], more, testing::shipped_catalogs(), testing::builtin_families());
    REQUIRE(j0.job);
    REQUIRE(j1.job);
    CHECK(j0.job->data_loader.num_workers == 7);
    CHECK(j1.job->data_loader.num_workers == 7);
    CHECK(j0.job->training.precision == j1.job->training.precision);
    CHECK(s.variants[0].job.data_loader.num_workers == 2);  // the rows themselves keep theirs
    // The order of independent overrides does not matter.
    const std::vector<models::ScenarioOverride> ab{{"training.batch_size", "64"}, {"data_loader.pin_memory", "true"}};
    const std::vector<models::ScenarioOverride> ba{{"data_loader.pin_memory", "true"}, {"training.batch_size", "64"}};
    CHECK(override_key(s, s.variants[0], ab) == override_key(s, s.variants[0], ba));
    CHECK(override_key(s, s.variants[0], ab) ==
          "data_loader.num_workers=2;data_loader.pin_memory=true;training.batch_size=64;training.precision=bf16_amp;");
  }

  TEST_CASE("a strategy's nested mapping is its dotted paths; a path inside another keeps the writing order") {
    // The reader merges `data_loader: {num_workers: 3}` key by key (config/overrides.h), so
    // it is the path data_loader.num_workers, which a remedy's value replaces.
    const Scenario s = parse_text(std::string(kMinimalScenario) + "strategies:\n  w: {data_loader: {num_workers: 3}}\n");
    REQUIRE(s.variants.size() == 1);
    CHECK(override_key(s, s.variants[0], {}) == "data_loader.num_workers=3;");
    CHECK(override_key(s, s.variants[0], {{"data_loader.num_workers", "5"}}) == "data_loader.num_workers=5;");
    // A key that takes a mapping and a path into it: writing `hardware.storage` after
    // `hardware.storage.latency` replaces the latency, the other order keeps it, so the key
    // keeps each order as written (values in YAML flow form).
    const std::vector<models::ScenarioOverride> latency_first{{"hardware.storage.latency", "1 ms"},
                                                              {"hardware.storage", "{name: disk, read: 1 GB/s}"}};
    const std::vector<models::ScenarioOverride> storage_first{latency_first[1], latency_first[0]};
    CHECK(override_key(s, s.variants[0], latency_first) ==
          "data_loader.num_workers=3;hardware.storage.latency=1 ms;hardware.storage={name: disk, read: 1 GB/s};");
    CHECK(override_key(s, s.variants[0], storage_first) ==
          "data_loader.num_workers=3;hardware.storage={name: disk, read: 1 GB/s};hardware.storage.latency=1 ms;");
  }

  TEST_CASE("a baseline without strategies or sweep has only the remedy's overrides") {
    const Scenario s = parse_text(kMinimalScenario);
    REQUIRE(s.variants.size() == 1);
    CHECK(override_key(s, s.variants[0], {}).empty());
    CHECK(override_key(s, s.variants[0], {{"training.framework_overhead", "compiled"}}) ==
          "training.framework_overhead=compiled;");
  }
}

}  // namespace gpuplan::config

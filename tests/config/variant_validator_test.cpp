#include "config/variant_validator.h"

#include <doctest/doctest.h>

#include <string>

#include "config/variant_overrides.h"
#include "config_fixture.h"

namespace gpuplan::config {

using testing::builtin_families;
using testing::kMinimalScenario;
using testing::parse_text;
using testing::shipped_catalogs;

TEST_SUITE("config.variant_validator") {
  TEST_CASE("one validator, many validations: each job is the one with_overrides builds from the file") {
    // The second variant: strategy amp (bf16_amp) at the sweep point num_workers 4, batch 32.
    const Scenario s = parse_text(std::string(kMinimalScenario) +
                                  "strategies:\n  amp: {training.precision: bf16_amp}\n"
                                  "sweep:\n  data_loader.num_workers: [2, 4]\n");
    REQUIRE(s.variants.size() == 2);
    const Variant& variant = s.variants[1];
    VariantValidator validator(s, variant, shipped_catalogs(), builtin_families());
    const auto fresh = [&](const std::vector<models::ScenarioOverride>& o) {
      return with_overrides(s, variant, o, shipped_catalogs(), builtin_families());
    };

    const std::vector<models::ScenarioOverride> bigger{{"training.batch_size", "64"}};
    const OverriddenJob a = validator.validate(bigger);
    REQUIRE(a.job);
    CHECK(a.job->training.batch_size == 64);
    CHECK(a.job->data_loader.num_workers == 4);  // the sweep point's, written before the extra ones
    CHECK(a.job->training.precision == variant.job.training.precision);
    CHECK(a.job->scenario_name == s.name);
    CHECK(a.job->seed == 42);

    // An invalid value: the same messages as a fresh validation, and no job.
    const std::vector<models::ScenarioOverride> zero{{"training.batch_size", "0"}};
    const OverriddenJob bad = validator.validate(zero);
    CHECK_FALSE(bad.job);
    REQUIRE_FALSE(bad.errors.empty());
    CHECK(bad.errors == fresh(zero).errors);

    // The tree is restored after each: batch 64 and 0 are gone, the file's 32 is back.
    const std::vector<models::ScenarioOverride> pinned{{"data_loader.pin_memory", "false"}};
    const OverriddenJob b = validator.validate(pinned);
    REQUIRE(b.job);
    CHECK(b.job->training.batch_size == 32);
    CHECK(b.job->data_loader.num_workers == 4);
    CHECK_FALSE(b.job->data_loader.pin_memory);
    const OverriddenJob again = validator.validate(bigger);  // a shared value node, written again
    REQUIRE(again.job);
    CHECK(again.job->training.batch_size == 64);

    // Removing the sweep point's key restores the default, as a fresh validation does.
    const std::vector<models::ScenarioOverride> removed{{"data_loader.num_workers", "~"}};
    const OverriddenJob c = validator.validate(removed);
    const OverriddenJob c_fresh = fresh(removed);
    REQUIRE(c.job);
    REQUIRE(c_fresh.job);
    CHECK(c.job->data_loader.num_workers == c_fresh.job->data_loader.num_workers);
    CHECK(c.job->data_loader.num_workers != 4);

    // Its keys are override_key's.
    CHECK(validator.key(bigger) == "data_loader.num_workers=4;training.batch_size=64;training.precision=bf16_amp;");
    CHECK(validator.key(bigger) == override_key(s, variant, bigger));
    CHECK(validator.key(removed) == override_key(s, variant, removed));
  }
}

}  // namespace gpuplan::config

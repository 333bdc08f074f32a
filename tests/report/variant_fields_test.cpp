#include "report/variant_fields.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

#include "report/field_grid.h"

using namespace gpuplan;

TEST_SUITE("report.variant_fields") {
  TEST_CASE("names are unique and end with their SI unit") {
    std::set<std::string> names;
    for (const auto& f : report::variant_fields()) {
      CAPTURE(f.name);
      CHECK(names.insert(f.name).second);
      const auto ends = [&](const std::string& suffix) {
        return f.name.size() > suffix.size() &&
               f.name.compare(f.name.size() - suffix.size(), suffix.size(), suffix) == 0;
      };
      if (f.unit == "s") CHECK(ends("_s"));
      if (f.unit == "B") CHECK(ends("_bytes"));
      if (f.unit == "B/s") CHECK(ends("_bytes_per_s"));
      if (f.unit == "USD") CHECK(ends("_usd"));
      if (f.unit == "J") CHECK(ends("_j"));
      if (f.unit == "samples/s") CHECK(ends("_samples_per_s"));
      if (f.unit == "tokens/s") CHECK(ends("_tokens_per_s"));
    }
  }

  TEST_CASE("every expected: metric of config/scenario_expected.h is measured by exactly one field") {
    // The metrics documented in config/scenario_expected.h, with the field each is compared to.
    const std::pair<const char*, const char*> metrics[] = {{"throughput", "throughput_samples_per_s"},
                                                           {"tokens_per_s", "throughput_tokens_per_s"},
                                                           {"peak_memory", "peak_memory_bytes"},
                                                           {"fits", "fits"},
                                                           {"step_time", "step_time_s"},
                                                           {"time_to_train", "time_to_train_s"},
                                                           {"mfu", "mfu"},
                                                           {"gpu_utilization", "gpu_utilization"},
                                                           {"peak_memory_allocated", "peak_allocated_bytes"}};
    int measured = 0;
    for (const auto& f : report::variant_fields()) measured += f.measured_as.empty() ? 0 : 1;
    CHECK(measured == 9);
    for (const auto& entry : metrics) {
      const auto& metric = entry.first;  // not a binding: CAPTURE cannot capture one under clang 14
      const auto& field = entry.second;
      CAPTURE(metric);
      REQUIRE(report::field_measured_as(metric) != nullptr);
      CHECK(report::field_measured_as(metric)->name == field);
    }
    CHECK(report::field_measured_as("throughput_samples_per_s") == nullptr);
  }

  TEST_CASE("the human text follows the unit") {
    models::VariantResult v;
    v.energy_j = 3.6e8;  // 100 kWh
    v.step.step_time_s = 0.25;
    for (const auto& f : report::variant_fields()) {
      if (f.name == "energy_j") CHECK(report::human_value(f.unit, *f.value(v)) == "100.0 kWh");
      if (f.name == "step_time_s") CHECK(report::human_value(f.unit, *f.value(v)) == "250.0 ms");
    }
  }
}

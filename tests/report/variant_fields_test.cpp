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
      if (f.name == "energy_j") CHECK(report::human_value(f.unit, *f.value(v)) == "100 kWh");
      if (f.name == "step_time_s") CHECK(report::human_value(f.unit, *f.value(v)) == "250.0 ms");
    }
  }

  TEST_CASE("energy prints like the other human numbers: thousands separators, a decimal below 100 kWh") {
    // 1 kWh = 3.6e6 J.
    CHECK(report::human_value("J", 3.6e6 * 12.34) == "12.3 kWh");
    CHECK(report::human_value("J", 3.6e6 * 99.94) == "99.9 kWh");
    CHECK(report::human_value("J", 3.6e6 * 1234.4) == "1,234 kWh");
    CHECK(report::human_value("J", 3.6e6 * 2'345'678.0) == "2,345,678 kWh");
  }

  TEST_CASE("a CSV number reads back as the same double") {
    // 6 significant digits turned 1,234,567.891 J into 1.23457e+06 and 0.1 + 0.2 into 0.3.
    CHECK(report::csv_value(report::FieldValue{1'234'567.891}) == "1234567.891");
    CHECK(report::csv_value(report::FieldValue{0.1 + 0.2}) == "0.30000000000000004");
    CHECK(report::csv_value(report::FieldValue{0.25}) == "0.25");
    for (const double x : {1.0 / 3.0, 6.02214076e23, 1.5e-300, 123456789.123456789}) {
      const std::string text = report::csv_value(report::FieldValue{x});
      CHECK(std::stod(text) == x);
    }
  }
}

// gpuplan validate's outputs come from one table of fields (cli/validation.cpp
// validation_fields, written by report/field_grid.h): CSV and JSON rows carry the same keys,
// the table the human texts.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/validation.h"

using namespace gpuplan;

namespace {
cli::ValidationSummary one_row() {
  cli::ValidationSummary s;
  cli::ValidationRow r;
  r.case_name = "V001";
  r.gpu = "a100-80gb";
  r.metric = "throughput";
  r.predicted = "1,011 samples/s";
  r.measured = "938 samples/s";
  r.predicted_value = 1011.0;
  r.measured_value = 938.0;
  r.error = (1011.0 - 938.0) / 938.0;  // +7.78 %
  r.source = "DeepLearningExamples";
  s.rows.push_back(r);
  s.throughput_cases = 1;
  s.throughput_mape = r.error;
  return s;
}
}  // namespace

TEST_SUITE("cli.validation_render") {
  TEST_CASE("CSV: one column per field, SI values, the unit of the metric") {
    CHECK(cli::render_validation(one_row(), "csv") ==
          "case,gpus,gpu,metric,unit,predicted,measured,relative_error,calibrated_predicted,calibrated_relative_error,"
          "calibration_profile,source\n"
          "V001,1,a100-80gb,throughput,samples/s,1011,938,0.07782515991471216,,,,DeepLearningExamples\n");
  }

  TEST_CASE("JSON rows have exactly the CSV header's keys; absent values are null") {
    const std::string csv = cli::render_validation(one_row(), "csv");
    const std::string header = csv.substr(0, csv.find('\n'));
    const auto j = nlohmann::ordered_json::parse(cli::render_validation(one_row(), "json"));
    std::string keys;
    for (const auto& item : j["rows"][0].items()) keys += (keys.empty() ? "" : ",") + item.key();
    CHECK(keys == header);
    CHECK(j["rows"][0]["calibrated_relative_error"].is_null());
    CHECK(j["throughput_cases"] == 1);
  }

  TEST_CASE("table: the human texts, '-' without a calibrated error") {
    const std::string table = cli::render_validation(one_row(), "table");
    CHECK(table.find("V001") != std::string::npos);
    CHECK(table.find("1,011 samples/s") != std::string::npos);
    CHECK(table.find("+7.8 %") != std::string::npos);
    CHECK(table.find("throughput MAPE 7.8 % over 1 cases") != std::string::npos);
  }
}

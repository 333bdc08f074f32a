#include "cli/validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "cli/scenario_runner.h"
#include "config/calibration_profile.h"
#include "config/config_error.h"
#include "config/scenario_loader.h"
#include "report/field_grid.h"
#include "report/human_units.h"
#include "report/text_table.h"
#include "report/text_wrap.h"
#include "report/variant_fields.h"

namespace gpuplan::cli {
namespace {

// The field of report/variant_fields.h that `metric` measures (config/scenario_expected.cpp
// accepts only metrics that have one; tests/cli/validate_test.cpp checks it).
const report::ResultField<models::VariantResult>& field_of(const std::string& metric) {
  const report::ResultField<models::VariantResult>* f = report::field_measured_as(metric);
  if (f == nullptr) throw std::logic_error("validate: no result field is measured as '" + metric + "'");
  return *f;
}

std::string human_metric(const std::string& metric, double value) {
  if (metric == "fits") return value > 0.5 ? "fits" : "OOM";
  const std::string& unit = field_of(metric).unit;
  const std::string text = report::human_value(unit, value);
  return unit == "samples/s" || unit == "tokens/s" ? text + " " + unit : text;
}

// The predicted value of `metric`, or nullopt when the variant has none (OOM).
std::optional<double> predicted_of(const std::string& metric, const models::VariantResult& v) {
  const report::ResultField<models::VariantResult>& f = field_of(metric);
  if (f.applies == report::Applies::kFits && !v.fits) return std::nullopt;
  const std::optional<report::FieldValue> value = f.value(v);
  if (!value) return std::nullopt;
  if (const bool* b = std::get_if<bool>(&*value)) return *b ? 1.0 : 0.0;
  return std::get<double>(*value);
}

/// The columns of every validation output (report/field_grid.h), in order.
std::vector<report::ResultField<ValidationRow>> validation_fields() {
  using report::Applies;
  using report::FieldValue;
  using Row = ValidationRow;
  using Value = std::optional<FieldValue>;
  const auto error_text = [](bool numeric, double error) {
    if (!numeric) return std::string(error == 0.0 ? "right" : "WRONG");
    return fmt::format("{:+.1f} %", error * 100.0);
  };
  std::vector<report::ResultField<Row>> f;
  f.push_back(
      {"case", "", Applies::kAlways, "scenario file stem", [](const Row& r) { return Value(r.case_name); }, "case"});
  f.push_back({"gpus", "", Applies::kAlways, "GPUs of the case",
               [](const Row& r) { return Value(FieldValue(static_cast<std::int64_t>(r.gpus))); }, "GPUs"});
  f.push_back({"gpu", "", Applies::kAlways, "catalog name of the case's GPU", [](const Row& r) { return Value(r.gpu); }});
  f.push_back(
      {"metric", "", Applies::kAlways, "the expected: metric", [](const Row& r) { return Value(r.metric); }, "metric"});
  f.push_back({"unit", "", Applies::kAlways,
               "SI unit of predicted and measured (report/variant_fields.cpp); empty for fits",
               [](const Row& r) { return Value(r.metric == "fits" ? std::string() : field_of(r.metric).unit); }});
  f.push_back({"predicted", "", Applies::kAlways, "the prediction of the case's first variant (fits: 1 or 0)",
               [](const Row& r) { return Value(r.predicted_value); }, "predicted",
               [](const Row& r) { return r.predicted; }});
  f.push_back({"measured", "", Applies::kAlways, "the published measurement, in SI",
               [](const Row& r) { return Value(r.measured_value); }, "measured",
               [](const Row& r) { return r.measured; }});
  f.push_back({"relative_error", "1", Applies::kAlways, "(predicted - measured) / measured; fits: 0 right, 1 wrong",
               [](const Row& r) { return Value(r.error); }, "error",
               [error_text](const Row& r) { return error_text(r.numeric, r.error); }});
  f.push_back({"calibrated_predicted", "", Applies::kAlways,
               "the prediction with the GPU's measured profile, when it has one",
               [](const Row& r) { return r.calibrated_value ? Value(*r.calibrated_value) : std::nullopt; }});
  f.push_back({"calibrated_relative_error", "1", Applies::kAlways, "relative_error of calibrated_predicted",
               [](const Row& r) { return r.calibrated_error ? Value(*r.calibrated_error) : std::nullopt; },
               "calibrated error", [error_text](const Row& r) { return error_text(r.numeric, *r.calibrated_error); }});
  f.push_back({"calibration_profile", "", Applies::kAlways, "path of the profile used", [](const Row& r) {
                 return r.calibration_profile.empty() ? std::nullopt : Value(r.calibration_profile);
               }});
  f.push_back({"source", "", Applies::kAlways, "where the measurement was published",
               [](const Row& r) { return Value(r.source); }});
  return f;
}

}  // namespace

std::vector<ValidationCase> load_validation_cases(const std::string& dir, const AppContext& context) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    throw config::ConfigError("cannot read folder '" + dir + "': it does not exist");
  }
  if (!fs::is_directory(dir, ec)) {
    throw config::ConfigError("cannot read folder '" + dir + "': not a directory");
  }
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<ValidationCase> cases;
  std::vector<std::string> errors;
  for (const std::string& file : files) {
    try {
      config::Scenario scenario = config::load_scenario(file, context.catalogs, context.families);
      if (scenario.expected && !scenario.variants.empty()) {
        cases.push_back(ValidationCase{file, std::move(scenario)});
      }
    } catch (const config::ConfigError& e) {
      errors.insert(errors.end(), e.messages().begin(), e.messages().end());
    }
  }
  if (!errors.empty()) {
    throw config::ConfigError(errors);
  }
  if (cases.empty()) {
    throw config::ConfigError("no validation case in '" + dir + "': a case is a scenario with an expected: block");
  }
  return cases;
}

ValidationSummary validate_directory(const std::string& dir, const AppContext& context,
                                     const models::ModelParams& params, const std::string& calibrations_dir) {
  return validate_cases(load_validation_cases(dir, context), params, calibrations_dir);
}

ValidationSummary validate_cases(const std::vector<ValidationCase>& cases, const models::ModelParams& params,
                                 const std::string& calibrations_dir) {
  namespace fs = std::filesystem;
  const std::vector<config::ProfileFile> profiles =
      calibrations_dir.empty() ? std::vector<config::ProfileFile>{} : config::find_calibration_profiles(calibrations_dir);
  ValidationSummary summary;
  for (const ValidationCase& validation_case : cases) {
    const std::string& file = validation_case.file;
    const config::Scenario& scenario = validation_case.scenario;
    const ScenarioRun run = run_scenario(scenario, params);
    const models::VariantResult& v = run.result.variants.front();
    // The same case with its GPU's measured profile, when there is one.
    const models::GpuSpec& case_gpu = scenario.variants.front().job.hardware.gpu;
    const config::ProfileFile* profile = case_gpu.calibrated ? nullptr : config::profile_for_gpu(profiles, case_gpu.name);
    std::optional<ScenarioRun> calibrated_run;
    if (profile != nullptr) {
      config::Scenario calibrated = scenario;
      calibrated.variants.resize(1);
      calibrated.variants.front().job.hardware.gpu = config::calibrated_gpu(case_gpu, profile->profile);
      calibrated_run = run_scenario(calibrated, params);
    }
    for (const config::ExpectedValue& expected : scenario.expected->values) {
      ValidationRow row;
      row.case_name = fs::path(file).stem().string();
      row.metric = expected.metric;
      row.measured = expected.text;
      row.measured_value = expected.value;
      row.source = scenario.expected->source;
      row.gpus = v.gpus;
      row.gpu = case_gpu.name;
      const auto predicted = predicted_of(expected.metric, v);
      if (expected.metric == "fits") {
        row.numeric = false;
        row.predicted_value = predicted.value_or(0.0);
        row.predicted = human_metric("fits", row.predicted_value);
        row.error = (row.predicted_value > 0.5) == (expected.value > 0.5) ? 0.0 : 1.0;
      } else if (!predicted) {
        row.predicted = "OOM";
        row.error = -1.0;  // no prediction: counts as 100 % error
      } else {
        row.predicted_value = *predicted;
        row.predicted = human_metric(expected.metric, *predicted);
        row.error = (*predicted - expected.value) / expected.value;
      }
      if (calibrated_run) {
        row.calibration_profile = profile->path;
        const auto c = predicted_of(expected.metric, calibrated_run->result.variants.front());
        if (expected.metric == "fits") {
          row.calibrated_value = c.value_or(0.0);
          row.calibrated_error = (*row.calibrated_value > 0.5) == (expected.value > 0.5) ? 0.0 : 1.0;
        } else if (c) {
          row.calibrated_value = *c;
          row.calibrated_error = (*c - expected.value) / expected.value;
        } else {
          row.calibrated_error = -1.0;  // OOM: counts as 100 % error
        }
      }
      summary.rows.push_back(row);
    }
  }
  double throughput_sum = 0.0;
  double memory_sum = 0.0;
  double all_sum = 0.0;
  int all = 0;
  for (const ValidationRow& r : summary.rows) {
    if (!r.numeric) {
      ++summary.fits_cases;
      summary.fits_right += r.error == 0.0 ? 1 : 0;
      continue;
    }
    const double e = std::abs(r.error);
    all_sum += e;
    ++all;
    if (r.calibrated_error) {
      ++summary.calibrated_rows;
      summary.calibrated_mape += std::abs(*r.calibrated_error);
      summary.uncalibrated_mape_same_rows += e;
    }
    if (r.metric == "throughput" || r.metric == "tokens_per_s") {
      throughput_sum += e;
      ++summary.throughput_cases;
      auto& [gpu_sum, gpu_cases] = summary.throughput_mape_by_gpu[r.gpu];
      gpu_sum += e;
      ++gpu_cases;
      if (r.gpus > 1) {
        summary.multi_gpu_throughput_mape += e;
        ++summary.multi_gpu_throughput_cases;
      } else {
        summary.single_gpu_throughput_mape += e;
        ++summary.single_gpu_throughput_cases;
      }
    } else if (r.metric == "peak_memory" || r.metric == "peak_memory_allocated") {
      memory_sum += e;
      ++summary.memory_cases;
    }
  }
  summary.throughput_mape = summary.throughput_cases > 0 ? throughput_sum / summary.throughput_cases : 0.0;
  if (summary.single_gpu_throughput_cases > 0) summary.single_gpu_throughput_mape /= summary.single_gpu_throughput_cases;
  if (summary.multi_gpu_throughput_cases > 0) summary.multi_gpu_throughput_mape /= summary.multi_gpu_throughput_cases;
  for (auto& [gpu, mape_cases] : summary.throughput_mape_by_gpu) mape_cases.first /= mape_cases.second;
  summary.memory_mape = summary.memory_cases > 0 ? memory_sum / summary.memory_cases : 0.0;
  summary.overall_mape = all > 0 ? all_sum / all : 0.0;
  if (summary.calibrated_rows > 0) {
    summary.calibrated_mape /= summary.calibrated_rows;
    summary.uncalibrated_mape_same_rows /= summary.calibrated_rows;
  }
  return summary;
}

std::string render_validation(const ValidationSummary& s, const std::string& format) {
  const report::FieldGrid grid = report::make_grid(validation_fields(), s.rows);
  if (format == "csv") return report::grid_csv(grid);
  if (format == "json") {
    const auto count = [](int n) { return report::FieldValue(static_cast<std::int64_t>(n)); };
    return report::grid_json({{"throughput_mape", s.throughput_mape},
                              {"throughput_cases", count(s.throughput_cases)},
                              {"single_gpu_throughput_mape", s.single_gpu_throughput_mape},
                              {"single_gpu_throughput_cases", count(s.single_gpu_throughput_cases)},
                              {"multi_gpu_throughput_mape", s.multi_gpu_throughput_mape},
                              {"multi_gpu_throughput_cases", count(s.multi_gpu_throughput_cases)},
                              {"memory_mape", s.memory_mape},
                              {"memory_cases", count(s.memory_cases)},
                              {"fits_right", count(s.fits_right)},
                              {"fits_cases", count(s.fits_cases)},
                              {"overall_mape", s.overall_mape},
                              {"calibrated_rows", count(s.calibrated_rows)},
                              {"calibrated_mape", s.calibrated_mape},
                              {"uncalibrated_mape_same_rows", s.uncalibrated_mape_same_rows}},
                             "rows", grid);
  }
  std::string out = report::grid_table(grid, format == "markdown");
  // "7.6 % over 124 cases"; "- (no cases)" where a folder has none of the kind (a 0.0 % read as perfect).
  const auto mape = [](double value, auto cases) {
    return cases > 0 ? fmt::format("{:.1f} % over {} cases", value * 100.0, cases) : std::string("- (no cases)");
  };
  const std::string fits =
      s.fits_cases > 0 ? fmt::format("right {} of {}", s.fits_right, s.fits_cases) : std::string("- (no cases)");
  const auto numeric = std::count_if(s.rows.begin(), s.rows.end(), [](const ValidationRow& r) { return r.numeric; });
  out += fmt::format("\nthroughput MAPE {}; peak memory MAPE {}; fits/OOM {}; all numeric metrics MAPE {}\n",
                     mape(s.throughput_mape, s.throughput_cases), mape(s.memory_mape, s.memory_cases), fits,
                     numeric > 0 ? fmt::format("{:.1f} %", s.overall_mape * 100.0) : std::string("-"));
  out += fmt::format("throughput MAPE on one GPU {}; on several GPUs {}\n",
                     mape(s.single_gpu_throughput_mape, s.single_gpu_throughput_cases),
                     mape(s.multi_gpu_throughput_mape, s.multi_gpu_throughput_cases));
  if (!s.throughput_mape_by_gpu.empty()) {
    std::string by_gpu = "throughput MAPE by GPU:";
    for (const auto& [gpu, mape_cases] : s.throughput_mape_by_gpu) {
      by_gpu += fmt::format(" {} {:.1f} % ({}),", gpu.empty() ? std::string("?") : gpu, mape_cases.first * 100.0,
                            mape_cases.second);
    }
    by_gpu.back() = '\n';
    out += report::wrap_text(by_gpu, report::kTerminalColumns, 2);
  }
  out += s.calibrated_rows > 0
             ? fmt::format(
                   "calibrated: MAPE {:.1f} % with the measured profiles vs {:.1f} % without, over the {} "
                   "numeric rows whose GPU has one\n",
                   s.calibrated_mape * 100.0, s.uncalibrated_mape_same_rows * 100.0, s.calibrated_rows)
             : std::string(
                   "calibrated error: \"-\" = no measured profile for the case's GPU "
                   "(gpuplan calibrate writes one)\n");
  return out;
}

}  // namespace gpuplan::cli

#include "cli/validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/scenario_runner.h"
#include "config/calibration_profile.h"
#include "config/config_error.h"
#include "config/scenario_loader.h"
#include "core/units.h"
#include "report/human_units.h"
#include "report/text_table.h"

namespace gpuplan::cli {
namespace {

std::string human_metric(const std::string& metric, double value) {
  if (metric == "peak_memory") return report::human_bytes(value);
  if (metric == "step_time" || metric == "time_to_train") return report::human_duration(value);
  if (metric == "mfu" || metric == "gpu_utilization") return report::human_percent(value);
  if (metric == "fits") return value > 0.5 ? "fits" : "OOM";
  if (metric == "tokens_per_s") return report::human_rate(value) + " tokens/s";
  return report::human_rate(value) + " samples/s";
}

// The predicted value of `metric`, or nullopt when the variant has none (OOM).
std::optional<double> predicted_of(const std::string& metric, const models::VariantResult& v) {
  if (metric == "fits") return v.fits ? 1.0 : 0.0;
  if (metric == "peak_memory") return v.peak_memory_bytes;
  if (!v.fits) return std::nullopt;
  if (metric == "throughput") return v.throughput_samples_per_s;
  if (metric == "tokens_per_s") return v.throughput_tokens_per_s;
  if (metric == "step_time") return v.step.step_time_s;
  if (metric == "time_to_train") return v.time_to_train_s;
  if (metric == "mfu") return v.mfu;
  if (metric == "gpu_utilization") return v.gpu_utilization;
  return std::nullopt;
}

}  // namespace

std::vector<ValidationCase> load_validation_cases(const std::string& dir, const AppContext& context) {
  namespace fs = std::filesystem;
  std::error_code ec;
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
      if (r.gpus > 1) {
        summary.multi_gpu_throughput_mape += e;
        ++summary.multi_gpu_throughput_cases;
      } else {
        summary.single_gpu_throughput_mape += e;
        ++summary.single_gpu_throughput_cases;
      }
    } else if (r.metric == "peak_memory") {
      memory_sum += e;
      ++summary.memory_cases;
    }
  }
  summary.throughput_mape = summary.throughput_cases > 0 ? throughput_sum / summary.throughput_cases : 0.0;
  if (summary.single_gpu_throughput_cases > 0) summary.single_gpu_throughput_mape /= summary.single_gpu_throughput_cases;
  if (summary.multi_gpu_throughput_cases > 0) summary.multi_gpu_throughput_mape /= summary.multi_gpu_throughput_cases;
  summary.memory_mape = summary.memory_cases > 0 ? memory_sum / summary.memory_cases : 0.0;
  summary.overall_mape = all > 0 ? all_sum / all : 0.0;
  if (summary.calibrated_rows > 0) {
    summary.calibrated_mape /= summary.calibrated_rows;
    summary.uncalibrated_mape_same_rows /= summary.calibrated_rows;
  }
  return summary;
}

std::string render_validation(const ValidationSummary& s, const std::string& format) {
  auto error_text = [](const ValidationRow& r) {
    if (!r.numeric) return std::string(r.error == 0.0 ? "right" : "WRONG");
    return fmt::format("{:+.1f} %", r.error * 100.0);
  };
  auto calibrated_text = [](const ValidationRow& r) {
    if (!r.calibrated_error) return std::string("-");
    if (!r.numeric) return std::string(*r.calibrated_error == 0.0 ? "right" : "WRONG");
    return fmt::format("{:+.1f} %", *r.calibrated_error * 100.0);
  };
  if (format == "csv") {
    std::string out = "case,metric,predicted,measured,relative_error,calibrated_relative_error\n";
    for (const auto& r : s.rows) {
      out += r.case_name + "," + r.metric + "," + fmt::format("{:.6g}", r.predicted_value) + "," +
             fmt::format("{:.6g}", r.measured_value) + "," + fmt::format("{:.6g}", r.error) + "," +
             (r.calibrated_error ? fmt::format("{:.6g}", *r.calibrated_error) : std::string()) + "\n";
    }
    return out;
  }
  if (format == "json") {
    nlohmann::ordered_json root;
    root["throughput_mape"] = s.throughput_mape;
    root["throughput_cases"] = s.throughput_cases;
    root["single_gpu_throughput_mape"] = s.single_gpu_throughput_mape;
    root["single_gpu_throughput_cases"] = s.single_gpu_throughput_cases;
    root["multi_gpu_throughput_mape"] = s.multi_gpu_throughput_mape;
    root["multi_gpu_throughput_cases"] = s.multi_gpu_throughput_cases;
    root["memory_mape"] = s.memory_mape;
    root["memory_cases"] = s.memory_cases;
    root["fits_right"] = s.fits_right;
    root["fits_cases"] = s.fits_cases;
    root["overall_mape"] = s.overall_mape;
    root["calibrated_rows"] = s.calibrated_rows;
    root["calibrated_mape"] = s.calibrated_mape;
    root["uncalibrated_mape_same_rows"] = s.uncalibrated_mape_same_rows;
    root["rows"] = nlohmann::ordered_json::array();
    for (const auto& r : s.rows) {
      nlohmann::ordered_json row = {{"case", r.case_name},
                                    {"metric", r.metric},
                                    {"gpus", r.gpus},
                                    {"predicted", r.predicted_value},
                                    {"measured", r.measured_value},
                                    {"relative_error", r.error},
                                    {"source", r.source}};
      row["calibrated_predicted"] = r.calibrated_value ? nlohmann::ordered_json(*r.calibrated_value) : nullptr;
      row["calibrated_relative_error"] = r.calibrated_error ? nlohmann::ordered_json(*r.calibrated_error) : nullptr;
      row["calibration_profile"] = r.calibration_profile.empty() ? nlohmann::ordered_json(nullptr)
                                                                 : nlohmann::ordered_json(r.calibration_profile);
      root["rows"].push_back(row);
    }
    return root.dump(2) + "\n";
  }
  report::TextTable table({"case", "GPUs", "metric", "predicted", "measured", "error", "calibrated error"});
  for (const auto& r : s.rows) {
    table.add_row({r.case_name, std::to_string(r.gpus), r.metric, r.predicted, r.measured, error_text(r),
                   calibrated_text(r)});
  }
  std::string out = format == "markdown" ? table.to_markdown() : table.to_text();
  out += fmt::format("\nthroughput MAPE {:.1f} % over {} cases; peak memory MAPE {:.1f} % over {} cases; "
                     "fits/OOM right {} of {}; all numeric metrics MAPE {:.1f} %\n",
                     s.throughput_mape * 100.0, s.throughput_cases, s.memory_mape * 100.0, s.memory_cases,
                     s.fits_right, s.fits_cases, s.overall_mape * 100.0);
  out += fmt::format("throughput MAPE on one GPU {:.1f} % over {} cases; on several GPUs {:.1f} % over {} cases\n",
                     s.single_gpu_throughput_mape * 100.0, s.single_gpu_throughput_cases,
                     s.multi_gpu_throughput_mape * 100.0, s.multi_gpu_throughput_cases);
  out += s.calibrated_rows > 0
             ? fmt::format("calibrated: MAPE {:.1f} % with the measured profiles vs {:.1f} % without, over the {} "
                           "numeric rows whose GPU has one\n",
                           s.calibrated_mape * 100.0, s.uncalibrated_mape_same_rows * 100.0, s.calibrated_rows)
             : std::string("calibrated error: \"-\" = no measured profile for the case's GPU "
                           "(gpuplan calibrate writes one)\n");
  return out;
}

}  // namespace gpuplan::cli

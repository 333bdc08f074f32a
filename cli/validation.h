#pragma once
/// \file validation.h
/// `gpuplan validate DIR`: every scenario under DIR with an `expected:` block is run, and
/// each expected metric is compared with the prediction of its first variant. Errors are
/// (predicted - measured) / measured; the mean absolute percentage error (MAPE) is given per
/// metric kind and overall (numeric metrics only); `fits` counts as right or wrong.
/// A case whose GPU has a measured calibration profile (a *.json under the calibrations
/// folder whose `gpu` is the case's catalog GPU; the newest by date) is run a second time
/// with the profile, and its row shows both errors; other rows show "-" for the calibrated one.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/app_context.h"
#include "config/scenario.h"
#include "models/run/run_variant.h"

namespace gpuplan::cli {

struct ValidationRow {
  std::string case_name;    ///< scenario file stem
  std::string metric;       ///< throughput, tokens_per_s, peak_memory, fits, ...
  std::string predicted;    ///< human text
  std::string measured;     ///< as written in the scenario
  double predicted_value = 0.0;
  double measured_value = 0.0;
  double error = 0.0;       ///< relative error (numeric metrics), 0/1 for fits
  bool numeric = true;
  std::string source;
  int gpus = 1;             ///< GPUs of the case (single- and multi-GPU MAPEs are reported apart)
  std::string gpu;          ///< catalog name of the case's GPU (per-GPU MAPEs)
  /// The same metric predicted with the case GPU's calibration profile, when there is one.
  std::optional<double> calibrated_value;
  std::optional<double> calibrated_error;  ///< like `error`, for calibrated_value
  std::string calibration_profile;         ///< path of the profile used; empty without
};

struct ValidationSummary {
  std::vector<ValidationRow> rows;
  double throughput_mape = 0.0;  ///< over throughput and tokens_per_s rows
  int throughput_cases = 0;
  double single_gpu_throughput_mape = 0.0;  ///< throughput rows of one-GPU cases
  int single_gpu_throughput_cases = 0;
  double multi_gpu_throughput_mape = 0.0;   ///< throughput rows of cases with several GPUs
  int multi_gpu_throughput_cases = 0;
  double memory_mape = 0.0;      ///< over peak_memory rows
  int memory_cases = 0;
  int fits_right = 0;
  int fits_cases = 0;
  double overall_mape = 0.0;     ///< over every numeric row
  int calibrated_rows = 0;       ///< numeric rows that also have a calibrated prediction
  double calibrated_mape = 0.0;  ///< MAPE of those rows with their profiles
  double uncalibrated_mape_same_rows = 0.0;  ///< MAPE of the same rows without
  /// Throughput MAPE of each GPU's cases, by catalog name (how far to trust a prediction on
  /// that GPU; `--leave-one-gpu-out` says how far on a GPU without cases).
  std::map<std::string, std::pair<double, int>> throughput_mape_by_gpu;
};

/// One loaded validation case: a scenario with an `expected:` block and its file.
struct ValidationCase {
  std::string file;
  config::Scenario scenario;
};

/// Loads the validation cases under `dir` (recursively, *.yaml in sorted path order;
/// scenarios without `expected:` are skipped). Throws config::ConfigError for an invalid case
/// file (all of them reported), or when `dir` is not a folder or holds no case.
std::vector<ValidationCase> load_validation_cases(const std::string& dir, const AppContext& context);

/// Runs loaded cases with `params`, and again with a calibration profile from
/// `calibrations_dir` for cases whose GPU has one (empty or absent folder: none). Throws
/// config::ConfigError for an invalid profile.
ValidationSummary validate_cases(const std::vector<ValidationCase>& cases, const models::ModelParams& params,
                                 const std::string& calibrations_dir = "");

/// load_validation_cases, then validate_cases.
ValidationSummary validate_directory(const std::string& dir, const AppContext& context,
                                     const models::ModelParams& params, const std::string& calibrations_dir = "");

/// Renders the summary as table, markdown, csv or json.
std::string render_validation(const ValidationSummary& summary, const std::string& format);

}  // namespace gpuplan::cli

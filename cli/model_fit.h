#pragma once
/// \file model_fit.h
/// `gpuplan fit DIR` and `gpuplan validate DIR --leave-one-gpu-out`: the global GPU-model
/// parameters (`fitted_parameters()`, fields of models::GpuEfficiency) fitted over the
/// throughput rows of the validation cases by Levenberg-Marquardt
/// (models/calibration/least_squares.h). The residual of a row is
/// ln(predicted / measured), so every case weighs the same whatever its size; a case
/// predicted out of memory adds a constant residual (these parameters do not move memory).
/// Each parameter is a fraction in (0, 1) and is searched through the logistic map
/// f = 1 / (1 + e^-x), so no step leaves the range, from f = 0.5 for every fraction (not
/// from the shipped values, which were fitted on every case). No parameter is per GPU or per
/// case.
/// A case's rows under one parameter point are simulated once per fit or per
/// leave-one-GPU-out table (the search revisits points: Eigen's forward-difference Jacobian
/// re-evaluates the current one, and every refit starts at the same one), the missing cases
/// on the thread pool with results by index: the same output as simulating every evaluation.
/// The fitted values ship in models/gpu/gpu_efficiency.cpp (the one reviewed file).

#include <functional>
#include <string>
#include <vector>

#include "cli/validation.h"
#include "models/gpu/gpu_efficiency.h"
#include "models/run/run_variant.h"

namespace gpuplan::cli {

/// One fitted parameter: its name in GpuEfficiency, the field, and what it means.
struct FittedParameter {
  std::string name;
  double models::GpuEfficiency::*field = nullptr;
  std::string meaning;
};

/// The parameters `gpuplan fit` adjusts, in a fixed order.
const std::vector<FittedParameter>& fitted_parameters();

struct ModelFit {
  models::ModelParams params;         ///< `base` with the fitted parameters replaced
  double throughput_mape_before = 0.0;  ///< over the fitted rows, with `base` (shipped)
  double throughput_mape_after = 0.0;   ///< the same rows, fitted
  int throughput_rows = 0;
  int evaluations = 0;                ///< residual evaluations by the search (each over the whole case set)
  int simulated_cases = 0;            ///< case simulations run (evaluations repeating a point reuse them)
};

/// Fits `fitted_parameters()` over the throughput rows of `cases`, every other parameter
/// taken from `start` (the shipped set), the fitted ones starting at 0.5. Throws
/// config::ConfigError when the cases have fewer throughput rows than parameters.
ModelFit fit_model(const std::vector<ValidationCase>& cases, const models::ModelParams& start);

/// One GPU type's cases predicted by parameters fitted without them.
struct GpuHoldout {
  std::string gpu;                 ///< catalog name of the held-out GPU
  int throughput_rows = 0;         ///< its throughput rows
  double mape_shipped = 0.0;       ///< their MAPE with the start (shipped) parameters
  double mape_held_out = 0.0;      ///< their MAPE with parameters refit on the other GPUs' cases
};

/// For each GPU type with throughput rows (sorted by name), refits on the cases of every
/// other GPU and predicts that GPU's. `progress` (when set) is called with the GPU types done
/// and their count after each. Throws config::ConfigError with fewer than two GPU types.
std::vector<GpuHoldout> leave_one_gpu_out(const std::vector<ValidationCase>& cases, const models::ModelParams& start,
                                          const std::function<void(std::size_t, std::size_t)>& progress = {});

/// The fitted parameters beside the shipped ones (`start`), and both MAPEs, as table or json.
std::string render_fit(const ModelFit& fit, const models::ModelParams& start, const std::string& format);

/// The leave-one-GPU-out table (table or json), with the mean over the held-out GPUs.
std::string render_leave_one_gpu_out(const std::vector<GpuHoldout>& rows, const std::string& format);

}  // namespace gpuplan::cli

#include "cli/model_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/parallel_for.h"
#include "config/config_error.h"
#include "models/calibration/least_squares.h"
#include "report/text_table.h"
#include "sim/sim_time.h"

namespace gpuplan::cli {
namespace {

// A case predicted out of memory: the same residual whatever the time parameters are.
constexpr double kOomResidual = 1.0;
// Every fitted fraction starts here (logit 0), not at the shipped value: the shipped values
// were fitted on every case, and starting a leave-one-GPU-out refit from them would carry
// the held-out GPU's cases into its own prediction.
constexpr double kNeutralStart = 0.5;

bool is_throughput(const ValidationRow& r) {
  return r.numeric && (r.metric == "throughput" || r.metric == "tokens_per_s");
}

double logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double logit(double f) { return std::log(f / (1.0 - f)); }

models::ModelParams with_parameters(const models::ModelParams& start, const std::vector<double>& x) {
  models::ModelParams p = start;
  const auto& fitted = fitted_parameters();
  for (std::size_t i = 0; i < fitted.size(); ++i) {
    p.gpu.*fitted[i].field = logistic(x[i]);
  }
  return p;
}

// ln(predicted / measured) of each of the `rows` throughput rows of `cases` under `params`;
// NaN for every row when a trial parameter set makes a step too long to simulate (a fraction
// driven towards 0), which the search treats as a large residual and turns back from.
std::vector<double> log_errors(const std::vector<ValidationCase>& cases, const models::ModelParams& params,
                               std::size_t rows) {
  std::vector<double> r;
  try {
    for (const ValidationRow& row : validate_cases(cases, params).rows) {
      if (is_throughput(row)) {
        r.push_back(row.error <= -1.0 ? kOomResidual : std::log1p(row.error));
      }
    }
  } catch (const sim::TimeRangeError&) {
    r.assign(rows, std::nan(""));
  }
  return r;
}

double throughput_mape(const std::vector<ValidationCase>& cases, const models::ModelParams& params, int* rows = nullptr) {
  double sum = 0.0;
  int n = 0;
  for (const ValidationRow& row : validate_cases(cases, params).rows) {
    if (is_throughput(row)) {
      sum += std::abs(row.error);
      ++n;
    }
  }
  if (rows != nullptr) *rows = n;
  return n > 0 ? sum / n : 0.0;
}

std::string gpu_of(const ValidationCase& c) { return c.scenario.variants.front().job.hardware.gpu.name; }

}  // namespace

const std::vector<FittedParameter>& fitted_parameters() {
  static const std::vector<FittedParameter> parameters = {
      {"conv_relative_to_gemm", &models::GpuEfficiency::conv_relative_to_gemm,
       "cuDNN convolution relative to a large GEMM of the same path (tensor or CUDA cores)"},
      {"matmul_relative_to_gemm", &models::GpuEfficiency::matmul_relative_to_gemm,
       "a model's linear layers (forward, grad-input, grad-weight) relative to the best-shape GEMM"},
      {"attention_relative_to_matmul", &models::GpuEfficiency::attention_relative_to_matmul,
       "per-head batched attention matmuls (k = head_dim) relative to a GEMM"},
      {"memory_bandwidth", &models::GpuEfficiency::memory_bandwidth,
       "achieved share of datasheet memory bandwidth by memory-bound kernels"},
  };
  return parameters;
}

ModelFit fit_model(const std::vector<ValidationCase>& cases, const models::ModelParams& start) {
  const auto& fitted = fitted_parameters();
  ModelFit fit;
  fit.throughput_mape_before = throughput_mape(cases, start, &fit.throughput_rows);
  if (fit.throughput_rows < static_cast<int>(fitted.size())) {
    throw config::ConfigError(fmt::format("gpuplan fit: {} throughput rows for {} parameters; fitting needs at least "
                                          "as many rows as parameters",
                                          fit.throughput_rows, fitted.size()));
  }
  const std::vector<double> x0(fitted.size(), logit(kNeutralStart));
  const models::LeastSquaresFit lsq = models::fit_least_squares(
      [&](const std::vector<double>& x) {
        return log_errors(cases, with_parameters(start, x), static_cast<std::size_t>(fit.throughput_rows));
      },
      x0);
  fit.params = with_parameters(start, lsq.x);
  fit.evaluations = lsq.evaluations;
  fit.throughput_mape_after = throughput_mape(cases, fit.params);
  return fit;
}

std::vector<GpuHoldout> leave_one_gpu_out(const std::vector<ValidationCase>& cases, const models::ModelParams& start) {
  std::map<std::string, std::vector<ValidationCase>> by_gpu;
  for (const ValidationCase& c : cases) {
    by_gpu[gpu_of(c)].push_back(c);
  }
  if (by_gpu.size() < 2) {
    throw config::ConfigError("gpuplan validate --leave-one-gpu-out: the cases cover " +
                              std::to_string(by_gpu.size()) + " GPU type; it needs at least two");
  }
  // The refits are independent: one per GPU on the pool's threads, results by index.
  std::vector<std::string> gpus;
  for (const auto& entry : by_gpu) gpus.push_back(entry.first);
  std::vector<GpuHoldout> slots(gpus.size());
  parallel_for(gpus.size(), std::max(1U, std::thread::hardware_concurrency()), {}, 0, 0, [&](std::size_t i) {
    const std::string& gpu = gpus[i];
    std::vector<ValidationCase> rest;
    for (const ValidationCase& c : cases) {
      if (gpu_of(c) != gpu) rest.push_back(c);
    }
    GpuHoldout& row = slots[i];
    row.gpu = gpu;
    row.mape_shipped = throughput_mape(by_gpu.at(gpu), start, &row.throughput_rows);
    if (row.throughput_rows == 0) return;
    row.mape_held_out = throughput_mape(by_gpu.at(gpu), fit_model(rest, start).params);
  });
  std::vector<GpuHoldout> rows;
  for (const GpuHoldout& row : slots) {
    if (row.throughput_rows > 0) rows.push_back(row);
  }
  return rows;
}

std::string render_fit(const ModelFit& fit, const models::ModelParams& start, const std::string& format) {
  if (format == "json") {
    nlohmann::ordered_json root;
    root["throughput_rows"] = fit.throughput_rows;
    root["throughput_mape_before"] = fit.throughput_mape_before;
    root["throughput_mape_after"] = fit.throughput_mape_after;
    root["evaluations"] = fit.evaluations;
    root["parameters"] = nlohmann::ordered_json::array();
    for (const FittedParameter& p : fitted_parameters()) {
      root["parameters"].push_back(
          {{"name", p.name}, {"shipped", start.gpu.*p.field}, {"fitted", fit.params.gpu.*p.field}, {"meaning", p.meaning}});
    }
    return root.dump(2) + "\n";
  }
  report::TextTable table({"parameter", "shipped", "fitted", "meaning"});
  for (const FittedParameter& p : fitted_parameters()) {
    table.add_row({p.name, fmt::format("{:.4f}", start.gpu.*p.field), fmt::format("{:.4f}", fit.params.gpu.*p.field),
                   p.meaning});
  }
  return table.to_text() + fmt::format("\nthroughput MAPE {:.1f} % shipped, {:.1f} % fitted, over {} rows ({} model "
                                       "evaluations from {} for every fraction); ship the fitted values in "
                                       "models/gpu/gpu_efficiency.cpp\n",
                                       fit.throughput_mape_before * 100.0, fit.throughput_mape_after * 100.0,
                                       fit.throughput_rows, fit.evaluations, kNeutralStart);
}

std::string render_leave_one_gpu_out(const std::vector<GpuHoldout>& rows, const std::string& format) {
  double shipped = 0.0;
  double held_out = 0.0;
  for (const GpuHoldout& r : rows) {
    shipped += r.mape_shipped;
    held_out += r.mape_held_out;
  }
  const double n = rows.empty() ? 1.0 : static_cast<double>(rows.size());
  if (format == "json") {
    nlohmann::ordered_json root;
    root["gpus"] = nlohmann::ordered_json::array();
    for (const GpuHoldout& r : rows) {
      root["gpus"].push_back({{"gpu", r.gpu},
                              {"throughput_rows", r.throughput_rows},
                              {"mape_shipped", r.mape_shipped},
                              {"mape_held_out", r.mape_held_out}});
    }
    root["mean_mape_shipped"] = shipped / n;
    root["mean_mape_held_out"] = held_out / n;
    return root.dump(2) + "\n";
  }
  report::TextTable table({"held-out GPU", "throughput rows", "MAPE shipped parameters", "MAPE refit without it"});
  for (const GpuHoldout& r : rows) {
    table.add_row({r.gpu, std::to_string(r.throughput_rows), fmt::format("{:.1f} %", r.mape_shipped * 100.0),
                   fmt::format("{:.1f} %", r.mape_held_out * 100.0)});
  }
  return table.to_text() + fmt::format("\nmean over {} GPUs: {:.1f} % shipped, {:.1f} % refit without the GPU's own "
                                       "cases (how well gpuplan predicts a GPU it has not seen)\n",
                                       rows.size(), shipped / n * 100.0, held_out / n * 100.0);
}

}  // namespace gpuplan::cli

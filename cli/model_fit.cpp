#include "cli/model_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
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

// Each case's throughput-row relative errors (validate's `error`, -1 for OOM) by the values
// of the fitted fractions, every other parameter being the fixed `start` of one fit or one
// leave-one-GPU-out table. A case's rows depend only on the case and the parameters, so a
// point the search visits again costs nothing: Eigen's NumericalDiff re-evaluates f(x) at
// the start of every Jacobian, the final residual and MAPE repeat the last point, and every
// leave-one-GPU-out refit starts with the same Jacobian at f = 0.5. Cases missing from the
// memo run on the thread pool, results by index, so the output does not depend on threads.
class CaseErrorMemo {
 public:
  explicit CaseErrorMemo(const std::vector<ValidationCase>& cases) : cases_(cases) {}

  // Relative errors of the throughput rows of cases[indices] (in index, then row order)
  // under `params`; nullopt when a case's step is too long to simulate (sim::TimeRangeError),
  // its message then in `too_long_message`.
  std::optional<std::vector<double>> errors(const std::vector<std::size_t>& indices,
                                            const models::ModelParams& params,
                                            std::string* too_long_message = nullptr) {
    const std::vector<double> key = fraction_values(params);
    std::vector<std::size_t> missing;
    for (const std::size_t i : indices) {
      if (memo_.find({i, key}) == memo_.end()) missing.push_back(i);
    }
    std::vector<Entry> computed(missing.size());
    parallel_for(missing.size(), std::max(1U, std::thread::hardware_concurrency()), {}, 0, 0, [&](std::size_t m) {
      Entry& entry = computed[m];
      try {
        for (const ValidationRow& row : validate_cases({cases_[missing[m]]}, params).rows) {
          if (is_throughput(row)) entry.errors.push_back(row.error);
        }
      } catch (const sim::TimeRangeError& e) {
        entry.too_long = true;
        entry.message = e.what();
      }
    });
    simulated_cases_ += static_cast<int>(missing.size());
    for (std::size_t m = 0; m < missing.size(); ++m) {
      memo_.emplace(std::make_pair(missing[m], key), std::move(computed[m]));
    }
    std::vector<double> out;
    for (const std::size_t i : indices) {
      const Entry& entry = memo_.at({i, key});
      if (entry.too_long) {
        if (too_long_message != nullptr) *too_long_message = entry.message;
        return std::nullopt;
      }
      out.insert(out.end(), entry.errors.begin(), entry.errors.end());
    }
    return out;
  }

  // Cases simulated so far (memo misses).
  int simulated_cases() const { return simulated_cases_; }

 private:
  struct Entry {
    bool too_long = false;
    std::string message;  // the simulator's TimeRangeError text when too_long
    std::vector<double> errors;
  };
  static std::vector<double> fraction_values(const models::ModelParams& params) {
    std::vector<double> v;
    for (const FittedParameter& p : fitted_parameters()) v.push_back(params.gpu.*p.field);
    return v;
  }
  const std::vector<ValidationCase>& cases_;
  std::map<std::pair<std::size_t, std::vector<double>>, Entry> memo_;
  int simulated_cases_ = 0;
};

// ln(predicted / measured) of each of the `rows` throughput rows of cases[indices] under
// `params`; NaN for every row when a trial parameter set makes a step too long to simulate
// (a fraction driven towards 0), which the search treats as a large residual and turns back
// from.
std::vector<double> log_errors(CaseErrorMemo& memo, const std::vector<std::size_t>& indices,
                               const models::ModelParams& params, std::size_t rows) {
  const std::optional<std::vector<double>> errors = memo.errors(indices, params);
  if (!errors) return std::vector<double>(rows, std::nan(""));
  std::vector<double> r;
  for (const double e : *errors) r.push_back(e <= -1.0 ? kOomResidual : std::log1p(e));
  return r;
}

// Throughput MAPE of cases[indices] under `params` (a too-long step propagates
// sim::TimeRangeError, as validate does); `rows` receives the row count.
double throughput_mape(CaseErrorMemo& memo, const std::vector<std::size_t>& indices,
                       const models::ModelParams& params, int* rows = nullptr) {
  std::string too_long_message;
  const std::optional<std::vector<double>> errors = memo.errors(indices, params, &too_long_message);
  if (!errors) throw sim::TimeRangeError(too_long_message);
  double sum = 0.0;
  for (const double e : *errors) sum += std::abs(e);
  const int n = static_cast<int>(errors->size());
  if (rows != nullptr) *rows = n;
  return n > 0 ? sum / n : 0.0;
}

std::vector<std::size_t> all_indices(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
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

namespace {

// fit_model over cases[indices] of the memo's case set.
ModelFit fit_indices(CaseErrorMemo& memo, const std::vector<std::size_t>& indices, const models::ModelParams& start) {
  const auto& fitted = fitted_parameters();
  ModelFit fit;
  const int simulated_before = memo.simulated_cases();
  fit.throughput_mape_before = throughput_mape(memo, indices, start, &fit.throughput_rows);
  if (fit.throughput_rows < static_cast<int>(fitted.size())) {
    throw config::ConfigError(fmt::format("gpuplan fit: {} throughput rows for {} parameters; fitting needs at least "
                                          "as many rows as parameters",
                                          fit.throughput_rows, fitted.size()));
  }
  const std::vector<double> x0(fitted.size(), logit(kNeutralStart));
  const models::LeastSquaresFit lsq = models::fit_least_squares(
      [&](const std::vector<double>& x) {
        return log_errors(memo, indices, with_parameters(start, x), static_cast<std::size_t>(fit.throughput_rows));
      },
      x0);
  fit.params = with_parameters(start, lsq.x);
  fit.evaluations = lsq.evaluations;
  fit.throughput_mape_after = throughput_mape(memo, indices, fit.params);
  fit.simulated_cases = memo.simulated_cases() - simulated_before;
  return fit;
}

}  // namespace

ModelFit fit_model(const std::vector<ValidationCase>& cases, const models::ModelParams& start) {
  CaseErrorMemo memo(cases);
  return fit_indices(memo, all_indices(cases.size()), start);
}

std::vector<GpuHoldout> leave_one_gpu_out(const std::vector<ValidationCase>& cases, const models::ModelParams& start,
                                          const std::function<void(std::size_t, std::size_t)>& progress) {
  std::map<std::string, std::vector<std::size_t>> by_gpu;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    by_gpu[gpu_of(cases[i])].push_back(i);
  }
  if (by_gpu.size() < 2) {
    throw config::ConfigError("gpuplan validate --leave-one-gpu-out: the cases cover " +
                              std::to_string(by_gpu.size()) + " GPU type; it needs at least two");
  }
  // One refit per GPU, one after the other, sharing one memo (their searches start at the
  // same point); each refit runs its cases on the thread pool.
  CaseErrorMemo memo(cases);
  std::vector<GpuHoldout> rows;
  std::size_t done = 0;
  for (const auto& entry : by_gpu) {
    if (progress) progress(done, by_gpu.size());
    ++done;
    GpuHoldout row;
    row.gpu = entry.first;
    row.mape_shipped = throughput_mape(memo, entry.second, start, &row.throughput_rows);
    if (row.throughput_rows == 0) continue;
    std::vector<std::size_t> rest;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      if (gpu_of(cases[i]) != row.gpu) rest.push_back(i);
    }
    row.mape_held_out = throughput_mape(memo, entry.second, fit_indices(memo, rest, start).params);
    rows.push_back(row);
  }
  if (progress) progress(by_gpu.size(), by_gpu.size());
  return rows;
}

std::string render_fit(const ModelFit& fit, const models::ModelParams& start, const std::string& format) {
  if (format == "json") {
    nlohmann::ordered_json root;
    root["throughput_rows"] = fit.throughput_rows;
    root["throughput_mape_before"] = fit.throughput_mape_before;
    root["throughput_mape_after"] = fit.throughput_mape_after;
    root["evaluations"] = fit.evaluations;
    root["simulated_cases"] = fit.simulated_cases;
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
                                       "evaluations, {} case simulations, from {} for every fraction); ship the fitted values in "
                                       "models/gpu/gpu_efficiency.cpp\n",
                                       fit.throughput_mape_before * 100.0, fit.throughput_mape_after * 100.0,
                                       fit.throughput_rows, fit.evaluations, fit.simulated_cases, kNeutralStart);
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

#include "models/calibration/least_squares.h"

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>
#include <string>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>

namespace gpuplan::models {
namespace {

// Forward-difference step: h = sqrt(kDifferenceEpsfcn) x |x| (MINPACK's epsfcn). The
// residuals of `gpuplan fit` come from a discrete-event simulation whose outputs are smooth
// only piecewise, on a scale far above machine precision; a relative step of 1e-3 keeps the
// differences above that rounding and stays well inside the parameters' range.
constexpr double kDifferenceEpsfcn = 1e-6;
// Evaluation budget of one fit (MINPACK maxfev).
constexpr int kMaxEvaluations = 2000;

// The functor shape Eigen's NumericalDiff and LevenbergMarquardt expect.
struct Problem {
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };

  const ResidualFunction* residuals = nullptr;
  int parameter_count = 0;
  int residual_count = 0;
  int* evaluations = nullptr;

  int inputs() const { return parameter_count; }
  int values() const { return residual_count; }
  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& out) const {
    const std::vector<double> r = (*residuals)(std::vector<double>(x.data(), x.data() + x.size()));
    ++*evaluations;
    for (int i = 0; i < residual_count; ++i) {
      // A non-finite residual away from the start (a parameter driven out of range) is a
      // large, finite penalty so the search turns back.
      out(i) = std::isfinite(r[static_cast<std::size_t>(i)]) ? r[static_cast<std::size_t>(i)] : 1e3;
    }
    return 0;
  }
};

}  // namespace

LeastSquaresFit fit_least_squares(const ResidualFunction& residuals, const std::vector<double>& x0) {
  if (x0.empty()) {
    throw std::invalid_argument("fit_least_squares: no parameter to fit");
  }
  const std::vector<double> r0 = residuals(x0);
  if (r0.size() < x0.size()) {
    throw std::invalid_argument("fit_least_squares: " + std::to_string(r0.size()) + " residuals for " +
                                std::to_string(x0.size()) + " parameters: the problem is underdetermined");
  }
  for (const double r : r0) {
    if (!std::isfinite(r)) {
      throw std::invalid_argument("fit_least_squares: a residual is not finite at the start");
    }
  }
  LeastSquaresFit fit;
  fit.evaluations = 1;
  Problem problem{&residuals, static_cast<int>(x0.size()), static_cast<int>(r0.size()), &fit.evaluations};
  Eigen::NumericalDiff<Problem> numeric(problem, kDifferenceEpsfcn);
  Eigen::LevenbergMarquardt<Eigen::NumericalDiff<Problem>> lm(numeric);
  lm.parameters.maxfev = kMaxEvaluations;
  Eigen::VectorXd x = Eigen::Map<const Eigen::VectorXd>(x0.data(), static_cast<Eigen::Index>(x0.size()));
  lm.minimize(x);
  fit.x.assign(x.data(), x.data() + x.size());
  Eigen::VectorXd r(static_cast<Eigen::Index>(r0.size()));
  problem(x, r);
  fit.cost = r.squaredNorm();
  return fit;
}

}  // namespace gpuplan::models

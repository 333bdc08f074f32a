#pragma once
/// \file least_squares.h
/// Nonlinear least squares for the global model parameters (`gpuplan fit`): minimises
/// sum_i r_i(x)^2 with Levenberg-Marquardt (Eigen's unsupported LevenbergMarquardt module,
/// MINPACK lmdif port, forward-difference Jacobian; More, "The Levenberg-Marquardt algorithm:
/// implementation and theory", 1978). Pure tier-1 code: a residual function in, the
/// minimiser out (STYLE.md E2).

#include <functional>
#include <vector>

namespace gpuplan::models {

/// Residuals of parameters `x`; must return the same number of values on every call.
using ResidualFunction = std::function<std::vector<double>(const std::vector<double>& x)>;

struct LeastSquaresFit {
  std::vector<double> x;  ///< the minimiser
  double cost = 0.0;      ///< sum of squared residuals at x
  int evaluations = 0;    ///< calls of the residual function (Jacobian columns included)
};

/// Minimises the squared residuals of `residuals` from the start `x0`. Throws
/// std::invalid_argument when x0 is empty, when there are fewer residuals than parameters
/// (the problem is underdetermined), or when a residual is not finite at x0.
LeastSquaresFit fit_least_squares(const ResidualFunction& residuals, const std::vector<double>& x0);

}  // namespace gpuplan::models

#include "models/calibration/least_squares.h"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

using namespace gpuplan::models;

TEST_SUITE("models.calibration.least_squares") {
  TEST_CASE("the mean minimises the squared distances: residuals x - 1 and x - 3 give x = 2, cost 2") {
    const LeastSquaresFit fit =
        fit_least_squares([](const std::vector<double>& x) { return std::vector<double>{x[0] - 1.0, x[0] - 3.0}; }, {10.0});
    CHECK(fit.x[0] == doctest::Approx(2.0).epsilon(1e-6));
    CHECK(fit.cost == doctest::Approx(2.0).epsilon(1e-6));  // (2-1)^2 + (2-3)^2
    CHECK(fit.evaluations > 1);
  }

  TEST_CASE("an exact exponential y = 2 exp(-0.5 t) is recovered from a start far off") {
    const std::vector<double> t = {0.0, 1.0, 2.0, 3.0, 4.0};
    auto residuals = [&](const std::vector<double>& x) {
      std::vector<double> r;
      for (const double ti : t) r.push_back(x[0] * std::exp(x[1] * ti) - 2.0 * std::exp(-0.5 * ti));
      return r;
    };
    const LeastSquaresFit fit = fit_least_squares(residuals, {1.0, 0.0});
    CHECK(fit.x[0] == doctest::Approx(2.0).epsilon(1e-6));
    CHECK(fit.x[1] == doctest::Approx(-0.5).epsilon(1e-6));
    CHECK(fit.cost < 1e-12);
  }

  TEST_CASE("fewer residuals than parameters, no parameter, or a non-finite start are errors") {
    auto one = [](const std::vector<double>& x) { return std::vector<double>{x[0] + x[1]}; };
    CHECK_THROWS_WITH_AS(fit_least_squares(one, {1.0, 2.0}),
                         "fit_least_squares: 1 residuals for 2 parameters: the problem is underdetermined",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(fit_least_squares(one, {}), "fit_least_squares: no parameter to fit", std::invalid_argument);
    auto nan = [](const std::vector<double>& x) { return std::vector<double>{std::log(x[0] - 5.0)}; };
    CHECK_THROWS_WITH_AS(fit_least_squares(nan, {1.0}), "fit_least_squares: a residual is not finite at the start",
                         std::invalid_argument);
  }
}

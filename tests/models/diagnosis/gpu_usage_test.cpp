// Statistics of one GPU's monitoring readings: quantiles, the sawtooth period by
// autocorrelation, and the catalog fallbacks, each against a hand computation.
#include <doctest/doctest.h>

#include <cmath>

#include "models/diagnosis/gpu_usage.h"

namespace gpuplan::models {
namespace {

GpuSeries series_of(const std::vector<double>& utilization, double interval_s) {
  GpuSeries s;
  s.source = "gpu.csv";
  s.interval_s = interval_s;
  for (double u : utilization) {
    GpuReading r;
    r.utilization = u;
    s.readings.push_back(r);
  }
  return s;
}

/// Three busy readings, three idle ones, four times: a loader that refills every 6 readings.
std::vector<double> sawtooth() {
  std::vector<double> v;
  for (int i = 0; i < 24; ++i) v.push_back(i % 6 < 3 ? 1.0 : 0.0);
  return v;
}

}  // namespace

TEST_SUITE("models.diagnosis.gpu_usage") {
  TEST_CASE("quantile interpolates between order statistics") {
    // {1, 2, 3, 4}: q = 0.5 sits at position 1.5 -> 2.5; q = 0.1 at 0.3 -> 1 + 0.3 x (2 - 1) = 1.3.
    CHECK(quantile({4, 1, 3, 2}, 0.5) == doctest::Approx(2.5));
    CHECK(quantile({4, 1, 3, 2}, 0.1) == doctest::Approx(1.3));
    CHECK(std::isnan(quantile({}, 0.5)));
  }

  TEST_CASE("find_period: a 6-reading sawtooth gives lag 6 at r = 0.75; a constant series none") {
    // Mean 0.5, every deviation +-0.5, so sum (x - m)^2 = 24 x 0.25 = 6. At lag 6 the 18 pairs
    // match: 18 x 0.25 = 4.5, r(6) = 4.5 / 6 = 0.75. Lags 2 to 5 pair busy with idle readings
    // at least as often as busy with busy (r(2) = (8 - 14) x 0.25 / 6 < 0), so 6 is the first peak.
    const Periodicity p = find_period(sawtooth(), 0.3);
    CHECK(p.lag == 6);
    CHECK(p.correlation == doctest::Approx(0.75));
    CHECK(find_period(std::vector<double>(24, 0.9), 0.3).lag == 0);
    CHECK(find_period({1, 0, 1, 0, 1, 0, 1}, 0.3).lag == 0);  // fewer than 8 readings
  }

  TEST_CASE("summarize_usage: mean, idle share, period in seconds, catalog capacity and TDP when the log has none") {
    GpuFacts facts;
    facts.memory_bytes = 24e9;
    facts.tdp_w = 350.0;
    GpuSeries s = series_of(sawtooth(), 0.5);
    s.readings[0].memory_used_bytes = 10e9;
    s.readings[1].memory_used_bytes = 12e9;
    s.readings[0].power_w = 300.0;
    s.readings[1].power_w = 100.0;
    const GpuUsage u = summarize_usage(s, facts);
    CHECK(u.samples == 24);
    CHECK(u.duration_s == doctest::Approx(12.0));
    CHECK(u.utilization_mean == doctest::Approx(0.5));
    CHECK(u.idle_share == doctest::Approx(0.5));
    CHECK(u.period_samples == 6);
    CHECK(u.period_s == doctest::Approx(3.0));  // 6 readings x 0.5 s
    CHECK(u.memory_used_peak_bytes == 12e9);
    CHECK(u.memory_capacity_bytes == 24e9);     // no memory.total in the log
    CHECK(u.power_mean_w == doctest::Approx(200.0));
    CHECK(u.power_limit_w == 350.0);            // no power.limit in the log
    CHECK(std::isnan(u.sm_active_mean));
  }
}

}  // namespace gpuplan::models

#include "sim/random_stream.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace gpuplan::sim {

namespace {

struct Moments {
  double mean;
  double cv;
};

// Sample mean and coefficient of variation (sample sd / sample mean) of n draws.
template <typename Draw>
Moments moments(int n, Draw draw) {
  double sum = 0.0;
  double sum_sq = 0.0;
  for (int i = 0; i < n; ++i) {
    const double x = draw();
    sum += x;
    sum_sq += x * x;
  }
  const double mean = sum / n;
  const double variance = (sum_sq - n * mean * mean) / (n - 1);
  return {mean, std::sqrt(variance) / mean};
}

std::vector<std::uint64_t> first_bits(RandomStream stream, int n) {
  std::vector<std::uint64_t> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(stream.bits());
  }
  return out;
}

}  // namespace

TEST_SUITE("sim.random_stream") {
  TEST_CASE("the same seed and name give the same sequence") {
    CHECK(first_bits(RandomStream(42, "loader.worker0"), 100) ==
          first_bits(RandomStream(42, "loader.worker0"), 100));
  }

  TEST_CASE("different names or seeds give different sequences") {
    const auto base = first_bits(RandomStream(42, "loader.worker0"), 10);
    CHECK(first_bits(RandomStream(42, "loader.worker1"), 10) != base);
    CHECK(first_bits(RandomStream(43, "loader.worker0"), 10) != base);
    CHECK(RandomStream::derive_seed(42, "a") != RandomStream::derive_seed(42, "b"));
    CHECK(RandomStream::derive_seed(0, "") != RandomStream::derive_seed(1, ""));
  }

  TEST_CASE("a stream's draws depend only on its own seed and name") {
    // Creating and drawing from another component's stream in between changes nothing.
    RandomStream alone(7, "storage");
    const double expected = alone.exponential(1.0);
    RandomStream other(7, "network");
    other.exponential(1.0);
    RandomStream storage(7, "storage");
    CHECK(storage.exponential(1.0) == expected);
  }

  TEST_CASE("the derivation is pinned: changing it reshuffles every scenario") {
    // Golden values of the documented formula splitmix64(fnv1a64(name) ^ splitmix64(seed)),
    // cross-checked with an independent 10-line Python implementation of FNV-1a and
    // SplitMix64 (whose outputs match the published vectors: fnv1a64("a") =
    // 0xaf63dc4c8601ec8c, splitmix64 from state 0 = 0xe220a8397b1dcdaf).
    // ("", 0): fnv1a64("") = offset basis 0xcbf29ce484222325;
    // splitmix64(0xcbf29ce484222325 ^ 0xe220a8397b1dcdaf) = 6566800829925814604.
    CHECK(RandomStream::derive_seed(0, "") == 6566800829925814604ULL);
    // ("loader.worker0", 42): fnv1a64 = 13204530478041403790 -> 1419332340088528759.
    CHECK(RandomStream::derive_seed(42, "loader.worker0") == 1419332340088528759ULL);
    CHECK(RandomStream(42, "loader.worker0").seed() == 1419332340088528759ULL);
    // The bits come from a portable engine: the C++ standard fixes mt19937_64's 10000th
    // output from the default seed 5489 ([rand.predef]).
    std::mt19937_64 reference;
    reference.discard(9999);
    CHECK(reference() == 9981545732273789042ULL);
  }

  TEST_CASE("uniform01 lies in [0, 1) with mean 1/2") {
    RandomStream stream(1, "uniform");
    double lowest = 1.0;
    double highest = 0.0;
    const Moments m = moments(1'000'000, [&] {
      const double u = stream.uniform01();
      lowest = std::min(lowest, u);
      highest = std::max(highest, u);
      return u;
    });
    CHECK(lowest >= 0.0);
    CHECK(highest < 1.0);
    // Mean 1/2; sd 1/sqrt(12) = 0.2887 -> cv = 0.2887 / 0.5 = 1/sqrt(3) = 0.5774. Standard
    // error of the mean 0.2887 / sqrt(1e6) = 2.9e-4; 0.5 % of 0.5 = 2.5e-3 is 8.7 of them.
    CHECK(m.mean == doctest::Approx(0.5).epsilon(0.005));
    CHECK(m.cv == doctest::Approx(1.0 / std::sqrt(3.0)).epsilon(0.005));
  }

  TEST_CASE("uniform_below covers [0, n) evenly") {
    RandomStream stream(1, "index");
    std::vector<int> counts(3, 0);
    for (int i = 0; i < 300'000; ++i) {
      ++counts[stream.uniform_below(3)];
    }
    // Each of 3 values: 100'000 expected, sd sqrt(300'000 x 1/3 x 2/3) = 258; 1 % = 3.9 sd.
    for (const int count : counts) {
      CHECK(count == doctest::Approx(100'000).epsilon(0.01));
    }
    CHECK(stream.uniform_below(1) == 0);
  }

  TEST_CASE("exponential: sample mean within 1 % over 1e6 draws") {
    // Exponential with mean 2.5 s: sd = mean, so the standard error of the sample mean is
    // 2.5 / sqrt(1e6) = 0.1 % of the mean; 1 % is 10 standard errors. cv = 1.
    RandomStream stream(2024, "exponential");
    const Moments m = moments(1'000'000, [&] { return stream.exponential(2.5); });
    CHECK(m.mean == doctest::Approx(2.5).epsilon(0.01));
    CHECK(m.cv == doctest::Approx(1.0).epsilon(0.01));
    CHECK(stream.exponential(0.0) == 0.0);
  }

  TEST_CASE("normal: mean and sd") {
    // N(10, 2): standard error of the mean 2 / sqrt(1e6) = 0.002 (0.02 % of 10); cv = 2 / 10.
    RandomStream stream(2024, "normal");
    const Moments m = moments(1'000'000, [&] { return stream.normal(10.0, 2.0); });
    CHECK(m.mean == doctest::Approx(10.0).epsilon(0.001));
    CHECK(m.cv == doctest::Approx(0.2).epsilon(0.01));
    CHECK(stream.normal(3.0, 0.0) == 3.0);
  }

  TEST_CASE("lognormal_with_mean_cv: mean and cv within 2 %") {
    // Mean 0.04 s, cv 0.5: sigma^2 = ln(1 + 0.25) = 0.2231, mu = ln(0.04) - 0.1116.
    // Standard error of the mean 0.5 / sqrt(1e6) = 0.05 % of the mean; 2 % is 40 of them.
    RandomStream stream(2024, "lognormal");
    const Moments m = moments(1'000'000, [&] { return stream.lognormal_with_mean_cv(0.04, 0.5); });
    CHECK(m.mean == doctest::Approx(0.04).epsilon(0.02));
    CHECK(m.cv == doctest::Approx(0.5).epsilon(0.02));
  }

  TEST_CASE("gamma_with_mean_cv: mean and cv within 2 %, both shape regimes") {
    RandomStream stream(2024, "gamma");
    // cv 0.5 -> shape 1 / 0.25 = 4 (Marsaglia-Tsang directly), scale 3 x 0.25 = 0.75.
    const Moments m4 = moments(1'000'000, [&] { return stream.gamma_with_mean_cv(3.0, 0.5); });
    CHECK(m4.mean == doctest::Approx(3.0).epsilon(0.02));
    CHECK(m4.cv == doctest::Approx(0.5).epsilon(0.02));
    // cv 2 -> shape 1 / 4 = 0.25 < 1 (the boost U^(1/k)); standard error of the mean
    // 2 / sqrt(1e6) = 0.2 % of the mean, of the cv larger (heavy tail) but well under 2 %.
    const Moments m025 = moments(1'000'000, [&] { return stream.gamma_with_mean_cv(3.0, 2.0); });
    CHECK(m025.mean == doctest::Approx(3.0).epsilon(0.02));
    CHECK(m025.cv == doctest::Approx(2.0).epsilon(0.02));
  }

  TEST_CASE("cv = 0 returns the mean exactly and draws nothing") {
    RandomStream a(5, "s");
    RandomStream b(5, "s");
    CHECK(a.lognormal_with_mean_cv(0.123, 0.0) == 0.123);
    CHECK(a.gamma_with_mean_cv(0.123, 0.0) == 0.123);
    CHECK(a.bits() == b.bits());  // a consumed no bits
  }

  TEST_CASE("the bits are std::mt19937_64's sequence of the stream's seed") {
    // The engine is Boost.Random's; the standard fixes the sequence ([rand.predef]), so a
    // scenario draws the same bits with any standard library. Past several 312-word refills,
    // fresh and re-seeded.
    for (const std::uint64_t seed : {0ULL, 1ULL, 42ULL, 0xdeadbeefULL}) {
      RandomStream fresh(seed, "loader.worker0");
      RandomStream reseeded(seed + 1, "other");
      reseeded.bits();
      reseeded.reseed(seed, "loader.worker0");
      std::mt19937_64 reference(fresh.seed());
      bool same = true;
      for (int i = 0; i < 2000 && same; ++i) {
        const std::uint64_t r = reference();
        same = fresh.bits() == r && reseeded.bits() == r;
      }
      CAPTURE(seed);
      CHECK(same);
    }
  }

  TEST_CASE("reseed makes a used stream the stream a new one would be") {
    RandomStream reused(3, "spot/node/0");
    reused.bits();
    reused.normal(0.0, 1.0);  // leaves a spare normal, which reseed must drop
    reused.reseed(42, "loader.worker0");
    CHECK(reused.seed() == RandomStream::derive_seed(42, "loader.worker0"));
    RandomStream fresh(42, "loader.worker0");
    CHECK(reused.normal(0.0, 1.0) == fresh.normal(0.0, 1.0));
    CHECK(reused.normal(0.0, 1.0) == fresh.normal(0.0, 1.0));
    CHECK(first_bits(reused, 400) == first_bits(fresh, 400));  // past the first 312-word refill
  }

  TEST_CASE("exponential_of_uniform is exponential's transform of its uniform draw") {
    // -mean ln(1 - 1/2) = mean ln 2; at u = 0 the variate is 0.
    CHECK(RandomStream::exponential_of_uniform(2.0, 0.5) == doctest::Approx(2.0 * std::log(2.0)));
    CHECK(RandomStream::exponential_of_uniform(2.0, 0.0) == 0.0);
    RandomStream a(11, "spot/node/3");
    RandomStream b(11, "spot/node/3");
    for (int i = 0; i < 1000; ++i) {
      const double u = b.uniform01();
      REQUIRE(a.exponential(2.5) == RandomStream::exponential_of_uniform(2.5, u));
    }
    CHECK_THROWS_WITH_AS(RandomStream::exponential_of_uniform(-1.0, 0.5),
                         "RandomStream::exponential: mean = -1.000000; expected a finite number >= 0",
                         std::invalid_argument);
  }

  TEST_CASE("invalid parameters throw") {
    RandomStream stream(1, "x");
    CHECK_THROWS_AS(stream.exponential(-1.0), std::invalid_argument);
    CHECK_THROWS_AS(stream.exponential(std::nan("")), std::invalid_argument);
    CHECK_THROWS_AS(stream.normal(0.0, -1.0), std::invalid_argument);
    CHECK_THROWS_AS(stream.lognormal_with_mean_cv(-1.0, 0.5), std::invalid_argument);
    CHECK_THROWS_AS(stream.lognormal_with_mean_cv(1.0, -0.5), std::invalid_argument);
    CHECK_THROWS_AS(stream.gamma_with_mean_cv(1.0, std::nan("")), std::invalid_argument);
    CHECK_THROWS_AS(stream.uniform_below(0), std::invalid_argument);
    CHECK_THROWS_AS(stream.uniform(2.0, 1.0), std::invalid_argument);
  }
}

}  // namespace gpuplan::sim

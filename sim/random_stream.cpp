#include "sim/random_stream.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gpuplan::sim {

namespace {

// FNV-1a, 64-bit (http://www.isthe.com/chongo/tech/comp/fnv/).
constexpr std::uint64_t kFnvOffsetBasis = 14695981039346656037ULL;
constexpr std::uint64_t kFnvPrime = 1099511628211ULL;

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t hash = kFnvOffsetBasis;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= kFnvPrime;
  }
  return hash;
}

// SplitMix64 (Steele, Lea, Flood, OOPSLA 2014; constants as in Vigna's splitmix64.c at
// https://prng.di.unimi.it/splitmix64.c): one step of the generator from state `x`.
std::uint64_t splitmix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void require_finite_non_negative(double value, const char* function, const char* what) {
  if (!std::isfinite(value) || value < 0.0) {
    throw std::invalid_argument(std::string("RandomStream::") + function + ": " + what + " = " +
                                std::to_string(value) + "; expected a finite number >= 0");
  }
}

}  // namespace

std::uint64_t RandomStream::derive_seed(std::uint64_t scenario_seed,
                                        std::string_view component_name) {
  return splitmix64(fnv1a64(component_name) ^ splitmix64(scenario_seed));
}

RandomStream::RandomStream(std::uint64_t scenario_seed, std::string_view component_name)
    : seed_(derive_seed(scenario_seed, component_name)), engine_(seed_) {}

void RandomStream::reseed(std::uint64_t scenario_seed, std::string_view component_name) {
  seed_ = derive_seed(scenario_seed, component_name);
  engine_.seed(seed_);
  spare_normal_ = 0.0;
  has_spare_normal_ = false;
}

double RandomStream::uniform(double low, double high) {
  if (!std::isfinite(low) || !std::isfinite(high) || !(low <= high)) {
    throw std::invalid_argument("RandomStream::uniform: bounds [" + std::to_string(low) + ", " +
                                std::to_string(high) + "); expected finite low <= high");
  }
  return low + (high - low) * uniform01();
}

std::uint64_t RandomStream::uniform_below(std::uint64_t n) {
  if (n == 0) {
    throw std::invalid_argument("RandomStream::uniform_below: n = 0; expected n >= 1");
  }
  // 2^64 mod n, computed in 64-bit arithmetic as (2^64 - n) mod n. Values below it would
  // make the low residues more likely; reject them.
  const std::uint64_t threshold = (std::uint64_t{0} - n) % n;
  for (;;) {
    const std::uint64_t x = engine_();
    if (x >= threshold) {
      return x % n;
    }
  }
}

double RandomStream::exponential(double mean) {
  require_finite_non_negative(mean, "exponential", "mean");  // before the draw, as always
  return exponential_of_uniform(mean, uniform01());
}

double RandomStream::exponential_of_uniform(double mean, double u) {
  require_finite_non_negative(mean, "exponential", "mean");
  return -mean * std::log1p(-u);
}

double RandomStream::standard_normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  // Marsaglia & Bray 1964: a point uniform in the unit disc (minus the origin) gives two
  // independent standard normals u x f and v x f with f = sqrt(-2 ln s / s).
  double u = 0.0;
  double v = 0.0;
  double s = 0.0;
  do {
    u = 2.0 * uniform01() - 1.0;
    v = 2.0 * uniform01() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * std::log(s) / s);
  spare_normal_ = v * factor;
  has_spare_normal_ = true;
  return u * factor;
}

double RandomStream::normal(double mean, double sd) {
  if (!std::isfinite(mean)) {
    throw std::invalid_argument("RandomStream::normal: mean = " + std::to_string(mean) +
                                "; expected a finite number");
  }
  require_finite_non_negative(sd, "normal", "sd");
  return mean + sd * standard_normal();
}

double RandomStream::lognormal_with_mean_cv(double mean, double cv) {
  require_finite_non_negative(mean, "lognormal_with_mean_cv", "mean");
  require_finite_non_negative(cv, "lognormal_with_mean_cv", "cv");
  if (cv == 0.0 || mean == 0.0) {
    return mean;
  }
  const double sigma2 = std::log1p(cv * cv);
  const double mu = std::log(mean) - 0.5 * sigma2;
  return std::exp(mu + std::sqrt(sigma2) * standard_normal());
}

double RandomStream::standard_gamma(double shape) {
  if (shape < 1.0) {
    // Marsaglia & Tsang 2000, section 6: Gamma(a) = Gamma(a + 1) x U^(1/a).
    const double u = 1.0 - uniform01();  // in (0, 1], so the power is finite
    return standard_gamma(shape + 1.0) * std::pow(u, 1.0 / shape);
  }
  // Marsaglia & Tsang 2000: d = a - 1/3, c = 1 / sqrt(9d); accept d v with v = (1 + c x)^3.
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0.0;
    double v = 0.0;
    do {
      x = standard_normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = 1.0 - uniform01();  // in (0, 1], so ln(u) is finite
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) {  // the paper's squeeze
      return d * v;
    }
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) {
      return d * v;
    }
  }
}

double RandomStream::gamma_with_mean_cv(double mean, double cv) {
  require_finite_non_negative(mean, "gamma_with_mean_cv", "mean");
  require_finite_non_negative(cv, "gamma_with_mean_cv", "cv");
  if (cv == 0.0 || mean == 0.0) {
    return mean;
  }
  const double cv2 = cv * cv;
  return standard_gamma(1.0 / cv2) * mean * cv2;
}

}  // namespace gpuplan::sim

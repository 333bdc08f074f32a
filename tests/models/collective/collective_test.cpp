#include "models/collective/collective.h"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>

using namespace gpuplan::models;

TEST_SUITE("models.collective.collective") {
  TEST_CASE("nccl-tests identities by hand") {
    // S = 1 GiB = 1073741824 B in t = 4 ms: algbw = 1073741824 / 0.004 = 268.435456e9 B/s.
    CHECK(algbw_bytes_per_s(1073741824.0, 0.004) == doctest::Approx(268.435456e9));
    // all-reduce, n = 8: busbw = algbw x 2 x 7/8 = 268.435456e9 x 1.75 = 469.762048e9.
    CHECK(busbw_bytes_per_s(Collective::kAllReduce, 8, 1073741824.0, 0.004) ==
          doctest::Approx(469.762048e9));
    // all-gather and reduce-scatter, n = 8: x 7/8 = 234.881024e9.
    CHECK(busbw_bytes_per_s(Collective::kAllGather, 8, 1073741824.0, 0.004) ==
          doctest::Approx(234.881024e9));
    CHECK(busbw_bytes_per_s(Collective::kReduceScatter, 8, 1073741824.0, 0.004) ==
          doctest::Approx(234.881024e9));
  }

  TEST_CASE("identities reproduce a printed nccl-tests row") {
    // nccl-tests-allreduce-2x8xH100.txt, 8589934592 B, out-of-place 47535 us: algbw 180.71,
    // busbw 338.82 GB/s (n = 16: factor 2 x 15/16 = 1.875).
    CHECK(algbw_bytes_per_s(8589934592.0, 47535e-6) == doctest::Approx(180.71e9).epsilon(1e-4));
    CHECK(busbw_bytes_per_s(Collective::kAllReduce, 16, 8589934592.0, 47535e-6) ==
          doctest::Approx(338.82e9).epsilon(1e-4));
  }

  TEST_CASE("bus factors") {
    CHECK(bus_factor(Collective::kAllReduce, 1) == 0.0);
    CHECK(bus_factor(Collective::kAllReduce, 2) == doctest::Approx(1.0));
    CHECK(bus_factor(Collective::kAllGather, 4) == doctest::Approx(0.75));
    CHECK_THROWS_WITH_AS(bus_factor(Collective::kAllGather, 0), "bus_factor: ranks must be >= 1, got 0",
                         std::invalid_argument);
  }

  TEST_CASE("invalid inputs") {
    CHECK_THROWS_AS(algbw_bytes_per_s(-1.0, 1.0), std::invalid_argument);
    CHECK_THROWS_AS(algbw_bytes_per_s(1.0, 0.0), std::invalid_argument);
    CHECK_THROWS_WITH_AS(check_payload(std::nan("")), "collective payload must be finite and >= 0 bytes",
                         std::invalid_argument);
    CHECK(std::string(collective_name(Collective::kReduceScatter)) == "reduce_scatter");
  }
}

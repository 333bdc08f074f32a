#include "models/collective/nvls_algorithm.h"

#include <doctest/doctest.h>

#include <stdexcept>

#include "collective_topologies.h"

using namespace gpuplan::models;
using namespace gpuplan::models::testing;

TEST_SUITE("models.collective.nvls_algorithm") {
  TEST_CASE("8x H200, 1 GiB, by hand") {
    const NvlsAlgorithm nvls;
    // 28 us + 2 x 32 us = 92 us; (1 + 1/8) x 1073741824 B / (0.68 x 450e9 B/s) = 3.9476 ms.
    CHECK(nvls.time_s(Collective::kAllReduce, 1073741824.0, h200_node(), Protocol::kSimple) ==
          doctest::Approx(92e-6 + 1.125 * 1073741824.0 / (0.68 * 450e9)));
  }

  TEST_CASE("busbw can exceed the per-direction link bandwidth") {
    const NvlsAlgorithm nvls;
    const double s = 16.0 * 1024 * 1024 * 1024;
    const double t = nvls.time_s(Collective::kAllReduce, s, h200_node(), Protocol::kSimple);
    CHECK(busbw_bytes_per_s(Collective::kAllReduce, 8, s, t) > 450e9);
  }

  TEST_CASE("only all-reduce, on one node with in-switch reduction, Simple protocol") {
    const NvlsAlgorithm nvls;
    CHECK(nvls.supports(Collective::kAllReduce, h200_node()));
    CHECK_FALSE(nvls.supports(Collective::kAllGather, h200_node()));
    CHECK_FALSE(nvls.supports(Collective::kAllReduce, a3_mega(2)));
    CHECK_FALSE(nvls.supports(Collective::kAllReduce, ib_cluster(1, 8)));  // NVLink3: no SHARP
    CHECK(nvls.supports_protocol(Protocol::kSimple));
    CHECK_FALSE(nvls.supports_protocol(Protocol::kLowLatency));
    CHECK_THROWS_AS(nvls.time_s(Collective::kAllReduce, 1.0, h200_node(), Protocol::kLowLatency),
                    std::invalid_argument);
    CHECK(fastest_protocol(nvls, Collective::kAllReduce, 1e9, h200_node()).protocol == Protocol::kSimple);
  }
}

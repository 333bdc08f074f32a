#include "models/collective/pairwise_algorithm.h"

#include <doctest/doctest.h>

#include <stdexcept>

#include "collective_topologies.h"
#include "models/collective/builtin.h"
#include "models/collective/fastest_collective.h"
#include "models/collective/ring_algorithm.h"

using namespace gpuplan::models;
using namespace gpuplan::models::testing;

TEST_SUITE("models.collective.pairwise_algorithm") {
  TEST_CASE("one node: the nccl-tests identity t = S (n-1)/n / busbw, one hop") {
    const Topology t = ib_cluster(1, 8);
    const PairwiseAlgorithm pairwise;
    const RingAlgorithm ring;
    // Ring all-gather of S = 1e9 B on 8 GPUs: 28 us + 7 hops x 1.3 us + 7/8 S / busbw. The
    // all-to-all sends the same 7/8 S per GPU, all peers at once: 28 us + 1 hop + 7/8 S / busbw.
    const double ring_all_gather_s = ring.time_s(Collective::kAllGather, 1e9, t, Protocol::kSimple);
    const double transfer_s = ring_all_gather_s - 28e-6 - 7 * 1.3e-6;
    CHECK(pairwise.time_s(Collective::kAllToAll, 1e9, t, Protocol::kSimple) ==
          doctest::Approx(28e-6 + 1.3e-6 + transfer_s));
    // busbw = algbw x 7/8 is the link's Simple bus bandwidth 0.6933 x 300e9 B/s.
    CHECK(0.875e9 / transfer_s == doctest::Approx(0.6933 * 300e9).epsilon(1e-3));
  }

  TEST_CASE("two nodes of 8: the bytes leaving a node over its NICs, by hand") {
    const Topology t = ib_cluster(2, 8);
    const PairwiseAlgorithm pairwise;
    // n = 16, g = 8, S = 1e9 B. Intra: 7/16 S = 4.375e8 B over 208 GB/s = 2.1 ms. Network:
    // 8 GPUs x 8/16 S = 4e9 B leave each node over 8 x 0.914 x 25e9 = 182.8e9 B/s = 21.9 ms,
    // the slower. Latency 28 + 1.3 + 17.5 us = 46.8 us.
    CHECK(pairwise.time_s(Collective::kAllToAll, 1e9, t, Protocol::kSimple) ==
          doctest::Approx(46.8e-6 + 4e9 / 182.8e9));
  }

  TEST_CASE("all-to-all only; the fastest built-in all-to-all is pairwise") {
    const Topology t = ib_cluster(1, 8);
    const PairwiseAlgorithm pairwise;
    CHECK_FALSE(pairwise.supports(Collective::kAllReduce, t));
    CHECK_FALSE(RingAlgorithm().supports(Collective::kAllToAll, t));
    CHECK_THROWS_AS((void)pairwise.time_s(Collective::kAllReduce, 1e6, t, Protocol::kSimple), std::invalid_argument);
    CHECK(pairwise.time_s(Collective::kAllToAll, 0.0, t, Protocol::kSimple) == 0.0);
    CHECK(fastest_collective(builtin_collective_registry(), Collective::kAllToAll, 1e8, t).algorithm == "pairwise");
    CHECK(bus_factor(Collective::kAllToAll, 8) == doctest::Approx(7.0 / 8.0));
  }
}

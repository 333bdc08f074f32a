#include "models/collective/tree_algorithm.h"

#include <doctest/doctest.h>

#include <stdexcept>

#include "collective_topologies.h"
#include "models/collective/ring_algorithm.h"

using namespace gpuplan::models;
using namespace gpuplan::models::testing;

TEST_SUITE("models.collective.tree_algorithm") {
  TEST_CASE("4 nodes x 8 A100 over InfiniBand, by hand") {
    const Topology t = ib_cluster(4, 8);
    const TreeAlgorithm tree;
    // Simple latency: 28 + 2 x (7 x 1.3 + ceil(log2 4) = 2 x 17.5) = 28 + 88.2 = 116.2 us.
    // Transfer: max(2 x 1e9 / (0.92 x 208e9), 2 x 3/4 x 1e9 / (0.92 x 182.8e9))
    //         = max(10.4515 ms, 8.9192 ms): the NVLink chain limits.
    CHECK(tree.time_s(Collective::kAllReduce, 1e9, t, Protocol::kSimple) ==
          doctest::Approx(116.2e-6 + 2e9 / (0.92 * 208e9)));
  }

  TEST_CASE("all-reduce only") {
    const TreeAlgorithm tree;
    CHECK(tree.supports(Collective::kAllReduce, ib_cluster(2, 8)));
    CHECK_FALSE(tree.supports(Collective::kAllGather, ib_cluster(2, 8)));
    CHECK_THROWS_WITH_AS(
        tree.time_s(Collective::kAllGather, 1.0, ib_cluster(2, 8), Protocol::kSimple),
        "collective algorithm 'tree' cannot run all_gather on 2 node(s) x 8 GPU(s) over "
        "'nvlink3_nvswitch'",
        std::invalid_argument);
  }

  TEST_CASE("ring versus tree: the tree wins small messages at scale, the ring large ones") {
    const RingAlgorithm ring;
    const TreeAlgorithm tree;
    const Topology big = ib_cluster(64, 8);
    auto best = [&](const ICollectiveAlgorithm& a, double bytes) {
      return fastest_protocol(a, Collective::kAllReduce, bytes, big).time_s;
    };
    // 64 KiB: ring pays 2 x 511 hops (1954 us with LL), the tree 2 x (7 + 6) (50.6 us).
    CHECK(best(tree, 65536.0) < best(ring, 65536.0));
    CHECK(best(tree, 64.0 * 1024 * 1024) < best(ring, 64.0 * 1024 * 1024));
    // 4 GiB: ring S x 1.998 / 182.8e9 beats the tree's S x 1.969 / (0.92 x 182.8e9).
    CHECK(best(ring, 4294967296.0) < best(tree, 4294967296.0));
    // Probe either side of the crossover found by bisection.
    double lo = 65536.0;
    double hi = 4294967296.0;
    for (int i = 0; i < 60; ++i) {
      const double mid = 0.5 * (lo + hi);
      (best(tree, mid) < best(ring, mid) ? lo : hi) = mid;
    }
    CHECK(best(tree, 0.99 * lo) < best(ring, 0.99 * lo));
    CHECK(best(ring, 1.01 * hi) < best(tree, 1.01 * hi));
    // On one node the ring is never slower (same hop count, ring moves 2(n-1)/n S, tree 2S).
    for (double s = 1024.0; s < 1e10; s *= 4.0) {
      CHECK(fastest_protocol(ring, Collective::kAllReduce, s, h200_node()).time_s <=
            fastest_protocol(tree, Collective::kAllReduce, s, h200_node()).time_s);
    }
  }
}

#include "models/collective/hierarchical_algorithm.h"

#include <doctest/doctest.h>

#include "collective_topologies.h"
#include "models/collective/ring_algorithm.h"

using namespace gpuplan::models;
using namespace gpuplan::models::testing;

TEST_SUITE("models.collective.hierarchical_algorithm") {
  TEST_CASE("on one node it is exactly the ring") {
    const HierarchicalAlgorithm hierarchical;
    const RingAlgorithm ring;
    Topology pcie;
    pcie.gpus_per_node = 4;
    pcie.intra_node = intra_node_link("pcie3_host_bridge");
    for (const Topology& t : {h200_node(), pcie}) {
      for (Collective c : {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter}) {
        for (Protocol p : kProtocols) {
          for (double s = 1.0; s < 1e11; s *= 10.0) {
            CHECK(hierarchical.time_s(c, s, t, p) == doctest::Approx(ring.time_s(c, s, t, p)));
          }
        }
      }
    }
  }

  TEST_CASE("2 nodes x 8 H100 over GPUDirect-TCPXO, by hand") {
    const HierarchicalAlgorithm hierarchical;
    const Topology t = a3_mega(2);
    // Simple all-reduce latency: 28 + 2 x 7 x 1.3 + 2 x 1 x (8.75 x 48 = 420) = 886.2 us.
    // Transfer (pipelined: slowest stage): max(2 x 7/8 x S / 367.61e9, 2 x 1/2 x S / (8 x 25e9 x 0.914))
    // = S / 182.8e9 for S = 8 GiB: 46.9909 ms. Total 47.877 ms (measured 47.535 ms).
    const double s = 8589934592.0;
    CHECK(hierarchical.time_s(Collective::kAllReduce, s, t, Protocol::kSimple) ==
          doctest::Approx(886.2e-6 + s / 182.8e9));
    // All-gather: half the hops (28 + 7 x 1.3 + 420 = 457.1 us), (m-1)/m = 1/2 of S per node.
    CHECK(hierarchical.time_s(Collective::kAllGather, s, t, Protocol::kSimple) ==
          doctest::Approx(457.1e-6 + 0.5 * s / 182.8e9));
  }

  TEST_CASE("across nodes it beats the flat ring, which sends 2(n-1)/n S through each node's NICs") {
    const HierarchicalAlgorithm hierarchical;
    const RingAlgorithm ring;
    const Topology t = a3_mega(2);
    for (double s = 1024.0; s < 1e10; s *= 4.0) {
      CHECK(fastest_protocol(hierarchical, Collective::kAllReduce, s, t).time_s <
            fastest_protocol(ring, Collective::kAllReduce, s, t).time_s);
    }
  }
}

#include "models/collective/ring_algorithm.h"

#include <doctest/doctest.h>

#include <stdexcept>

#include "collective_topologies.h"
#include "models/collective/builtin.h"
#include "models/collective/fastest_collective.h"

using namespace gpuplan::models;
using namespace gpuplan::models::testing;

TEST_SUITE("models.collective.ring_algorithm") {
  TEST_CASE("one node over PCIe 4 through a switch, by hand") {
    Topology t;
    t.gpus_per_node = 8;
    t.intra_node = intra_node_link("pcie4_switch");
    const RingAlgorithm ring;
    // Simple: 28 us base + 2 x 7 hops x 4 us = 84 us;
    // bytes per link 2 x 7/8 x 1e8 = 1.75e8 over 0.80 x 31.5077e9 = 25.2062e9 B/s -> 6.9428 ms.
    const double link_bytes_per_s = 0.80 * 16.0 * 16 * 128 / 130 / 8 * 1e9;
    CHECK(ring.time_s(Collective::kAllReduce, 1e8, t, Protocol::kSimple) ==
          doctest::Approx(84e-6 + 1.75e8 / link_bytes_per_s));
    // Low latency: 28 + 14 x 1 us = 42 us; 1.75e8 / (0.40 x 31.5077e9).
    CHECK(ring.time_s(Collective::kAllReduce, 1e8, t, Protocol::kLowLatency) ==
          doctest::Approx(42e-6 + 1.75e8 / (link_bytes_per_s / 2)));
    // All-gather: 7 hops x 4 us + 28 us = 56 us; 7/8 x 1e8 bytes.
    CHECK(ring.time_s(Collective::kAllGather, 1e8, t, Protocol::kSimple) ==
          doctest::Approx(56e-6 + 0.875e8 / link_bytes_per_s));
    CHECK(ring.time_s(Collective::kReduceScatter, 1e8, t, Protocol::kSimple) ==
          ring.time_s(Collective::kAllGather, 1e8, t, Protocol::kSimple));
  }

  TEST_CASE("two consumer GPUs with P2P disabled: one 25 MiB DDP bucket, by hand") {
    Topology t;
    t.gpus_per_node = 2;
    t.intra_node = intra_node_link("pcie4_no_p2p");
    const RingAlgorithm ring;
    // n = 2: 2 hops; bytes per link 2 x 1/2 x S = S = 26214400 B.
    // Simple: 28 + 2 x 8 us = 44 us; S / (0.25 x 31.5077e9 = 7.8769e9 B/s) = 3.3280 ms.
    // Low latency: 28 + 2 x 2 us = 32 us; S / (0.125 x 31.5077e9) = 6.6560 ms: Simple wins.
    const double s = 25.0 * 1024 * 1024;
    const double pcie4 = 16.0 * 16 * 128 / 130 / 8 * 1e9;
    const ProtocolTime best = fastest_protocol(ring, Collective::kAllReduce, s, t);
    CHECK(best.protocol == Protocol::kSimple);
    CHECK(best.time_s == doctest::Approx(44e-6 + s / (0.25 * pcie4)));
    CHECK(ring.time_s(Collective::kAllReduce, s, t, Protocol::kLowLatency) ==
          doctest::Approx(32e-6 + s / (0.125 * pcie4)));
  }

  TEST_CASE("across nodes the NICs of a node are the slowest link; NCCL's hop count") {
    const Topology t = ib_cluster(2, 8);
    const RingAlgorithm ring;
    // n = 16: 30 steps, 2 x 2 = 4 of them over the network.
    // Simple: 28 + 26 x 1.3 + 4 x 17.5 = 131.8 us; bytes 2 x 15/16 x 1e9 = 1.875e9 over
    // min(0.6933 x 300e9, 8 x 0.914 x 25e9 = 182.8e9) = 182.8e9 B/s.
    CHECK(ring.time_s(Collective::kAllReduce, 1e9, t, Protocol::kSimple) ==
          doctest::Approx(131.8e-6 + 1.875e9 / 182.8e9));
    // One GPU per node: every hop is a network hop. n = 4: 6 x 17.5 + 28 = 133 us;
    // bytes 1.5e9 over 182.8e9.
    const Topology one = ib_cluster(4, 1);
    CHECK(ring.time_s(Collective::kAllReduce, 1e9, one, Protocol::kSimple) ==
          doctest::Approx(133e-6 + 1.5e9 / 182.8e9));
  }

  TEST_CASE("trivial calls cost nothing; invalid ones throw") {
    const RingAlgorithm ring;
    Topology single;
    CHECK(ring.time_s(Collective::kAllReduce, 1e9, single, Protocol::kSimple) == 0.0);
    CHECK(ring.time_s(Collective::kAllReduce, 0.0, h200_node(), Protocol::kSimple) == 0.0);
    CHECK_THROWS_AS(ring.time_s(Collective::kAllReduce, -1.0, h200_node(), Protocol::kSimple),
                    std::invalid_argument);
    Topology bad = h200_node();
    bad.nodes = 2;  // no network
    CHECK_THROWS_AS(ring.time_s(Collective::kAllReduce, 1.0, bad, Protocol::kSimple),
                    std::invalid_argument);
  }

  TEST_CASE("monotonic: bigger never faster, more bandwidth never slower (every algorithm)") {
    CollectiveRegistry registry;
    register_builtin_collectives(registry);
    const Topology topologies[] = {h200_node(), a3_mega(2), ib_cluster(16, 8), ib_cluster(3, 1),
                                   ib_cluster(1, 4, "pcie3_no_p2p")};
    const Collective collectives[] = {Collective::kAllReduce, Collective::kAllGather,
                                      Collective::kReduceScatter};
    for (const Topology& t : topologies) {
      Topology faster = t;
      faster.intra_node = with_bandwidth(t.intra_node, 2.0 * t.intra_node.bytes_per_s_per_direction);
      if (t.inter_node) {
        faster.inter_node = with_bandwidth(*t.inter_node, 2.0 * t.inter_node->bytes_per_s_per_direction);
      }
      for (Collective c : collectives) {
        double previous = 0.0;
        for (double s = 1024.0; s <= 16.0 * 1024 * 1024 * 1024; s *= 2.0) {
          INFO("ranks ", t.ranks(), " ", collective_name(c), " bytes ", s);
          const double now = fastest_collective(registry, c, s, t).time_s;
          CHECK(now >= previous);
          CHECK(fastest_collective(registry, c, s, faster).time_s <= now);
          for (const std::string& name : registry.names()) {
            const ICollectiveAlgorithm& a = *registry.find(name);
            if (!a.supports(c, t)) {
              continue;
            }
            CHECK(fastest_protocol(a, c, s, faster).time_s <= fastest_protocol(a, c, s, t).time_s);
            CHECK(fastest_protocol(a, c, 2.0 * s, t).time_s >= fastest_protocol(a, c, s, t).time_s);
          }
          previous = now;
        }
      }
    }
  }
}

#include "models/interconnect/topology.h"

#include <doctest/doctest.h>

#include <stdexcept>

#include "core/units.h"
#include "models/interconnect/interconnect_table.h"

using namespace gpuplan::models;
namespace core = gpuplan::core;

TEST_SUITE("models.interconnect.topology") {
  TEST_CASE("ranks and node network bandwidth") {
    Topology t;
    t.gpus_per_node = 8;
    t.nodes = 4;
    t.intra_node = intra_node_link("nvlink3_nvswitch");
    t.inter_node = network_link(NetworkKind::kInfiniband, core::gigabits_per_s(200), 2e-6);
    t.nics_per_node = 8;
    CHECK(t.ranks() == 32);
    CHECK_NOTHROW(validate_topology(t));
    // 8 NICs x 25 GB/s x 0.914.
    CHECK(node_network_bytes_per_s(t, Protocol::kSimple) == doctest::Approx(8 * 25e9 * 0.914));
  }

  TEST_CASE("a single GPU needs no link") {
    Topology t;
    CHECK_NOTHROW(validate_topology(t));
    CHECK_THROWS_AS(node_network_bytes_per_s(t, Protocol::kSimple), std::logic_error);
  }

  TEST_CASE("invalid topologies name the field") {
    Topology t;
    t.gpus_per_node = 0;
    CHECK_THROWS_WITH_AS(validate_topology(t), "topology.gpus_per_node must be >= 1, got 0",
                         std::invalid_argument);
    t.gpus_per_node = 2;
    CHECK_THROWS_WITH_AS(validate_topology(t),
                         "topology.intra_node (''): bandwidth per direction must be > 0",
                         std::invalid_argument);
    t.intra_node = intra_node_link("pcie4_switch");
    t.nodes = 2;
    CHECK_THROWS_WITH_AS(validate_topology(t),
                         "topology.inter_node is required when nodes > 1 (2 nodes)",
                         std::invalid_argument);
    t.inter_node = network_link(NetworkKind::kEthernet, core::gigabits_per_s(100), 25e-6);
    CHECK_THROWS_WITH_AS(validate_topology(t),
                         "topology.nics_per_node must be >= 1 when nodes > 1, got 0",
                         std::invalid_argument);
    t.nics_per_node = 1;
    t.inter_node->simple.efficiency = 1.5;
    CHECK_THROWS_WITH_AS(validate_topology(t),
                         "topology.inter_node ('ethernet'): protocol simple needs an efficiency in "
                         "(0, 1] and a hop latency >= 0",
                         std::invalid_argument);
  }
}

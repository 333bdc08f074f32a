#include "models/interconnect/interconnect_table.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "core/units.h"

using namespace gpuplan::models;
namespace core = gpuplan::core;

TEST_SUITE("models.interconnect.interconnect_table") {
  TEST_CASE("PCIe x16 raw rates per direction follow the PCI-SIG line rates") {
    // GT/s x 16 lanes x 128/130 / 8 bit: gen3 8 -> 15.754 GB/s, gen4 16 -> 31.508, gen5 32 -> 63.015.
    CHECK(intra_node_link("pcie3_switch").bytes_per_s_per_direction ==
          doctest::Approx(8.0 * 16 * 128 / 130 / 8 * core::kGiga));
    CHECK(intra_node_link("pcie4_host_bridge").bytes_per_s_per_direction ==
          doctest::Approx(core::gigabytes_per_s(31.5077)).epsilon(1e-4));
    CHECK(intra_node_link("pcie5_no_p2p").bytes_per_s_per_direction ==
          doctest::Approx(core::gigabytes_per_s(63.0154)).epsilon(1e-4));
  }

  TEST_CASE("PCIe paths: switch > host bridge > no P2P, and no-P2P hops cost twice") {
    const LinkSpec sw = intra_node_link("pcie4_switch");
    const LinkSpec hb = intra_node_link("pcie4_host_bridge");
    const LinkSpec off = intra_node_link("pcie4_no_p2p");
    CHECK(sw.kind == LinkKind::kPcie);
    CHECK(effective_bytes_per_s(sw, Protocol::kSimple) > effective_bytes_per_s(hb, Protocol::kSimple));
    CHECK(effective_bytes_per_s(hb, Protocol::kSimple) > effective_bytes_per_s(off, Protocol::kSimple));
    CHECK(off.simple.hop_latency_s == doctest::Approx(2.0 * sw.simple.hop_latency_s));
    // Low-latency protocol: half the Simple efficiency (LL: a 4-byte flag per 4 bytes of data).
    CHECK(hb.low_latency.efficiency == doctest::Approx(0.30));
  }

  TEST_CASE("NVLink per direction: 25 GB/s per link x 6, 12, 18 links") {
    CHECK(intra_node_link("nvlink2_direct").bytes_per_s_per_direction == doctest::Approx(core::gigabytes_per_s(150)));
    CHECK(intra_node_link("nvlink3_nvswitch").bytes_per_s_per_direction ==
          doctest::Approx(core::gigabytes_per_s(300)));
    const LinkSpec h = intra_node_link("nvlink4_nvswitch");
    CHECK(h.bytes_per_s_per_direction == doctest::Approx(core::gigabytes_per_s(450)));
    CHECK(h.in_switch_reduction);
    CHECK_FALSE(intra_node_link("nvlink4_direct").in_switch_reduction);
    CHECK_FALSE(intra_node_link("nvlink3_nvswitch").in_switch_reduction);
    // Simple efficiency = 367.61 GB/s measured busbw with NVLS off / 450 GB/s.
    CHECK(effective_bytes_per_s(h, Protocol::kSimple) == doctest::Approx(core::gigabytes_per_s(367.61)));
    CHECK(h.source.find("nvlink") != std::string::npos);
  }

  TEST_CASE("bare catalog names are aliases") {
    CHECK(intra_node_link("pcie4").name == "pcie4_host_bridge");
    CHECK(intra_node_link("nvlink3").name == "nvlink3_nvswitch");
    CHECK(intra_node_link("nvlink4").name == "nvlink4_nvswitch");
    CHECK(intra_node_link("nvlink2").name == "nvlink2_direct");
    CHECK(intra_node_link("nvlink5").name == "nvlink5_nvswitch");
  }

  TEST_CASE("the table holds exactly these names") {
    const std::vector<std::string> expected = {
        "infinity_fabric_mesh",
        "nvlink2_direct",    "nvlink2_nvswitch", "nvlink3_direct",   "nvlink3_nvswitch",
        "nvlink4_direct",    "nvlink4_nvswitch", "nvlink5_direct",    "nvlink5_nvswitch",
        "pcie3_host_bridge", "pcie3_no_p2p",
        "pcie3_switch",      "pcie4_host_bridge", "pcie4_no_p2p",     "pcie4_switch",
        "pcie5_host_bridge", "pcie5_no_p2p",     "pcie5_switch"};
    CHECK(intra_node_link_names() == expected);
  }

  TEST_CASE("the AMD Infinity Fabric mesh: 7 links x 64 GB/s per direction, no in-switch reduction") {
    const LinkSpec fabric = intra_node_link("infinity_fabric_mesh");
    CHECK(fabric.kind == LinkKind::kInfinityFabric);
    CHECK(fabric.bytes_per_s_per_direction == doctest::Approx(7 * 64e9));
    CHECK_FALSE(fabric.in_switch_reduction);
    // ESTIMATE: NVLink3's measured Simple efficiency (V086), no RCCL measurement.
    CHECK(fabric.simple.efficiency == doctest::Approx(208.0 / 300.0));
  }

  TEST_CASE("an unknown name lists the accepted ones") {
    try {
      intra_node_link("nvlink9");
      FAIL("expected an exception");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()) ==
            "unknown interconnect 'nvlink9'; expected one of: infinity_fabric_mesh, nvlink2_direct, nvlink2_nvswitch, "
            "nvlink3_direct, nvlink3_nvswitch, nvlink4_direct, nvlink4_nvswitch, nvlink5_direct, "
            "nvlink5_nvswitch, pcie3_host_bridge, "
            "pcie3_no_p2p, pcie3_switch, pcie4_host_bridge, pcie4_no_p2p, pcie4_switch, "
            "pcie5_host_bridge, pcie5_no_p2p, pcie5_switch (or pcie3, pcie4, pcie5, nvlink2, "
            "nvlink3, nvlink4, nvlink5)");
    }
  }

  TEST_CASE("a network link from a bandwidth and a per-message latency") {
    // 200 Gbit/s = 25e9 B/s per NIC; InfiniBand 2 us per message.
    const LinkSpec ib = network_link(NetworkKind::kInfiniband, core::gigabits_per_s(200),
                                     default_message_latency_s(NetworkKind::kInfiniband));
    CHECK(ib.kind == LinkKind::kNetwork);
    CHECK(ib.bytes_per_s_per_direction == doctest::Approx(25e9));
    CHECK(ib.low_latency.hop_latency_s == doctest::Approx(2e-6));
    // Simple: 8.75 x 2 us = 17.5 us per hop; 0.914 of the line rate.
    CHECK(ib.simple.hop_latency_s == doctest::Approx(17.5e-6));
    CHECK(effective_bytes_per_s(ib, Protocol::kSimple) == doctest::Approx(0.914 * 25e9));
    CHECK(effective_bytes_per_s(ib, Protocol::kLowLatency) == doctest::Approx(0.10 * 25e9));
    const LinkSpec eth = network_link(NetworkKind::kEthernet, core::gigabits_per_s(100), 25e-6);
    CHECK(effective_bytes_per_s(eth, Protocol::kSimple) < effective_bytes_per_s(ib, Protocol::kSimple));
    CHECK(eth.name == "ethernet");
  }

  TEST_CASE("invalid network and bandwidth inputs throw") {
    CHECK_THROWS_AS(network_link(NetworkKind::kEthernet, 0.0, 1e-6), std::invalid_argument);
    CHECK_THROWS_AS(network_link(NetworkKind::kEthernet, 1e9, -1.0), std::invalid_argument);
    CHECK_THROWS_WITH_AS(with_bandwidth(intra_node_link("nvlink3"), -5.0),
                         "link 'nvlink3_nvswitch': bandwidth per direction must be finite and > 0",
                         std::invalid_argument);
    const LinkSpec bridge = with_bandwidth(intra_node_link("nvlink3"), core::gigabytes_per_s(100));
    CHECK(bridge.bytes_per_s_per_direction == doctest::Approx(1e11));
    CHECK(bridge.simple.efficiency == doctest::Approx(208.0 / 300.0));
  }
}

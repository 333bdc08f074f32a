// The rules that build the collective topology from hardware facts (config/hardware_topology.h):
// interconnect names, the GPU's NVLink figure, the instance network rule, the PCIe-switch
// default and the validation of the result. Hand-derived expectations in comments (STYLE.md T2).

#include "config/hardware_topology.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/units.h"

namespace gpuplan::config {
namespace {

models::GpuSpec gpu_with_nvlink(double bytes_per_s) {
  models::GpuSpec gpu;
  gpu.name = "test-gpu";
  gpu.pcie_generation = 4;
  gpu.nvlink_bytes_per_s_per_direction = bytes_per_s;
  return gpu;
}

bool accepted(const std::string& name) {
  const std::vector<std::string> names = interconnect_choices();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

TEST_SUITE("config.hardware_topology") {
  TEST_CASE("accepted interconnects: the bare aliases first, then every table name") {
    const std::vector<std::string> names = interconnect_choices();
    REQUIRE(names.size() == 7 + models::intra_node_link_names().size());
    CHECK(std::vector<std::string>(names.begin(), names.begin() + 7) ==
          std::vector<std::string>{"pcie3", "pcie4", "pcie5", "nvlink2", "nvlink3", "nvlink4", "nvlink5"});
    for (const char* name : {"pcie4_switch", "pcie4_host_bridge", "pcie4_no_p2p", "pcie5_switch", "nvlink2_direct",
                             "nvlink3_nvswitch", "nvlink4_direct", "nvlink4_nvswitch", "nvlink5", "nvlink5_nvswitch"}) {
      CAPTURE(name);
      CHECK(accepted(name));
    }
    // Refused on purpose, with a reason.
    CHECK_FALSE(accepted("nvlink1"));
    CHECK(unsupported_interconnect_reason("nvlink1").find("NVLink 1 (P100 SXM2)") == 0);
    CHECK(unsupported_interconnect_reason("nvlink5").empty());
    CHECK(unsupported_interconnect_reason("nvlink4").empty());
  }

  TEST_CASE("NVLink takes the GPU's per-direction figure; PCIe keeps its generation's") {
    // nvlink3 -> nvlink3_nvswitch (alias); a GPU of 300 GB/s per direction keeps it, one of
    // 56.25 GB/s (an RTX 3090 bridge) replaces the table's 12 x 25 GB/s.
    const models::LinkSpec a100 = intra_node_link_for("nvlink3", gpu_with_nvlink(core::gigabytes_per_s(300)), 8);
    CHECK(a100.name == "nvlink3_nvswitch");
    CHECK(a100.bytes_per_s_per_direction == doctest::Approx(core::gigabytes_per_s(300)));
    const models::LinkSpec bridge =
        intra_node_link_for("nvlink3_direct", gpu_with_nvlink(core::gigabytes_per_s(56.25)), 8);
    CHECK(bridge.name == "nvlink3_direct");
    CHECK(bridge.bytes_per_s_per_direction == doctest::Approx(core::gigabytes_per_s(56.25)));
    // Efficiencies stay the table's: 208 / 300 (V086).
    CHECK(bridge.simple.efficiency == doctest::Approx(208.0 / 300.0));
    // A GPU without an NVLink figure keeps the table's bandwidth (18 x 25 GB/s).
    CHECK(intra_node_link_for("nvlink4", gpu_with_nvlink(0.0), 8).bytes_per_s_per_direction ==
          doctest::Approx(core::gigabytes_per_s(450)));
    // PCIe 4.0 x16: 16 GT/s x 16 lanes x 128/130 / 8 bit = 31.51 GB/s, whatever the GPU's NVLink.
    const models::LinkSpec pcie = intra_node_link_for("pcie4_no_p2p", gpu_with_nvlink(core::gigabytes_per_s(300)), 8);
    CHECK(pcie.name == "pcie4_no_p2p");
    CHECK(pcie.bytes_per_s_per_direction == doctest::Approx(core::gigabits_per_s(16.0 * 16.0 * 128.0 / 130.0)));
    // NVLink 5 without a GPU figure: the table's 18 links x 50 GB/s = 900 GB/s per direction.
    const models::LinkSpec nv5 = intra_node_link_for("nvlink5", gpu_with_nvlink(0.0), 8);
    CHECK(nv5.name == "nvlink5_nvswitch");
    CHECK(nv5.bytes_per_s_per_direction == doctest::Approx(core::gigabytes_per_s(900)));
    CHECK(nv5.in_switch_reduction);
    CHECK_THROWS_AS(intra_node_link_for("nvlink6", gpu_with_nvlink(0.0), 8), std::invalid_argument);
  }

  TEST_CASE("Infinity Fabric: a full mesh, one 64 GB/s link per peer of the job") {
    models::GpuSpec mi300x;
    mi300x.name = "mi300x";
    mi300x.vendor = models::GpuVendor::kAmd;
    mi300x.form_factor = "oam";
    mi300x.pcie_generation = 5;
    mi300x.infinity_fabric_links = 7;
    mi300x.infinity_fabric_link_bytes_per_s_per_direction = core::gigabytes_per_s(64);
    CHECK(default_interconnect(mi300x) == "infinity_fabric_mesh");
    // 8 GPUs: 7 peers x 64 GB/s = 448 GB/s per direction; 2 GPUs: the one link between them.
    const models::LinkSpec eight = intra_node_link_for("infinity_fabric_mesh", mi300x, 8);
    CHECK(eight.kind == models::LinkKind::kInfinityFabric);
    CHECK(eight.bytes_per_s_per_direction == doctest::Approx(core::gigabytes_per_s(448)));
    CHECK_FALSE(eight.in_switch_reduction);
    CHECK(intra_node_link_for("infinity_fabric_mesh", mi300x, 2).bytes_per_s_per_direction ==
          doctest::Approx(core::gigabytes_per_s(64)));
    CHECK(interconnect_problem("infinity_fabric_mesh", mi300x, 8).problem.empty());
    const InterconnectProblem sixteen = interconnect_problem("infinity_fabric_mesh", mi300x, 16);
    CHECK(sixteen.problem == "an Infinity Fabric mesh of 7 links per GPU joins 8 mi300x GPUs, not 16");
    CHECK(sixteen.fix == "; use gpus_per_node: 8 or fewer, and more nodes");
    // An NVIDIA GPU has no Infinity Fabric links: its own interconnect instead.
    const InterconnectProblem nvidia = interconnect_problem("infinity_fabric_mesh", gpu_with_nvlink(0.0), 8);
    CHECK(nvidia.problem == "test-gpu has no Infinity Fabric links (AMD Instinct platforms only)");
    CHECK(nvidia.fix == "; use pcie4");
  }

  TEST_CASE("a scenario may refine the instance's interconnect within its bus generation") {
    CHECK(interconnect_agrees("nvlink3", "nvlink3"));
    CHECK(interconnect_agrees("nvlink3_nvswitch", "nvlink3"));
    CHECK(interconnect_agrees("nvlink3_direct", "nvlink3"));
    CHECK(interconnect_agrees("pcie4_no_p2p", "pcie4"));
    CHECK_FALSE(interconnect_agrees("pcie4_switch", "nvlink3"));
    CHECK_FALSE(interconnect_agrees("nvlink4", "nvlink3"));
    CHECK_FALSE(interconnect_agrees("pcie5_switch", "pcie4"));
    CHECK_FALSE(interconnect_agrees("nvlink3_bogus", "nvlink3"));
  }

  TEST_CASE("GPUs per PCIe switch: 2 on an NVSwitch board with 2 GPUs or more, else 1") {
    const models::LinkSpec nvswitch = models::intra_node_link("nvlink4_nvswitch");
    CHECK(default_gpus_per_pcie_switch(nvswitch, 8) == 2);
    CHECK(default_gpus_per_pcie_switch(nvswitch, 2) == 2);
    CHECK(default_gpus_per_pcie_switch(nvswitch, 1) == 1);                            // either side of the threshold
    CHECK(default_gpus_per_pcie_switch(models::intra_node_link("nvlink3"), 8) == 2);  // alias of *_nvswitch
    CHECK(default_gpus_per_pcie_switch(models::intra_node_link("nvlink2"), 8) == 1);  // nvlink2_direct
    CHECK(default_gpus_per_pcie_switch(models::intra_node_link("nvlink4_direct"), 8) == 1);
    CHECK(default_gpus_per_pcie_switch(models::intra_node_link("pcie4_switch"), 8) == 1);
  }

  TEST_CASE("an instance's network is one NIC; infiniband from 400 Gbit/s, ethernet below") {
    // p4d.24xlarge: 400 Gbit/s = 50 GB/s, RDMA class, 2 us.
    const NetworkChoice p4d = instance_network(core::gigabits_per_s(400));
    CHECK(p4d.kind == models::NetworkKind::kInfiniband);
    CHECK(p4d.nic_bytes_per_s == doctest::Approx(50e9));
    CHECK(p4d.nics == 1);
    CHECK(p4d.message_latency_s == doctest::Approx(core::microseconds(2)));
    CHECK(p4d.node_bytes_per_s() == doctest::Approx(50e9));
    // Just below the threshold: plain Ethernet (TCP sockets), 25 us.
    const NetworkChoice below = instance_network(core::gigabits_per_s(399));
    CHECK(below.kind == models::NetworkKind::kEthernet);
    CHECK(below.message_latency_s == doctest::Approx(core::microseconds(25)));
    // p5.48xlarge: 3200 Gbit/s as ONE aggregate NIC of 400 GB/s.
    const NetworkChoice p5 = instance_network(core::gigabits_per_s(3200));
    CHECK(p5.kind == models::NetworkKind::kInfiniband);
    CHECK(p5.nic_bytes_per_s == doctest::Approx(400e9));
    CHECK_THROWS_AS(instance_network(0.0), std::invalid_argument);
  }

  TEST_CASE("make_topology builds and validates; a bad topology throws invalid_argument") {
    const models::LinkSpec intra = models::intra_node_link("nvlink3_nvswitch");
    // One GPU needs no links at all.
    const models::Topology one = make_topology(1, 1, intra, nullptr);
    CHECK(one.ranks() == 1);
    CHECK_FALSE(one.inter_node);
    CHECK(one.nics_per_node == 0);
    // 2 nodes x 8 GPUs over 4 NICs of 200 Gbit/s InfiniBand at 2 us.
    const NetworkChoice ib{models::NetworkKind::kInfiniband, core::gigabits_per_s(200), core::microseconds(2), 4};
    const models::Topology two = make_topology(8, 2, intra, &ib);
    CHECK(two.ranks() == 16);
    REQUIRE(two.inter_node);
    CHECK(two.inter_node->name == "infiniband");
    CHECK(two.inter_node->bytes_per_s_per_direction == doctest::Approx(25e9));
    CHECK(two.inter_node->low_latency.hop_latency_s == doctest::Approx(2e-6));
    CHECK(two.inter_node->simple.hop_latency_s == doctest::Approx(8.75 * 2e-6));  // kNetworkSimpleLatencyFactor
    CHECK(two.nics_per_node == 4);
    // Several nodes and no network: models::validate_topology refuses it.
    CHECK_THROWS_WITH_AS(make_topology(8, 2, intra, nullptr),
                         "topology.inter_node is required when nodes > 1 (2 nodes)", std::invalid_argument);
    const NetworkChoice no_nic{models::NetworkKind::kEthernet, 1e9, 0.0, 0};
    CHECK_THROWS_AS(make_topology(8, 2, intra, &no_nic), std::invalid_argument);
  }
}

}  // namespace gpuplan::config

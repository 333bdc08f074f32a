// hardware.gpu_interconnect, hardware.network and hardware.gpus_per_pcie_switch as a scenario
// writes them, and the HardwareSpec::topology they resolve to: hand-checked values, then one
// test per kind of bad input with the whole message (file:line:column, key path, fix; STYLE.md
// T4). Inline YAML (T7); the shipped catalogs.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "config/scenario_loader.h"
#include "config_fixture.h"
#include "core/units.h"

namespace gpuplan::config {
namespace {

using namespace testing;

Scenario parse(const std::string& text) { return parse_text(text); }
Messages errors_of(const std::string& text) { return scenario_errors(text); }

// 8 x a100-80gb in one node; the hardware keys of each test are appended from line 14 on.
const char* const kNode = R"(format: gpuplan/v1
workload:
  model: resnet50
  dataset: {samples: 1281167, sample_size: "110 KiB", decode_time: "6 ms"}
  epochs: 90
training: {batch_size: 32}
parallelism: {strategy: ddp}
hardware:
  gpu: a100-80gb
  cpu_cores: 8
  host_memory: "64 GiB"
  storage: nvme_ssd
  gpus_per_node: 8
)";

// Two aws/p4d.24xlarge nodes; further hardware keys are appended from line 12 on.
const char* const kP4d = R"(format: gpuplan/v1
workload:
  model: resnet50
  dataset: {samples: 1281167, sample_size: "110 KiB", decode_time: "6 ms"}
  epochs: 90
training: {batch_size: 32}
parallelism: {strategy: ddp}
cloud:
  instance: aws/p4d.24xlarge
hardware:
  nodes: 2
)";

std::string node(const std::string& extra) { return std::string(kNode) + extra; }
std::string p4d(const std::string& extra) { return std::string(kP4d) + extra; }

/// A copy of the hardware of one variant (the Scenario is often a temporary).
models::HardwareSpec hardware_of(const Scenario& s, std::size_t variant = 0) {
  REQUIRE(s.variants.size() > variant);
  return s.variants[variant].job.hardware;
}

// The accepted values of gpu_interconnect as every "expected one of" message lists them.
const std::string kInterconnects =
    "pcie3, pcie4, pcie5, nvlink2, nvlink3, nvlink4, nvlink5, infinity_fabric_mesh, nvlink2_direct, nvlink2_nvswitch, "
    "nvlink3_direct, "
    "nvlink3_nvswitch, nvlink4_direct, nvlink4_nvswitch, nvlink5_direct, nvlink5_nvswitch, pcie3_host_bridge, pcie3_no_p2p, pcie3_switch, "
    "pcie4_host_bridge, pcie4_no_p2p, pcie4_switch, pcie5_host_bridge, pcie5_no_p2p or pcie5_switch";

}  // namespace

TEST_SUITE("config.scenario_hardware") {
  // ---- resolved values ---------------------------------------------------------------

  TEST_CASE("a100-80gb with nvlink3: nvlink3_nvswitch at the catalog's 300 GB/s, 2 GPUs per PCIe switch") {
    const models::HardwareSpec hw = hardware_of(parse(node("  gpu_interconnect: nvlink3\n")));
    CHECK(hw.gpu_interconnect == "nvlink3");  // as written
    const models::Topology& t = hw.topology;
    CHECK(t.gpus_per_node == 8);
    CHECK(t.nodes == 1);
    CHECK(t.intra_node.name == "nvlink3_nvswitch");
    // catalogs/gpus.yaml a100-80gb nvlink_per_direction "300 GB/s" (12 links x 25 GB/s).
    CHECK(t.intra_node.bytes_per_s_per_direction == doctest::Approx(300e9));
    CHECK(t.intra_node.simple.efficiency == doctest::Approx(208.0 / 300.0));  // the table's, kept
    CHECK_FALSE(t.inter_node);
    CHECK(t.nics_per_node == 0);
    CHECK(hw.gpus_per_pcie_switch == 2);  // NVSwitch board, 8 GPUs
    CHECK(hw.network_bytes_per_s == 0.0);
  }

  TEST_CASE("pcie4_no_p2p keeps the PCIe 4.0 x16 figure; one GPU per PCIe switch") {
    const models::HardwareSpec hw = hardware_of(parse(node("  gpu_interconnect: pcie4_no_p2p\n")));
    CHECK(hw.topology.intra_node.name == "pcie4_no_p2p");
    // 16 GT/s x 16 lanes x 128/130 / 8 bit/B = 31.51 GB/s per direction.
    CHECK(hw.topology.intra_node.bytes_per_s_per_direction == doctest::Approx(31.5077e9).epsilon(1e-5));
    CHECK(hw.topology.intra_node.simple.efficiency == doctest::Approx(0.25));
    CHECK(hw.gpus_per_pcie_switch == 1);
  }

  TEST_CASE("without gpu_interconnect an SXM GPU sits on its NVLink board, a PCIe card on its PCIe generation") {
    // a100-80gb is SXM4 with NVLink 3 -> nvlink3 -> nvlink3_nvswitch (HGX A100).
    const models::HardwareSpec sxm = hardware_of(parse(node("")));
    CHECK(sxm.gpu_interconnect == "nvlink3");
    CHECK(sxm.topology.intra_node.name == "nvlink3_nvswitch");
    CHECK(sxm.gpus_per_pcie_switch == 2);
    // The bare PCIe alias resolves to the host bridge.
    const models::HardwareSpec pcie = hardware_of(parse(node("  gpu_interconnect: pcie4\n")));
    CHECK(pcie.topology.intra_node.name == "pcie4_host_bridge");
    CHECK(pcie.gpus_per_pcie_switch == 1);
  }

  TEST_CASE("Blackwell: 8 x b200 or gb200 default to their NVLink 5 NVSwitch board and accept nvlink5") {
    for (const char* gpu : {"b200", "gb200"}) {
      CAPTURE(gpu);
      std::string text = node("");
      text.replace(text.find("a100-80gb"), 9, gpu);
      // Without gpu_interconnect: SXM with NVLink 5 -> nvlink5 -> nvlink5_nvswitch (HGX B200 /
      // GB200 NVL72), at the catalog's 900 GB/s per direction (18 links x 50 GB/s).
      const models::HardwareSpec hw = hardware_of(parse(text));
      CHECK(hw.gpu_interconnect == "nvlink5");
      CHECK(hw.topology.intra_node.name == "nvlink5_nvswitch");
      CHECK(hw.topology.intra_node.bytes_per_s_per_direction == doctest::Approx(900e9));
      CHECK(hw.gpus_per_pcie_switch == 2);
      const models::HardwareSpec written = hardware_of(parse(text + "  gpu_interconnect: nvlink5\n"));
      CHECK(written.topology.intra_node.name == "nvlink5_nvswitch");
      CHECK(errors_of(text + "  gpu_interconnect: nvlink4\n") ==
            Messages{std::string(gpu) + " has NVLink 5, not NVLink 4 at s.yaml:14:21 (hardware.gpu_interconnect); "
                     "use nvlink5 (or a wiring of it such as nvlink5_nvswitch)"});
    }
  }

  TEST_CASE("on PCIe cards a bare NVLink alias is the bridge between two cards") {
    std::string text = node("  gpu_interconnect: nvlink3\n");
    text.replace(text.find("a100-80gb"), 9, "rtx3090");
    text.replace(text.find("gpus_per_node: 8"), 16, "gpus_per_node: 2");
    const models::HardwareSpec hw = hardware_of(parse(text));
    CHECK(hw.topology.intra_node.name == "nvlink3_direct");
    CHECK(hw.topology.intra_node.bytes_per_s_per_direction == doctest::Approx(56.25e9));  // catalog figure
    CHECK(hw.gpus_per_pcie_switch == 1);
  }

  TEST_CASE("one GPU needs no links: a 1 x 1 topology") {
    const models::HardwareSpec hw = hardware_of(parse(R"(format: gpuplan/v1
workload:
  model: resnet50
  dataset: {samples: 1281167, sample_size: "110 KiB", decode_time: "6 ms"}
  epochs: 90
training: {batch_size: 32}
hardware: {gpu: rtx3090, cpu_cores: 8, host_memory: "64 GiB", storage: nvme_ssd}
)"));
    CHECK(hw.topology.ranks() == 1);
    CHECK(hw.topology.intra_node.name == "pcie4_host_bridge");
    CHECK_FALSE(hw.topology.inter_node);
    CHECK(hw.gpus_per_pcie_switch == 1);
  }

  TEST_CASE("aws/p4d.24xlarge with 2 nodes: its 400 Gbit/s as one InfiniBand NIC") {
    const models::HardwareSpec hw = hardware_of(parse(p4d("")));
    const models::Topology& t = hw.topology;
    CHECK(t.gpus_per_node == 8);
    CHECK(t.nodes == 2);
    CHECK(t.intra_node.name == "nvlink3_nvswitch");                           // the catalog's nvlink3
    CHECK(t.intra_node.bytes_per_s_per_direction == doctest::Approx(300e9));  // a100-40gb
    REQUIRE(t.inter_node);
    CHECK(t.inter_node->name == "infiniband");                                // 400 Gbit/s >= the RDMA-class threshold
    CHECK(t.inter_node->bytes_per_s_per_direction == doctest::Approx(50e9));  // 400 / 8
    CHECK(t.inter_node->low_latency.hop_latency_s == doctest::Approx(2e-6));  // InfiniBand default
    CHECK(t.nics_per_node == 1);
    CHECK(hw.network_bytes_per_s == doctest::Approx(50e9));
    CHECK(hw.gpus_per_pcie_switch == 2);
  }

  TEST_CASE("an instance below 400 Gbit/s gives an Ethernet NIC") {
    // g5.48xlarge: 8 x A10G over PCIe 4, 100 Gbit/s = 12.5 GB/s, TCP sockets at 25 us.
    std::string text = p4d("");
    text.replace(text.find("p4d.24xlarge"), 12, "g5.48xlarge");
    const models::Topology t = hardware_of(parse(text)).topology;
    CHECK(t.intra_node.name == "pcie4_host_bridge");
    REQUIRE(t.inter_node);
    CHECK(t.inter_node->name == "ethernet");
    CHECK(t.inter_node->bytes_per_s_per_direction == doctest::Approx(12.5e9));
    CHECK(t.inter_node->low_latency.hop_latency_s == doctest::Approx(25e-6));
    CHECK(t.nics_per_node == 1);
  }

  TEST_CASE("a network map: 4 NICs of 200 Gbit/s InfiniBand at 2 us") {
    const models::HardwareSpec hw = hardware_of(parse(node(
        "  nodes: 2\n  network: {bandwidth: \"200 Gbit/s\", transport: infiniband, latency: \"2 us\", nics: 4}\n")));
    const models::Topology& t = hw.topology;
    REQUIRE(t.inter_node);
    CHECK(t.inter_node->name == "infiniband");
    CHECK(t.inter_node->bytes_per_s_per_direction == doctest::Approx(25e9));  // 200 Gbit/s per NIC
    CHECK(t.inter_node->low_latency.hop_latency_s == doctest::Approx(2e-6));
    CHECK(t.inter_node->simple.hop_latency_s == doctest::Approx(17.5e-6));  // 8.75 x 2 us
    CHECK(t.inter_node->simple.efficiency == doctest::Approx(0.914));       // RDMA class
    CHECK(t.nics_per_node == 4);
    CHECK(hw.network_bytes_per_s == doctest::Approx(100e9));  // 4 x 25 GB/s
  }

  TEST_CASE("network defaults: a bandwidth is one Ethernet NIC; a map's transport, latency and nics") {
    const models::Topology scalar = hardware_of(parse(node("  nodes: 2\n  network: \"100 Gbit/s\"\n"))).topology;
    REQUIRE(scalar.inter_node);
    CHECK(scalar.inter_node->name == "ethernet");
    CHECK(scalar.inter_node->bytes_per_s_per_direction == doctest::Approx(12.5e9));
    CHECK(scalar.inter_node->low_latency.hop_latency_s == doctest::Approx(25e-6));
    CHECK(scalar.inter_node->simple.efficiency == doctest::Approx(0.90));  // sockets
    CHECK(scalar.nics_per_node == 1);
    const models::Topology map =
        hardware_of(parse(node("  nodes: 2\n  network: {bandwidth: \"200 Gbit/s\"}\n"))).topology;
    REQUIRE(map.inter_node);
    CHECK(map.inter_node->name == "ethernet");
    CHECK(map.inter_node->low_latency.hop_latency_s == doctest::Approx(25e-6));
    CHECK(map.nics_per_node == 1);
    const models::Topology tcpxo =
        hardware_of(
            parse(node("  nodes: 2\n  network: {bandwidth: \"200 Gbit/s\", transport: gpudirect_tcpxo, nics: 8}\n")))
            .topology;
    REQUIRE(tcpxo.inter_node);
    CHECK(tcpxo.inter_node->name == "gpudirect_tcpxo");
    CHECK(tcpxo.inter_node->low_latency.hop_latency_s == doctest::Approx(48e-6));  // fitted default
    CHECK(tcpxo.nics_per_node == 8);
  }

  TEST_CASE("an explicit network replaces the instance's; its transport is the scenario's") {
    const models::HardwareSpec hw =
        hardware_of(parse(p4d("  network: {bandwidth: \"100 Gbit/s\", transport: infiniband, nics: 4}\n")));
    REQUIRE(hw.topology.inter_node);
    CHECK(hw.topology.inter_node->bytes_per_s_per_direction == doctest::Approx(12.5e9));
    CHECK(hw.topology.nics_per_node == 4);
    CHECK(hw.network_bytes_per_s == doctest::Approx(50e9));  // exactly the instance's 400 Gbit/s
  }

  TEST_CASE("the scenario may name the wiring of the instance's bus generation") {
    const models::HardwareSpec hw = hardware_of(parse(p4d("  gpu_interconnect: nvlink3_direct\n")));
    CHECK(hw.topology.intra_node.name == "nvlink3_direct");
    CHECK(hw.gpus_per_pcie_switch == 1);  // no NVSwitch named
  }

  TEST_CASE("gpus_per_pcie_switch as written") {
    CHECK(hardware_of(parse(node("  gpus_per_pcie_switch: 4\n"))).gpus_per_pcie_switch == 4);
    CHECK(hardware_of(parse(node("  gpu_interconnect: nvlink3\n  gpus_per_pcie_switch: 1\n"))).gpus_per_pcie_switch ==
          1);
  }

  TEST_CASE("sweeps and strategies rebuild the topology of every variant") {
    const Scenario s = parse(node(R"(  gpu_interconnect: nvlink3
  nodes: 2
  network: {bandwidth: "100 Gbit/s", transport: infiniband}
strategies:
  base: {}
  pcie: {hardware.gpu_interconnect: pcie4_switch, hardware.network.nics: 8}
sweep:
  hardware.gpus_per_node: [1, 8]
)"));
    REQUIRE(s.variants.size() == 4);
    // base, 1 GPU per node: NVSwitch named but a single GPU, so 1 GPU per PCIe switch.
    CHECK(s.variants[0].job.hardware.topology.gpus_per_node == 1);
    CHECK(s.variants[0].job.hardware.gpus_per_pcie_switch == 1);
    CHECK(s.variants[0].job.hardware.topology.nics_per_node == 1);
    // base, 8 GPUs per node.
    CHECK(s.variants[1].job.hardware.topology.gpus_per_node == 8);
    CHECK(s.variants[1].job.hardware.topology.intra_node.name == "nvlink3_nvswitch");
    CHECK(s.variants[1].job.hardware.gpus_per_pcie_switch == 2);
    // pcie strategy: the link and the NICs of the override.
    for (std::size_t i : {2U, 3U}) {
      CAPTURE(i);
      const models::HardwareSpec& hw = s.variants[i].job.hardware;
      CHECK(hw.topology.intra_node.name == "pcie4_switch");
      CHECK(hw.gpus_per_pcie_switch == 1);
      CHECK(hw.topology.nics_per_node == 8);
      CHECK(hw.network_bytes_per_s == doctest::Approx(100e9));  // 8 x 12.5 GB/s
    }
    CHECK(s.variants[3].job.hardware.topology.gpus_per_node == 8);
    CHECK(s.variants[3].job.hardware.topology.nodes == 2);
  }

  TEST_CASE("a sweep over hardware.network mixes a bandwidth and a map") {
    const Scenario s = parse(node(R"(  nodes: 2
sweep:
  hardware.network: ["100 Gbit/s", {bandwidth: "400 Gbit/s", transport: infiniband, nics: 8}]
)"));
    REQUIRE(s.variants.size() == 2);
    CHECK(s.variants[0].sweep_point == "hardware.network=100 Gbit/s");
    CHECK(s.variants[0].job.hardware.topology.inter_node->name == "ethernet");
    CHECK(s.variants[1].job.hardware.topology.inter_node->name == "infiniband");
    CHECK(s.variants[1].job.hardware.topology.nics_per_node == 8);
    CHECK(s.variants[1].job.hardware.network_bytes_per_s == doctest::Approx(400e9));  // 8 x 50 GB/s
  }

  TEST_CASE("--print-resolved shows the links, the network with several nodes and the PCIe switches") {
    const std::string text = print_resolved(parse(p4d("")));
    CHECK(text.find("      gpus_per_pcie_switch: 2\n"
                    "      topology:\n"
                    "        intra_node: nvlink3_nvswitch\n"
                    "        intra_node_bandwidth_per_direction: 300000000000 B/s\n"
                    "        network:\n"
                    "          transport: infiniband\n"
                    "          bandwidth_per_nic: 50000000000 B/s\n"
                    "          latency: 2e-06 s\n"
                    "          nics: 1\n") != std::string::npos);
    // One node: no network block.
    const std::string one = print_resolved(parse(node("  gpu_interconnect: pcie4\n")));
    CHECK(one.find("        intra_node: pcie4_host_bridge\n") != std::string::npos);
    CHECK(one.find("bandwidth_per_nic") == std::string::npos);
  }

  // ---- errors ------------------------------------------------------------------------

  TEST_CASE("unknown gpu_interconnect: the accepted values and a did-you-mean") {
    CHECK(errors_of(node("  gpu_interconnect: nvlink3_switch\n")) ==
          Messages{"unknown value 'nvlink3_switch', expected one of " + kInterconnects +
                   " at s.yaml:14:21 (hardware.gpu_interconnect); did you mean nvlink3 or nvlink3_nvswitch?"});
  }

  TEST_CASE("gpu_interconnect of the wrong type") {
    CHECK(errors_of(node("  gpu_interconnect: {name: nvlink3}\n")) ==
          Messages{"expected one of " + kInterconnects +
                   ", found a mapping at s.yaml:14:21 (hardware.gpu_interconnect); write gpu_interconnect: one of " +
                   kInterconnects + " (one value, not a mapping)"});
  }

  TEST_CASE("a host memory below the data loaders' batches is refused at the key") {
    std::string text = node("");
    text.replace(text.find("\"64 GiB\""), 8, "\"1 KiB\"");
    // 8 GPUs x (max(1, 0 workers x 2) in flight + 1 in use) x 32 samples x 602,120 B
    // (resnet50's fp32 3 x 224 x 224 image, 602,112 B, + an int64 label) = 8 x 2 x 19,267,840 B
    // = 308,285,440 B.
    CHECK(errors_of(text) ==
          Messages{"host memory 1024 B (0.0 MiB) per node is less than the 308285440 B (294.0 MiB) the data loaders "
                   "hold: 8 GPU(s) x 2 batches (max(1, num_workers 0 x prefetch_factor 2) in flight + 1 in use) x "
                   "19267840 B (18.4 MiB) per batch at s.yaml:11:16 (hardware.host_memory); give the node's real "
                   "host memory (at least 308285440 B (294.0 MiB)), or lower num_workers, prefetch_factor or "
                   "batch_size (with more gradient_accumulation for the same global batch)"});
    // Just enough passes.
    std::string enough = node("");
    enough.replace(enough.find("\"64 GiB\""), 8, "\"308285440 B\"");
    CHECK(hardware_of(parse(enough)).host_memory_bytes == 308285440.0);
  }

  TEST_CASE("nvlink1 is refused with the reason") {
    CHECK(errors_of(node("  gpu_interconnect: nvlink1\n")) ==
          Messages{"unsupported gpu_interconnect 'nvlink1': NVLink 1 (P100 SXM2) is not in the interconnect table: "
                   "no GPU of the catalog has it (p100 is the PCIe card) and no all-reduce measurement calibrates "
                   "it at s.yaml:14:21 (hardware.gpu_interconnect); use nvlink2, nvlink3, nvlink4 or nvlink5 (or a "
                   "table name such as nvlink4_nvswitch), or a PCIe link such as pcie5"});
  }

  TEST_CASE("an NVLink table name on a GPU without NVLink") {
    std::string text = node("  gpu_interconnect: nvlink4_nvswitch\n");
    text.replace(text.find("a100-80gb"), 9, "rtx4090");
    CHECK(errors_of(text) == Messages{"rtx4090 has no NVLink at s.yaml:14:21 (hardware.gpu_interconnect); use pcie4"});
  }

  TEST_CASE("AMD MI300X: the Infinity Fabric mesh by default, NVLink refused, the mesh refused on NVIDIA") {
    std::string text = node("");
    text.replace(text.find("a100-80gb"), 9, "mi300x");
    const models::HardwareSpec hw = hardware_of(parse(text));
    CHECK(hw.gpu_interconnect == "infinity_fabric_mesh");
    CHECK(hw.topology.intra_node.name == "infinity_fabric_mesh");
    // 7 peers x 64 GB/s per direction.
    CHECK(hw.topology.intra_node.bytes_per_s_per_direction == doctest::Approx(448e9));
    CHECK(errors_of(text + "  gpu_interconnect: nvlink4\n") ==
          Messages{"mi300x has no NVLink at s.yaml:14:21 (hardware.gpu_interconnect); use infinity_fabric_mesh "
                   "(its Infinity Fabric links)"});
    CHECK(errors_of(node("  gpu_interconnect: infinity_fabric_mesh\n")) ==
          Messages{"a100-80gb has no Infinity Fabric links (AMD Instinct platforms only) at s.yaml:14:21 "
                   "(hardware.gpu_interconnect); use nvlink3"});
  }

  TEST_CASE("a link the GPU cannot have: another NVLink or a newer PCIe generation, an NVSwitch or 4 cards on a bridge") {
    CHECK(errors_of(node("  gpu_interconnect: nvlink4\n")) ==
          Messages{"a100-80gb has NVLink 3, not NVLink 4 at s.yaml:14:21 (hardware.gpu_interconnect); use nvlink3 "
                   "(or a wiring of it such as nvlink3_nvswitch)"});
    CHECK(errors_of(node("  gpu_interconnect: pcie5_switch\n")) ==
          Messages{"a100-80gb is a PCIe 4.0 device: its links run at that generation, not PCIe 5.0 at s.yaml:14:21 "
                   "(hardware.gpu_interconnect); use pcie4_switch"});
    std::string bridge = node("  gpu_interconnect: nvlink3_nvswitch\n");
    bridge.replace(bridge.find("a100-80gb"), 9, "rtx3090");
    CHECK(errors_of(bridge) ==
          Messages{"rtx3090 cards are joined by an NVLink bridge, not an NVSwitch at s.yaml:14:21 "
                   "(hardware.gpu_interconnect); use nvlink3_direct (the bridge), or pcie4"});
    std::string four = node("  gpu_interconnect: nvlink3\n");
    four.replace(four.find("a100-80gb"), 9, "rtx3090");
    four.replace(four.find("gpus_per_node: 8"), 16, "gpus_per_node: 4");
    CHECK(errors_of(four) ==
          Messages{"an NVLink bridge joins two rtx3090 cards, not 4 at s.yaml:14:21 (hardware.gpu_interconnect); use "
                   "gpus_per_node: 2 with nvlink3, or pcie4 for 4 cards"});
  }

  TEST_CASE("gpu_interconnect of another bus or generation than the instance's") {
    CHECK(errors_of(p4d("  gpu_interconnect: pcie4_switch\n")) ==
          Messages{"gpu_interconnect pcie4_switch contradicts cloud.instance aws/p4d.24xlarge, which has nvlink3 at "
                   "s.yaml:12:21 (hardware.gpu_interconnect); remove gpu_interconnect (the instance sets it), or "
                   "name a wiring of nvlink3: nvlink3_direct or nvlink3_nvswitch"});
  }

  TEST_CASE("network: missing unit, bad unit, out of range") {
    CHECK(errors_of(node("  nodes: 2\n  network: 100\n")) ==
          Messages{"a bare number is not a bandwidth: found '100' at s.yaml:15:12 (hardware.network); write it "
                   "with a unit, e.g. \"100 GB/s\" or \"100 Gbit/s\""});
    CHECK(errors_of(node("  nodes: 2\n  network: {bandwidth: \"200 Gb/s\"}\n")) ==
          Messages{"bad unit in '200 Gb/s': 'Gb' is ambiguous between bits and bytes at s.yaml:15:24 "
                   "(hardware.network.bandwidth); write 'Gbit' for bits or 'GB' for bytes"});
    CHECK(errors_of(node("  nodes: 2\n  network: {bandwidth: \"0 Gbit/s\"}\n")) ==
          Messages{"out-of-range bandwidth '0 Gbit/s' at s.yaml:15:24 (hardware.network.bandwidth); expected "
                   "more than zero"});
    CHECK(errors_of(node("  nodes: 2\n  network: {bandwidth: \"200 Gbit/s\", latency: 2}\n")) ==
          Messages{"a bare number is not a duration: found '2' at s.yaml:15:47 (hardware.network.latency); write "
                   "it with a unit, e.g. \"2 s\" or \"2 min\" (a duration takes ns, us, µs, ms, s, sec, min, h, hour, "
                   "hours, d, day, days, week, weeks, year or years)"});
    CHECK(errors_of(node("  nodes: 2\n  network: {bandwidth: \"200 Gbit/s\", latency: \"-1 us\"}\n")) ==
          Messages{"out-of-range duration '-1 us' at s.yaml:15:47 (hardware.network.latency); expected zero or more"});
    // Slower than 1 Mbit/s or a latency over 1 s would put one all-reduce past the engine's
    // time range: refused at the key, not an internal error later.
    CHECK(errors_of(node("  nodes: 2\n  network: \"1 bit/s\"\n")) ==
          Messages{"out-of-range bandwidth '1 bit/s' at s.yaml:15:12 (hardware.network); expected at least 1 Mbit/s "
                   "per NIC, e.g. \"10 Gbit/s\""});
    CHECK(errors_of(node("  nodes: 2\n  network: {bandwidth: \"1 kbit/s\"}\n")) ==
          Messages{"out-of-range bandwidth '1 kbit/s' at s.yaml:15:24 (hardware.network.bandwidth); expected at least "
                   "1 Mbit/s per NIC, e.g. \"10 Gbit/s\""});
    CHECK(errors_of(node("  nodes: 2\n  network: {bandwidth: \"200 Gbit/s\", latency: \"1e12 s\"}\n")) ==
          Messages{"out-of-range duration '1e12 s' at s.yaml:15:47 (hardware.network.latency); expected at most 1 s "
                   "per message, e.g. \"25 us\" (Ethernet) or \"2 us\" (InfiniBand)"});
  }

  TEST_CASE("network: nics out of range or not a whole number") {
    CHECK(errors_of(node("  nodes: 2\n  network: {bandwidth: \"200 Gbit/s\", nics: 0}\n")) ==
          Messages{"out-of-range value 0 at s.yaml:15:44 (hardware.network.nics); expected a whole number from 1 "
                   "to 64"});
    CHECK(errors_of(node("  nodes: 2\n  network: {bandwidth: \"200 Gbit/s\", nics: 2.5}\n")) ==
          Messages{"expected a whole number from 1 to 64, found '2.5' at s.yaml:15:44 (hardware.network.nics)"});
  }

  TEST_CASE("network: a misspelt bandwidth is one unknown key with a did-you-mean; an absent one is missing") {
    CHECK(errors_of(node("  nodes: 2\n  network: {bandwith: \"200 Gbit/s\", nics: 2}\n")) ==
          Messages{"unknown key 'bandwith' at s.yaml:15:13 (hardware.network.bandwith); did you mean bandwidth?"});
    CHECK(errors_of(node("  nodes: 2\n  network: {nics: 2}\n")) ==
          Messages{"missing key 'bandwidth' at s.yaml:15:12 (hardware.network.bandwidth); add bandwidth: a "
                   "bandwidth with its unit, such as \"2.5 GB/s\" or \"100 Gbit/s\""});
  }

  TEST_CASE("network: unknown transport; RoCE and EFA are told to write infiniband") {
    CHECK(errors_of(node("  nodes: 2\n  network: {bandwidth: \"200 Gbit/s\", transport: infiniban}\n")) ==
          Messages{"unknown value 'infiniban', expected one of ethernet, infiniband or gpudirect_tcpxo at "
                   "s.yaml:15:49 (hardware.network.transport); did you mean infiniband?"});
    CHECK(errors_of(node("  nodes: 2\n  network: {bandwidth: \"200 Gbit/s\", transport: efa}\n")) ==
          Messages{"unknown value 'efa', expected one of ethernet, infiniband or gpudirect_tcpxo at s.yaml:15:49 "
                   "(hardware.network.transport); efa is RDMA-class: write transport: infiniband"});
  }

  TEST_CASE("network: wrong shape, or no value") {
    CHECK(errors_of(node("  nodes: 2\n  network: [\"100 Gbit/s\"]\n")) ==
          Messages{"expected a bandwidth such as \"100 Gbit/s\" or {bandwidth, transport, latency, nics}, found a "
                   "sequence at s.yaml:15:12 (hardware.network)"});
    CHECK(errors_of(node("  nodes: 2\n  network:\n")) ==
          Messages{"missing value for 'network' at s.yaml:15:3 (hardware.network); write network: \"100 Gbit/s\" "
                   "or {bandwidth: \"200 Gbit/s\", transport: infiniband, nics: 8}"});
  }

  TEST_CASE("network: several nodes and none given") {
    CHECK(errors_of(node("  nodes: 2\n")) ==
          Messages{"missing key 'network' at s.yaml:9:3 (hardware.network); add network: \"100 Gbit/s\" "
                   "(bandwidth between nodes, needed with 2 nodes)"});
  }

  TEST_CASE("network: more than the instance has, in all NICs together") {
    CHECK(errors_of(p4d("  network: {bandwidth: \"100 Gbit/s\", nics: 8}\n")) ==
          Messages{"network 800 Gbit/s (8 x 100 Gbit/s) exceeds the 400 Gbit/s of aws/p4d.24xlarge at s.yaml:12:12 "
                   "(hardware.network); remove network (the instance sets it), or give at most 400 Gbit/s per node "
                   "in all"});
  }

  TEST_CASE("network: a dotted override into a bandwidth written as one value") {
    CHECK(errors_of(node("  nodes: 2\n  network: \"100 Gbit/s\"\nstrategies:\n  s: {hardware.network.nics: 8}\n")) ==
          Messages{"cannot set hardware.network.nics: hardware.network is '100 Gbit/s', not a mapping at "
                   "s.yaml:17:7 (strategies.s.hardware.network.nics); override hardware.network with a whole "
                   "mapping instead"});
  }

  TEST_CASE("gpus_per_pcie_switch: more than the GPUs of a node, out of range, not a number") {
    CHECK(errors_of(node("  gpus_per_pcie_switch: 16\n")) ==
          Messages{"gpus_per_pcie_switch 16 exceeds gpus_per_node 8 at s.yaml:14:25 "
                   "(hardware.gpus_per_pcie_switch); use at most 8 (GPUs of one node that share a PCIe switch), "
                   "or remove gpus_per_pcie_switch"});
    CHECK(errors_of(node("  gpus_per_pcie_switch: 0\n")) ==
          Messages{"out-of-range value 0 at s.yaml:14:25 (hardware.gpus_per_pcie_switch); expected a whole number "
                   "from 1 to 64"});
    CHECK(
        errors_of(node("  gpus_per_pcie_switch: two\n")) ==
        Messages{"expected a whole number from 1 to 64, found 'two' at s.yaml:14:25 (hardware.gpus_per_pcie_switch)"});
  }

  TEST_CASE("gpus_per_pcie_switch checked against every swept gpus_per_node") {
    CHECK(errors_of(node("  gpus_per_pcie_switch: 2\nsweep:\n  hardware.gpus_per_node: [1, 8]\n")) ==
          Messages{"gpus_per_pcie_switch 2 exceeds gpus_per_node 1 at s.yaml:16:28 (sweep.hardware.gpus_per_node[0]); "
                   "use at most 1 (GPUs of one node that share a PCIe switch), or remove gpus_per_pcie_switch"});
  }

  TEST_CASE("a bad gpus_per_node is reported once, not again by gpus_per_pcie_switch") {
    CHECK(errors_of(node("  gpus_per_pcie_switch: 2\n")
                        .replace(std::string(kNode).find("gpus_per_node: 8"), 16, "gpus_per_node: 0")) ==
          Messages{"out-of-range value 0 at s.yaml:13:18 (hardware.gpus_per_node); expected a whole number from 1 "
                   "to 64"});
  }
}

}  // namespace gpuplan::config

#include "models/interconnect/interconnect_table.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/units.h"

namespace gpuplan::models {
namespace {

// ---- Raw bandwidths, per direction -------------------------------------------------------
// PCIe x16: transfer rate x 16 lanes x line-code efficiency, per direction. PCI-SIG, PCI
// Express Base Specification 3.0/4.0/5.0: 8, 16, 32 GT/s per lane with 128b/130b encoding
// (https://pcisig.com/specifications, retrieved 2026-11-29): 15.75, 31.5, 63.0 GB/s.
constexpr double pcie_x16_bytes_per_s(double gigatransfers_per_s) {
  return core::gigabits_per_s(gigatransfers_per_s * 16.0 * 128.0 / 130.0);
}
// NVLink: 25 GB/s per link per direction in generations 2-4; V100 6 links, A100 12, H100/H200
// 18 (NVIDIA NVLink and NVSwitch page, https://www.nvidia.com/en-us/data-center/nvlink/, and
// the V100/A100/H100 datasheets, retrieved 2026-11-29; the "300/600/900 GB/s" figures there
// count both directions). NVLink 5 (Blackwell B200/GB200): 18 links x 50 GB/s = 900 GB/s per
// direction, "1.8 TB/s" bidirectional per GPU, through NVSwitch on HGX B200 and GB200 NVL72
// (same NVLink page, fifth generation; NVIDIA HGX B200 / GB200 NVL72 technical specifications,
// https://www.nvidia.com/en-us/data-center/hgx/, as copied in catalogs/gpus.yaml b200).
// Same figures as catalogs/gpus.yaml nvlink_per_direction.
constexpr double nvlink_bytes_per_s(int links, double per_link_gigabytes_per_s) {
  return core::gigabytes_per_s(per_link_gigabytes_per_s * links);
}
constexpr double kNvlinkPerLinkGBs = 25.0;   // generations 2-4
constexpr double kNvlink5PerLinkGBs = 50.0;  // generation 5

// ---- Per-protocol parameters -----------------------------------------------------------
// NVLink low-latency protocol: hop latency 1.9 us = NCCL hwLat[NVLINK][Ring][LL128]
// (src/graph/tuning.cc); efficiency 0.5 is an ESTIMATE (LL128's per-channel cap,
// ll128MaxBwPerCh ~17 GB/s, times the channels NCCL runs for mid-size messages). On the
// measured H200 curve the Simple/NVLS lines are faster from 1 MiB up, so this pair only
// matters below 1 MiB.
constexpr ProtocolParams kNvlinkLowLatency{0.5, core::microseconds(1.9)};
// NVLink Simple hop latency 1.3 us: FITTED on allreduce-8xH200.csv together with the NVLS
// pair below and kCollectiveBaseLatencyS (NCCL's own table says 3.4 us, which with our
// single base latency fits the H200 curve worse: max error 13 % instead of 10 %).
constexpr double kNvlinkSimpleHopLatencyS = core::microseconds(1.3);
// NVLink4 + NVSwitch Simple efficiency 0.817 = 367.61 GB/s busbw / 450 GB/s: 8x H200, ring,
// NVLS disabled, 16 GiB (allreduce-8xH200-sweep.txt, author's note; stas00/ml-engineering).
constexpr double kNvlink4SimpleEfficiency = 367.61 / 450.0;
// NVLink3 Simple efficiency 0.693 = 208 GB/s busbw / 300 GB/s: 8x A100 NV12 all-reduce
// (published-measurements.csv V086, NVIDIA/nccl-tests#178; V085 reports ~200 GB/s).
// NVLink2 uses the same figure: an ESTIMATE, no measurement in ../shared/data.
constexpr double kNvlink3SimpleEfficiency = 208.0 / 300.0;
// NVLS (in-switch reduction) on NVLink4 + NVSwitch: efficiency 0.68 against the
// (1 + 1/n) x S per-GPU traffic and 32 us per stage, both FITTED on allreduce-8xH200.csv
// above 2 MiB, where the log's author notes NCCL picks NVLS.
constexpr ProtocolParams kNvlsNvlink4{0.68, core::microseconds(32.0)};
// NVLink5 + NVSwitch: no all-reduce measurement in ../shared/data. Simple efficiency and NVLS
// are ESTIMATES = NVLink4's (the same NCCL ring and NVLS algorithms on a switch of the next
// generation; the NVLink 5 switch keeps in-switch reduction, NVIDIA NVLink page).

// PCIe: efficiencies are ESTIMATES (no PCIe all-reduce measurement in ../shared/data):
// through a switch 0.80 (TLP/DLLP overhead with a 256 B max payload leaves ~87 % of the raw
// rate, PCI Express Base Spec; NCCL loses a few % more); through the CPU root complex 0.60
// (host bridges forward peer writes slower than switches; NCCL's topology marks such paths
// PHB/SYS and ranks them below PIX/PXB); P2P disabled 0.25 (NCCL_P2P_DISABLE=1: the SHM
// transport copies through pinned host memory, every byte crosses PCIe twice and the CPU
// handles the bidirectional traffic poorly): MEASURED, NVIDIA/nccl issue #384, all-reduce
// busbw 3.9 GB/s on 2 GPUs over PCIe Gen3 x16 with SHM, 3.9 / 15.75 = 0.25.
// Hop latencies: ESTIMATES of the order of NCCL's hwLat[PCI] row: 1 us low-latency, 4 us
// Simple; staged through host memory twice that.
constexpr double kPcieSwitchEfficiency = 0.80;
constexpr double kPcieHostBridgeEfficiency = 0.60;
constexpr double kPcieNoP2pEfficiency = 0.25;
// Low-latency protocol on PCIe: half the Simple efficiency, because NCCL's LL protocol
// sends a 4-byte flag with every 4 bytes of data (LL128, 8 of 128 bytes, is not enabled on
// PCIe by NCCL's defaults).
constexpr double kPcieLowLatencyShareOfSimple = 0.5;
constexpr double kPcieLowLatencyHopS = core::microseconds(1.0);
constexpr double kPcieSimpleHopS = core::microseconds(4.0);

// Network Simple efficiency, share of NIC line rate. RDMA-class transports: 0.914, FITTED on
// nccl-tests-allreduce-2x8xH100.txt (algbw 180.7 GB/s at 8 GiB over 8 x 25 GB/s NICs after
// the latency term). Kernel TCP sockets: 0.90, an ESTIMATE: TCP/IP headers leave 94.9 % of
// a 1500-byte-MTU Ethernet link as goodput, and NCCL's socket transport (several sockets
// and threads per peer, NCCL_NSOCKS_PERTHREAD/NCCL_SOCKET_NTHREADS) keeps a 10-25 Gbit/s
// link saturated, less a few % for its proxy round trips. (At 100 Gbit/s and more the host
// copies may cap it lower; no measurement in ../shared/data says how much.)
constexpr double kRdmaSimpleEfficiency = 0.914;
constexpr double kSocketSimpleEfficiency = 0.90;

// AMD Infinity Fabric (xGMI) on the 8-GPU MI300X/MI325X OAM platforms: 7 links per GPU, one
// to each peer (a full mesh, no switch), 64 GB/s per link per direction ("128 GB/s" peak
// Infinity Fabric link bandwidth in the AMD Instinct MI300X and MI325X data sheets counts both
// directions; 7 x 128 = 896 GB/s aggregate), so 448 GB/s per direction per GPU when all 8 GPUs
// take part. The collective library is RCCL, a fork of NCCL with the same ring/tree algorithms
// and LL/LL128/Simple protocols, which spreads its channels over the mesh's links: the model
// prices it as a link of the GPU's total egress to its peers (config/hardware_topology.cpp
// scales that to the GPUs of the job: n - 1 links). Efficiency and latencies: ESTIMATES =
// NVLink3's Simple efficiency (V086) and NVLink's latencies; no RCCL measurement is in
// ../shared/data. No in-switch reduction (no switch).
constexpr int kInfinityFabricMeshLinks = 7;
constexpr double kInfinityFabricPerLinkGBs = 64.0;

constexpr const char* kNcclTuning = "NCCL src/graph/tuning.cc hwLat/baseLat (structure)";

LinkSpec make_pcie(const std::string& name, double gigatransfers_per_s, double efficiency,
                   double hop_factor, const std::string& path) {
  LinkSpec link;
  link.name = name;
  link.kind = LinkKind::kPcie;
  link.bytes_per_s_per_direction = pcie_x16_bytes_per_s(gigatransfers_per_s);
  link.low_latency = {kPcieLowLatencyShareOfSimple * efficiency, kPcieLowLatencyHopS * hop_factor};
  link.simple = {efficiency, kPcieSimpleHopS * hop_factor};
  link.source = "PCI-SIG PCIe base spec (" + path + "; efficiency and latency estimates); " +
                kNcclTuning;
  return link;
}

LinkSpec make_nvlink(const std::string& name, int links, double per_link_gigabytes_per_s, double simple_efficiency,
                     bool nvls, const std::string& source) {
  LinkSpec link;
  link.name = name;
  link.kind = LinkKind::kNvlink;
  link.bytes_per_s_per_direction = nvlink_bytes_per_s(links, per_link_gigabytes_per_s);
  link.low_latency = kNvlinkLowLatency;
  link.simple = {simple_efficiency, kNvlinkSimpleHopLatencyS};
  link.in_switch_reduction = nvls;
  if (nvls) {
    link.nvls = kNvlsNvlink4;
  }
  link.source = "https://www.nvidia.com/en-us/data-center/nvlink/ (" + std::to_string(links) + " links x " +
                std::to_string(static_cast<int>(per_link_gigabytes_per_s)) + " GB/s per direction); " + source + "; " + kNcclTuning;
  return link;
}

/// The table's links sorted by name; only the one named `only` where that is not empty (a
/// look-up builds one link, not all of them).
std::vector<LinkSpec> build_table(std::string_view only = {}) {
  std::vector<LinkSpec> table;
  const auto wanted = [only](std::string_view name) { return only.empty() || name == only; };
  const double gts[] = {8.0, 16.0, 32.0};
  for (int gen = 3; gen <= 5; ++gen) {
    const std::string p = "pcie" + std::to_string(gen);
    const double rate = gts[gen - 3];
    if (wanted(p + "_switch")) {
      table.push_back(make_pcie(p + "_switch", rate, kPcieSwitchEfficiency, 1.0, "P2P via PCIe switch"));
    }
    if (wanted(p + "_host_bridge")) {
      table.push_back(make_pcie(p + "_host_bridge", rate, kPcieHostBridgeEfficiency, 1.0,
                                "P2P via CPU root complex"));
    }
    if (wanted(p + "_no_p2p")) {
      table.push_back(make_pcie(p + "_no_p2p", rate, kPcieNoP2pEfficiency, 2.0,
                                "P2P disabled, staged through host memory"));
    }
  }
  const std::string v086 = "Simple efficiency from published-measurements.csv V086 (nccl-tests#178)";
  const std::string est = "Simple efficiency ESTIMATE = NVLink3 (V086)";
  const std::string h200 = "Simple efficiency from allreduce-8xH200-sweep.txt (NVLS off); NVLS fitted";
  const std::string est5 = "Simple efficiency and NVLS ESTIMATES = NVLink4 (allreduce-8xH200-sweep.txt)";
  const double g = kNvlinkPerLinkGBs;
  struct Nvlink {
    const char* name;
    int links;
    double per_link_gigabytes_per_s;
    double simple_efficiency;
    bool nvls;
    const std::string& source;
  };
  const Nvlink nvlinks[] = {
      {"nvlink2_direct", 6, g, kNvlink3SimpleEfficiency, false, est},
      {"nvlink2_nvswitch", 6, g, kNvlink3SimpleEfficiency, false, est},
      {"nvlink3_direct", 12, g, kNvlink3SimpleEfficiency, false, v086},
      {"nvlink3_nvswitch", 12, g, kNvlink3SimpleEfficiency, false, v086},
      {"nvlink4_direct", 18, g, kNvlink4SimpleEfficiency, false, h200},
      {"nvlink4_nvswitch", 18, g, kNvlink4SimpleEfficiency, true, h200},
      {"nvlink5_direct", 18, kNvlink5PerLinkGBs, kNvlink4SimpleEfficiency, false, est5},
      {"nvlink5_nvswitch", 18, kNvlink5PerLinkGBs, kNvlink4SimpleEfficiency, true, est5},
  };
  for (const Nvlink& n : nvlinks) {
    if (wanted(n.name)) {
      table.push_back(make_nvlink(n.name, n.links, n.per_link_gigabytes_per_s, n.simple_efficiency, n.nvls, n.source));
    }
  }
  if (wanted("infinity_fabric_mesh")) {
    LinkSpec fabric;
    fabric.name = "infinity_fabric_mesh";
    fabric.kind = LinkKind::kInfinityFabric;
    fabric.bytes_per_s_per_direction = core::gigabytes_per_s(kInfinityFabricMeshLinks * kInfinityFabricPerLinkGBs);
    fabric.low_latency = kNvlinkLowLatency;
    fabric.simple = {kNvlink3SimpleEfficiency, kNvlinkSimpleHopLatencyS};
    fabric.source =
        "AMD Instinct MI300X/MI325X data sheets (7 Infinity Fabric links x 64 GB/s per direction, full mesh); "
        "efficiency and latencies ESTIMATES = NVLink3 (V086); RCCL = NCCL's algorithms; " + std::string(kNcclTuning);
    table.push_back(fabric);
  }
  std::sort(table.begin(), table.end(),
            [](const LinkSpec& a, const LinkSpec& b) { return a.name < b.name; });
  return table;
}

// Built on each call: a few dozen small structs, and no global state (STYLE.md E4).
std::vector<LinkSpec> table() { return build_table(); }

std::string alias_target(const std::string& name) {
  if (name == "pcie3" || name == "pcie4" || name == "pcie5") {
    return name + "_host_bridge";
  }
  if (name == "nvlink2") {
    return "nvlink2_direct";
  }
  if (name == "nvlink3" || name == "nvlink4" || name == "nvlink5") {
    return name + "_nvswitch";
  }
  return name;
}

}  // namespace

LinkSpec intra_node_link(const std::string& name) {
  const std::string target = alias_target(name);
  for (const LinkSpec& link : build_table(target)) {
    if (link.name == target) {
      return link;
    }
  }
  std::string accepted;
  for (const std::string& n : intra_node_link_names()) {
    accepted += (accepted.empty() ? "" : ", ") + n;
  }
  throw std::invalid_argument("unknown interconnect '" + name + "'; expected one of: " +
                              accepted + " (or pcie3, pcie4, pcie5, nvlink2, nvlink3, nvlink4, nvlink5)");
}

std::vector<std::string> intra_node_link_names() {
  std::vector<std::string> names;
  for (const LinkSpec& link : table()) {
    names.push_back(link.name);
  }
  return names;
}

const char* network_kind_name(NetworkKind kind) {
  switch (kind) {
    case NetworkKind::kEthernet:
      return "ethernet";
    case NetworkKind::kInfiniband:
      return "infiniband";
    case NetworkKind::kGpuDirectTcpxo:
      return "gpudirect_tcpxo";
  }
  return "?";
}

double default_message_latency_s(NetworkKind kind) {
  switch (kind) {
    case NetworkKind::kEthernet:
      // ESTIMATE: kernel TCP one-way latency inside a cloud region, 20-30 us.
      return core::microseconds(25.0);
    case NetworkKind::kInfiniband:
      // ESTIMATE: ~1 us adapter-to-adapter (NVIDIA ConnectX-7 / Quantum-2 datasheets, sub-us
      // port-to-port) plus NCCL's proxy; NCCL's hwLat[NET][*][LL] is of the same order.
      return core::microseconds(2.0);
    case NetworkKind::kGpuDirectTcpxo:
      // FITTED on nccl-tests-allreduce-2x8xH100.txt (GCP a3-mega, 1-16 MiB segment).
      return core::microseconds(48.0);
  }
  return 0.0;
}

LinkSpec network_link(NetworkKind kind, double bytes_per_s_per_direction,
                      double message_latency_s) {
  if (!std::isfinite(bytes_per_s_per_direction) || bytes_per_s_per_direction <= 0.0) {
    throw std::invalid_argument("network link: NIC bandwidth per direction must be finite and > 0");
  }
  if (!std::isfinite(message_latency_s) || message_latency_s < 0.0) {
    throw std::invalid_argument("network link: per-message latency must be finite and >= 0");
  }
  LinkSpec link;
  link.name = network_kind_name(kind);
  link.kind = LinkKind::kNetwork;
  link.bytes_per_s_per_direction = bytes_per_s_per_direction;
  link.low_latency = {kNetworkLowLatencyEfficiency, message_latency_s};
  const double simple_efficiency =
      kind == NetworkKind::kEthernet ? kSocketSimpleEfficiency : kRdmaSimpleEfficiency;
  link.simple = {simple_efficiency, kNetworkSimpleLatencyFactor * message_latency_s};
  link.source = std::string("efficiencies and Simple latency factor fitted on "
                            "nccl-tests-allreduce-2x8xH100.txt (GCP a3-mega); ") +
                (kind == NetworkKind::kEthernet ? "socket efficiency ESTIMATE; " : "") +
                kNcclTuning;
  return link;
}

}  // namespace gpuplan::models

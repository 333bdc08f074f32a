#pragma once
/// \file interconnect_table.h
/// The one parameter table of gpuplan's collective model: raw bandwidth per direction and
/// the per-protocol efficiency and hop latency of every intra-node interconnect, and the
/// rules that build a network link from a bandwidth and a per-message latency. Every figure
/// carries its source in interconnect_table.cpp (STYLE.md D2, U8); figures marked "fitted"
/// come from the two measured curves in ../shared/data/logs/ and are the SAME for every
/// scenario and test (no per-case parameters).
///
/// Intra-node names (what a scenario's `gpu_interconnect` or a catalog row's Interconnect
/// column selects; config/ maps those strings here):
///   pcie3_switch, pcie4_switch, pcie5_switch         x16, peer-to-peer through a PCIe switch
///   pcie3_host_bridge, pcie4_host_bridge, ...        peer-to-peer through the CPU root complex
///   pcie3_no_p2p, pcie4_no_p2p, pcie5_no_p2p         P2P disabled: staged through host memory
///   nvlink2_direct, ..., nvlink5_direct               NVLink without NVSwitch (bridge, mesh)
///   nvlink2_nvswitch, ..., nvlink5_nvswitch           NVLink through NVSwitch
///   infinity_fabric_mesh                              AMD Infinity Fabric, full mesh (MI300X/MI325X)
/// Bare aliases, as the instance catalogs write them: pcie3|pcie4|pcie5 = *_host_bridge
/// (the conservative cloud-VM case), nvlink2 = nvlink2_direct (DGX-1 mesh),
/// nvlink3|nvlink4|nvlink5 = *_nvswitch (every 8-GPU A100/H100/B200 cloud instance is an HGX
/// board with NVSwitch).

/// The parameters (raw bandwidth per direction; efficiency and hop latency per protocol):
///
/// | link               | B/dir     | Simple eff, hop | low-lat eff, hop | NVLS eff, stage |
/// |--------------------|-----------|-----------------|------------------|-----------------|
/// | pcieN_switch       | 15.75/31.5/63.0 GB/s | 0.80, 4 us | 0.40, 1 us    | -               |
/// | pcieN_host_bridge  | same      | 0.60, 4 us      | 0.30, 1 us       | -               |
/// | pcieN_no_p2p       | same      | 0.25, 8 us      | 0.125, 2 us      | -               |
/// | nvlink2_*          | 150 GB/s  | 0.693, 1.3 us   | 0.5, 1.9 us      | -               |
/// | nvlink3_*          | 300 GB/s  | 0.693, 1.3 us   | 0.5, 1.9 us      | -               |
/// | nvlink4_direct     | 450 GB/s  | 0.817, 1.3 us   | 0.5, 1.9 us      | -               |
/// | nvlink4_nvswitch   | 450 GB/s  | 0.817, 1.3 us   | 0.5, 1.9 us      | 0.68, 32 us     |
/// | nvlink5_direct     | 900 GB/s  | 0.817, 1.3 us   | 0.5, 1.9 us      | -               |
/// | nvlink5_nvswitch   | 900 GB/s  | 0.817, 1.3 us   | 0.5, 1.9 us      | 0.68, 32 us     |
/// | infinity_fabric_mesh | 448 GB/s | 0.693, 1.3 us  | 0.5, 1.9 us      | -               |
/// (nvlink5 efficiencies: ESTIMATES = nvlink4's; no Blackwell all-reduce measurement.
/// infinity_fabric_mesh: 7 x 64 GB/s, all 8 GPUs of the platform; efficiencies ESTIMATES =
/// nvlink3's, no RCCL measurement.)
/// | network (per NIC)  | given     | 0.914 RDMA / 0.90 TCP, 8.75 x msg | 0.10, msg | -     |
/// Message latency defaults: ethernet 25 us, infiniband 2 us, gpudirect_tcpxo 48 us. Plus,
/// in models/collective/: kCollectiveBaseLatencyS = 28 us per call, tree bandwidth x 0.92.

#include <string>
#include <vector>

#include "models/interconnect/link_spec.h"

namespace gpuplan::models {

/// The intra-node link called `name` (a table name above, or a bare alias). Throws
/// std::invalid_argument naming the accepted values when `name` is unknown.
LinkSpec intra_node_link(const std::string& name);

/// Table names of the intra-node links, sorted (aliases not included).
std::vector<std::string> intra_node_link_names();

/// Network transport between nodes.
enum class NetworkKind {
  kEthernet,        ///< NCCL socket transport over kernel TCP (host bounce buffers)
  kInfiniband,      ///< RDMA with GPUDirect (InfiniBand, RoCE)
  kGpuDirectTcpxo,  ///< GCP a3-mega GPUDirect-TCPXO (RDMA-class NCCL net plugin over Ethernet)
};

/// "ethernet", "infiniband" or "gpudirect_tcpxo".
const char* network_kind_name(NetworkKind kind);

/// Typical end-to-end latency of one NCCL message between two nodes for `kind`, seconds
/// (estimates and one fit; sources in interconnect_table.cpp). For scenarios that give none.
double default_message_latency_s(NetworkKind kind);

/// A network link: ONE NIC of `bytes_per_s_per_direction` (e.g. 200 Gbit/s = 25e9 B/s) with
/// per-message latency `message_latency_s`. Low-latency protocol: hop latency = the message
/// latency, efficiency kNetworkLowLatencyEfficiency; Simple: hop latency =
/// kNetworkSimpleLatencyFactor x message latency, efficiency per kind. Throws
/// std::invalid_argument unless bandwidth is finite and > 0 and latency finite and >= 0.
LinkSpec network_link(NetworkKind kind, double bytes_per_s_per_direction,
                      double message_latency_s);

/// Share of NIC bandwidth NCCL's LL/LL128 protocols reach across nodes (few channels, flag
/// words, proxy round trips). Fitted on nccl-tests-allreduce-2x8xH100.txt (1-16 MiB:
/// algbw 20.6 GB/s over one node's 8 x 25 GB/s NICs through the tree).
inline constexpr double kNetworkLowLatencyEfficiency = 0.10;

/// Simple-protocol hop latency over the network as a multiple of the message latency
/// (chunks of the Simple protocol wait for the proxy's send/receive completion round trips).
/// Fitted on the same log: 420 us against 48 us. For InfiniBand (2 us) it gives 17.5 us, the
/// order of NCCL's hwLat[NET][*][Simple] (14 us, src/graph/tuning.cc).
inline constexpr double kNetworkSimpleLatencyFactor = 8.75;

}  // namespace gpuplan::models

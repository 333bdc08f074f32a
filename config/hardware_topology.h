#pragma once
/// \file hardware_topology.h
/// The rules that turn hardware facts (an interconnect name, a GPU's NVLink figure, a network
/// as a scenario or an instance catalog gives it) into the models::Topology the collective
/// models price all-reduce on (models/interconnect/topology.h). Pure functions on plain
/// specs, no YAML: config/scenario_hardware.cpp calls them with what it read and turns their
/// std::invalid_argument into a config error at the key; other front ends (cli/plan.cpp, which
/// builds a HardwareSpec from an instance row) can call them to get the same topology.
/// Units: B/s per direction, seconds.

#include <string>
#include <string_view>
#include <vector>

#include "core/units.h"
#include "models/gpu/gpu_spec.h"
#include "models/interconnect/interconnect_table.h"
#include "models/interconnect/topology.h"

namespace gpuplan::config {

/// The network between the nodes of a job: `nics` NICs per node, each of `nic_bytes_per_s`
/// per direction over `kind`, with `message_latency_s` per NCCL message.
struct NetworkChoice {
  models::NetworkKind kind = models::NetworkKind::kEthernet;
  double nic_bytes_per_s = 0.0;    ///< ONE NIC, per direction
  double message_latency_s = 0.0;  ///< per message, end to end
  int nics = 1;                    ///< NICs per node, >= 1

  /// All NICs of a node together, B/s per direction (HardwareSpec::network_bytes_per_s).
  double node_bytes_per_s() const { return nic_bytes_per_s * nics; }
};

/// Node totals from this rate up are treated as an RDMA-class fabric (see instance_network).
inline constexpr double kRdmaClassNodeBytesPerS = core::gigabits_per_s(400.0);

/// The names `hardware.gpu_interconnect` accepts: the bare aliases (pcie3, pcie4, pcie5,
/// nvlink2, nvlink3, nvlink4, nvlink5; what the instance catalogs write) first, then every table name
/// of models/interconnect/interconnect_table.h, sorted.
std::vector<std::string> interconnect_choices();

/// Names a scenario may write but that the interconnect table lacks on purpose, with the
/// reason: "nvlink1" (P100 SXM2). No GPU of catalogs/gpus.yaml has it (the catalog's p100 is
/// the PCIe card), so neither the NVLink bandwidth nor the collective efficiency of such a
/// board could come from data. Empty for any other name.
std::string unsupported_interconnect_reason(std::string_view name);

/// The intra-node link called `name` (interconnect_choices()), for `gpu`: the table's link,
/// with its raw bandwidth replaced by the GPU catalog's per-direction NVLink figure when the
/// link is NVLink and the GPU gives one; on a PCIe card a bare NVLink alias means the bridge
/// (nvlink3 -> nvlink3_direct), not an NVSwitch (e.g. nvlink3 on a100-80gb: nvlink3_nvswitch at
/// 300 GB/s); PCIe links keep the table's figure of their generation. Throws
/// std::invalid_argument for an unknown name. On infinity_fabric_mesh (AMD, a full mesh with
/// one link per peer and no switch) the raw bandwidth is the GPU's links that reach the
/// other GPUs of the node: min(gpus_per_node - 1, links) x per-link bandwidth (mi300x, 8 GPUs:
/// 7 x 64 = 448 GB/s; 2 GPUs: 64 GB/s). A tensor-parallel sub-group of a mesh reaches fewer
/// peers than the node's GPUs; that is not modelled (it keeps the node's figure).
models::LinkSpec intra_node_link_for(const std::string& name, const models::GpuSpec& gpu, int gpus_per_node);

/// The interconnect table name of AMD's Infinity Fabric full mesh.
inline constexpr std::string_view kInfinityFabricMesh = "infinity_fabric_mesh";

/// The NVLink generation of `gpu`: 2 for compute capability 7.x (V100, TITAN RTX), 3 for 8.x
/// (A100, RTX 3090, RTX A6000), 4 for 9.x (H100, H200), 5 for 10.x (NVIDIA NVLink
/// generations per architecture: Volta 2, Ampere 3, Hopper 4, Blackwell 5); 0 when the GPU
/// catalog gives no NVLink bandwidth.
int nvlink_generation(const models::GpuSpec& gpu);

/// Why `gpu` with `gpus_per_node` GPUs cannot be wired as `name` (an interconnect_choices()
/// name), as {problem, fix}; both empty when it can. Refused: an NVLink generation other than
/// the GPU's; a PCIe generation above the GPU's (the link runs at the card's own); on a PCIe
/// card (NVLink by a bridge joining two cards) an NVSwitch, or NVLink with more than two GPUs
/// per node; infinity_fabric_mesh on a GPU without Infinity Fabric links, or with more GPUs
/// per node than the mesh joins (links + 1). A GPU without NVLink is the caller's check.
struct InterconnectProblem {
  std::string problem;
  std::string fix;
};
InterconnectProblem interconnect_problem(const std::string& name, const models::GpuSpec& gpu, int gpus_per_node);

/// The interconnect a scenario without gpu_interconnect (and without an instance) gets: an
/// SXM GPU with NVLink sits on an NVLink board (nvlink2 = DGX-1 style mesh, nvlink3/4/5 = HGX
/// with NVSwitch: A100, H100/H200, B200/GB200), an AMD OAM module with Infinity Fabric links on
/// its platform's mesh (infinity_fabric_mesh), anything else on its own PCIe generation ("pcie4"). Empty when the catalog
/// gives no PCIe generation and no NVLink.
std::string default_interconnect(const models::GpuSpec& gpu);

/// Whether `written` (a scenario's gpu_interconnect) agrees with `instance_has` (an instance
/// catalog's Interconnect column, a bare name): same resolved link, or the same bus and
/// generation with the wiring refined (pcie4 -> pcie4_switch or pcie4_no_p2p, nvlink3 ->
/// nvlink3_direct), since the catalog records only the generation. Unknown names: false.
bool interconnect_agrees(const std::string& written, const std::string& instance_has);

/// Default GPUs per PCIe switch (HardwareSpec::gpus_per_pcie_switch) when the scenario gives
/// none: 2 on an NVSwitch board (the link's name ends in "_nvswitch", which the nvlink3,
/// nvlink4 and nvlink5 aliases resolve to) with at least 2 GPUs per node, since HGX/DGX A100 and H100
/// boards put two GPUs behind each PCIe switch (NVIDIA DGX A100 User Guide, system topology;
/// see HardwareSpec::gpus_per_pcie_switch in models/job_spec.h); otherwise 1 (each GPU on its own x16 root port:
/// workstations, most cloud VMs with 1-4 GPUs).
int default_gpus_per_pcie_switch(const models::LinkSpec& intra_node, int gpus_per_node);

/// The network an instance catalog row's `Network` column implies when the scenario gives
/// none: the column is the node's total, taken as ONE aggregate NIC. Transport infiniband
/// when the total is >= kRdmaClassNodeBytesPerS (400 Gbit/s), else ethernet, with
/// models::default_message_latency_s of that transport. Why: every catalog instance with
/// 400 Gbit/s or more is sold for multi-node training over an RDMA-class fabric (AWS EFA on
/// p4d/p5, Azure InfiniBand on ND A100 v4/H100 v5, GCP GPUDirect on a3), while the rest
/// (<= 100 Gbit/s) are plain VPC Ethernet, where NCCL falls back to TCP sockets. Requires
/// `node_bytes_per_s` > 0 (std::invalid_argument otherwise).
NetworkChoice instance_network(double node_bytes_per_s);

/// The topology of `nodes` nodes of `gpus_per_node` GPUs over `intra_node`, with `network`
/// between nodes (nullptr: none known; fine on one node). Calls models::validate_topology:
/// throws std::invalid_argument when it fails (e.g. several nodes and no network).
models::Topology make_topology(int gpus_per_node, int nodes, const models::LinkSpec& intra_node,
                               const NetworkChoice* network);

}  // namespace gpuplan::config

#include "config/hardware_topology.h"

#include <cstdlib>

#include <algorithm>
#include <stdexcept>

namespace gpuplan::config {
namespace {

/// The bare names of interconnect_table.h's alias list, in the order users read them.
constexpr std::string_view kAliases[] = {"pcie3", "pcie4", "pcie5", "nvlink2", "nvlink3", "nvlink4", "nvlink5"};

/// "pcie4" for "pcie4", "pcie4_switch" or "pcie4_no_p2p": the bus and its generation.
std::string_view bus_generation(std::string_view name) { return name.substr(0, name.find('_')); }

bool is_choice(const std::string& name) {
  const std::vector<std::string> names = interconnect_choices();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::vector<std::string> interconnect_choices() {
  std::vector<std::string> names(std::begin(kAliases), std::end(kAliases));
  for (const std::string& name : models::intra_node_link_names()) {
    names.push_back(name);
  }
  return names;
}

std::string unsupported_interconnect_reason(std::string_view name) {
  if (name == "nvlink1") {
    return "NVLink 1 (P100 SXM2) is not in the interconnect table: no GPU of the catalog has it "
           "(p100 is the PCIe card) and no all-reduce measurement calibrates it";
  }
  return "";
}

int nvlink_generation(const models::GpuSpec& gpu) {
  if (!(gpu.nvlink_bytes_per_s_per_direction > 0.0)) return 0;
  switch (gpu.compute_capability_major) {
    case 6: return 1;
    case 7: return 2;
    case 8: return 3;
    case 9: return 4;
    case 10: return 5;
    default: return 0;
  }
}

InterconnectProblem interconnect_problem(const std::string& name, const models::GpuSpec& gpu, int gpus_per_node) {
  if (name == kInfinityFabricMesh) {
    if (gpu.infinity_fabric_links <= 0) {
      const std::string own = default_interconnect(gpu);
      return {gpu.name + " has no Infinity Fabric links (AMD Instinct platforms only)",
              own.empty() ? "; use a PCIe link such as pcie4" : "; use " + own};
    }
    if (gpus_per_node > gpu.infinity_fabric_links + 1) {
      return {"an Infinity Fabric mesh of " + std::to_string(gpu.infinity_fabric_links) + " links per GPU joins " +
                  std::to_string(gpu.infinity_fabric_links + 1) + " " + gpu.name + " GPUs, not " +
                  std::to_string(gpus_per_node),
              "; use gpus_per_node: " + std::to_string(gpu.infinity_fabric_links + 1) +
                  " or fewer, and more nodes"};
    }
    return {};
  }
  const std::string bus(bus_generation(name));
  const bool nvlink = bus.starts_with("nvlink");
  const int generation = std::atoi(bus.c_str() + (nvlink ? 6 : 4));
  if (nvlink) {
    const int own = nvlink_generation(gpu);
    if (own == 0) return {};  // no NVLink at all: the caller's message
    const std::string own_name = "nvlink" + std::to_string(own);
    if (generation != own) {
      return {gpu.name + " has NVLink " + std::to_string(own) + ", not NVLink " + std::to_string(generation),
              "; use " + own_name + " (or a wiring of it such as " + own_name +
                  (gpu.form_factor == "pcie" ? "_direct)" : "_nvswitch)")};
    }
    if (gpu.form_factor == "pcie") {
      if (name.ends_with("_nvswitch")) {
        return {gpu.name + " cards are joined by an NVLink bridge, not an NVSwitch",
                "; use " + own_name + "_direct (the bridge), or pcie" + std::to_string(gpu.pcie_generation)};
      }
      if (gpus_per_node > 2) {
        return {"an NVLink bridge joins two " + gpu.name + " cards, not " + std::to_string(gpus_per_node),
                "; use gpus_per_node: 2 with " + own_name + ", or pcie" + std::to_string(gpu.pcie_generation) +
                    " for " + std::to_string(gpus_per_node) + " cards"};
      }
    }
    return {};
  }
  if (gpu.pcie_generation > 0 && generation > gpu.pcie_generation) {
    const std::string own = "pcie" + std::to_string(gpu.pcie_generation);
    return {gpu.name + " is a PCIe " + std::to_string(gpu.pcie_generation) + ".0 device: its links run at that "
                "generation, not PCIe " + std::to_string(generation) + ".0",
            "; use " + own + (name.find('_') != std::string::npos ? name.substr(name.find('_')) : std::string())};
  }
  return {};
}

std::string default_interconnect(const models::GpuSpec& gpu) {
  if (gpu.form_factor == "oam" && gpu.infinity_fabric_links > 0) return std::string(kInfinityFabricMesh);
  const int nvlink = nvlink_generation(gpu);
  if (gpu.form_factor == "sxm" && nvlink >= 2 && nvlink <= 5) return "nvlink" + std::to_string(nvlink);
  if (gpu.pcie_generation > 0) return "pcie" + std::to_string(gpu.pcie_generation);
  return "";
}

models::LinkSpec intra_node_link_for(const std::string& name, const models::GpuSpec& gpu, int gpus_per_node) {
  // A bare NVLink alias on a PCIe card is the bridge between two cards.
  const bool bridge = gpu.form_factor == "pcie" && name.starts_with("nvlink") && name.find('_') == std::string::npos;
  models::LinkSpec link = models::intra_node_link(bridge ? name + "_direct" : name);
  if (link.kind == models::LinkKind::kNvlink && gpu.nvlink_bytes_per_s_per_direction > 0.0) {
    link = models::with_bandwidth(std::move(link), gpu.nvlink_bytes_per_s_per_direction);
  }
  if (link.kind == models::LinkKind::kInfinityFabric && gpu.infinity_fabric_links > 0 &&
      gpu.infinity_fabric_link_bytes_per_s_per_direction > 0.0) {
    // A full mesh: each GPU reaches the job's other GPUs over one link each.
    const int peers = std::clamp(gpus_per_node - 1, 1, gpu.infinity_fabric_links);
    link = models::with_bandwidth(std::move(link), peers * gpu.infinity_fabric_link_bytes_per_s_per_direction);
  }
  return link;
}

bool interconnect_agrees(const std::string& written, const std::string& instance_has) {
  return is_choice(written) && is_choice(instance_has) && bus_generation(written) == bus_generation(instance_has);
}

int default_gpus_per_pcie_switch(const models::LinkSpec& intra_node, int gpus_per_node) {
  return intra_node.name.ends_with("_nvswitch") && gpus_per_node >= 2 ? 2 : 1;
}

NetworkChoice instance_network(double node_bytes_per_s) {
  if (!(node_bytes_per_s > 0.0)) {
    throw std::invalid_argument("instance network: the node's bandwidth must be > 0");
  }
  NetworkChoice network;
  network.kind =
      node_bytes_per_s >= kRdmaClassNodeBytesPerS ? models::NetworkKind::kInfiniband : models::NetworkKind::kEthernet;
  network.nic_bytes_per_s = node_bytes_per_s;
  network.message_latency_s = models::default_message_latency_s(network.kind);
  network.nics = 1;
  return network;
}

models::Topology make_topology(int gpus_per_node, int nodes, const models::LinkSpec& intra_node,
                               const NetworkChoice* network) {
  models::Topology topology;
  topology.gpus_per_node = gpus_per_node;
  topology.nodes = nodes;
  topology.intra_node = intra_node;
  if (network != nullptr) {
    topology.inter_node = models::network_link(network->kind, network->nic_bytes_per_s, network->message_latency_s);
    topology.nics_per_node = network->nics;
  }
  models::validate_topology(topology);
  return topology;
}

}  // namespace gpuplan::config

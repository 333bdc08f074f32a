#include "config/instance_hardware.h"

#include <algorithm>
#include <cmath>

namespace gpuplan::config {

InstanceFacts instance_facts(const models::InstanceSpec& row, const Catalogs& catalogs) {
  InstanceFacts f;
  f.gpu = catalogs.gpus.find(row.gpu);
  if (f.gpu == nullptr) {
    f.problems.push_back({"has GPU '" + row.gpu + "', which the GPU catalog lacks", "; add it to catalogs/gpus.yaml"});
  }
  if (row.accelerator_count <= 0) {
    f.problems.push_back({"has no GPU", "; choose a GPU instance"});
  }
  f.gpus_per_node = std::max(row.accelerator_count, 0);
  f.cpu_cores = row.vcpus >= 1.0 ? std::max(1, static_cast<int>(std::floor(row.vcpus / 2.0))) : 0;
  f.host_memory_bytes = std::max(row.memory_bytes, 0.0);
  f.interconnect_from_row = !row.interconnect.empty();
  if (f.interconnect_from_row) {
    f.gpu_interconnect = row.interconnect;
  } else if (f.gpu != nullptr) {
    f.gpu_interconnect = default_interconnect(*f.gpu);
  }
  if (row.network_bytes_per_s > 0.0) {
    f.network = instance_network(row.network_bytes_per_s);
  }
  if (!row.storage.empty()) {
    f.storage = catalogs.storage.find(row.storage);
    if (f.storage == nullptr) {
      f.problems.push_back({"has storage '" + row.storage + "', which the storage catalog lacks",
                            "; add it to catalogs/storage.yaml, or give hardware.storage"});
    }
  }
  return f;
}

std::string row_label(const models::InstanceSpec& row) {
  return row.provider + "/" + row.instance_type + " in " + row.region + (row.zone.empty() ? "" : " (" + row.zone + ")");
}

models::HardwareSpec instance_hardware(const models::InstanceSpec& row, int nodes, const Catalogs& catalogs,
                                       const models::HardwareSpec& scenario) {
  const InstanceFacts f = instance_facts(row, catalogs);
  const std::string label = row_label(row);
  if (!f.problems.empty()) {
    throw InstanceRowError(label + " " + f.problems.front().problem + f.problems.front().fix);
  }
  if (f.gpu_interconnect.empty()) {
    throw InstanceRowError(label + " gives no Interconnect and the GPU catalog no PCIe generation for " + f.gpu->name +
                           "; add an Interconnect column to the catalog row");
  }
  if (nodes > 1 && !f.network) {
    throw InstanceRowError(label + " gives no Network in the catalog, needed with " + std::to_string(nodes) +
                           " nodes; add a Network column (the node's total, e.g. \"400 Gbit/s\")");
  }
  models::HardwareSpec h = scenario;
  h.gpu = *f.gpu;
  h.gpus_per_node = f.gpus_per_node;
  h.nodes = nodes;
  if (f.cpu_cores > 0) h.cpu_cores = f.cpu_cores;
  if (f.host_memory_bytes > 0.0) h.host_memory_bytes = f.host_memory_bytes;
  if (f.storage != nullptr) h.storage = *f.storage;
  h.gpu_interconnect = f.gpu_interconnect;
  h.network_bytes_per_s = f.network ? f.network->node_bytes_per_s() : 0.0;
  try {
    const models::LinkSpec link = intra_node_link_for(h.gpu_interconnect, h.gpu, h.gpus_per_node);
    h.gpus_per_pcie_switch = default_gpus_per_pcie_switch(link, h.gpus_per_node);
    h.topology = make_topology(h.gpus_per_node, nodes, link, f.network ? &*f.network : nullptr);
  } catch (const std::invalid_argument& e) {
    throw InstanceRowError(label + ": cannot build the topology of the collectives: " + e.what());
  }
  return h;
}

}  // namespace gpuplan::config

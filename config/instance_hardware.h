#pragma once
/// \file instance_hardware.h
/// How an instance catalog row becomes hardware: the one rule (STYLE.md S5) that
/// `gpuplan run` (a scenario's cloud.instance, config/scenario_hardware.cpp) and
/// `gpuplan plan` (every row of the catalogs, cli/plan.cpp) share, with the same checks.
/// Pure functions on plain specs, no YAML. Units: SI (bytes, B/s per direction).
///
/// The facts a row gives: its catalog GPU, AcceleratorCount GPUs per node, floor(vCPUs / 2)
/// physical cores (cloud vCPUs are hardware threads, two per core), MemoryGiB of host
/// memory, its Interconnect column or, when the row has none (a plain SkyPilot vms.csv),
/// default_interconnect() of the GPU (an SXM GPU with NVLink on its NVLink board, a PCIe card
/// on its PCIe generation: config/hardware_topology.h), its Network column as
/// instance_network(), and its Storage column's class.

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/catalogs.h"
#include "config/hardware_topology.h"
#include "models/job_spec.h"

namespace gpuplan::config {

/// A reason a row cannot be used as hardware, without the row's name (the caller says
/// which row: a key path in a scenario, the row's label in a plan).
struct InstanceProblem {
  std::string problem;  ///< e.g. "has GPU 'tpu-v5', which the GPU catalog lacks"
  std::string fix;      ///< "; add it to catalogs/gpus.yaml"
};

/// What one instance row gives.
struct InstanceFacts {
  const models::GpuSpec* gpu = nullptr;          ///< nullptr when the GPU catalog lacks it
  int gpus_per_node = 0;                         ///< AcceleratorCount
  int cpu_cores = 0;                             ///< floor(vCPUs / 2), >= 1; 0 without vCPUs
  double host_memory_bytes = 0.0;                ///< 0 when the row gives none
  std::string gpu_interconnect;                  ///< the row's, else default_interconnect(gpu)
  bool interconnect_from_row = false;            ///< the row's Interconnect column gave it
  std::optional<NetworkChoice> network;          ///< nullopt: the row gives no Network
  const models::StorageSpec* storage = nullptr;  ///< nullptr: no Storage column, or an unknown class
  std::vector<InstanceProblem> problems;         ///< unknown GPU, no GPU, unknown storage class
};

/// The facts of `row`, looked up in `catalogs` (GPU and storage classes). Never throws.
InstanceFacts instance_facts(const models::InstanceSpec& row, const Catalogs& catalogs);

/// "aws/p4d.24xlarge in eu-central-1 (euc1-az2)": a row named for notes and messages.
std::string row_label(const models::InstanceSpec& row);

/// Thrown by instance_hardware for a row that cannot be used; the message names the row.
class InstanceRowError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// `scenario`'s hardware on `nodes` nodes of `row`, every GPU of the row training: the row's
/// facts replace the scenario's GPU, GPUs per node, cores, host memory, interconnect and
/// network; its storage class replaces the scenario's when the row gives one. Builds the
/// topology with the rules of config/hardware_topology.h. Throws InstanceRowError, naming
/// the row (row_label), for a row with a problem, a GPU without interconnect, or several
/// nodes of a row without a network.
models::HardwareSpec instance_hardware(const models::InstanceSpec& row, int nodes, const Catalogs& catalogs,
                                       const models::HardwareSpec& scenario);

}  // namespace gpuplan::config

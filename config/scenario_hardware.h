#pragma once
/// \file scenario_hardware.h
/// Reads `cloud:`, `hardware:` and `on_premises:` of one scenario variant. A cloud instance
/// fills in the hardware facts it knows (GPU, GPUs per node, CPU cores, host memory,
/// interconnect, network, local storage); an explicit hardware key that contradicts the
/// instance is an error at that key (STYLE.md C6). Hardware facts have no defaults (C8):
/// what neither the scenario nor the instance gives is an error. Internal to config/.
///
/// It also builds HardwareSpec::topology (the links the collectives run over) and
/// gpus_per_pcie_switch with the rules of config/hardware_topology.h; the accepted forms of
/// gpu_interconnect, network and gpus_per_pcie_switch are in docs/scenario-hardware.md.

#include <optional>
#include <string>
#include <vector>

#include "config/catalogs.h"
#include "config/scenario.h"
#include "config/yaml_reader.h"
#include "models/job_spec.h"

namespace gpuplan::config {

/// What `cloud:` resolved to.
struct CloudSection {
  bool present = false;        ///< the scenario has a `cloud:` section
  bool failed = false;         ///< it has errors (the instance may be unknown)
  std::optional<MapReader> reader;
  const models::InstanceSpec* instance = nullptr;
  std::string instance_name;   ///< "aws/p4d.24xlarge" as written
  std::optional<models::CloudSpec> spec;
  PreemptionSource preemption_source = PreemptionSource::kNone;
  std::string preemption_trace;
  /// What the reader left unused, in words (a preemption rate on the on-demand market).
  std::vector<std::string> notes;
};

/// What `hardware:` resolved to.
struct HardwareSection {
  std::optional<MapReader> reader;  ///< absent when the scenario has no `hardware:` mapping
  std::optional<models::HardwareSpec> spec;
  bool explicit_gpus_per_node = false;
  bool explicit_nodes = false;
  /// What the reader chose for the user, in words (an alias that names several GPUs).
  std::vector<std::string> notes;
};

/// Reads `root.cloud`. `scenario_dir` resolves a relative preemption trace path.
CloudSection read_cloud_section(MapReader& root, const Catalogs& catalogs,
                                const std::string& scenario_dir);

/// Reads `root.hardware`, completed by the instance of `cloud`. On success `spec` holds the
/// validated topology (models::validate_topology passed); errors are recorded in root's sink.
/// With `synthetic_data` (workload.dataset.synthetic: true) the keys only a real input
/// pipeline needs have documented defaults instead of being required (kSyntheticDefaults...
/// of scenario_hardware.cpp: one CPU core per GPU, no host memory, nvme_ssd), each named in
/// `notes`.
HardwareSection read_hardware_section(MapReader& root, const CloudSection& cloud,
                                      const Catalogs& catalogs, bool synthetic_data = false);

/// Reads `root.on_premises` (an error when `cloud` is also given).
std::optional<models::OnPremisesSpec> read_on_premises_section(MapReader& root, const CloudSection& cloud);

/// The accepted values of hardware.gpu_interconnect: interconnect_choices() of
/// config/hardware_topology.h (bare aliases, then the interconnect table's names).
const std::vector<std::string_view>& interconnect_names();

/// Refuses a host memory below what `job` holds on a node: its data loaders' batches
/// (models/host/loader_host_memory.h), parallelism.offload's states
/// (offloaded_host_bytes_per_node) and training.activation_offloading's pinned activations
/// (offloaded_activation_host_bytes_per_node): an error at hardware.host_memory, or at cloud.instance
/// when the instance set it, naming the bytes needed and how they add up. Returns whether the
/// host memory suffices. Where it suffices but not by DeepSpeed's buffer factor on the
/// offloaded states (kOffloadHostBufferFactor), a note at the same key goes to `notes`.
bool check_host_memory(const models::JobSpec& job, const HardwareSection& hardware, const CloudSection& cloud,
                       std::vector<std::string>& notes);

/// Where the default of hardware.gpu_failure_rate comes from, with the key that changes it (the
/// notes of a run or plan that did not write one).
std::string default_gpu_failure_rate_source();

/// The margin DeepSpeed's memory estimators put on the host memory of offloaded states
/// (estimate_zero2/zero3_model_states_mem_needs, additional_buffer_factor = 1.5 by default,
/// "to be conservative": DeepSpeed docs, "Memory Requirements"). gpuplan's check refuses less
/// than the states themselves and notes less than this factor times them.
inline constexpr double kOffloadHostBufferFactor = 1.5;

}  // namespace gpuplan::config

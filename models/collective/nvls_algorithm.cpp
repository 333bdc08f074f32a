#include "models/collective/nvls_algorithm.h"

#include <stdexcept>

#include "models/collective/algorithm_terms.h"

namespace gpuplan::models {

std::string NvlsAlgorithm::summary() const {
  return "NVLink SHARP all-reduce reduced in the NVSwitch (H100/H200 HGX, one node): "
         "(1 + 1/g) of the bytes per GPU, Simple protocol only";
}

bool NvlsAlgorithm::supports(Collective collective, const Topology& topology) const {
  return collective == Collective::kAllReduce && topology.nodes == 1 &&
         topology.gpus_per_node >= 2 && topology.intra_node.in_switch_reduction;
}

bool NvlsAlgorithm::supports_protocol(Protocol protocol) const {
  return protocol == Protocol::kSimple;
}

double NvlsAlgorithm::time_s(Collective collective, double payload_bytes,
                             const Topology& topology, Protocol protocol) const {
  check_call("nvls", supports(collective, topology) && supports_protocol(protocol), collective,
             payload_bytes, topology);
  if (payload_bytes == 0.0) {
    return 0.0;
  }
  const LinkSpec& link = topology.intra_node;
  if (!(link.nvls.efficiency > 0.0 && link.nvls.efficiency <= 1.0)) {
    throw std::invalid_argument("link '" + link.name +
                                "': in_switch_reduction needs an nvls efficiency in (0, 1]");
  }
  const double g = topology.gpus_per_node;
  const double bytes = (1.0 + 1.0 / g) * payload_bytes;
  return line_time_s(2.0 * link.nvls.hop_latency_s,
                     bytes / (link.nvls.efficiency * link.bytes_per_s_per_direction));
}

}  // namespace gpuplan::models

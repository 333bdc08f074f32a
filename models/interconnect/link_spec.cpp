#include "models/interconnect/link_spec.h"

#include <cmath>
#include <stdexcept>

namespace gpuplan::models {

const char* protocol_name(Protocol protocol) {
  return protocol == Protocol::kLowLatency ? "low_latency" : "simple";
}

const ProtocolParams& protocol_params(const LinkSpec& link, Protocol protocol) {
  return protocol == Protocol::kLowLatency ? link.low_latency : link.simple;
}

double effective_bytes_per_s(const LinkSpec& link, Protocol protocol) {
  return protocol_params(link, protocol).efficiency * link.bytes_per_s_per_direction;
}

LinkSpec with_bandwidth(LinkSpec link, double bytes_per_s_per_direction) {
  if (!std::isfinite(bytes_per_s_per_direction) || bytes_per_s_per_direction <= 0.0) {
    throw std::invalid_argument("link '" + link.name +
                                "': bandwidth per direction must be finite and > 0");
  }
  link.bytes_per_s_per_direction = bytes_per_s_per_direction;
  return link;
}

}  // namespace gpuplan::models

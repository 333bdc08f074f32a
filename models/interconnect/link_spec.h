#pragma once
/// \file link_spec.h
/// One kind of link a collective runs over (NVLink, PCIe, a NIC of the network), as NCCL's
/// tuner sees it: a raw bandwidth per direction, and for each NCCL protocol the share of that
/// bandwidth a collective reaches and the latency it pays per sequential hop. Pure data, no
/// sim/ includes (STYLE.md E2). Units: B/s per direction, seconds.
///
/// Why per protocol: NCCL runs every collective with one of three wire protocols (LL, LL128,
/// Simple) and picks, per message size, the (algorithm, protocol) pair its cost model predicts
/// fastest. LL/LL128 use flags inside each 8/128-byte line, so they have low per-hop latency
/// but reach only part of the link bandwidth; Simple uses large chunks with a memory fence and
/// reaches the full bandwidth at a higher per-hop latency. The minimum over the protocols of
/// affine lines "latency + bytes / bandwidth" is NCCL's own model (src/graph/tuning.cc:
/// `baseLat`, `hwLat[NVLINK|PCI|NET][algo][proto]`, per-protocol bandwidths), and is what
/// makes the measured busbw-versus-size curves ramp over 1 MiB-256 MiB instead of following
/// one alpha-beta line. We merge LL and LL128 into one "low-latency" protocol.

#include <string>

namespace gpuplan::models {

/// NCCL wire protocol class. kLowLatency stands for LL/LL128, kSimple for Simple
/// (NCCL docs, environment variable NCCL_PROTO).
enum class Protocol { kLowLatency, kSimple };

/// Both protocols, in a fixed order, for loops that take the fastest.
inline constexpr Protocol kProtocols[] = {Protocol::kLowLatency, Protocol::kSimple};

/// "low_latency" or "simple".
const char* protocol_name(Protocol protocol);

/// What a link is physically; decides which hop counts of an algorithm it serves.
/// kInfinityFabric: AMD's GPU-to-GPU links (xGMI), a point-to-point full mesh on the 8-GPU
/// MI300X/MI325X platforms, no switch.
enum class LinkKind { kNvlink, kPcie, kNetwork, kInfinityFabric };

/// How one protocol uses a link.
struct ProtocolParams {
  /// Share of `LinkSpec::bytes_per_s_per_direction` the protocol reaches as bus bandwidth on
  /// long messages, in (0, 1].
  double efficiency = 0.0;
  /// Latency a message pays per sequential hop over this link (NCCL `hwLat`), seconds.
  double hop_latency_s = 0.0;
};

/// One link type. For NVLink and PCIe, the bandwidth is what one GPU can send (egress) to the
/// others, per direction; for a network link, the bandwidth of ONE NIC per direction
/// (Topology::nics_per_node says how many a node has).
struct LinkSpec {
  std::string name;                        ///< table name, e.g. "nvlink4_nvswitch"
  LinkKind kind = LinkKind::kPcie;
  double bytes_per_s_per_direction = 0.0;  ///< raw rate, one direction (STYLE.md 3.3)
  ProtocolParams low_latency;              ///< LL/LL128
  ProtocolParams simple;                   ///< Simple
  /// NVSwitch with in-switch reduction (NVLink SHARP, "NVLS"; third-generation NVSwitch of
  /// HGX H100/H200). Only then can the "nvls" all-reduce run.
  bool in_switch_reduction = false;
  /// NVLS: share of the bandwidth reached, and the latency of each of its two stages
  /// (multimem reduce-load, multimem store); meaningful only with `in_switch_reduction`.
  ProtocolParams nvls;
  std::string source;                      ///< where the figures come from
};

/// The parameters of `protocol` on `link`.
const ProtocolParams& protocol_params(const LinkSpec& link, Protocol protocol);

/// Bus bandwidth `protocol` reaches on `link`: efficiency x bytes_per_s_per_direction, B/s.
double effective_bytes_per_s(const LinkSpec& link, Protocol protocol);

/// `link` with its raw bandwidth replaced, efficiencies and latencies kept. Used when the GPU
/// catalog gives the per-direction NVLink figure of a particular GPU (GpuSpec::
/// nvlink_bytes_per_s_per_direction) or a catalog row gives the network bandwidth. Throws
/// std::invalid_argument unless `bytes_per_s_per_direction` is finite and > 0.
LinkSpec with_bandwidth(LinkSpec link, double bytes_per_s_per_direction);

}  // namespace gpuplan::models

#pragma once
/// \file collective.h
/// Collective operations, the nccl-tests bandwidth identities, and the pieces every
/// collective algorithm shares. Pure formulas (STYLE.md E2). Units: bytes, seconds, B/s.
///
/// Payload convention (nccl-tests doc/PERFORMANCE.md, https://github.com/NVIDIA/nccl-tests/
/// blob/master/doc/PERFORMANCE.md): `payload_bytes` S is the size nccl-tests prints: for
/// all-reduce the buffer of one rank; for all-gather the whole gathered output (each rank
/// contributes S/n); for reduce-scatter the whole input (each rank keeps S/n); for all-to-all
/// the send buffer of one rank (S/n to each rank).
///   algbw = S / t
///   busbw = algbw x 2(n-1)/n   (all-reduce)
///   busbw = algbw x (n-1)/n    (all-gather, reduce-scatter, all-to-all)
/// busbw is comparable with the link bandwidth whatever n is.

#include "core/units.h"

namespace gpuplan::models {

/// The collectives modelled (NCCL names them ncclAllReduce, ncclAllGather, ncclReduceScatter).
/// All-to-all is ncclAllToAll / grouped ncclSend-ncclRecv: each rank sends S/n of its S bytes to
/// each peer (nccl-tests alltoall_perf).
enum class Collective { kAllReduce, kAllGather, kReduceScatter, kAllToAll };

/// "all_reduce", "all_gather", "reduce_scatter" or "all_to_all" (STYLE.md N3).
const char* collective_name(Collective collective);

/// busbw / algbw for `collective` over `ranks` ranks: 2(n-1)/n for all-reduce, (n-1)/n for
/// all-gather, reduce-scatter and all-to-all; 0 for one rank. Throws std::invalid_argument when ranks < 1.
double bus_factor(Collective collective, int ranks);

/// nccl-tests algorithm bandwidth S / t, B/s. Throws std::invalid_argument unless
/// payload_bytes >= 0 and time_s > 0 (both finite).
double algbw_bytes_per_s(double payload_bytes, double time_s);

/// nccl-tests bus bandwidth algbw x bus_factor(collective, ranks), B/s. Same errors.
double busbw_bytes_per_s(Collective collective, int ranks, double payload_bytes, double time_s);

/// Fixed cost of one collective call on top of the per-hop latencies: kernel launch and
/// NCCL's per-call base latency (NCCL tuning.cc `baseLat`, 6.6-8.4 us) plus the caller's
/// overhead (nccl-tests or torch.distributed). 28 us is FITTED on allreduce-8xH200.csv
/// (torch.distributed) together with the NVLink4 parameters in interconnect_table.cpp; the
/// 2x8 H100 nccl-tests log agrees with it.
inline constexpr double kCollectiveBaseLatencyS = core::microseconds(28.0);

/// Throws std::invalid_argument unless `payload_bytes` is finite and >= 0.
void check_payload(double payload_bytes);

}  // namespace gpuplan::models

#pragma once
// Topologies shared by the collective tests: the two measured systems of ../shared/data/logs/
// and a generic InfiniBand cluster.

#include "core/units.h"
#include "models/interconnect/interconnect_table.h"
#include "models/interconnect/topology.h"

namespace gpuplan::models::testing {

// 8x H200 SXM, NVLink4 (18 links) through third-generation NVSwitch (allreduce-8xH200.csv).
inline Topology h200_node() {
  Topology t;
  t.gpus_per_node = 8;
  t.nodes = 1;
  t.intra_node = intra_node_link("nvlink4_nvswitch");
  return t;
}

// GCP a3-mega: 8x H100 per node (NVLink4 + NVSwitch), 8 NICs of 200 Gbit/s with
// GPUDirect-TCPXO (nccl-tests-allreduce-2x8xH100.txt).
inline Topology a3_mega(int nodes) {
  Topology t = h200_node();
  t.nodes = nodes;
  t.inter_node = network_link(NetworkKind::kGpuDirectTcpxo, core::gigabits_per_s(200),
                              default_message_latency_s(NetworkKind::kGpuDirectTcpxo));
  t.nics_per_node = 8;
  return t;
}

// `nodes` x `gpus` GPUs over `intra`, 8 InfiniBand NICs of 200 Gbit/s per node.
inline Topology ib_cluster(int nodes, int gpus, const char* intra = "nvlink3_nvswitch") {
  Topology t;
  t.gpus_per_node = gpus;
  t.nodes = nodes;
  t.intra_node = intra_node_link(intra);
  t.inter_node = network_link(NetworkKind::kInfiniband, core::gigabits_per_s(200),
                              default_message_latency_s(NetworkKind::kInfiniband));
  t.nics_per_node = 8;
  return t;
}

}  // namespace gpuplan::models::testing

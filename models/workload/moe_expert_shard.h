#pragma once
/// \file moe_expert_shard.h
/// The op table of one expert-parallel rank (pure): a mixture-of-experts model's routed
/// experts split over e ranks (Lepikhin et al. 2021, GShard, sec. 2.2; Megatron-Core's
/// expert parallelism), each rank holding E / e experts of every MoE layer and the whole of
/// everything else. After the dispatch all-to-all each rank runs its experts on the tokens
/// routed to them from all e ranks: k·s tokens per sample on average, the same as without
/// expert parallelism, times the load imbalance on the busiest rank (the one the step waits
/// for). So an expert op's parameters (and frozen parameters) are / e, as are the bytes and
/// kernels of per-weight work over the experts (Op::pass_bytes: a QLoRA base's
/// dequantization, one kernel set per expert matrix), and the FLOP,
/// elements moved and saved of every op on the routed tokens (Op::routed_tokens: the expert
/// GEMMs, the activation between them, LoRA adapters beside them) x imbalance. The shared
/// experts and the router are replicated.

#include "models/workload/workload.h"

namespace gpuplan::models {

/// The busiest expert-parallel rank's op table of `workload` over `expert_parallel` ranks
/// with `load_imbalance` (>= 1) times the mean tokens; `parameters` and
/// `frozen_parameters` are summed again. Returns `workload` unchanged for 1 rank. Throws
/// std::invalid_argument for a rank count < 1, an imbalance below 1, or experts that the
/// ranks do not divide (config/ refuses those first).
Workload expert_parallel_rank_workload(const Workload& workload, int expert_parallel, double load_imbalance);

/// The routed experts per MoE layer of `workload` (Op::experts of its expert ops), 0 for a
/// dense model.
double routed_experts(const Workload& workload);

}  // namespace gpuplan::models

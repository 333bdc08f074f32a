#pragma once
/// \file context_parallel_shard.h
/// The op table one context-parallel rank runs (pure): ring attention as Megatron-Core's
/// context parallelism and torchtitan's `context_parallel` run it (Liu et al. 2023, "Ring
/// Attention with Blockwise Transformers for Near-Infinite Context"; NVIDIA Megatron-Core
/// docs, "context parallelism"). Each of the c ranks holds s / c tokens of every sequence,
/// split into 2c chunks with rank i holding chunks i and 2c - 1 - i, so that under a causal
/// mask every rank has the same share of the attention work (Megatron-Core's load
/// balancing; torchtitan's round-robin "head-tail" split).
///
/// Every op of a decoder but attention is per token, so its FLOP, activations read, written
/// and saved are / c. Attention: the rank's s / c queries attend to all s keys, block by
/// block as the key/value shards come round the ring: (s / c) x s scores, 1/c of the
/// whole, which gpuplan counts without causal halving (attention_kernel.h); with the balanced
/// split a rank's causal work is also 1/c of the sequence's, and its kernels' time skips the
/// masked tiles at the whole sequence's share (fused_attention_tile_share; Op::attention_tokens
/// stays s). So the rank's op table is the
/// model's with every per-sample quantity / c; parameters stay whole (every rank holds the
/// weights; the gradients are reduced over data x context parallel ranks). The fused
/// attention kernel runs once per ring step: forward_kernels x c.

#include "models/workload/workload.h"

namespace gpuplan::models {

/// The per-rank op table of `workload` over `context_parallel` ranks (see the file comment);
/// `workload` itself for 1 rank. Throws std::invalid_argument for fewer than 1 rank.
Workload context_parallel_rank_workload(const Workload& workload, int context_parallel);

}  // namespace gpuplan::models

#pragma once
/// \file tensor_parallel_shard.h
/// The op table one tensor-parallel rank runs (pure): Megatron-LM's split of a transformer
/// decoder over t GPUs (Shoeybi et al. 2019, "Megatron-LM", sec. 3, fig. 3), optionally with
/// sequence parallelism (Korthikanti et al. 2022, "Reducing Activation Recomputation in
/// Large Transformer Models", sec. 4.2.2). Per block:
///
/// - column-parallel linears (attn.qkv, mlp.up, mlp.gate_up): weight split along its output,
///   FLOP, parameters and outputs / t; the input is the whole activation (saved whole, or
///   / t with sequence parallelism, which saves its shard and gathers it again);
/// - the head-split region between them (attention over a / t heads, GELU/SwiGLU over f / t):
///   everything / t;
/// - row-parallel linears (attn.out, mlp.down): weight split along its input, FLOP,
///   parameters and inputs / t, the output a partial sum of the whole activation that the
///   rank group all-reduces (reduce-scatters with sequence parallelism);
/// - the rest of the block (norms, dropout after a branch, residual adds): replicated on
///   every rank, or split along the sequence (/ t, parameters whole) with sequence parallelism.
///
/// Outside the blocks, the token embedding is vocab-parallel (rows / t, output a partial sum),
/// the LM head column-parallel over the vocabulary and the loss a vocab-parallel cross
/// entropy over the rank's logits (Megatron's VocabParallelEmbedding, ColumnParallelLinear,
/// vocab_parallel_cross_entropy, whose backward writes the gradient in place of its saved
/// softmax: no Op::backward_transient_elements); the other ops are replicated (or / t with sequence
/// parallelism). Saved activations per layer then follow Korthikanti et al. 2022, table 2:
/// s·b·h·(10 + 24/t + 5·a·s/(h·t)) bytes at 16 bit without, s·b·h·(34/t + 5·a·s/(h·t)) with
/// sequence parallelism (the a·s term gone with fused attention).
///
/// Ops are recognised by the names of transformer_block.cpp and transformer_decoder_family.cpp
/// (like attention_kernel.cpp and fine_tuning.cpp do).

#include <string>

#include "models/workload/workload.h"

namespace gpuplan::models {

/// Where an op sits in Megatron's tensor-parallel split.
enum class TensorSplit {
  kReplicated,  ///< the same on every rank (split along the sequence with sequence parallelism)
  kColumn,      ///< column-parallel linear: whole input, output / t
  kSharded,     ///< between a column- and a row-parallel linear: all / t
  kRow,         ///< row-parallel linear: input / t, whole output as a partial sum
  kVocab,       ///< vocab-parallel embedding: rows / t, whole output as a partial sum
};

/// The split of `op` of a transformer decoder (see the file comment).
TensorSplit tensor_split_of(const Op& op);

/// The per-rank op table of `workload` over `tensor_parallel` ranks (see the file comment);
/// `parameters` and `frozen_parameters` are summed again over the rank's ops. Returns
/// `workload` unchanged for 1 rank. Throws std::invalid_argument for a rank count < 1 or a
/// workload of another family than transformer_decoder (config/ refuses those first).
Workload tensor_parallel_rank_workload(const Workload& workload, int tensor_parallel, bool sequence_parallel);

/// A transformer decoder's query and key/value heads, read from its first layer's ops (the
/// eager attention scores a·s² per sample, or a fused attention op's log-sum-exp saved per
/// row and head, and the qkv projection's output s·(h + 2·h_kv)); 0 and 0 for a workload
/// without them.
struct DecoderHeads {
  int heads = 0;
  int kv_heads = 0;
};
DecoderHeads decoder_heads(const Workload& workload);

}  // namespace gpuplan::models

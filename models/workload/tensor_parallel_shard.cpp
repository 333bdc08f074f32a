#include "models/workload/tensor_parallel_shard.h"

#include "models/workload/attention_kernel.h"

#include <array>
#include <cmath>
#include <stdexcept>
#include <string_view>

namespace gpuplan::models {
namespace {

bool ends_with(std::string_view name, std::string_view tail) {
  return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
}

struct BlockTail {
  std::string_view tail;
  TensorSplit split;
};

/// How a block op splits, by the end of its name (transformer_block.cpp names; the fused
/// attention op of attention_kernel.cpp): the column- and row-parallel linears, then the ops
/// between a column- and a row-parallel linear (sharded). Other block ops are replicated.
constexpr std::array kBlockTails = {
    BlockTail{"attn.qkv", TensorSplit::kColumn},     BlockTail{"mlp.up", TensorSplit::kColumn},
    BlockTail{"mlp.gate_up", TensorSplit::kColumn},  BlockTail{"attn.out", TensorSplit::kRow},
    BlockTail{"mlp.down", TensorSplit::kRow},        BlockTail{"attn.rotary", TensorSplit::kSharded},
    BlockTail{"attn.repeat_kv", TensorSplit::kSharded}, BlockTail{"attn.scores", TensorSplit::kSharded},
    BlockTail{"attn.scale", TensorSplit::kSharded},  BlockTail{"attn.alibi", TensorSplit::kSharded},
    BlockTail{"attn.mask", TensorSplit::kSharded},   BlockTail{"attn.softmax", TensorSplit::kSharded},
    BlockTail{"attn.dropout", TensorSplit::kSharded}, BlockTail{"attn.context", TensorSplit::kSharded},
    BlockTail{"attn.fused", TensorSplit::kSharded},  BlockTail{"attn.merge_heads", TensorSplit::kSharded},
    BlockTail{"mlp.gelu", TensorSplit::kSharded},    BlockTail{"mlp.swiglu", TensorSplit::kSharded},
    BlockTail{"mlp.relu2", TensorSplit::kSharded},
};

}  // namespace

TensorSplit tensor_split_of(const Op& op) {
  if (!in_block(op)) {
    if (op.name == "embed.tokens") return TensorSplit::kVocab;
    if (op.name == "lm_head") return TensorSplit::kColumn;
    if (op.name == "loss") return TensorSplit::kSharded;
    return TensorSplit::kReplicated;
  }
  // The last character first: this runs for every op of every layout a plan sizes.
  const std::string_view name = op.name;
  for (const BlockTail& t : kBlockTails) {
    if (name.back() == t.tail.back() && ends_with(name, t.tail)) return t.split;
  }
  return TensorSplit::kReplicated;
}

Workload tensor_parallel_rank_workload(const Workload& workload, int tensor_parallel, bool sequence_parallel) {
  if (tensor_parallel < 1) {
    throw std::invalid_argument("tensor_parallel_rank_workload: " + std::to_string(tensor_parallel) +
                                " ranks; expected at least 1");
  }
  if (tensor_parallel == 1) return workload;
  if (workload.family != "transformer_decoder") {
    throw std::invalid_argument("tensor_parallel_rank_workload: " + workload.name + " is a " + workload.family +
                                ", not a transformer_decoder");
  }
  const double t = tensor_parallel;
  Workload rank = workload;
  rank.parameters = 0.0;
  rank.frozen_parameters = 0.0;
  for (Op& op : rank.ops.edit()) {
    const TensorSplit split = tensor_split_of(op);
    const bool weights_split = split == TensorSplit::kColumn || split == TensorSplit::kRow ||
                               split == TensorSplit::kVocab;
    if (weights_split) {
      op.parameters /= t;
      op.frozen_parameters /= t;
      op.pass_bytes /= t;
      // The weight is out x in (linear) or rows x width (embedding): column-parallel and
      // vocab-parallel split its rows, row-parallel its columns.
      if (split == TensorSplit::kRow) {
        op.weight_columns /= t;
      } else {
        op.weight_rows /= t;
      }
    }
    switch (split) {
      case TensorSplit::kColumn:
        op.forward_flop /= t;
        op.output_elements /= t;
        if (sequence_parallel) op.saved_elements /= t;  // the shard, gathered again in backward
        break;
      case TensorSplit::kSharded:
        op.forward_flop /= t;
        op.input_elements /= t;
        op.output_elements /= t;
        op.saved_elements /= t;
        // Megatron's vocab-parallel cross-entropy writes the logits' gradient in place of the
        // softmax it saved (megatron/core/tensor_parallel/cross_entropy.py, backward:
        // grad_input = softmax, then in-place updates): nothing beside it.
        op.backward_transient_elements = 0.0;
        break;
      case TensorSplit::kRow:
        op.forward_flop /= t;
        op.input_elements /= t;
        op.saved_elements /= t;
        break;
      case TensorSplit::kVocab:
        op.input_elements /= t;  // the gathered rows
        break;
      case TensorSplit::kReplicated:
        if (sequence_parallel) {
          op.forward_flop /= t;
          op.input_elements /= t;
          op.output_elements /= t;
          op.saved_elements /= t;
        }
        break;
    }
    rank.parameters += op.parameters;
    rank.frozen_parameters += op.frozen_parameters;
  }
  return rank;
}

DecoderHeads decoder_heads(const Workload& workload) {
  const double s = workload.tokens_per_sample;
  DecoderHeads heads;
  double hidden = 0.0;
  for (const Op& op : workload.ops) {
    if (op.op_class == OpClass::kAttention && ends_with(op.name, "attn.scores")) {
      heads.heads = static_cast<int>(std::lround(op.output_elements / (s * s)));
      hidden = op.input_elements / (2.0 * s);  // Q and K, s·h each
      break;
    }
    if (op.op_class == OpClass::kAttention && ends_with(op.name, "attn.fused")) {
      // with_attention_kernel's fused op (attention_kernel.cpp): reads Q, K, V (3·s·h) and
      // saves them and the log-sum-exp of each row and head.
      hidden = op.input_elements / (3.0 * s);
      heads.heads = static_cast<int>(std::lround((op.saved_elements - op.input_elements) / (kLogSumExpElements * s)));
      break;
    }
  }
  for (const Op& op : workload.ops) {
    if (heads.heads > 0 && ends_with(op.name, "attn.qkv")) {
      // qkv writes s·(h + 2·h_kv) with h_kv = h·kv_heads / heads.
      const double kv_width = (op.output_elements / s - hidden) / 2.0;
      heads.kv_heads = static_cast<int>(std::lround(kv_width / hidden * heads.heads));
      break;
    }
  }
  return heads;
}

}  // namespace gpuplan::models

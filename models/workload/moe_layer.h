#pragma once
/// \file moe_layer.h
/// The feed-forward block of a mixture-of-experts decoder layer (pure): a router picks
/// k of E routed experts per token, each token runs through its k experts' MLPs, and their
/// outputs are summed with the router's weights (Shazeer et al. 2017; Switch, Fedus et al.
/// 2022; Mixtral, Jiang et al. 2024, sec. 2.1; DeepSeekMoE, Dai et al. 2024, for shared
/// experts that every token runs through). Per layer, with s tokens, width h, expert MLP
/// width f_e (per branch for SwiGLU), E routed experts, k per token and S shared experts:
///
/// - router: a linear h -> E (2·s·h·E FLOP, h·E parameters, saves its input) and a softmax
///   and top-k over the s·E logits (3 kernels: softmax, topk, renormalise; saves the
///   probabilities);
/// - dispatch: the k·s token copies gathered into expert order (one memory-bound permute of
///   k·s·h elements); combine: the k expert outputs weighted and summed back (reads k·s·h,
///   writes s·h, saves the k·s·h outputs for the weights' gradient);
/// - routed experts as grouped GEMMs (Megatron-Core's grouped MLP: one kernel per
///   projection for all experts): gate_up 2·(k·s)·h·(2·f_e) FLOP (h·f_e for GELU's up),
///   down 2·(k·s)·f_e·h; parameters E times one expert's (every expert's weights, gradients
///   and optimizer state are in memory), FLOP k times one expert's per token (only the
///   routed experts count, so MFU and tokens/s use the active parameters);
/// - shared experts: one dense MLP of width S·f_e (mlp.shared_*) that every token runs.
///
/// Ops are named `<prefix>mlp.router`, `mlp.router_topk`, `mlp.dispatch`,
/// `mlp.experts_gate_up` (or `mlp.experts_up`), `mlp.experts_act`, `mlp.experts_down`,
/// `mlp.combine`, then `mlp.shared_gate_up`, `mlp.shared_act`, `mlp.shared_down`. The expert
/// ops carry Op::experts = E and Op::active_experts = k; the expert-parallel shard
/// (moe_expert_shard.h) and the step's all-to-alls recognise them by that.

#include <string>
#include <vector>

#include "models/workload/workload.h"

namespace gpuplan::models {

/// The experts of one MoE layer.
struct MoeShape {
  double experts = 0.0;            ///< E, routed experts (0: a dense layer)
  double experts_per_token = 0.0;  ///< k, routed experts each token runs through (1 <= k <= E)
  double shared_experts = 0.0;     ///< S, experts every token runs through (DeepSeekMoE)
  double expert_ffn_hidden = 0.0;  ///< f_e, one expert's MLP inner width (per SwiGLU branch)
};

/// Appends the MoE feed-forward ops of one layer (see the file comment) to `ops`, in forward
/// order, for `tokens` tokens of width `hidden`; `swiglu`: gated experts (SiLU product of
/// gate and up, as Mixtral, gpt-oss and DeepSeek-V3), else GELU; `bias`: biases in the
/// experts' linears.
void append_moe_mlp(std::vector<Op>& ops, const std::string& prefix, double tokens, double hidden, bool swiglu,
                    bool bias, const MoeShape& moe);

}  // namespace gpuplan::models

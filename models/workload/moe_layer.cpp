#include "models/workload/moe_layer.h"

#include "models/workload/layer_ops.h"

namespace gpuplan::models {

namespace {

/// Softmax over the router logits, top-k, and the renormalisation of the k weights (Mixtral's
/// `routing_weights /= routing_weights.sum(...)`): three kernels.
constexpr int kRouterTopkKernels = 3;

/// The routed experts' linear: `rows` = k·s token copies per sample through E experts'
/// weights. Its weights are E matrices, so Adafactor's factoring (weight_rows x
/// weight_columns) is left out and its state counted per parameter.
Op expert_linear(const std::string& name, double rows, double in, double out, bool bias, const MoeShape& moe,
                 int kernels) {
  Op op = linear_op(name, rows, in, out, bias, true, kernels);
  op.parameters *= moe.experts;
  op.weight_rows = 0.0;
  op.weight_columns = 0.0;
  op.experts = moe.experts;
  op.active_experts = moe.experts_per_token;
  op.routed_tokens = true;
  return op;
}

/// One MLP (gate_up or up, activation, down) over `rows` rows of width `width`; the
/// activation op saves what transformer_block.cpp's does.
/// The shared experts' up projection reads the norm output that the router already saved.
void append_mlp(std::vector<Op>& ops, const std::string& name, double rows, double hidden, double width, bool swiglu,
                bool bias, const MoeShape* routed) {
  const double up_out = swiglu ? 2.0 * width : width;
  const std::string up_name = name + (swiglu ? "_gate_up" : "_up");
  const int up_kernels = swiglu ? 2 : 1;
  Op up = routed != nullptr ? expert_linear(up_name, rows, hidden, up_out, bias, *routed, up_kernels)
                            : linear_op(up_name, rows, hidden, up_out, bias, false, up_kernels);
  ops.push_back(up);
  Op act = swiglu ? elementwise_op(name + "_act", rows * width, 2.0, kSwigluFlopPerElement, 3.0 * rows * width, 2)
                  : elementwise_op(name + "_act", rows * width, 1.0, kGeluFlopPerElement, rows * width);
  act.routed_tokens = routed != nullptr;
  ops.push_back(act);
  ops.push_back(routed != nullptr ? expert_linear(name + "_down", rows, width, hidden, bias, *routed, 1)
                                  : linear_op(name + "_down", rows, width, hidden, bias, true));
}

}  // namespace

void append_moe_mlp(std::vector<Op>& ops, const std::string& prefix, double tokens, double hidden, bool swiglu,
                    bool bias, const MoeShape& moe) {
  const double s = tokens;
  const double h = hidden;
  const double routed_rows = moe.experts_per_token * s;  // k·s token copies
  // The router shares its input (the norm output) with the shared experts; it saves it.
  ops.push_back(linear_op(prefix + "mlp.router", s, h, moe.experts, false, true));
  ops.push_back(elementwise_op(prefix + "mlp.router_topk", s * moe.experts, 1.0, kSoftmaxFlopPerElement,
                               s * moe.experts, kRouterTopkKernels));
  ops.push_back(elementwise_op(prefix + "mlp.dispatch", routed_rows * h, 1.0 / moe.experts_per_token, 0.0, 0.0));
  append_mlp(ops, prefix + "mlp.experts", routed_rows, h, moe.expert_ffn_hidden, swiglu, bias, &moe);
  // Reads the k outputs per token, writes one; keeps the outputs for the weights' gradient.
  Op combine = elementwise_op(prefix + "mlp.combine", s * h, moe.experts_per_token, 2.0 * moe.experts_per_token,
                              routed_rows * h);
  ops.push_back(combine);
  if (moe.shared_experts > 0.0) {
    append_mlp(ops, prefix + "mlp.shared", s, h, moe.shared_experts * moe.expert_ffn_hidden, swiglu, bias, nullptr);
  }
}

}  // namespace gpuplan::models

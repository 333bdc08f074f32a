#include "models/workload/fine_tuning.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "models/workload/layer_ops.h"

namespace gpuplan::models {
namespace {

constexpr double kBf16Bytes = 2.0;
constexpr double kInt8Bytes = 1.0;
constexpr double kFp32Bytes = 4.0;
constexpr double kBitsPerByte = 8.0;
/// Two NF4 codes per byte.
constexpr double kNf4PackedBytes = 0.5;
/// bitsandbytes quantize_4bit's default blocksize: one absmax per 64 weights.
constexpr double kNf4BlockWeights = 64.0;
/// peft's `result + lora_B(lora_A(x)) * scaling`: one multiply and one add per output.
constexpr double kLoraAddFlopPerElement = 2.0;
constexpr int kLoraAddKernels = 2;

/// One weight matrix of a layer projection and the target that adapts it.
struct Projection {
  std::string suffix;  ///< "q", "gate", ..., or "qkv" for a fused q/k/v GEMM
  std::vector<LoraTarget> targets;  ///< any of these adapts it
  double in = 0.0;
  double out = 0.0;
};

bool ends_with(const std::string& name, const std::string& tail) {
  return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
}

/// The query width of the layer whose qkv projection is `qkv` (index `i` in `ops`): from the
/// attention op after it (eager scores save Q and K, 2·s·q; flash's fused op reads Q, K, V,
/// 3·s·q; transformer_block.cpp), over the tokens; the qkv input width when there is none.
double query_width(const std::vector<Op>& ops, std::size_t i) {
  const Op& qkv = ops[i];
  const double tokens = qkv.input_elements / qkv.weight_columns;
  for (std::size_t j = i + 1; j < ops.size(); ++j) {
    if (ends_with(ops[j].name, "attn.scores")) return ops[j].input_elements / (2.0 * tokens);
    if (ends_with(ops[j].name, "attn.fused")) return ops[j].input_elements / (3.0 * tokens);
    if (ends_with(ops[j].name, "attn.qkv")) break;  // the next layer
  }
  return qkv.weight_columns;
}

/// The input width of a linear op's weight matrix: Op::weight_columns, or for a
/// mixture-of-experts op (moe_layer.cpp leaves its shape out) the per-expert weights over the
/// output width, the output width being forward_flop / (2 x input_elements) (2·rows·in·out
/// FLOP over rows·in inputs; a bias, out more weights, makes it 1 too large: 4 B / in of an
/// int8 scale). 0 for an op that is not a linear layer with weights.
double linear_in_features(const Op& op) {
  if (op.op_class != OpClass::kMatmul) return 0.0;
  if (op.weight_columns > 0.0) return op.weight_columns;
  if (op.experts <= 0.0 || op.parameters <= 0.0 || op.input_elements <= 0.0 || op.forward_flop <= 0.0) return 0.0;
  const double out = op.forward_flop / (2.0 * op.input_elements);
  return op.parameters / op.experts / out;
}

/// The projections of a transformer-layer linear (names of transformer_block.cpp), or none
/// for any other op (heads, embeddings, convolutions). `ops[i]` is the linear.
std::vector<Projection> projections_of(const std::vector<Op>& ops, std::size_t i) {
  const Op& op = ops[i];
  if (op.op_class != OpClass::kMatmul) {
    return {};
  }
  if (op.experts > 0.0) {
    // A routed experts' linear (moe_layer.cpp: "mlp.experts_gate_up" / "_up" / "_down"): each
    // expert's w1/w3 or w2 is an nn.Linear of its own, so peft adapts each (the adapter ops
    // carry the experts, with_fine_tuning). Its shape: linear_in_features.
    const double in = linear_in_features(op);
    if (in <= 0.0) return {};
    const double out = op.parameters / op.experts / in;
    if (ends_with(op.name, "experts_gate_up")) {
      return {{"gate", {LoraTarget::kGate}, in, out / 2.0}, {"up", {LoraTarget::kUp}, in, out / 2.0}};
    }
    if (ends_with(op.name, "experts_up")) return {{"up", {LoraTarget::kUp}, in, out}};
    if (ends_with(op.name, "experts_down")) return {{"down", {LoraTarget::kDown}, in, out}};
    return {};
  }
  if (op.weight_columns <= 0.0) {
    return {};
  }
  const double in = op.weight_columns;
  const double out = op.weight_rows;
  if (ends_with(op.name, "attn.qkv")) {
    if (op.forward_kernels == 3) {
      const double q = query_width(ops, i);  // heads x head_dim (= in unless head_dim is given)
      const double kv = (out - q) / 2.0;     // k and v share the rest
      return {{"q", {LoraTarget::kQ}, in, q}, {"k", {LoraTarget::kK}, in, kv}, {"v", {LoraTarget::kV}, in, kv}};
    }
    return {{"qkv", {LoraTarget::kQ, LoraTarget::kK, LoraTarget::kV}, in, out}};
  }
  if (ends_with(op.name, "attn.out")) {
    return {{"o", {LoraTarget::kO}, in, out}};
  }
  // A dense MLP ("mlp.gate_up") or a mixture-of-experts layer's shared experts
  // ("mlp.shared_gate_up", moe_layer.cpp).
  if (ends_with(op.name, "mlp.gate_up") || ends_with(op.name, "mlp.shared_gate_up")) {
    return {{"gate", {LoraTarget::kGate}, in, out / 2.0}, {"up", {LoraTarget::kUp}, in, out / 2.0}};
  }
  if (ends_with(op.name, "mlp.up") || ends_with(op.name, "mlp.shared_up")) {
    return {{"up", {LoraTarget::kUp}, in, out}};
  }
  if (ends_with(op.name, "mlp.down") || ends_with(op.name, "mlp.shared_down")) {
    return {{"down", {LoraTarget::kDown}, in, out}};
  }
  return {};
}

bool targeted(const Projection& p, const FineTuningSpec& spec) {
  if (spec.targets.empty()) {
    return true;  // all_linear
  }
  return std::any_of(p.targets.begin(), p.targets.end(), [&](LoraTarget t) {
    return std::find(spec.targets.begin(), spec.targets.end(), t) != spec.targets.end();
  });
}

bool quantized(BasePrecision b) { return b == BasePrecision::kInt8 || b == BasePrecision::kNf4; }

}  // namespace

double base_weight_element_bytes(BasePrecision base, double in_features, bool double_quantization) {
  if (in_features <= 0.0) {
    throw std::invalid_argument("base_weight_element_bytes: in_features must be positive");
  }
  switch (base) {
    case BasePrecision::kBf16: return kBf16Bytes;
    case BasePrecision::kInt8: return kInt8Bytes + kFp32Bytes / in_features;
    case BasePrecision::kNf4:
      return (double_quantization ? kNf4BitsPerWeight : kNf4SingleQuantBitsPerWeight) / kBitsPerByte;
  }
  return kBf16Bytes;
}

DequantizeWork dequantize_work(BasePrecision base, double in_features, bool double_quantization,
                               double compute_element_bytes) {
  DequantizeWork w;
  if (base != BasePrecision::kNf4) {
    w.bytes_per_weight = base_weight_element_bytes(base, in_features, double_quantization) + compute_element_bytes;
    w.kernels_per_matrix = 1;
    return w;
  }
  if (in_features <= 0.0) {
    throw std::invalid_argument("dequantize_work: in_features must be positive");
  }
  // kDequantizeBlockwise: the packed 4-bit weight and its fp32 absmax in, 16 bits out.
  w.bytes_per_weight = kNf4PackedBytes + kFp32Bytes / kNf4BlockWeights + compute_element_bytes;
  w.kernels_per_matrix = 1;
  if (double_quantization) {
    // dequantize_blockwise of the 8-bit absmax (1 B in, 4 B out per block), then
    // `absmax += offset` (4 B in, 4 B out per block).
    w.bytes_per_weight += (kInt8Bytes + kFp32Bytes + 2.0 * kFp32Bytes) / kNf4BlockWeights;
    w.kernels_per_matrix += 2;
  }
  return w;
}

std::vector<LoraTarget> lora_targets_of(const Workload& workload) {
  std::vector<bool> present(names_of<LoraTarget>().size(), false);
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    for (const Projection& p : projections_of(workload.ops, i)) {
      for (LoraTarget t : p.targets) {
        present[static_cast<std::size_t>(t)] = true;
      }
    }
  }
  std::vector<LoraTarget> targets;
  for (std::size_t i = 0; i < present.size(); ++i) {
    if (present[i]) {
      targets.push_back(static_cast<LoraTarget>(i));
    }
  }
  return targets;
}

double lora_max_rank(const Workload& workload, const FineTuningSpec& spec) {
  double rank = 0.0;
  for (std::size_t i = 0; i < workload.ops.size(); ++i) {
    for (const Projection& p : projections_of(workload.ops, i)) {
      if (targeted(p, spec)) {
        const double width = std::min(p.in, p.out);
        rank = rank == 0.0 ? width : std::min(rank, width);
      }
    }
  }
  return rank;
}

Workload with_fine_tuning(Workload workload, const FineTuningSpec& spec, Precision precision) {
  if (spec.method == FineTuningMethod::kFull) {
    return workload;
  }
  if (spec.rank < 1) {
    throw std::invalid_argument("with_fine_tuning: rank must be at least 1");
  }
  const std::vector<LoraTarget> present = lora_targets_of(workload);
  for (LoraTarget t : spec.targets) {
    if (std::find(present.begin(), present.end(), t) == present.end()) {
      throw std::invalid_argument("with_fine_tuning: " + workload.name + " has no " + std::string(name_of(t)) +
                                  " projection");
    }
  }
  const double r = spec.rank;
  // The GEMMs run at the compute precision: a quantized weight is dequantized to its width.
  const double compute_bytes = activation_element_bytes(precision);
  std::vector<Op> ops;
  ops.reserve(workload.ops.size() * 3);
  int adapters = 0;
  std::optional<std::size_t> fused_attention;  // the layer's fused attention op in `ops`, if any
  for (std::size_t index = 0; index < workload.ops.size(); ++index) {
    const Op& original = workload.ops[index];
    if (original.op_class == OpClass::kAttention && ends_with(original.name, "attn.fused")) {
      fused_attention = ops.size();
    }
    if (original.parameters <= 0.0) {
      Op kept = original;
      if (kept.op_class == OpClass::kMatmul) {
        // A head tied to the frozen embedding: input gradient only, nothing saved for it.
        kept.backward_flop_ratio = 1.0;
        kept.saved_elements = 0.0;
      }
      ops.push_back(kept);
      continue;
    }
    const std::vector<Projection> projections = projections_of(workload.ops, index);
    Op base = original;
    base.frozen_parameters = original.parameters;
    base.parameters = 0.0;
    // bitsandbytes replaces every nn.Linear of the layers (transformers' replace_with_bnb_linear),
    // adapted or not, experts and router included; the head stays 16-bit.
    const double in_features = linear_in_features(original);
    const bool quantize = quantized(spec.base_precision) && in_features > 0.0 && in_block(original);
    base.frozen_element_bytes =
        quantize ? base_weight_element_bytes(spec.base_precision, in_features, spec.double_quantization) : kBf16Bytes;
    bool any_targeted = false;
    for (const Projection& p : projections) {
      any_targeted = any_targeted || targeted(p, spec);
    }
    if (original.op_class == OpClass::kMatmul) {
      // Input gradient only. A frozen 16-bit linear saves nothing for it (its input stays
      // saved only for the adapter beside it); bitsandbytes' MatMul4Bit / MatMul8bitLt save
      // their input whenever any input needs a gradient, which the activations do.
      base.backward_flop_ratio = 1.0;
      base.saved_elements = (any_targeted || quantize) ? original.saved_elements : 0.0;
      if (base.saved_elements == 0.0 && ends_with(original.name, "attn.out") && fused_attention) {
        // The fused attention's output O, which the out projection saved as its input, stays
        // saved for the attention's backward (flash / memory-efficient SDPA backward read it).
        ops[*fused_attention].saved_elements += original.saved_elements;
      }
    }
    if (quantize) {
      Op dequant;
      dequant.name = original.name + ".dequant";
      dequant.op_class = OpClass::kElementwise;
      dequant.backward_flop_ratio = 0.0;
      const DequantizeWork work =
          dequantize_work(spec.base_precision, in_features, spec.double_quantization, compute_bytes);
      // forward_kernels: the matrices; each expert's is a Linear4bit of its own
      const double matrices = original.forward_kernels * (original.experts > 0.0 ? original.experts : 1.0);
      dequant.forward_kernels = static_cast<int>(matrices) * work.kernels_per_matrix;
      dequant.pass_bytes = original.parameters * work.bytes_per_weight;
      dequant.nf4_dequantize = spec.base_precision == BasePrecision::kNf4;
      // bitsandbytes' own kernel (or int8's ops inside its autograd Function): torch.compile
      // breaks the graph around it and fuses nothing into it, so its whole traffic stays.
      dequant.compiled_traffic_share = 1.0;
      // Over the experts' matrices: split with them over expert-parallel ranks (moe_expert_shard.h).
      dequant.experts = original.experts;
      dequant.active_experts = original.active_experts;
      ops.push_back(dequant);
    }
    ops.push_back(base);
    // Rows through the layer: tokens, or for routed experts the k token copies over them all.
    const double rows = in_features > 0.0 ? original.input_elements / in_features : 0.0;
    bool dropped_input_saved = false;  // the op's dropout output, saved once for its adapters
    for (const Projection& p : projections) {
      if (!targeted(p, spec)) {
        continue;
      }
      const std::string prefix = original.name + "." + p.suffix + ".lora_";
      const bool dropout = spec.dropout > 0.0;
      const std::size_t first_adapter_op = ops.size();
      if (dropout && !dropped_input_saved) {
        ops.push_back(dropout_op(original.name + ".lora_dropout", rows * p.in));
      }
      ops.push_back(linear_op(prefix + "a", rows, p.in, r, false, dropout && !dropped_input_saved));
      dropped_input_saved = dropped_input_saved || dropout;
      ops.push_back(linear_op(prefix + "b", rows, r, p.out, false, true));
      ops.push_back(elementwise_op(prefix + "add", rows * p.out, 2.0, kLoraAddFlopPerElement, 0.0, kLoraAddKernels));
      // Beside a routed expert the adapter runs on the same routed token copies, and there is
      // one per expert (peft wraps each expert's nn.Linear): the experts' parameters, each
      // token copy through one of them (so the FLOP of one adapter over all the copies).
      for (std::size_t i = first_adapter_op; i < ops.size(); ++i) {
        Op& adapter = ops[i];
        adapter.routed_tokens = original.routed_tokens;
        if (original.experts > 0.0) {
          adapter.parameters *= original.experts;
          adapter.experts = original.experts;
          adapter.active_experts = original.active_experts;
          adapter.weight_rows = 0.0;  // E matrices: no single shape (as expert_linear's)
          adapter.weight_columns = 0.0;
        }
      }
      ++adapters;
    }
  }
  if (adapters == 0) {
    throw std::invalid_argument("with_fine_tuning: " + workload.name + " has no projection to adapt");
  }
  workload.ops = std::move(ops);
  workload.parameters = 0.0;
  workload.frozen_parameters = 0.0;
  for (const Op& op : workload.ops) {
    workload.parameters += op.parameters;
    workload.frozen_parameters += op.frozen_parameters;
  }
  return workload;
}

}  // namespace gpuplan::models

#pragma once
/// \file workload.h
/// The per-layer op table of a model: what the GPU model, the memory model and the step
/// simulation consume. Produced by the generators in models/workload (one per family).
/// All counts are per sample (one image, or one sequence of `tokens_per_sample` tokens);
/// element counts are precision-independent and become bytes through the precision.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/precision.h"

namespace gpuplan::models {

/// What kind of kernel an op is; selects the compute efficiency in the GPU model.
enum class OpClass {
  kConv,           ///< convolution (implicit GEMM; tensor cores where the precision has them)
  kMatmul,         ///< dense GEMM of a linear layer (tensor cores where available)
  kAttention,      ///< batched matmuls of attention scores and context (QK^T, PV)
  kElementwise,    ///< activations, residual adds, dropout, casts: memory-bound
  kNormalization,  ///< batch/layer/RMS norm: memory-bound
  kSoftmax,        ///< softmax, including the loss's: memory-bound
  kPooling,        ///< max/avg pooling: memory-bound
  kEmbedding,      ///< table lookup (gather): memory-bound
};

/// The snake_case name of an op class ("conv", "matmul", "attention", "elementwise",
/// "normalization", "softmax", "pooling", "embedding"), for reports and traces.
std::string_view name_of(OpClass c);

/// One layer-level op of the forward pass.
///
/// Conventions shared by every generator (models/workload/*_family.cpp):
/// - `forward_flop`: multiply-accumulates count 2 FLOP. Convolutions and matmuls count their
///   MACs (plus one FLOP per output for a bias); memory-bound ops carry a nominal count of
///   the arithmetic in their reference formula (layer_ops.h lists the per-element figures),
///   which never bounds their time but keeps `training_flop_per_sample` honest.
/// - `input_elements` / `output_elements`: activations read and written in forward. For an
///   embedding, the input is the table rows gathered (tokens × hidden), not the int64 ids.
/// - `saved_elements`: the activations PyTorch autograd keeps from this op's forward until
///   its backward, per sample, in elements of the activation precision (the memory model
///   multiplies by activation_element_bytes()). Each tensor counts **once**, at the first op
///   that saves it: the output of an in-place ReLU that the next convolution also saves,
///   or a softmax output that the following PV matmul also saves, is not counted twice.
///   Conv and linear save their input, batch/layer norm their input, ReLU/tanh its output,
///   GELU its input, pooling its input (+ max-pool indices, counted as one element each),
///   residual adds, scales and masks nothing. Dropout saves a 1-byte mask, counted as half
///   an element (exact at 16-bit). Transformer layers follow Korthikanti et al. 2022,
///   "Reducing Activation Recomputation in Large Transformer Models", sec. 4.1: 34·s·h +
///   5·a·s² bytes per layer at 16-bit = 17·s·h + 2.5·a·s² elements, attributed to the ops
///   that save them. Per-channel statistics (BN mean/invstd) and int64 token ids are
///   negligible and not counted.
/// - `forward_kernels`: CUDA kernels that eager PyTorch launches for the op in forward
///   (linear, conv, norm, softmax, activation, dropout, add: 1 each; see the family headers
///   for the multi-kernel ops: HF's RMSNorm 6, rotary embedding 10, cross-entropy 2).
struct Op {
  std::string name;            ///< e.g. "layer3.2.conv2", "layers.7.attn.qkv"
  OpClass op_class = OpClass::kElementwise;
  double forward_flop = 0.0;   ///< FLOP per sample in forward (1 multiply-accumulate = 2 FLOP)
  double input_elements = 0.0; ///< activation elements read per sample in forward
  double output_elements = 0.0;///< activation elements written per sample in forward
  double parameters = 0.0;     ///< trainable parameters this op owns (not per sample)
  /// The shape r x c of the op's weight matrix (linear: out x in; embedding: rows x width),
  /// 0 x 0 for ops whose parameters are not one matrix; Adafactor factors its second moment
  /// over it (models/memory/optimizer_state.h).
  double weight_rows = 0.0;
  double weight_columns = 0.0;
  double saved_elements = 0.0; ///< activation elements kept for backward, per sample
  /// Backward FLOP / forward FLOP: 2 for conv and matmul (grad input + grad weight),
  /// 1 for ops without weights whose backward is one pass (elementwise, norms), and 1 for
  /// the first conv of a vision model (its input, the image, needs no gradient).
  double backward_flop_ratio = 2.0;
  /// FLOP the backward kernel recomputes from the forward, / forward FLOP, on top of
  /// backward_flop_ratio: hardware FLOP, not model FLOP (training_flop_per_sample leaves it
  /// out). FlashAttention's backward recomputes QKᵀ: 0.5 (attention_kernel.h).
  double backward_recompute_flop_ratio = 0.0;
  int forward_kernels = 1;     ///< kernels launched in forward (backward launches about twice)
  /// Memory-bound ops built of several unfused aten kernels: how many times eager PyTorch
  /// reads and writes the op's tensors (input + output) in forward, the same factor in
  /// backward; 1 for one kernel. Not applied where a framework's fused kernel or a compiler
  /// runs the op (eager_fused, compiled). The family headers say what each count is made of.
  double eager_passes = 1.0;
  /// Under AMP autocast runs this op in fp32 (softmax, log_softmax/cross-entropy, layer_norm;
  /// HF RMSNorm upcasts itself): its activations are 4 B even in mixed precision (PyTorch
  /// "Automatic Mixed Precision" docs, "CUDA Ops that can autocast to float32").
  bool autocast_fp32 = false;
  /// The model code casts this op's tensors to fp32 itself, in every precision (HF's
  /// LlamaRMSNorm: hidden_states.to(torch.float32)): 4-byte tensors in eager and under CUDA
  /// graphs even in pure 16-bit training, traffic and saved tensors alike.
  bool upcasts_fp32 = false;
  /// Elements per sample that this op's backward allocates at once beside the saved
  /// activations when PyTorch runs it op by op (eager, CUDA graphs): F.cross_entropy's
  /// nll_loss backward fills a zeroed gradient of the log-probabilities and log_softmax's
  /// backward writes the logits' gradient beside it (2 x rows x classes). At the saved
  /// tensors' width; read for the model's last op, the loss, whose backward runs first
  /// (footprint.h, loss_backward_transient_bytes_per_sample). 0: nothing counted.
  double backward_transient_elements = 0.0;
  /// Under a fusing compiler (framework_overhead: compiled), the share of this memory-bound
  /// op's traffic and kernels left; negative: GpuEfficiency::compiled_memory_bound_share.
  /// The attention-score chain is one fused kernel per direction there (apex/Megatron
  /// fused scale-mask-softmax, NVFuser/Inductor softmax fusions): the scale, mask, bias and
  /// dropout on the a·s² scores are 0 (folded into the softmax kernel) and the softmax
  /// keeps its whole read and write (1).
  double compiled_traffic_share = -1.0;
  /// True when only a compiler fuses this op (compiled_traffic_share applies under
  /// framework_overhead: compiled, not eager_fused): Megatron-LM's attention dropout is a
  /// separate torch dropout after its fused scale-mask-softmax (megatron/model/transformer.py,
  /// `self.attention_dropout(attention_probs)`).
  bool fused_by_compiler_only = false;
  /// For OpClass::kAttention: the kernel that runs it. kEager for the unfused batched
  /// matmuls; kFlash, kFlash3, kMemoryEfficient or kFlashTriton for the fused op of
  /// with_attention_kernel().
  AttentionKernel attention_kernel = AttentionKernel::kEager;
  /// For a fused attention op (with_attention_kernel()): the head dimension, whose tile shape
  /// sets the kernel's rate (GpuEfficiency::flash3_attention_relative_to). 0 otherwise.
  double head_dim = 0.0;
  /// For a batch norm over (N, C, H, W): its channels C, whose statistics it reduces over
  /// N·H·W elements each (resnet_family.cpp). 0 for every other op (layer and RMS norms
  /// reduce over a row's features instead).
  double batch_norm_channels = 0.0;
  /// For a grouped convolution (OpClass::kConv over groups > 1): the input channels of each
  /// group, 1 for a depthwise convolution (EfficientNet's), 4 for ResNeXt 32x4d's first stage
  /// (conv_net_builder.h). 0 for a dense convolution and every other op.
  double conv_group_input_channels = 0.0;
  /// The op applies a causal mask: a decoder's eager "attn.mask", or a fused attention op
  /// called with is_causal, whose kernel skips the key tiles above the diagonal
  /// (fused_attention_tile_share(), attention_kernel.h).
  bool causal = false;
  /// For a fused attention op: the sequence length s in tokens, whose 128-row query blocks the
  /// kernel's grid is made of (fused_attention_tile_share()). 0 otherwise.
  double attention_tokens = 0.0;
  /// For a fused attention op: the kernel calls each query block's keys are split over, 1
  /// unless context parallelism's ring runs one call per key/value block (c calls:
  /// context_parallel_rank_workload), so that each call's query blocks iterate 1/c of the
  /// tiles and pay their fixed cost c times (GpuEfficiency::fused_attention_block_share).
  int attention_key_splits = 1;
  /// Weights this op computes with but does not train: the frozen base of a LoRA/QLoRA run
  /// (models/workload/fine_tuning.h). No gradient, no optimizer state; the kernel reads them
  /// at the compute precision's weight width (a quantized base is dequantized first).
  double frozen_parameters = 0.0;
  /// Bytes of one frozen weight as stored: 2 (bf16), about 1 (int8), about 0.52 (NF4);
  /// base_weight_element_bytes(), fine_tuning.h.
  double frozen_element_bytes = 0.0;
  /// Bytes this op's kernel reads and writes once per forward pass and once per backward
  /// pass whatever the batch: the dequantization of a quantized frozen weight (int8 or NF4
  /// read, 16-bit written; fine_tuning.h). 0 for every other op.
  double pass_bytes = 0.0;
  /// The op is bitsandbytes' blockwise NF4 dequantization of a QLoRA base (fine_tuning.h):
  /// its traffic streams at GpuEfficiency::nf4_dequantize_relative_to_stream of the
  /// memory-bound rate. False for every other op (int8's dequantization included).
  bool nf4_dequantize = false;
  /// The op's forward runs again before its backward (selective recomputation, or a block
  /// checkpointed by {every: N}: activation_recompute.h); the step plan replays it
  /// (replays_forward). Hardware FLOP, not model FLOP.
  bool recompute_in_backward = false;
  /// The op's block is checkpointed ({every: N}): the memory model keeps only the block's
  /// input (and the largest checkpointed block while it is replayed), not this op's saves.
  bool checkpointed = false;
  /// Routed experts whose weights this op holds (a mixture-of-experts layer's expert GEMMs,
  /// moe_layer.h): `parameters` and `frozen_parameters` are all of them, `forward_flop` the
  /// `active_experts` each token runs through. 0 for every other op; on an expert-parallel
  /// rank the experts it holds (moe_expert_shard.h).
  double experts = 0.0;
  /// Routed experts each token runs through (top-k), for ops with experts > 0.
  double active_experts = 0.0;
  /// The op runs on the token copies routed to the experts (a mixture-of-experts layer's
  /// expert GEMMs, the activation between them, and LoRA adapters beside them): on an
  /// expert-parallel rank its work and saved activations grow with the load imbalance
  /// (moe_expert_shard.h). Every op with experts > 0 has it.
  bool routed_tokens = false;
  /// Backward's activation traffic relative to forward's: 2 for an op whose backward reads
  /// the output gradient and the saved input and writes the input gradient; more for a
  /// chain of copies whose backward also zero-fills and sums (transformer_block.h,
  /// torch_multihead_attention).
  double backward_traffic_ratio = 2.0;
};

/// The repeated block an op belongs to: its name up to the first numeric component that is
/// followed by more ("layers.3.attn.qkv" -> "layers.3", "layer2.1.conv1" -> the bottleneck
/// "layer2.1"), or "" for stem, embedding, head and loss ops. Checkpointing works per block.
std::string block_of(const Op& op);

/// block_of(op) as a view into op.name (no copy): valid while `op` and its name are.
std::string_view block_view(const Op& op);

/// True when `op` belongs to a repeated block (block_of(op) is not empty).
bool in_block(const Op& op);

/// True when `op`'s forward runs again before its backward: under full activation
/// checkpointing (`full_checkpointing`, every repeated block: HF's gradient_checkpointing and
/// Megatron's full recomputation wrap the layers, not the embedding, final norm, head or loss),
/// or when the op is marked Op::recompute_in_backward (selective, {every: N}). The one rule the
/// step plan's replayed units and hardware_flop_per_sample read.
bool replays_forward(const Op& op, bool full_checkpointing);

/// True when `op` runs its GEMMs in fp8 under `training.precision: fp8`: a linear layer with
/// weights (trained or frozen) inside a repeated block (block_of). The fp8 recipes replace the
/// blocks' linears only: Megatron-Core's Transformer Engine layer specs (TE Linear and
/// LayerNormLinear), while its output layer is a plain 16-bit ColumnParallelLinear
/// (megatron/core/models/gpt/gpt_model.py) and torchtitan's float8 converter skips the
/// "output" projection. Attention runs in 16 bit (TE's DotProductAttention without fp8_dpa).
bool runs_fp8_gemm(const Op& op);

/// True when `op` computes on fp32 tensors under AMP with dispatch `mode`: the ops autocast
/// runs in fp32 (Op::autocast_fp32), except under FrameworkOverhead::kEagerFused the layer
/// norms and the blocks' attention softmax, which Megatron runs as hand-written fused kernels
/// that take and return 16-bit tensors and keep fp32 in registers only (apex
/// FusedLayerNorm / MixedFusedLayerNorm; FusedScaleMaskSoftmax's scaled_masked_softmax and
/// scaled_upper_triang_masked_softmax CUDA kernels, which autocast does not touch). The loss
/// keeps fp32: Megatron upcasts the logits (fp16_lm_cross_entropy defaults to false).
bool runs_fp32_under_autocast(const Op& op, FrameworkOverhead mode);

/// A workload's ops in forward order, shared between copies until one is edited
/// (copy-on-write): the planner's thousands of validated layouts, the memory check and each
/// simulation copy a JobSpec, and a 70 B decoder's table is about 1,700 ops (about 0.5 MB).
/// Reads go through the const vector interface; edits through edit(), which first copies the
/// table when another Workload shares it. Copies may be read from several threads; one copy
/// must not be edited while another thread reads that same copy.
class OpTable {
 public:
  using const_iterator = std::vector<Op>::const_iterator;
  using const_reverse_iterator = std::vector<Op>::const_reverse_iterator;
  using value_type = Op;
  OpTable() = default;
  OpTable(std::vector<Op> ops)  // NOLINT(google-explicit-constructor): a table is its ops
      : ops_(std::make_shared<std::vector<Op>>(std::move(ops))) {}
  OpTable& operator=(std::vector<Op> ops) {
    ops_ = std::make_shared<std::vector<Op>>(std::move(ops));
    return *this;
  }
  /// The ops, read only.
  const std::vector<Op>& vector() const { return ops_ ? *ops_ : no_ops(); }
  operator const std::vector<Op>&() const { return vector(); }  // NOLINT(google-explicit-constructor)
  /// The ops to change: this table's own copy (made here when another Workload shares it).
  std::vector<Op>& edit() {
    if (!ops_) {
      ops_ = std::make_shared<std::vector<Op>>();
    } else if (ops_.use_count() > 1) {
      ops_ = std::make_shared<std::vector<Op>>(*ops_);
    }
    return *ops_;
  }
  void push_back(Op op) { edit().push_back(std::move(op)); }
  std::size_t size() const { return vector().size(); }
  bool empty() const { return vector().empty(); }
  const Op& operator[](std::size_t i) const { return vector()[i]; }
  const Op& at(std::size_t i) const { return vector().at(i); }
  const Op& front() const { return vector().front(); }
  const Op& back() const { return vector().back(); }
  const_iterator begin() const { return vector().begin(); }
  const_iterator end() const { return vector().end(); }
  const_reverse_iterator rbegin() const { return vector().rbegin(); }
  const_reverse_iterator rend() const { return vector().rend(); }

 private:
  static const std::vector<Op>& no_ops() {
    static const std::vector<Op> none;
    return none;
  }
  std::shared_ptr<std::vector<Op>> ops_;
};

/// A model as an op table plus the facts the job level needs.
struct Workload {
  std::string name;                 ///< catalog name or "inline"
  std::string family;               ///< "resnet", "vit", "transformer_encoder", "transformer_decoder"
  OpTable ops;                      ///< forward order; backward runs in reverse
  double parameters = 0.0;          ///< total trainable parameters (sum over ops)
  /// Total frozen parameters (sum of Op::frozen_parameters): the base of a LoRA/QLoRA run.
  double frozen_parameters = 0.0;
  double tokens_per_sample = 1.0;   ///< sequence length for language models, else 1
  bool is_language_model = false;   ///< report tokens/s as well as samples/s
  double input_bytes_per_sample = 0.0;  ///< tensor bytes copied H2D per sample (fp32 image, int64 ids)
  /// Model FLOP per sample for one training step (forward + backward, no recomputation):
  /// the numerator of MFU (PaLM, Chowdhery et al. 2022, appendix B). Sum over ops of
  /// forward_flop · (1 + backward_flop_ratio).
  double training_flop_per_sample() const;
  /// Executed FLOP per sample of one training step, HFU's numerator: model FLOP plus the
  /// fused kernels' backward recomputation (backward_recompute_flop_ratio) plus each
  /// recomputed forward (replays_forward, `replay_all` being full activation checkpointing). Korthikanti et al. 2022, sec. 6: HFU counts recomputation. As
  /// MFU's model FLOP, attention counts the whole s x s square even where a causal fused kernel
  /// computes about half of it (fused_attention_tile_share): the published MFU and HFU
  /// formulas count it so, and HFU stays at or above MFU.
  double hardware_flop_per_sample(bool replay_all) const;
  /// Parameters one token computes with (trainable and frozen): every op's except the input
  /// embedding tables (a lookup, as Kaplan et al. 2020's N leaves them out), an expert op's
  /// weights counted for active_experts of its experts. Mixtral-8x7B: 12.75 B of 46.7 B
  /// (Mistral AI's "12.9 B active" counts the input embedding too; gpt-oss's 5.1 B does not).
  double active_parameters() const;
  /// Sum over ops of forward_flop: FLOP of one forward pass of one sample.
  double forward_flop_per_sample() const;
  /// Sum over ops of saved_elements: activation elements kept for backward per sample.
  double saved_elements_per_sample() const;
  /// Sum over ops of forward_kernels: kernels one eager forward pass launches.
  int forward_kernels() const;
  /// Sum over ops of frozen_parameters x frozen_element_bytes: bytes of the frozen weights.
  double frozen_weight_bytes() const;
};

}  // namespace gpuplan::models

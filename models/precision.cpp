#include "models/precision.h"

namespace gpuplan::models {

std::string_view name_of(Precision p) {
  switch (p) {
    case Precision::kFp32: return "fp32";
    case Precision::kTf32: return "tf32";
    case Precision::kFp16Amp: return "fp16_amp";
    case Precision::kBf16Amp: return "bf16_amp";
    case Precision::kBf16: return "bf16";
    case Precision::kFp8: return "fp8";
  }
  return "?";
}
std::string_view name_of(Optimizer o) {
  switch (o) {
    case Optimizer::kSgd: return "sgd";
    case Optimizer::kSgdMomentum: return "sgd_momentum";
    case Optimizer::kAdam: return "adam";
    case Optimizer::kAdamW: return "adamw";
    case Optimizer::kAdamW8bit: return "adamw_8bit";
    case Optimizer::kPagedAdamW8bit: return "paged_adamw_8bit";
    case Optimizer::kAdafactor: return "adafactor";
  }
  return "?";
}
std::string_view name_of(MemoryFormat f) {
  return f == MemoryFormat::kChannelsLast ? "channels_last" : "channels_first";
}
std::string_view name_of(FrameworkOverhead f) {
  switch (f) {
    case FrameworkOverhead::kEager: return "eager";
    case FrameworkOverhead::kCompiled: return "compiled";
    case FrameworkOverhead::kCudaGraphs: return "cuda_graphs";
    case FrameworkOverhead::kEagerFused: return "eager_fused";
  }
  return "?";
}

std::string_view name_of(Framework f) {
  switch (f) {
    case Framework::kPytorch: return "pytorch";
    case Framework::kTensorflow: return "tensorflow";
  }
  return "?";
}
std::string_view name_of(DatasetLayout l) { return l == DatasetLayout::kFiles ? "files" : "shards"; }
std::string_view name_of(PreprocessOn p) { return p == PreprocessOn::kCpu ? "cpu" : "gpu"; }
std::string_view name_of(ParallelStrategy s) {
  switch (s) {
    case ParallelStrategy::kNone: return "none";
    case ParallelStrategy::kDataParallel: return "data_parallel";
    case ParallelStrategy::kDdp: return "ddp";
    case ParallelStrategy::kFsdp: return "fsdp";
    case ParallelStrategy::kZero: return "zero";
  }
  return "?";
}
std::string_view name_of(Sharding s) {
  switch (s) {
    case Sharding::kFullShard: return "full_shard";
    case Sharding::kShardGradOp: return "shard_grad_op";
    case Sharding::kHybridShard: return "hybrid_shard";
    case Sharding::kNoShard: return "no_shard";
  }
  return "?";
}
std::string_view name_of(OffloadTarget t) {
  switch (t) {
    case OffloadTarget::kNone: return "none";
    case OffloadTarget::kCpu: return "cpu";
    case OffloadTarget::kNvme: return "nvme";
  }
  return "?";
}
std::string_view name_of(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::kGpipe: return "gpipe";
    case PipelineSchedule::kOneFOneB: return "1f1b";
    case PipelineSchedule::kInterleavedOneFOneB: return "interleaved_1f1b";
  }
  return "?";
}
std::string_view name_of(Market m) { return m == Market::kOnDemand ? "on_demand" : "spot"; }
std::string_view name_of(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::kEager: return "eager";
    case AttentionKernel::kSdpa: return "sdpa";
    case AttentionKernel::kFlash: return "flash";
    case AttentionKernel::kFlash3: return "flash3";
    case AttentionKernel::kMemoryEfficient: return "memory_efficient";
    case AttentionKernel::kFlashTriton: return "flash_triton";
  }
  return "?";
}
std::string_view name_of(FineTuningMethod m) {
  switch (m) {
    case FineTuningMethod::kFull: return "full";
    case FineTuningMethod::kLora: return "lora";
    case FineTuningMethod::kQlora: return "qlora";
  }
  return "?";
}
std::string_view name_of(BasePrecision b) {
  switch (b) {
    case BasePrecision::kBf16: return "bf16";
    case BasePrecision::kInt8: return "int8";
    case BasePrecision::kNf4: return "nf4";
  }
  return "?";
}
std::string_view name_of(LoraTarget t) {
  switch (t) {
    case LoraTarget::kQ: return "q";
    case LoraTarget::kK: return "k";
    case LoraTarget::kV: return "v";
    case LoraTarget::kO: return "o";
    case LoraTarget::kGate: return "gate";
    case LoraTarget::kUp: return "up";
    case LoraTarget::kDown: return "down";
  }
  return "?";
}
std::string_view name_of(CausalMask m) {
  switch (m) {
    case CausalMask::kIsCausal: return "is_causal";
    case CausalMask::kAttnMask: return "attn_mask";
  }
  return "?";
}
std::string_view name_of(OptimizerImplementation i) {
  switch (i) {
    case OptimizerImplementation::kForLoop: return "for_loop";
    case OptimizerImplementation::kForeach: return "foreach";
    case OptimizerImplementation::kFused: return "fused";
  }
  return "?";
}
std::string_view name_of(OptimizerStatePrecision p) {
  switch (p) {
    case OptimizerStatePrecision::kFp32: return "fp32";
    case OptimizerStatePrecision::kBf16: return "bf16";
    case OptimizerStatePrecision::kParam: return "param";
  }
  return "?";
}

template <>
std::vector<std::string_view> names_of<Precision>() {
  return {"fp32", "tf32", "fp16_amp", "bf16_amp", "bf16", "fp8"};
}
template <>
std::vector<std::string_view> names_of<Optimizer>() {
  return {"sgd", "sgd_momentum", "adam", "adamw", "adamw_8bit", "paged_adamw_8bit", "adafactor"};
}
template <>
std::vector<std::string_view> names_of<MemoryFormat>() {
  return {"channels_last", "channels_first"};
}
template <>
std::vector<std::string_view> names_of<FrameworkOverhead>() {
  return {"eager", "compiled", "cuda_graphs", "eager_fused"};
}
template <>
std::vector<std::string_view> names_of<Framework>() {
  return {"pytorch", "tensorflow"};
}
template <>
std::vector<std::string_view> names_of<DatasetLayout>() {
  return {"files", "shards"};
}
template <>
std::vector<std::string_view> names_of<PreprocessOn>() {
  return {"cpu", "gpu"};
}
template <>
std::vector<std::string_view> names_of<ParallelStrategy>() {
  return {"none", "data_parallel", "ddp", "fsdp", "zero"};
}
template <>
std::vector<std::string_view> names_of<Sharding>() {
  return {"full_shard", "shard_grad_op", "hybrid_shard", "no_shard"};
}
template <>
std::vector<std::string_view> names_of<OffloadTarget>() {
  return {"none", "cpu", "nvme"};
}
template <>
std::vector<std::string_view> names_of<PipelineSchedule>() {
  return {"gpipe", "1f1b", "interleaved_1f1b"};
}
template <>
std::vector<std::string_view> names_of<Market>() {
  return {"on_demand", "spot"};
}

template <>
std::vector<std::string_view> names_of<AttentionKernel>() {
  return {"eager", "sdpa", "flash", "flash3", "memory_efficient", "flash_triton"};
}
template <>
std::vector<std::string_view> names_of<CausalMask>() {
  return {"is_causal", "attn_mask"};
}
template <>
std::vector<std::string_view> names_of<OptimizerImplementation>() {
  return {"for_loop", "foreach", "fused"};
}
template <>
std::vector<std::string_view> names_of<FineTuningMethod>() {
  return {"full", "lora", "qlora"};
}
template <>
std::vector<std::string_view> names_of<BasePrecision>() {
  return {"bf16", "int8", "nf4"};
}
template <>
std::vector<std::string_view> names_of<LoraTarget>() {
  return {"q", "k", "v", "o", "gate", "up", "down"};
}
template <>
std::vector<std::string_view> names_of<OptimizerStatePrecision>() {
  return {"fp32", "bf16", "param"};
}

double activation_element_bytes(Precision p) {
  return (p == Precision::kFp32 || p == Precision::kTf32) ? 4.0 : 2.0;
}
bool is_mixed(Precision p) {
  return p == Precision::kFp16Amp || p == Precision::kBf16Amp || p == Precision::kFp8;
}
double parameter_element_bytes(Precision p) { return p == Precision::kBf16 ? 2.0 : 4.0; }

}  // namespace gpuplan::models

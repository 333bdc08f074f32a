#pragma once
/// \file precision.h
/// Training precisions and the enumerations of the training set-up that the models read.
/// Names are the scenario's snake_case values (scenario-format.md); models know nothing
/// of YAML, config/ maps strings to these with `*_from_name`.

#include <optional>
#include <string_view>
#include <vector>

namespace gpuplan::models {

/// How matmuls and convolutions run. AMP keeps fp32 master weights (Micikevicius et al.,
/// "Mixed Precision Training", ICLR 2018).
enum class Precision { kFp32, kTf32, kFp16Amp, kBf16Amp, kFp8 };
/// SGD keeps no state; momentum one fp32 buffer; Adam/AdamW two (Kingma & Ba 2015).
enum class Optimizer { kSgd, kSgdMomentum, kAdam, kAdamW };
/// Convolution tensor layout: NHWC runs tensor-core convolutions without transposes.
enum class MemoryFormat { kChannelsLast, kChannelsFirst };
/// Host-side cost per kernel: eager PyTorch dispatch, torch.compile, or CUDA graphs.
enum class FrameworkOverhead { kEager, kCompiled, kCudaGraphs };
enum class DatasetLayout { kFiles, kShards };
enum class PreprocessOn { kCpu, kGpu };
enum class ParallelStrategy { kNone, kDataParallel, kDdp };
enum class Market { kOnDemand, kSpot };

std::string_view name_of(Precision p);
std::string_view name_of(Optimizer o);
std::string_view name_of(MemoryFormat f);
std::string_view name_of(FrameworkOverhead f);
std::string_view name_of(DatasetLayout l);
std::string_view name_of(PreprocessOn p);
std::string_view name_of(ParallelStrategy s);
std::string_view name_of(Market m);

/// All accepted names of an enumeration, in declaration order (for "expected one of").
template <typename Enum>
std::vector<std::string_view> names_of();
template <>
std::vector<std::string_view> names_of<Precision>();
template <>
std::vector<std::string_view> names_of<Optimizer>();
template <>
std::vector<std::string_view> names_of<MemoryFormat>();
template <>
std::vector<std::string_view> names_of<FrameworkOverhead>();
template <>
std::vector<std::string_view> names_of<DatasetLayout>();
template <>
std::vector<std::string_view> names_of<PreprocessOn>();
template <>
std::vector<std::string_view> names_of<ParallelStrategy>();
template <>
std::vector<std::string_view> names_of<Market>();

/// The enumerator whose name_of() is `name`, or nullopt.
template <typename Enum>
std::optional<Enum> from_name(std::string_view name) {
  for (std::string_view candidate : names_of<Enum>()) {
    if (candidate == name) {
      for (int i = 0;; ++i) {
        if (name_of(static_cast<Enum>(i)) == name) {
          return static_cast<Enum>(i);
        }
      }
    }
  }
  return std::nullopt;
}

/// Bytes of one activation element as stored for backward: 4 in fp32/tf32, 2 under AMP
/// (fp16/bf16 autocast), 2 under fp8 training (Transformer Engine keeps most saved
/// activations in 16-bit; NVIDIA TE docs).
double activation_element_bytes(Precision p);
/// True for the autocast precisions that keep fp32 master weights.
bool is_mixed(Precision p);

}  // namespace gpuplan::models

#include "config/scenario_fine_tuning.h"

#include <algorithm>
#include <string>
#include <vector>

#include "config/scenario_reading.h"
#include "models/workload/architecture_reader.h"

namespace gpuplan::config {
namespace {

/// Ranks above this are refused outright; lora_max_rank() bounds them by the model's width.
constexpr std::int64_t kMaxRank = 1'000'000;
constexpr double kMaxAlpha = 1e6;
constexpr const char* kAllLinear = "all_linear";

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : ", ") + names[i];
  }
  return out;
}

std::vector<std::string> target_names(const std::vector<models::LoraTarget>& targets) {
  std::vector<std::string> names;
  for (models::LoraTarget t : targets) {
    names.emplace_back(models::name_of(t));
  }
  return names;
}

/// `targets`: all_linear (nullopt result with no error: every projection) or a list.
/// Returns false after an error.
bool read_targets(MapReader& ft, const models::Workload* workload, std::vector<models::LoraTarget>& out) {
  const YAML::Node node = ft.raw("targets");
  if (!node.IsDefined()) {
    return true;
  }
  const std::string expected = "all_linear or a list such as [q, k, v, o, gate, up, down]";
  if (node.IsScalar()) {
    if (node.Scalar() == kAllLinear) {
      return true;
    }
    ft.error("targets", "unknown value '" + node.Scalar() + "', expected " + expected,
             suggest_names(node.Scalar(), {kAllLinear}, "values"));
    return false;
  }
  if (!node.IsSequence() || node.size() == 0) {
    ft.error("targets", "expected " + expected + ", found " + (node.IsSequence() ? "an empty list" : describe_node(node)),
             "; write targets: all_linear, or list the projections to adapt");
    return false;
  }
  const std::vector<models::LoraTarget> present =
      workload != nullptr ? models::lora_targets_of(*workload) : std::vector<models::LoraTarget>{};
  std::vector<std::string> all;
  for (std::string_view n : models::names_of<models::LoraTarget>()) {
    all.emplace_back(n);
  }
  bool ok = true;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    const std::string path = ft.path_of("targets") + "[" + std::to_string(i) + "]";
    if (!item.IsScalar()) {
      ft.sink().add("expected a projection name (" + joined(all) + "), found " + describe_node(item), item.Mark(),
                    path);
      ok = false;
      continue;
    }
    const std::optional<models::LoraTarget> target = models::from_name<models::LoraTarget>(item.Scalar());
    if (!target) {
      // peft's target_modules name the module: q_proj is q (Llama, Mistral, Qwen).
      const std::string& name = item.Scalar();
      const std::string module = name.ends_with("_proj") ? name.substr(0, name.size() - 5) : std::string();
      const std::string fix = !module.empty() && models::from_name<models::LoraTarget>(module)
                                  ? "; write " + module + " (peft's target_modules name " + name + ")"
                                  : suggest_names(name, all, "targets");
      ft.sink().add("unknown target '" + name + "', expected one of " + joined(all), item.Mark(), path, fix);
      ok = false;
      continue;
    }
    if (std::find(out.begin(), out.end(), *target) != out.end()) {
      ft.sink().add("target '" + item.Scalar() + "' is listed twice", item.Mark(), path, "; remove the repeat");
      ok = false;
      continue;
    }
    if (workload != nullptr && std::find(present.begin(), present.end(), *target) == present.end()) {
      ft.sink().add(workload->name + " has no " + item.Scalar() + " projection", item.Mark(), path,
                    "; its projections are " + joined(target_names(present)));
      ok = false;
      continue;
    }
    out.push_back(*target);
  }
  return ok;
}

bool sixteen_bit(models::Precision p) {
  return p == models::Precision::kBf16 || p == models::Precision::kBf16Amp || p == models::Precision::kFp16Amp;
}

}  // namespace

std::optional<models::FineTuningSpec> read_fine_tuning(MapReader& training, const models::Workload* workload,
                                                       std::optional<models::Precision> precision) {
  models::FineTuningSpec spec;
  if (!training.has("fine_tuning")) {
    training.declare({"fine_tuning"});
    return spec;
  }
  const std::size_t errors_before = training.sink().messages().size();
  std::optional<MapReader> ft = training.map("fine_tuning");
  if (!ft) {
    return std::nullopt;
  }
  const auto method = ft->choice("method", models::names_of<models::FineTuningMethod>(), Requirement::kRequired);
  const auto rank = ft->integer("rank", 1, kMaxRank);
  const auto alpha = positive_number(*ft, "alpha", kMaxAlpha);
  const auto base = ft->choice("base_precision", models::names_of<models::BasePrecision>());
  const auto double_quantization = ft->boolean("double_quantization");
  const auto dropout = ft->number("dropout", 0.0, 1.0);
  const bool targets_ok = read_targets(*ft, workload, spec.targets);
  ft->finish();
  if (!method || training.sink().messages().size() != errors_before || !targets_ok) {
    return std::nullopt;
  }
  spec.method = *models::from_name<models::FineTuningMethod>(*method);
  const bool adapters = spec.method != models::FineTuningMethod::kFull;
  if (!adapters) {
    for (const char* key : {"rank", "alpha", "targets", "base_precision", "double_quantization", "dropout"}) {
      if (ft->has(key)) {
        ft->error(key, std::string(key) + " applies to lora and qlora adapters, and method is full",
                  "; remove " + std::string(key) + ", or use method: lora");
      }
    }
  } else {
    spec.rank = static_cast<int>(value_or(rank, spec.rank));
    spec.alpha = value_or(alpha, spec.alpha);
    spec.dropout = value_or(dropout, spec.dropout);
    const bool qlora = spec.method == models::FineTuningMethod::kQlora;
    spec.base_precision = base ? *models::from_name<models::BasePrecision>(*base)
                               : (qlora ? models::BasePrecision::kNf4 : models::BasePrecision::kBf16);
    const bool quantized = spec.base_precision != models::BasePrecision::kBf16;
    spec.double_quantization = value_or(double_quantization, true);
    if (double_quantization && spec.base_precision != models::BasePrecision::kNf4) {
      ft->error("double_quantization",
                "double_quantization applies to an nf4 base, and base_precision is " +
                    std::string(models::name_of(spec.base_precision)),
                "; remove double_quantization, or use base_precision: nf4");
    }
    if (qlora && !quantized) {
      ft->error("base_precision", "qlora trains adapters on a quantized base, and bf16 is not quantized",
                "; use base_precision: nf4 (or int8), or method: lora");
    } else if (!qlora && quantized) {
      ft->error("base_precision", "lora keeps its base in bf16, and " + *base + " is a quantized base",
                "; use method: qlora for an int8 or nf4 base, or base_precision: bf16");
    }
    if (precision && !sixteen_bit(*precision)) {
      ft->error("method",
                *method + " computes with 16-bit base weights, and training.precision is " +
                    std::string(models::name_of(*precision)),
                "; use training.precision: bf16_amp (or bf16, fp16_amp)");
    }
    if (workload != nullptr) {
      if (models::lora_targets_of(*workload).empty()) {
        ft->error("method", workload->name + " (family " + workload->family + ") has no transformer projections for " +
                                "LoRA adapters",
                  "; use method: full");
      } else if (const double max_rank = models::lora_max_rank(*workload, spec); spec.rank > max_rank) {
        ft->error("rank",
                  "rank " + std::to_string(spec.rank) + " exceeds " +
                      models::format_architecture_value(max_rank) +
                      ", the narrowest targeted projection of " + workload->name + " (a rank-r adapter is low-rank "
                      "only below the matrix's width)",
                  "; use rank " + models::format_architecture_value(max_rank) + " or less (8 to 64 is usual)");
      }
    }
  }
  if (training.sink().messages().size() != errors_before) {
    return std::nullopt;
  }
  return spec;
}

}  // namespace gpuplan::config

#include "config/scenario_recompute.h"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "config/scenario_reading.h"

namespace gpuplan::config {
namespace {
constexpr std::int64_t kMaxEvery = 1'000'000;
constexpr const char* kKey = "activation_checkpointing";
constexpr const char* kExpected = "false, full (or true), selective or {every: N}";
}  // namespace

std::optional<RecomputeChoice> read_activation_checkpointing(MapReader& training) {
  RecomputeChoice choice;
  const YAML::Node node = training.raw(kKey);
  if (!node.IsDefined()) {
    return choice;
  }
  if (node.IsMap()) {
    const std::size_t errors_before = training.sink().messages().size();
    std::optional<MapReader> m = training.map(kKey);
    const auto every = m ? m->integer("every", 1, kMaxEvery, Requirement::kRequired) : std::nullopt;
    if (m) {
      m->finish();
    }
    if (!every || training.sink().messages().size() != errors_before) {
      return std::nullopt;
    }
    choice.mode = models::ActivationRecompute::kEvery;
    choice.every = static_cast<int>(*every);
    return choice;
  }
  if (!node.IsScalar() || node.Scalar().empty()) {
    training.error(kKey, std::string("expected ") + kExpected + ", found " + describe_node(node),
                   "; write activation_checkpointing: full, for example");
    return std::nullopt;
  }
  const std::string& text = node.Scalar();
  // YAML 1.2's core-schema spellings of the two booleans, as MapReader::boolean reads them.
  if (text == "false" || text == "False" || text == "FALSE") {
    return choice;
  }
  if (text == "true" || text == "True" || text == "TRUE" || text == "full") {
    choice.mode = models::ActivationRecompute::kFull;
    return choice;
  }
  if (text == "selective") {
    choice.mode = models::ActivationRecompute::kSelective;
    return choice;
  }
  // YAML 1.1's yes/no/on/off are text in YAML 1.2 (and in gpuplan): say which boolean to write.
  static constexpr std::array<std::string_view, 8> kYes = {"yes", "Yes", "YES", "on", "On", "ON", "y", "Y"};
  static constexpr std::array<std::string_view, 8> kNo = {"no", "No", "NO", "off", "Off", "OFF", "n", "N"};
  const bool yes = std::find(kYes.begin(), kYes.end(), text) != kYes.end();
  if (yes || std::find(kNo.begin(), kNo.end(), text) != kNo.end()) {
    training.error(kKey, "unknown value '" + text + "', expected " + kExpected,
                   (yes ? "; write true (full recomputation)" : "; write false") + std::string(": YAML 1.2 reads '") +
                       text + "' as text");
    return std::nullopt;
  }
  training.error(kKey, "unknown value '" + text + "', expected " + kExpected,
                 suggest_names(text, {"false", "true", "full", "selective"}, "values"));
  return std::nullopt;
}

void check_activation_checkpointing(MapReader& training, const RecomputeChoice& choice,
                                    const models::Workload& workload, models::AttentionKernel attention) {
  if (choice.mode == models::ActivationRecompute::kSelective) {
    if (!models::has_eager_attention(workload)) {
      training.error(kKey, workload.name + " (family " + workload.family + ") has no attention to recompute",
                     "; use activation_checkpointing: full or {every: N}");
    } else if (attention != models::AttentionKernel::kEager) {
      training.error(kKey,
                     "selective recomputes the attention scores, and " + std::string(models::name_of(attention)) +
                         " attention saves none (its backward recomputes them already)",
                     "; use attention: eager with selective, or activation_checkpointing: full or {every: N}");
    }
  } else if (choice.mode == models::ActivationRecompute::kEvery) {
    const int blocks = models::checkpoint_blocks(workload);
    if (blocks == 0) {
      training.error(kKey, workload.name + " (family " + workload.family + ") has no repeated blocks to checkpoint",
                     "; remove activation_checkpointing");
    } else if (choice.every > blocks) {
      training.error(kKey,
                     "every " + std::to_string(choice.every) + " checkpoints one block in " +
                         std::to_string(choice.every) + ", and " + workload.name + " has " + std::to_string(blocks) +
                         " blocks",
                     "; use every: " + std::to_string(blocks) + " or less (every: 1 checkpoints every block)");
    }
  }
}

}  // namespace gpuplan::config

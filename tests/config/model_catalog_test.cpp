#include "config/model_catalog.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "config/config_error.h"
#include "config_fixture.h"
#include "core/registry.h"

namespace {

using namespace gpuplan::config::testing;

using gpuplan::config::ConfigError;
using gpuplan::config::ModelCatalog;
using gpuplan::config::ModelEntry;
namespace models = gpuplan::models;

const std::string kModelsYaml = std::string(GPUPLAN_SOURCE_DIR) + "/catalogs/models.yaml";

/// Lines: 1 format, 2 models, 3 name, 4 family, 5 layers, 6 hidden, 7 mlp, 8 sequence_length,
/// 9 summary, 10 source, 11 retrieved.
std::string model_yaml(const std::string& replace, const std::string& with) {
  std::string text =
      "format: gpuplan/v1\n"
      "models:\n"
      "  tiny-lm:\n"
      "    family: transformer_decoder\n"
      "    layers: 2\n"
      "    hidden: 128\n"
      "    mlp: swiglu\n"
      "    sequence_length: 512\n"
      "    summary: \"a tiny language model\"\n"
      "    source: \"https://example.com/config.json\"\n"
      "    retrieved: 2026-11-29\n";
  return with_replaced(text, replace, with);
}

/// A family with one enumerated parameter, to check the encoding of choices.
class FakeFamily : public models::IWorkloadFamily {
 public:
  std::string summary() const override { return "test family"; }
  std::vector<models::ArchitectureParameter> parameters() const override {
    models::ArchitectureParameter mlp;
    mlp.name = "mlp";
    mlp.default_value = 0.0;
    mlp.min_value = 0.0;
    mlp.choices = {"gelu", "swiglu"};
    models::ArchitectureParameter layers;
    layers.name = "layers";
    return {layers, mlp};
  }
  models::Workload build(const models::ArchitectureValues&) const override { return {}; }
};

}  // namespace

TEST_SUITE("config.model_catalog") {
  TEST_CASE("an inline entry: numbers, choices, default sequence length, marks") {
    const ModelCatalog catalog = ModelCatalog::parse(model_yaml("", ""), "inline.yaml");
    const ModelEntry* entry = catalog.find("tiny-lm");
    REQUIRE(entry != nullptr);
    CHECK(entry->family == "transformer_decoder");
    CHECK(entry->values == models::ArchitectureValues{{"hidden", 128.0}, {"layers", 2.0}});
    CHECK(entry->choices == std::map<std::string, std::string>{{"mlp", "swiglu"}});
    REQUIRE(entry->default_sequence_length.has_value());
    CHECK(*entry->default_sequence_length == 512.0);
    CHECK(entry->summary == "a tiny language model");
    CHECK(entry->retrieved == "2026-11-29");
    CHECK(entry->mark.line == 3);
    CHECK(entry->value_marks.at("hidden").line == 6);
    CHECK(entry->value_marks.at("hidden").column == 13);
    CHECK(catalog.find("TINY-LM") == entry);
    CHECK(catalog.names() == std::vector<std::string>{"tiny-lm"});
    CHECK(catalog.suggestions("tiny") == std::vector<std::string>{"tiny-lm"});
  }

  TEST_CASE("choices are encoded with the family's parameters") {
    const ModelCatalog catalog = ModelCatalog::parse(model_yaml("", ""), "inline.yaml");
    const FakeFamily family;
    const auto values = gpuplan::config::architecture_values(*catalog.find("tiny-lm"), family);
    CHECK(values == models::ArchitectureValues{{"hidden", 128.0}, {"layers", 2.0}, {"mlp", 1.0}});

    const ModelCatalog unknown = ModelCatalog::parse(model_yaml("mlp: swiglu", "mpl: swiglu"), "inline.yaml");
    CHECK(error_of([&] { gpuplan::config::architecture_values(*unknown.find("tiny-lm"), family); }) ==
          "unknown parameter 'mpl' of family transformer_decoder at inline.yaml:7:10 "
          "(models.tiny-lm.mpl); did you mean mlp?");
  }

  TEST_CASE("entry keys are strict; architecture keys are the family's business") {
    CHECK(error_of([] {
            ModelCatalog::parse(model_yaml("    summary:", "    summry:"), "inline.yaml");
          }) ==
          "missing key 'summary' at inline.yaml:4:5 (models.tiny-lm.summary); add summary: a text value\n"
          "unknown key 'summry' at inline.yaml:9:5 (models.tiny-lm.summry); did you mean summary?");
    CHECK(error_of([] {
            ModelCatalog::parse(model_yaml("    family: transformer_decoder\n", ""), "inline.yaml");
          }) ==
          "missing key 'family' at inline.yaml:4:5 (models.tiny-lm.family); add family: a text value");
    CHECK(error_of([] {
            ModelCatalog::parse(model_yaml("hidden: 128", "hidden: [128]"), "inline.yaml");
          }) ==
          "expected a number or a name for architecture parameter 'hidden', found a sequence at "
          "inline.yaml:6:13 (models.tiny-lm.hidden); write e.g. hidden: 4096");
    CHECK(error_of([] {
            ModelCatalog::parse(model_yaml("sequence_length: 512", "sequence_length: 512.5"), "inline.yaml");
          }) ==
          "expected a whole number of tokens, found 512.5 at inline.yaml:8:22 "
          "(models.tiny-lm.sequence_length)");
  }

  TEST_CASE("the shipped models.yaml loads and its choices encode with the built-in families") {
    if (!std::filesystem::exists(kModelsYaml)) {
      MESSAGE("catalogs/models.yaml not present yet");
      return;
    }
    const ModelCatalog catalog = ModelCatalog::load(kModelsYaml);
    gpuplan::core::Registry<models::IWorkloadFamily> families;
    models::register_builtin_workloads(families);
    CHECK_FALSE(catalog.names().empty());
    for (const auto& entry : catalog.all()) {
      CAPTURE(entry.name);
      CHECK_FALSE(entry.summary.empty());
      CHECK_FALSE(entry.source.empty());
      const auto* family = families.find(entry.family);
      REQUIRE(family != nullptr);
      CHECK_NOTHROW(gpuplan::config::architecture_values(entry, *family));
    }
    for (const std::string name : {"resnet50", "bert-large", "gpt2", "llama2-7b"}) {
      CAPTURE(name);
      CHECK(catalog.find(name) != nullptr);
    }
  }
  TEST_CASE("the language models' parameter counts are within 1 % of the published sizes") {
    // Totals of the Hugging Face checkpoints (safetensors metadata of the repositories named
    // in each entry's source; Pythia: Biderman et al. 2023, table 1 "Non-embedding" plus
    // embeddings). Qwen2.5 leaves out its q/k/v biases (0.002 %).
    const ModelCatalog catalog = ModelCatalog::load(kModelsYaml);
    gpuplan::core::Registry<models::IWorkloadFamily> families;
    models::register_builtin_workloads(families);
    const std::vector<std::pair<std::string, double>> published = {
        {"llama3-70b", 70'553'706'496.0},  {"llama3.1-405b", 405'853'388'800.0}, {"llama3.2-1b", 1'235'814'400.0},
        {"llama3.2-3b", 3'212'749'824.0},  {"mistral-7b", 7'241'732'096.0},     {"qwen2.5-7b", 7'615'616'512.0},
        {"qwen2.5-72b", 72'706'203'648.0}, {"pythia-1b", 1'011'781'632.0},      {"pythia-2.8b", 2'775'208'960.0},
        {"pythia-6.9b", 6'857'302'016.0},  {"tinyllama-1.1b", 1'100'048'384.0}, {"llama3-8b", 8'030'261'248.0},
        // Gemma 2 9B: head_dim 256; without its post-norms (301,056 parameters, 0.003 %).
        {"gemma2-9b", 9'241'705'984.0},
        // Llama 3.1 and 3.3 keep Llama 3's shapes (their checkpoints' totals are Llama 3's);
        // Llama 2 70B is the 68.98 B of its checkpoint, not the 70 B of its name.
        {"llama3.1-8b", 8'030'261'248.0},  {"llama3.1-70b", 70'553'706'496.0}, {"llama3.3-70b", 70'553'706'496.0},
        {"llama2-70b", 68'976'648'192.0},
        // Qwen2.5 without its q/k/v biases (0.001 to 0.006 %).
        {"qwen2.5-0.5b", 494'032'768.0},   {"qwen2.5-1.5b", 1'543'714'304.0},   {"qwen2.5-3b", 3'085'938'688.0},
        {"qwen2.5-14b", 14'770'033'664.0}, {"qwen2.5-32b", 32'763'876'352.0},
        // Qwen3 without its q/k norms (under 0.002 %). The 0.6B and 1.7B count their tied
        // embedding once, as PyTorch does; their safetensors store it twice (751,632,384 and
        // 2,031,739,904).
        {"qwen3-0.6b", 596'049'920.0},     {"qwen3-1.7b", 1'720'574'976.0},     {"qwen3-4b", 4'022'468'096.0},
        {"qwen3-8b", 8'190'735'360.0},     {"qwen3-14b", 14'768'307'200.0},     {"qwen3-32b", 32'762'123'264.0},
        // Gemma 2 2B (head_dim 256) and 27B (head_dim 128) without their post-norms (0.005 %, 0.002 %).
        {"gemma2-2b", 2'614'341'888.0},    {"gemma2-27b", 27'227'128'320.0},
        // Phi-3-mini's fused qkv and gate_up projections hold what separate ones would; Mistral
        // NeMo: head_dim 128 (hidden / heads = 160).
        {"phi-3-mini", 3'821'079'552.0},   {"mistral-nemo-12b", 12'247'782'400.0},
    };
    for (const auto& row : published) {
      // Not a structured binding: clang 14 cannot capture one in doctest's CAPTURE lambda.
      const std::string& name = row.first;
      const double parameters = row.second;
      CAPTURE(name);
      const ModelEntry* entry = catalog.find(name);
      REQUIRE(entry != nullptr);
      CHECK(entry->source.find("config.json") != std::string::npos);
      const auto* family = families.find(entry->family);
      REQUIRE(family != nullptr);
      models::ArchitectureValues values = gpuplan::config::architecture_values(*entry, *family);
      REQUIRE(entry->default_sequence_length.has_value());
      values["sequence_length"] = *entry->default_sequence_length;
      const models::Workload w = family->build(values);
      CHECK(w.parameters == doctest::Approx(parameters).epsilon(0.01));
    }
  }
  TEST_CASE("the mixture-of-experts models' total and active parameters are within 2 % of the published ones") {
    // Published totals and active parameters per token: Mixtral 46.7 B / 12.9 B (Jiang et al.
    // 2024, sec. 2.1), gpt-oss-120b 116.83 B / 5.13 B (OpenAI model card, table 1), DeepSeek-V3
    // 671 B / 37 B (technical report, sec. 4.2; without the 14 B multi-token-prediction module).
    // Active here leaves out the input embedding (Workload::active_parameters): Mixtral
    // 12.75 B, 1.2 % under its card's 12.9 B, which counts the embedding.
    const ModelCatalog catalog = ModelCatalog::load(kModelsYaml);
    gpuplan::core::Registry<models::IWorkloadFamily> families;
    models::register_builtin_workloads(families);
    struct Published {
      std::string name;
      double total = 0.0;
      double active = 0.0;
    };
    const std::vector<Published> published = {
        {"mixtral-8x7b", 46.7e9, 12.9e9},
        {"gpt-oss-120b", 116.83e9, 5.13e9},
        {"deepseek-v3", 671e9, 37e9},
    };
    for (const Published& row : published) {
      CAPTURE(row.name);
      const ModelEntry* entry = catalog.find(row.name);
      REQUIRE(entry != nullptr);
      CHECK(entry->source.find("config.json") != std::string::npos);
      const auto* family = families.find(entry->family);
      REQUIRE(family != nullptr);
      models::ArchitectureValues values = gpuplan::config::architecture_values(*entry, *family);
      values["sequence_length"] = 4096;
      const models::Workload w = family->build(values);
      CHECK(w.parameters == doctest::Approx(row.total).epsilon(0.02));
      CHECK(w.active_parameters() == doctest::Approx(row.active).epsilon(0.02));
    }
  }
  TEST_CASE("llm-foundry's MPT architectures: parameters by hand") {
    // MPT (llmfoundry/models/mpt): per block Wqkv 3d^2 + out_proj d^2 + up and down 2 x 4d^2
    // = 12d^2, two LayerNorm weights 2d (no_bias); embeddings (vocab 50368 + 2048 learned
    // positions) x d, tied head, final norm d: L(12d^2 + 2d) + 52416 d + d.
    const ModelCatalog catalog = ModelCatalog::load(kModelsYaml);
    gpuplan::core::Registry<models::IWorkloadFamily> families;
    models::register_builtin_workloads(families);
    const std::vector<std::pair<std::string, double>> by_hand = {
        {"mpt-125m", 125'209'344.0},  // L 12, d 768
        {"mpt-760m", 760'063'488.0},  // L 24, d 1536
        {"mpt-1b", 1'315'407'872.0},  // L 24, d 2048
        {"mpt-3b", 2'650'933'760.0},  // L 32, d 2560
        {"mpt-30b", 29'971'422'208.0},  // L 48, d 7168
    };
    for (const auto& row : by_hand) {
      const std::string& name = row.first;
      const double parameters = row.second;
      CAPTURE(name);
      const ModelEntry* entry = catalog.find(name);
      REQUIRE(entry != nullptr);
      const auto* family = families.find(entry->family);
      REQUIRE(family != nullptr);
      models::ArchitectureValues values = gpuplan::config::architecture_values(*entry, *family);
      values["sequence_length"] = *entry->default_sequence_length;
      CHECK(family->build(values).parameters == doctest::Approx(parameters).epsilon(1e-9));
    }
  }
}

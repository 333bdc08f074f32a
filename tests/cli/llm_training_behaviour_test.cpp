// LoRA/QLoRA and activation recomputation end to end from a scenario, through the loader
// and runner of `gpuplan run`: what each changes in memory, step time, MFU and HFU, and by
// about how much (docs/language-models.md).

#include <doctest/doctest.h>

#include <map>
#include <string>

#include "cli/app_context.h"
#include "cli/scenario_runner.h"
#include "config/scenario_loader.h"

using namespace gpuplan;

namespace {

const cli::AppContext& context() {
  static const cli::AppContext c = cli::load_context(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs", {});
  return c;
}

std::map<std::string, models::VariantResult> run(const std::string& yaml) {
  const config::Scenario s = config::parse_scenario(yaml, "inline.yaml", context().catalogs, context().families);
  const cli::ScenarioRun r = cli::run_scenario(s, models::ModelParams{});
  std::map<std::string, models::VariantResult> rows;
  for (const auto& v : r.result.variants) rows[v.strategy] = v;
  return rows;
}

std::string llm(const std::string& model, int batch, const std::string& strategies) {
  return "format: gpuplan/v1\n"
         "workload:\n"
         "  model: " + model + "\n"
         "  sequence_length: 2048\n"
         "  dataset: {samples: 100000, synthetic: true}\n"
         "  epochs: 1\n"
         "training: {batch_size: " + std::to_string(batch) + ", precision: bf16_amp, optimizer: adamw}\n"
         "hardware: {gpu: a100-80gb, cpu_cores: 8, host_memory: \"64 GiB\", storage: nvme_ssd}\n"
         "strategies:\n" + strategies;
}

}  // namespace

TEST_SUITE("cli.llm_training_behaviour") {
  TEST_CASE("LoRA skips the base's weight gradients and optimizer; QLoRA adds dequantization") {
    auto rows = run(llm("llama3.2-1b", 4,
                        "  full: {}\n"
                        "  lora: {training.fine_tuning: {method: lora, rank: 16}}\n"
                        "  qlora: {training.fine_tuning: {method: qlora, rank: 16}}\n"));
    const auto& full = rows["full"];
    const auto& lora = rows["lora"];
    const auto& qlora = rows["qlora"];
    REQUIRE(full.fits);
    REQUIRE(lora.fits);
    REQUIRE(qlora.fits);
    // Frozen linears run forward and input gradient only: about 4/6 of the GEMM work, plus
    // the adapters' small kernels and the unchanged attention.
    const double ratio = lora.step.step_time_s / full.step.step_time_s;
    CHECK(ratio > 0.6);
    CHECK(ratio < 0.9);
    // AdamW over 1.24 B parameters against the adapters' ~11 M in 224 tensors: the
    // adapters' step is launch-bound (a kernel per tensor and update term in eager mode).
    CHECK(lora.step.optimizer_s < 0.5 * full.step.optimizer_s);
    CHECK(lora.memory.gradients_bytes < 0.02 * full.memory.gradients_bytes);
    // NF4 halves and more the weights; dequantization costs time, not more than a few tens of %.
    CHECK(qlora.memory.weights_bytes < 0.5 * lora.memory.weights_bytes);
    CHECK(qlora.step.step_time_s > lora.step.step_time_s);
    CHECK(qlora.step.step_time_s < 1.3 * lora.step.step_time_s);
  }

  TEST_CASE("QLoRA fits a 7 B fine-tune where the full one does not") {
    auto rows = run(llm("llama2-7b", 2,
                        "  full: {training.activation_checkpointing: true}\n"
                        "  qlora: {training.activation_checkpointing: true, training.fine_tuning: {method: qlora, "
                        "rank: 16}}\n"));
    CHECK_FALSE(rows["full"].fits);  // 16 B/param of weights, gradients and AdamW: 108 GB
    REQUIRE(rows["qlora"].fits);
    CHECK(rows["qlora"].peak_memory_bytes < 20e9);
  }

  TEST_CASE("recomputation costs step time and shows in HFU, not in MFU's numerator") {
    auto rows = run(llm("gpt2", 8,
                        "  none: {training.attention: eager, workload.sequence_length: 1024}\n"
                        "  selective: {training.attention: eager, workload.sequence_length: 1024, "
                        "training.activation_checkpointing: selective}\n"
                        "  every2: {training.attention: eager, workload.sequence_length: 1024, "
                        "training.activation_checkpointing: {every: 2}}\n"
                        "  full: {training.attention: eager, workload.sequence_length: 1024, "
                        "training.activation_checkpointing: full}\n"));
    const auto& none = rows["none"];
    for (const char* name : {"selective", "every2", "full"}) {
      CAPTURE(name);
      const auto& r = rows[name];
      CHECK(r.peak_memory_bytes < none.peak_memory_bytes);
      CHECK(r.step.step_time_s > none.step.step_time_s);
      CHECK(r.hfu > r.mfu);
      // MFU counts the same model FLOP over a longer step.
      CHECK(r.mfu / none.mfu == doctest::Approx(none.step.step_time_s / r.step.step_time_s).epsilon(1e-6));
    }
    CHECK(none.hfu == doctest::Approx(none.mfu));  // eager attention recomputes nothing
    // every 2 replays half the blocks: between none and full in time and memory.
    CHECK(rows["every2"].step.step_time_s < rows["full"].step.step_time_s);
    CHECK(rows["every2"].peak_memory_bytes > rows["full"].peak_memory_bytes);
  }
}

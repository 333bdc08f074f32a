// A language-model job end to end through `gpuplan run`: sized by workload.tokens without
// dataset.samples, with tokens/s, tokens/s per GPU and the memory breakdown in the JSON, the
// CSV and the terminal table.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <fstream>
#include <string>

#include "run_command.h"

using gpuplan::testing::run_gpuplan;
using gpuplan::testing::TempDir;

namespace {

/// TinyLlama 1.1B full fine-tune, pure bf16, torch AdamW, 2 A100s with DDP, batch 4 x 512,
/// sized as 1e9 tokens (no dataset.samples).
constexpr const char* kScenario = R"(format: gpuplan/v1
name: TinyLlama by tokens
workload:
  model: tinyllama-1.1b
  sequence_length: 512
  tokens: 1000000000
  dataset: {synthetic: true}
training:
  batch_size: 4
  precision: bf16
  optimizer: adamw
parallelism: {strategy: ddp}
hardware:
  gpu: a100-80gb
  gpus_per_node: 2
  gpu_interconnect: nvlink3
  cpu_cores: 16
  host_memory: "128 GiB"
  storage: nvme_ssd
)";

std::string write_scenario(const TempDir& dir) {
  const std::string path = dir / "tokens.yaml";
  std::ofstream(path) << kScenario;
  return path;
}

}  // namespace

TEST_SUITE("cli.llm_outputs") {
  TEST_CASE("workload.tokens sizes the job; tokens/s, per GPU and the memory parts are in the JSON") {
    TempDir dir("llm-outputs-json");
    const auto r = run_gpuplan("run " + write_scenario(dir) + " --format json");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto row = nlohmann::json::parse(r.out)["variants"][0];
    const double tokens_per_s = row["throughput_tokens_per_s"].get<double>();
    // tokens/s = samples/s x 512 tokens per sample; per GPU = half of it on 2 GPUs.
    CHECK(tokens_per_s == doctest::Approx(row["throughput_samples_per_s"].get<double>() * 512.0));
    CHECK(row["throughput_per_gpu_tokens_per_s"].get<double>() == doctest::Approx(tokens_per_s / 2.0));
    // 1e9 tokens at that rate is the time to train (one pass, no preemptions).
    CHECK(row["time_to_train_s"].get<double>() == doctest::Approx(1e9 / tokens_per_s).epsilon(0.01));
    // Pure bf16 with torch AdamW: weights, gradients 2 B and the two bf16 moments 4 B per
    // parameter (models/memory/optimizer_state.h); nothing gathered without sharding.
    const double n = row["parameters"].get<double>();
    CHECK(row["memory_weights_bytes"].get<double>() == doctest::Approx(2.0 * n));
    CHECK(row["memory_gradients_bytes"].get<double>() == doctest::Approx(2.0 * n));
    CHECK(row["memory_optimizer_state_bytes"].get<double>() == doctest::Approx(4.0 * n));
    CHECK(row["memory_gathered_bytes"].get<double>() == 0.0);
    double parts = 0.0;
    for (const char* part : {"weights", "gradients", "optimizer_state", "activations", "workspace", "cuda_context",
                             "allocator_slack", "data_parallel", "gathered"}) {
      parts += row[std::string("memory_") + part + "_bytes"].get<double>();
    }
    CHECK(parts == doctest::Approx(row["peak_memory_bytes"].get<double>()));
  }

  TEST_CASE("the table shows tokens/s, tokens/s per GPU and the memory split of a language model") {
    TempDir dir("llm-outputs-table");
    const auto r = run_gpuplan("run " + write_scenario(dir));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    for (const char* heading : {"tokens/s", "tokens/s/GPU", "weights", "grads", "optimizer", "activations"}) {
      CAPTURE(heading);
      CHECK(r.out.find(heading) != std::string::npos);
    }
    const auto csv = run_gpuplan("run " + write_scenario(dir) + " --format csv");
    REQUIRE(csv.exit_code == 0);
    CHECK(csv.out.find("memory_data_parallel_bytes,memory_gathered_bytes,") != std::string::npos);
  }

  TEST_CASE("a LoRA row shows the whole model and the adapters trained, not the adapters alone") {
    // Llama-2-7B: 6,738,415,616 parameters (frozen). peft's LoRA at r = 8 on the seven linear
    // layers of each of the 32 blocks: 32 x 8 x (4 x (4096 + 4096) + 3 x (4096 + 11008)) =
    // 19,988,480 trained. main printed "params 20.0 M".
    TempDir dir("lora-params");
    const std::string path = dir / "lora.yaml";
    std::ofstream(path) << "format: gpuplan/v1\n"
                           "name: lora\n"
                           "workload: {model: llama2-7b, sequence_length: 2048, tokens: 1e7, dataset: {synthetic: true}}\n"
                           "training: {batch_size: 1, precision: bf16_amp, optimizer: adamw, activation_checkpointing: "
                           "true, fine_tuning: {method: lora}}\n"
                           "hardware: {gpu: h100-sxm, gpus_per_node: 1}\n";
    const auto table = run_gpuplan("run " + path);
    REQUIRE_MESSAGE(table.exit_code == 0, table.err);
    CHECK(table.out.find("6.76 B (20 M trained)") != std::string::npos);
    const auto json = run_gpuplan("run " + path + " --format json");
    REQUIRE(json.exit_code == 0);
    const auto v = nlohmann::json::parse(json.out)["variants"][0];
    CHECK(v["parameters"].get<double>() == 19988480.0);
    CHECK(v["frozen_parameters"].get<double>() == 6738415616.0);
  }

  TEST_CASE("an image model's table keeps its columns: no memory split when every row fits") {
    const auto r = run_gpuplan("run " + std::string(GPUPLAN_SOURCE_DIR) + "/scenarios/dle-resnet50-a100.yaml");
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("activations") == std::string::npos);
    CHECK(r.out.find("tokens/s") == std::string::npos);
  }
}

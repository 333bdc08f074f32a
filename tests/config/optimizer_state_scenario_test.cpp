/// \file optimizer_state_scenario_test.cpp
/// training.optimizer_state_precision through the loader: its default, the explicit values,
/// the memory they give, and the refused combination with an 8-bit optimizer.

#include <doctest/doctest.h>

#include "config_fixture.h"
#include "models/memory/footprint.h"

namespace gpuplan::config::testing {
namespace {

/// TinyLlama 1.1B fully fine-tuned in pure bf16 with torch AdamW (litgpt's bf16-true).
std::string tinyllama_scenario(const std::string& training_extra) {
  return R"(format: gpuplan/v1
name: TinyLlama full fine-tune
workload:
  model: tinyllama-1.1b
  sequence_length: 512
  dataset: {samples: 2000, synthetic: true}
  epochs: 1
training:
  batch_size: 4
  precision: bf16
  optimizer: adamw
)" + training_extra +
         R"(hardware:
  gpu: a10g
  cpu_cores: 4
  host_memory: "64 GiB"
  storage: nvme_ssd
)";
}

models::JobSpec job_of(const std::string& text) { return parse_text(text).variants.front().job; }

double state_bytes(const models::JobSpec& job) {
  return models::training_memory(job.workload, job.training, models::MemoryModelParams::defaults())
      .optimizer_state_bytes;
}

}  // namespace

TEST_SUITE("config.optimizer_state_precision") {
  TEST_CASE("param by default: bf16 moments under pure bf16, fp32 when written") {
    const models::JobSpec param = job_of(tinyllama_scenario(""));
    CHECK(param.training.optimizer_state_precision == models::OptimizerStatePrecision::kParam);
    const double n = param.workload.parameters;
    // TinyLlama 1.1B: 22 x (4 projections of 2048 x 2048 / 8 (GQA: k, v 256 wide) ...) -
    // the catalog's count; torch AdamW keeps two bf16 moments: 4 B per parameter.
    CHECK(n == doctest::Approx(1.1e9).epsilon(0.01));
    CHECK(state_bytes(param) == doctest::Approx(4.0 * n));
    const models::JobSpec fp32 = job_of(tinyllama_scenario("  optimizer_state_precision: fp32\n"));
    CHECK(fp32.training.optimizer_state_precision == models::OptimizerStatePrecision::kFp32);
    CHECK(state_bytes(fp32) == doctest::Approx(8.0 * n));
    // AMP keeps fp32 master weights and so fp32 moments; bf16 state halves them.
    const std::string amp = with_replaced(tinyllama_scenario(""), "precision: bf16", "precision: bf16_amp");
    CHECK(state_bytes(job_of(amp)) == doctest::Approx(8.0 * n));  // autocast's 16-bit copy is in the weights
    const std::string amp_bf16 = with_replaced(tinyllama_scenario("  optimizer_state_precision: bf16\n"),
                                               "precision: bf16", "precision: bf16_amp");
    CHECK(state_bytes(job_of(amp_bf16)) == doctest::Approx(4.0 * n));
  }

  TEST_CASE("bad values and the 8-bit optimizers are refused with a fix") {
    CHECK(scenario_errors(tinyllama_scenario("  optimizer_state_precision: fp16\n")) ==
          Messages{"unknown value 'fp16', expected one of fp32, bf16 or param at s.yaml:12:30 "
                   "(training.optimizer_state_precision); did you mean fp32 or bf16?"});
    CHECK(scenario_errors(with_replaced(tinyllama_scenario("  optimizer_state_precision: fp32\n"),
                                        "optimizer: adamw", "optimizer: adamw_8bit")) ==
          Messages{"adamw_8bit keeps its state block-wise quantized to 8 bit at s.yaml:12:30 "
                   "(training.optimizer_state_precision); remove training.optimizer_state_precision or use "
                   "optimizer: adamw"});
  }
}

TEST_SUITE("config.optimizer_implementation") {
  TEST_CASE("unset follows the framework mode; a written value is kept, and refused where torch.optim does not run") {
    CHECK_FALSE(job_of(tinyllama_scenario("")).training.optimizer_implementation.has_value());
    CHECK(models::optimizer_implementation_of(job_of(tinyllama_scenario("")).training) ==
          models::OptimizerImplementation::kForeach);
    CHECK(models::optimizer_implementation_of(
              job_of(tinyllama_scenario("  framework_overhead: compiled\n")).training) ==
          models::OptimizerImplementation::kFused);
    // A compiled model whose optimizer stays eager (torch.compile(model) only).
    CHECK(models::optimizer_implementation_of(
              job_of(tinyllama_scenario("  framework_overhead: compiled\n  optimizer_implementation: foreach\n"))
                  .training) == models::OptimizerImplementation::kForeach);
    CHECK(job_of(tinyllama_scenario("  optimizer_implementation: for_loop\n")).training.optimizer_implementation ==
          models::OptimizerImplementation::kForLoop);
    CHECK(scenario_errors(with_replaced(tinyllama_scenario("  optimizer_implementation: foreach\n"),
                                        "optimizer: adamw", "optimizer: adamw_8bit")) ==
          Messages{"optimizer_implementation says how torch.optim's SGD and Adam(W) run, and adamw_8bit loops over "
                   "the tensors with kernels of its own at s.yaml:12:29 (training.optimizer_implementation); remove "
                   "training.optimizer_implementation"});
    // DeepSpeed's fused Adam under ZeRO: no torch.optim loop to describe; fused is what it is.
    const auto zero = [](const std::string& implementation) {
      return with_replaced(
          with_replaced(tinyllama_scenario("  optimizer_implementation: " + implementation + "\n"), "  gpu: a10g\n",
                        "  gpu: a10g\n  gpus_per_node: 2\n  gpu_interconnect: pcie4\n"),
          "hardware:", "parallelism: {strategy: zero, zero_stage: 2}\nhardware:");
    };
    CHECK(scenario_errors(zero("for_loop")) ==
          Messages{"optimizer_implementation for_loop is torch.optim's unfused step, and strategy zero runs "
                   "DeepSpeed's fused Adam at s.yaml:12:29 (training.optimizer_implementation); use "
                   "optimizer_implementation: fused, or remove it"});
    CHECK(job_of(zero("fused")).training.optimizer_implementation == models::OptimizerImplementation::kFused);
    CHECK(scenario_errors(tinyllama_scenario("  optimizer_implementation: forEach\n")) ==
          Messages{"unknown value 'forEach', expected one of for_loop, foreach or fused at s.yaml:12:29 "
                   "(training.optimizer_implementation); did you mean foreach?"});
  }
}

}  // namespace gpuplan::config::testing

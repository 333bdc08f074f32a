/// \file token_budget_test.cpp
/// workload.tokens sizes a language-model job without dataset.samples.

#include <doctest/doctest.h>

#include "config_fixture.h"

namespace gpuplan::config::testing {
namespace {
constexpr const char* kTokenScenario = R"(format: gpuplan/v1
name: GPT-2 on a token budget
workload:
  model: gpt2
  sequence_length: 1024
  dataset: {synthetic: true}
  tokens: 2e9
training:
  batch_size: 16
  precision: bf16
  optimizer: adamw_8bit
hardware:
  gpu: a100-80gb
  cpu_cores: 8
  host_memory: "64 GiB"
  storage: nvme_ssd
)";
}  // namespace

TEST_SUITE("config.token_budget") {
  TEST_CASE("tokens without dataset.samples: one epoch of tokens / sequence_length sequences") {
    const models::JobSpec job = parse_text(kTokenScenario).variants.front().job;
    // ceil(2e9 / 1024) = 1,953,125 sequences
    CHECK(job.dataset.samples == 1'953'125.0);
    CHECK(job.duration.tokens == 2e9);
    CHECK(job.training.precision == models::Precision::kBf16);
    CHECK(job.training.optimizer == models::Optimizer::kAdamW8bit);
  }

  TEST_CASE("epochs still need dataset.samples") {
    CHECK(scenario_errors(with_replaced(kTokenScenario, "tokens: 2e9", "epochs: 1")) ==
          Messages{"missing key 'samples' at s.yaml:6:12 (workload.dataset.samples); add samples: <sequences per "
                   "epoch> (a whole number from 1 to 1e15), or size the job in tokens with workload.tokens: <token "
                   "budget> in place of epochs"});
  }

  TEST_CASE("a misspelt duration key is one error, at the key written") {
    CHECK(scenario_errors(with_replaced(kTokenScenario, "  tokens: 2e9", "  token: 2e9")) ==
          Messages{"unknown key 'token' at s.yaml:7:3 (workload.token); did you mean tokens?"});
    CHECK(scenario_errors(with_replaced(kTokenScenario, "  tokens: 2e9", "  epoch: 1")) ==
          Messages{"unknown key 'epoch' at s.yaml:7:3 (workload.epoch); did you mean epochs?"});
  }

  TEST_CASE("a language model without epochs or tokens is told to give a token budget first") {
    CHECK(scenario_errors(with_replaced(kTokenScenario, "  tokens: 2e9\n", "")) ==
          Messages{"missing key 'tokens' at s.yaml:4:3 (workload.tokens); add tokens: <token budget> (e.g. 2e11), or "
                   "epochs: <passes over dataset.samples>"});
  }
}

}  // namespace gpuplan::config::testing

/// \file expert_parallel_scenario_test.cpp
/// parallelism.expert_parallel and expert_load_imbalance, and the mixture-of-experts model
/// keys, through the loader: the values, the per-GPU memory they give, and every refused
/// combination with its whole message.

#include <doctest/doctest.h>

#include "config_fixture.h"
#include "models/memory/parallel_memory.h"

namespace gpuplan::config::testing {
namespace {

/// Mixtral-8x7B on one node of 8 H100s; `parallelism` is the section's body (line 16 on).
std::string mixtral_on_node(const std::string& parallelism, const std::string& model = "mixtral-8x7b") {
  return R"(format: gpuplan/v1
workload:
  model: )" +
         model + R"(
  sequence_length: 1024
  dataset: {samples: 1000000, synthetic: true}
  epochs: 1
training: {batch_size: 1, precision: bf16_amp, optimizer: adamw}
hardware:
  gpu: h100-sxm
  cpu_cores: 64
  host_memory: "512 GiB"
  storage: nvme_ssd
  gpus_per_node: 8
  gpu_interconnect: nvlink4_nvswitch
parallelism:
)" + parallelism;
}

models::JobSpec job_of(const std::string& text) { return parse_text(text).variants.front().job; }

}  // namespace

TEST_SUITE("config.expert_parallel") {
  TEST_CASE("expert_parallel and expert_load_imbalance are read; the defaults are 1 and 1") {
    const models::JobSpec plain = job_of(mixtral_on_node("  strategy: ddp\n"));
    CHECK(plain.parallelism.expert_parallel == 1);
    CHECK(plain.parallelism.expert_load_imbalance == 1.0);
    const models::JobSpec ep =
        job_of(mixtral_on_node("  strategy: ddp\n  expert_parallel: 8\n  expert_load_imbalance: 1.25\n"));
    CHECK(ep.parallelism.expert_parallel == 8);
    CHECK(ep.parallelism.expert_load_imbalance == 1.25);
    // Mixtral's 32 layers x 8 experts x 3·4096·14336 = 45,097,156,608 expert parameters; one
    // GPU of 8 keeps an eighth of them and all the rest. Total: per layer q, k, v, o 41,943,040,
    // norms 8,192, router 4096·8 = 32,768, experts 45,097,156,608 / 32 = 1,409,286,144 ->
    // 1,451,269,144 x 32 = 46,440,612,608; embedding and head 2 x 32000·4096 = 262,144,000;
    // final norm 4,096: 46,702,760,704.
    CHECK(models::rank_workload(plain).parameters == doctest::Approx(46'702'760'704.0));
    CHECK(models::rank_workload(ep).parameters == doctest::Approx(46'702'760'704.0 - 0.875 * 45'097'156'608.0));
  }

  TEST_CASE("refused: expert_parallel on a dense model, without ddp, or not dividing the experts or ranks") {
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n  expert_parallel: 8\n", "mistral-7b")) ==
          Messages{"expert_parallel 8 splits the routed experts of a mixture-of-experts model, and mistral-7b "
                   "has none at s.yaml:17:20 (parallelism.expert_parallel); use expert_parallel: 1, or a model "
                   "with experts (workload.model experts and experts_per_token)"});
    CHECK(scenario_errors(mixtral_on_node("  strategy: fsdp\n  expert_parallel: 8\n")) ==
          Messages{"expert_parallel 8 splits the experts over DDP's data-parallel ranks, and strategy is fsdp "
                   "(supported: expert x pipeline x DDP data parallelism) at s.yaml:17:20 "
                   "(parallelism.expert_parallel); set parallelism.strategy: ddp"});
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n  expert_parallel: 16\n")) ==
          Messages{"expert_parallel 16 does not divide the 8 experts of mixtral-8x7b (each rank holds whole "
                   "experts) at s.yaml:17:20 (parallelism.expert_parallel); use expert_parallel 1, 2, 4 or 8"});
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n  expert_parallel: 3\n")) ==
          Messages{"expert_parallel 3 does not divide the 8 experts of mixtral-8x7b (each rank holds whole "
                   "experts) at s.yaml:17:20 (parallelism.expert_parallel); use expert_parallel 1, 2, 4 or 8"});
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n  expert_parallel: 8\n  expert_load_imbalance: 9\n")) ==
          Messages{"expert_load_imbalance 9 exceeds expert_parallel 8 (the busiest rank receives at most every "
                   "token) at s.yaml:18:26 (parallelism.expert_load_imbalance); use 1 (perfect balance) to 8"});
    // Not a number: "a number" (the range that applies is checked after).
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n  expert_parallel: 8\n  expert_load_imbalance: high\n")) ==
          Messages{"expected a number, found 'high' at s.yaml:18:26 (parallelism.expert_load_imbalance)"});
    // Below 1 the fix names the range that applies (1 to the EP size), not the reader's bound.
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n  expert_parallel: 8\n  expert_load_imbalance: 0.5\n")) ==
          Messages{"expert_load_imbalance 0.5 is below 1 (the busiest rank's tokens over the mean are at least the "
                   "mean) at s.yaml:18:26 (parallelism.expert_load_imbalance); use 1 (perfect balance) to 8"});
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n  expert_parallel: 8\n  expert_load_imbalance: 0\n")) ==
          Messages{"expert_load_imbalance 0 is below 1 (the busiest rank's tokens over the mean are at least the "
                   "mean) at s.yaml:18:26 (parallelism.expert_load_imbalance); use 1 (perfect balance) to 8"});
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n  expert_load_imbalance: 1.5\n")) ==
          Messages{"expert_load_imbalance is the busiest expert-parallel rank's tokens over the mean, but "
                   "expert_parallel is 1 at s.yaml:17:26 (parallelism.expert_load_imbalance); set "
                   "expert_parallel: 2 or more, or expert_load_imbalance: 1 (a strategy's ~ removes it)"});
    // A dense model has no experts to balance: the fix removes the key.
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n  expert_load_imbalance: 1.3\n", "llama3-8b")) ==
          Messages{"expert_load_imbalance is the busiest expert-parallel rank's tokens over the mean, and llama3-8b "
                   "has no experts at s.yaml:17:26 (parallelism.expert_load_imbalance); remove expert_load_imbalance "
                   "(a strategy's ~ removes it), or use a model with experts"});
    // 1, the default, is accepted at expert_parallel 1 (a strategy writes it over a base's imbalance).
    CHECK(job_of(mixtral_on_node("  strategy: ddp\n  expert_load_imbalance: 1\n")).parallelism.expert_load_imbalance ==
          1.0);
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n  tensor_parallel: 2\n")) ==
          Messages{"tensor_parallel 2 splits dense blocks, but mixtral-8x7b has experts, which tensor "
                   "parallelism does not split here at s.yaml:17:20 (parallelism.tensor_parallel); set "
                   "tensor_parallel: 1 and split the experts with expert_parallel"});
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n  expert_parallel: 16\n", "gpt-oss-120b")) ==
          Messages{"expert_parallel 16 does not divide the 8 data-parallel ranks (expert-parallel groups lie within "
                   "them) at s.yaml:17:20 (parallelism.expert_parallel); use expert_parallel 1, 2, 4 or 8"});
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n  expert_parallel: 0\n")) ==
          Messages{"out-of-range value 0 at s.yaml:17:20 (parallelism.expert_parallel); expected a whole number "
                   "from 1 to 4096"});
  }

  TEST_CASE("refused: MoE model keys that do not fit, at the key") {
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n", "{base: mixtral-8x7b, experts_per_token: 9}")) ==
          Messages{"experts_per_token 9 exceeds experts 8 at s.yaml:3:50 (workload.model.experts_per_token); "
                   "use at most 8"});
    CHECK(scenario_errors(mixtral_on_node("  strategy: ddp\n", "{base: mistral-7b, shared_experts: 1}")) ==
          Messages{"shared_experts applies to a mixture-of-experts model only at s.yaml:3:45 "
                   "(workload.model.shared_experts); set experts (the routed experts per layer) or remove "
                   "shared_experts"});
  }
}

}  // namespace gpuplan::config::testing

/// \file activation_offloading_test.cpp
/// training.activation_offloading: false | true through the loader: its default, a strategy
/// that turns it on, the resolved form, and the refused values and combinations as whole
/// messages.

#include <doctest/doctest.h>

#include <sstream>

#include "config/resolved_printer.h"
#include "config_fixture.h"
#include "gpt2_training_scenario.h"

namespace gpuplan::config::testing {
namespace {

/// GPT-2 124M with eager attention on line 12; line 13 holds `line` (nothing when empty).
std::string gpt2_scenario(const std::string& line) { return gpt2_training_scenario("  attention: eager\n" + line); }

models::JobSpec job_of(const std::string& text) { return parse_text(text).variants.front().job; }

}  // namespace

TEST_SUITE("config.activation_offloading") {
  TEST_CASE("default false; true and a strategy override turn it on") {
    CHECK_FALSE(job_of(gpt2_scenario("")).training.activation_offloading);
    CHECK_FALSE(job_of(gpt2_scenario("  activation_offloading: false\n")).training.activation_offloading);
    CHECK(job_of(gpt2_scenario("  activation_offloading: true\n")).training.activation_offloading);
    const Scenario s =
        parse_text(gpt2_scenario("") + "strategies:\n  base: {}\n  off: {training.activation_offloading: true}\n");
    REQUIRE(s.variants.size() == 2);
    CHECK(s.variants[0].strategy == "base");
    CHECK_FALSE(s.variants[0].job.training.activation_offloading);
    CHECK(s.variants[1].strategy == "off");
    CHECK(s.variants[1].job.training.activation_offloading);
    // --print-resolved shows the key where it is on, and nothing where it is off (the
    // resolved form of a scenario without it keeps its bytes).
    const std::string resolved = print_resolved(s);
    const auto first = resolved.find("activation_offloading: true");
    REQUIRE(first != std::string::npos);
    CHECK(resolved.find("activation_offloading", first + 1) == std::string::npos);
    CHECK(print_resolved(parse_text(gpt2_scenario(""))).find("activation_offloading") == std::string::npos);
  }

  TEST_CASE("refused values and combinations, at the key with a fix") {
    CHECK(scenario_errors(gpt2_scenario("  activation_offloading: maybe\n")) ==
          Messages{"expected true or false, found 'maybe' at s.yaml:13:26 (training.activation_offloading); write true or false"});
    CHECK(scenario_errors(gpt2_scenario("  enable_activation_offloading: true\n")) ==
          Messages{"unknown key 'enable_activation_offloading' at s.yaml:13:3 "
                   "(training.enable_activation_offloading); did you mean activation_offloading?"});
    // Pipeline stages keep several micro-batches' activations: not modelled.
    std::string pipeline = with_replaced(gpt2_scenario("  activation_offloading: true\n"), "  cpu_cores: 8\n",
                                         "  gpus_per_node: 2\n  cpu_cores: 8\n");
    pipeline += "parallelism: {strategy: ddp, pipeline_parallel: 2}\n";
    CHECK(scenario_errors(pipeline) ==
          Messages{"activation offloading is not modelled with pipeline parallelism (pipeline_parallel 2) at "
                   "s.yaml:13:26 (training.activation_offloading); remove training.activation_offloading, or set "
                   "parallelism.pipeline_parallel: 1"});
  }

  TEST_CASE("the host holds the offloaded activations: refused below them, with the bytes and a fix") {
    // GPT-2 124M, bf16 AMP, eager attention (the op table keeps its score chain), batch 16 x
    // 1024 tokens: 11 of its 12 blocks' saves go to the host, 28.5 GB (activation_offload.h;
    // models.memory.activation_offload checks the rule by hand), more than 8 GiB = 8.6 GB.
    const std::string on = gpt2_scenario("  activation_offloading: true\n");
    CHECK(scenario_errors(with_replaced(on, "\"64 GiB\"", "\"8 GiB\"")) ==
          Messages{"host memory 8.6 GB per node is less than the 28.5 GB of saved activations "
                   "training.activation_offloading keeps in pinned host memory (1 GPU(s) x one micro-batch of 16 "
                   "samples, every repeated block's but the last) at s.yaml:17:16 (hardware.host_memory); give the "
                   "node's real host memory (at least 28.5 GB), turn training.activation_offloading off, or "
                   "checkpoint the blocks (activation_checkpointing: true offloads their inputs only)"});
    // Synthetic data defaults host_memory to 0 B: an offloading job is asked for it.
    CHECK(scenario_errors(with_replaced(on, "  host_memory: \"64 GiB\"\n", "")) ==
          Messages{"training.activation_offloading keeps 28.5 GB of saved activations (pinned) in host memory per "
                   "node, but hardware.host_memory is not given (synthetic data defaults it to 0 B) at s.yaml:15:3 "
                   "(hardware.host_memory); add hardware.host_memory: the node's real host memory (at least 28.5 GB)"});
    // On a cloud instance the host memory is the instance's (GCP g2-standard-4: 16 GiB): the
    // fix names a bigger instance, not a key the user cannot set.
    std::string on_cloud = with_replaced(on, "hardware:\n  gpu: a100-80gb\n  cpu_cores: 8\n  host_memory: \"64 GiB\"\n"
                                             "  storage: nvme_ssd\n", "cloud: {instance: gcp/g2-standard-4}\n");
    CHECK(scenario_errors(on_cloud) ==
          Messages{"host memory 17.2 GB per node is less than the 28.5 GB of saved activations "
                   "training.activation_offloading keeps in pinned host memory (1 GPU(s) x one micro-batch of 16 "
                   "samples, every repeated block's but the last) at s.yaml:14:19 (cloud.instance); choose an "
                   "instance with at least 28.5 GB of host memory, turn training.activation_offloading off, or "
                   "checkpoint the blocks (activation_checkpointing: true offloads their inputs only)"});
    // With checkpointing only the blocks' inputs move: 8 GiB is plenty.
    const std::string checkpointed =
        gpt2_scenario("  activation_checkpointing: true\n  activation_offloading: true\n");
    CHECK(job_of(with_replaced(checkpointed, "\"64 GiB\"", "\"8 GiB\"")).training.activation_offloading);
  }
}

}  // namespace gpuplan::config::testing

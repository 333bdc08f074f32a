// Input-pipeline inputs that could never deliver a batch are errors at file:line:column
// (issue 3): no CPU core for a GPU's data loader, zero storage bandwidth.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "config/scenario_loader.h"
#include "config_fixture.h"
#include "models/workload/workload.h"

namespace gpuplan::config {
namespace {

using namespace testing;

std::vector<std::string> errors_of(const std::string& text) { return scenario_errors(text); }

std::string scenario(const std::string& hardware) {
  return "format: gpuplan/v1\n"             // line 1
         "workload:\n"                      // 2
         "  model: resnet50\n"              // 3
         "  dataset: {samples: 1000, sample_size: \"110 KiB\", decode_time: \"6 ms\"}\n"  // 4
         "  epochs: 1\n"                    // 5
         "training: {batch_size: 32}\n"     // 6
         "parallelism: {strategy: ddp}\n"   // 7
         "hardware:\n"                      // 8
         + hardware;                        // 9-
}

}  // namespace

TEST_SUITE("config.data_loader_validation") {
  TEST_CASE("fewer cores than GPUs per node: the loader of some GPU has no core") {
    const auto m = errors_of(scenario("  gpu: rtx3090\n  gpus_per_node: 4\n  cpu_cores: 2\n"
                                      "  host_memory: \"64 GiB\"\n  storage: nvme_ssd\n"));
    REQUIRE(m.size() == 1);
    CHECK(m[0] ==
          "cpu_cores 2 leaves no CPU core for the data loader of each of the 4 GPUs per node at s.yaml:11:14 "
          "(hardware.cpu_cores); give at least one core per GPU (cpu_cores >= gpus_per_node), or use "
          "workload.dataset.synthetic: true");
  }

  TEST_CASE("zero cores and zero storage bandwidth are rejected where they are written") {
    const auto cores = errors_of(scenario("  gpu: rtx3090\n  cpu_cores: 0\n  host_memory: \"64 GiB\"\n"
                                          "  storage: nvme_ssd\n"));
    REQUIRE(cores.size() == 1);
    CHECK(cores[0].find("s.yaml:10:14 (hardware.cpu_cores)") != std::string::npos);
    const auto bandwidth = errors_of(scenario(
        "  gpu: rtx3090\n  cpu_cores: 8\n  host_memory: \"64 GiB\"\n"
        "  storage: {read_bandwidth: \"0 GB/s\", write_bandwidth: \"1 GB/s\", latency: \"1 ms\", queue_depth: 4}\n"));
    REQUIRE(bandwidth.size() == 1);
    CHECK(bandwidth[0].find("(hardware.storage.read_bandwidth)") != std::string::npos);
  }

  TEST_CASE("synthetic data needs no loader core") {
    const std::string text =
        "format: gpuplan/v1\nworkload:\n  model: resnet50\n  dataset: {samples: 1000, synthetic: true}\n"
        "  epochs: 1\ntraining: {batch_size: 32}\nparallelism: {strategy: ddp}\nhardware:\n  gpu: rtx3090\n"
        "  gpus_per_node: 4\n  cpu_cores: 2\n  host_memory: \"64 GiB\"\n  storage: nvme_ssd\n";
    CHECK_NOTHROW(parse_text(text));
  }
}

}  // namespace gpuplan::config

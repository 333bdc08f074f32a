// gpuplan init: every starter scenario is valid and runs; an existing file is never replaced;
// an unknown template names the known ones.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "cli/init_command.h"
#include "cli/init_templates.h"
#include "run_command.h"

using gpuplan::testing::run_gpuplan;
using gpuplan::testing::slurp;

namespace {
std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::string temp_path(const std::string& tag) {
  return "/tmp/gpuplan_init_test_" + tag + "_" + std::to_string(::getpid()) + ".yaml";
}
}  // namespace

TEST_SUITE("cli.init") {
  TEST_CASE("init writes the starter, which runs; a second init refuses to replace it") {
    const std::string path = temp_path("resnet");
    std::filesystem::remove(path);
    const auto w = run_gpuplan("init " + path);
    REQUIRE(w.exit_code == 0);
    CHECK(w.out == "Wrote " + path + "; edit it, then: gpuplan run " + path + "\n");
    CHECK(slurp(path) == gpuplan::cli::starter_scenario());
    CHECK(gpuplan::cli::starter_scenario() == gpuplan::cli::init_template("resnet").text);
    const auto r = run_gpuplan("run " + path + " --format csv");
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("\nbaseline,") != std::string::npos);
    CHECK(r.out.find("\namp_workers_4,") != std::string::npos);
    const auto again = run_gpuplan("init " + path);
    CHECK(again.exit_code == 2);
    CHECK(again.err == "gpuplan: '" + path +
                           "' exists; gpuplan init never replaces a file: name another FILE (see gpuplan --help)\n");
    std::filesystem::remove(path);
  }

  TEST_CASE("init --template llm writes the LLM starter: Llama 3 8B with FSDP on a p5.48xlarge, which runs and fits") {
    const std::string path = temp_path("llm");
    std::filesystem::remove(path);
    const auto w = run_gpuplan("init --template llm " + path);
    REQUIRE(w.exit_code == 0);
    CHECK(w.out == "Wrote " + path + "; edit it, then: gpuplan run " + path + "\n");
    CHECK(slurp(path) == gpuplan::cli::init_template("llm").text);
    const auto r = run_gpuplan("run " + path + " --format json");
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    // Three rows (baseline, compiled, spot), each on the instance's 8 H100 with FSDP, each
    // fitting, each on the global batch its comment states: 2 x 4 micro-steps x 8 GPUs.
    for (const char* strategy : {"baseline", "compiled", "spot"}) {
      CHECK(r.out.find("\"strategy\": \"" + std::string(strategy) + "\",") != std::string::npos);
    }
    CHECK(count_of(r.out, "\"gpu\": \"h100-sxm\",") == 3);
    CHECK(count_of(r.out, "\"gpus\": 8,") == 3);
    CHECK(count_of(r.out, "\"parallelism\": \"fsdp\",") == 3);
    CHECK(count_of(r.out, "\"global_batch_samples\": 64,") == 3);
    CHECK(count_of(r.out, "\"fits\": true,") == 3);
    std::filesystem::remove(path);
    // --template=NAME as well.
    REQUIRE(run_gpuplan("init --template=llm " + path).exit_code == 0);
    CHECK(slurp(path) == gpuplan::cli::init_template("llm").text);
    std::filesystem::remove(path);
  }

  TEST_CASE("an unknown template or a missing name is refused with the known ones, and writes nothing") {
    const std::string path = temp_path("unknown");
    std::filesystem::remove(path);
    const auto r = run_gpuplan("init --template llama " + path);
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "gpuplan: unknown template 'llama' of gpuplan init; the templates are llm, resnet: gpuplan init "
          "--template llm FILE (see gpuplan --help)\n");
    CHECK_FALSE(std::filesystem::exists(path));
    const auto missing = run_gpuplan("init --template");
    CHECK(missing.exit_code == 2);
    CHECK(missing.err ==
          "gpuplan: gpuplan init --template needs a NAME: gpuplan init --template llm FILE (see gpuplan "
          "--help)\n");
    const auto help = run_gpuplan("init --help");
    CHECK(help.exit_code == 0);
    CHECK(help.out ==
          "gpuplan init [--template NAME] [FILE]: write a commented starter scenario to FILE (default my-job.yaml) "
          "that runs as it is; an existing FILE is never replaced\n"
          "Templates (default resnet):\n"
          "  llm     Llama 3 8B full fine-tuning / pretraining, FSDP on a cloud 8x H100 node, bf16, in tokens\n"
          "  resnet  ResNet-50 on ImageNet on one RTX 3090: data loader workers and AMP (the default)\n");
  }
}

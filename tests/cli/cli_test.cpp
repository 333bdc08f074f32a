#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "run_command.h"

using gpuplan::testing::run_gpuplan;
using gpuplan::testing::slurp;

namespace {
const std::string kSource = GPUPLAN_SOURCE_DIR;
std::string scenario(const std::string& name) { return kSource + "/scenarios/" + name; }
std::string temp_path(const std::string& name) {
  return "/tmp/gpuplan_cli_test_" + std::to_string(::getpid()) + "_" + name;
}
void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}
}  // namespace

TEST_SUITE("cli.main") {
  TEST_CASE("--version and --help") {
    const auto v = run_gpuplan("--version");
    CHECK(v.exit_code == 0);
    CHECK(v.out.rfind("gpuplan ", 0) == 0);
    for (const char* command : {"run --help", "validate --help", "list --help", "--help"}) {
      const auto h = run_gpuplan(command);
      CHECK_MESSAGE(h.exit_code == 0, command);
      CHECK_MESSAGE(h.out.find("gpuplan") != std::string::npos, command);
    }
  }

  TEST_CASE("bad command lines exit 2 with a pointer to --help") {
    const auto r = run_gpuplan("frobnicate");
    CHECK(r.exit_code == 2);
    CHECK(r.err == "gpuplan: unknown command 'frobnicate'; expected run, validate, fit, calibrate, plan, diagnose, init, list, schema, completion or help (see "
                   "gpuplan --help)\n");
    // A near miss is named.
    const auto typo = run_gpuplan("rnu");
    CHECK(typo.exit_code == 2);
    CHECK(typo.err == "gpuplan: unknown command 'rnu'; did you mean run? Expected run, validate, fit, calibrate, plan, "
                      "diagnose, init, list, schema, completion or help (see gpuplan --help)\n");
    CHECK(run_gpuplan("run").exit_code == 2);
    CHECK(run_gpuplan("run " + scenario("dle-resnet50-a100.yaml") + " --format xml").exit_code == 2);
    CHECK(run_gpuplan("list colours").exit_code == 2);
  }

  TEST_CASE("list prints each catalog") {
    const auto gpus = run_gpuplan("list gpus");
    CHECK(gpus.exit_code == 0);
    CHECK(gpus.out.find("a100-80gb") != std::string::npos);
    CHECK(gpus.out.find("gtx1080ti") != std::string::npos);
    // rows start with the name: "\nh20 " is the h20 row, not a part of "h200"
    CHECK(gpus.out.find("\nrtx-6000-ada ") != std::string::npos);
    CHECK(gpus.out.find("\nh20 ") != std::string::npos);
    // The architecture column is a compute capability for NVIDIA and a gfx target for AMD,
    // so it is not headed "cc"; the legend says which.
    CHECK(gpus.out.starts_with("gpu "));
    CHECK(gpus.out.find(" arch ") != std::string::npos);
    CHECK(gpus.out.find(" cc ") == std::string::npos);
    CHECK(gpus.out.find("arch: CUDA compute capability, or AMD's gfx target.") != std::string::npos);
    // Memory as marketed (a trial read "85.9 GB" for the 80 GB H100 as a catalog error).
    const std::size_t h100 = gpus.out.find("\nh100-sxm ");
    REQUIRE(h100 != std::string::npos);
    CHECK(gpus.out.substr(h100, gpus.out.find('\n', h100 + 1) - h100).find(" 80 GiB ") != std::string::npos);
    CHECK(gpus.out.find("memory as marketed, in GiB (2^30 B; 80 GiB = 85.9 GB).\n* = ECC on as shipped: 15/16 of the "
                        "memory allocatable.") != std::string::npos);
    const std::size_t l4 = gpus.out.find("\nl4 ");
    REQUIRE(l4 != std::string::npos);
    CHECK(gpus.out.substr(l4, gpus.out.find('\n', l4 + 1) - l4).find(" 24 GiB* ") != std::string::npos);
    CHECK(run_gpuplan("list instances").out.find("aws/p4d.24xlarge") != std::string::npos);
    CHECK(run_gpuplan("list models").out.find("llama2-7b") != std::string::npos);
    CHECK(run_gpuplan("list storage").out.find("nvme_ssd") != std::string::npos);
  }

  TEST_CASE("list families: every family with its architecture keys, defaults and meanings") {
    // From a helper's trial: the keys of an inline model were nowhere to read but in errors.
    const auto r = run_gpuplan("list families");
    REQUIRE(r.exit_code == 0);
    for (const char* text : {"efficientnet: EfficientNet-B0..B7", "  width_multiplier (default 1): channel multiplier",
                             "resnet: ResNet-18/34/50/101/152", "  depth (required): ", "  groups (default 1): ",
                             "  se_reduction (default 0): ", "  kv_heads (default: heads): ", "  mlp (default swiglu): ",
                             "transformer_encoder: ", "vit: "}) {
      CAPTURE(text);
      CHECK(r.out.find(text) != std::string::npos);
    }
  }

  TEST_CASE("list keeps to 120 columns; gpus --wide adds each entry's source") {
    for (const char* what : {"gpus", "instances", "models", "families", "storage"}) {
      const auto r = run_gpuplan(std::string("list ") + what);
      REQUIRE(r.exit_code == 0);
      std::size_t start = 0;
      while (start < r.out.size()) {
        const std::size_t end = r.out.find('\n', start);
        const std::string line = r.out.substr(start, end - start);
        CAPTURE(what);
        CAPTURE(line);
        CHECK(line.size() <= 120);  // ASCII catalogs: bytes = columns
        start = end + 1;
      }
    }
    const auto gpus = run_gpuplan("list gpus");
    CHECK(gpus.out.find("https://") == std::string::npos);
    CHECK(gpus.out.find("Sources of each entry: gpuplan list gpus --wide.\n") != std::string::npos);
    const auto wide = run_gpuplan("list gpus --wide");
    CHECK(wide.exit_code == 0);
    CHECK(wide.out.find("\nb200 ") != std::string::npos);
    CHECK(wide.out.find("https://zdszero.github.io/Computer/Artificial_Intelligence/Hardware.html") != std::string::npos);
  }

  TEST_CASE("an invalid scenario: exit 2, every error listed, no output file left behind") {
    const std::string input = temp_path("bad.yaml");
    const std::string output = temp_path("out.csv");
    write(input,
          "format: gpuplan/v1\n"
          "workload:\n"
          "  model: resnet50\n"
          "  dataset: {samples: 1000, synthetic: true}\n"
          "  epochs: 1\n"
          "training: {batch_size: 0}\n"
          "hardware: {gpu: a100-80, cpu_cores: 8, host_memory: \"64 GiB\", storage: nvme_ssd}\n");
    std::filesystem::remove(output);
    const auto r = run_gpuplan("run " + input + " -o " + output);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("gpuplan: 2 errors:") == 0);
    CHECK(r.err.find(input + ":6:24 (training.batch_size)") != std::string::npos);
    CHECK(r.err.find("did you mean a100-80gb") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(output));
    std::filesystem::remove(input);
  }

  TEST_CASE("valid keys that ask for centuries of simulated time: exit 2 with what to check, no output file") {
    // A decode time of 11.6 days per image: each batch takes longer than SimTime can count.
    const std::string input = temp_path("slow.yaml");
    const std::string output = temp_path("slow.csv");
    write(input,
          "format: gpuplan/v1\n"
          "workload:\n"
          "  model: resnet50\n"
          "  dataset: {samples: 100000, sample_size: \"110 KiB\", decode_time: \"1e6 s\"}\n"
          "  epochs: 1\n"
          "training: {batch_size: 256}\n"
          "data_loader: {num_workers: 4}\n"
          "hardware: {gpu: a100-80gb, cpu_cores: 8, host_memory: \"16 GiB\", storage: nvme_ssd}\n");
    std::filesystem::remove(output);
    const auto r = run_gpuplan("run " + input + " -o " + output);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("gpuplan: the scenario's job does not fit in the simulated-time range (about 292 years)") == 0);
    CHECK(r.err.find("workload.dataset.decode_time") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(output));
    std::filesystem::remove(input);
  }

  TEST_CASE("an unreadable scenario file is an input error") {
    const auto r = run_gpuplan("run /nonexistent/x.yaml");
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("cannot read file '/nonexistent/x.yaml'") != std::string::npos);
  }

  TEST_CASE("-o writes the whole output; an unwritable path is an input error") {
    const std::string output = temp_path("run.csv");
    const auto r = run_gpuplan("run " + scenario("dle-resnet50-a100.yaml") + " --format csv -o " + output);
    CHECK(r.exit_code == 0);
    CHECK(slurp(output).rfind("strategy,gpu,parameters,frozen_parameters,gpus,", 0) == 0);
    std::filesystem::remove(output);
    const auto bad = run_gpuplan("run " + scenario("dle-resnet50-a100.yaml") + " -o /nonexistent/dir/x.csv");
    CHECK(bad.exit_code == 2);
  }

  TEST_CASE("--print-resolved shows the resolved configuration of every variant") {
    const auto r = run_gpuplan("run " + scenario("dle-resnet50-a100.yaml") + " --print-resolved");
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("a100-80gb") != std::string::npos);
  }
}

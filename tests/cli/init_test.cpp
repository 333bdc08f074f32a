// gpuplan init: the starter scenario is valid and runs; an existing file is never replaced.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "cli/init_command.h"
#include "run_command.h"

using gpuplan::testing::run_gpuplan;
using gpuplan::testing::slurp;

TEST_SUITE("cli.init") {
  TEST_CASE("init writes the starter, which runs; a second init refuses to replace it") {
    const std::string path = "/tmp/gpuplan_init_test_" + std::to_string(::getpid()) + ".yaml";
    std::filesystem::remove(path);
    const auto w = run_gpuplan("init " + path);
    REQUIRE(w.exit_code == 0);
    CHECK(w.out == "Wrote " + path + "; edit it, then: gpuplan run " + path + "\n");
    CHECK(slurp(path) == gpuplan::cli::starter_scenario());
    const auto r = run_gpuplan("run " + path + " --format csv");
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("\nbaseline,") != std::string::npos);
    CHECK(r.out.find("\namp_workers_4,") != std::string::npos);
    const auto again = run_gpuplan("init " + path);
    CHECK(again.exit_code == 2);
    CHECK(again.err == "gpuplan: '" + path + "' exists; gpuplan init never replaces a file: name another FILE (see gpuplan --help)\n");
    std::filesystem::remove(path);
  }
}

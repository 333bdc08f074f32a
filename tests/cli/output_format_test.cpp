// -o - is standard output; -o FILE takes the format from its extension unless --format says
// otherwise (cli/output_format.h).
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "cli/output_format.h"
#include "run_command.h"

using gpuplan::testing::run_gpuplan;
using gpuplan::testing::slurp;

namespace {
const std::string kScenario = std::string(GPUPLAN_SOURCE_DIR) + "/scenarios/dle-resnet50-a100.yaml";
std::string temp_dir() {
  const auto d = std::filesystem::temp_directory_path() / ("gpuplan_output_format_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d.string();
}
}  // namespace

TEST_SUITE("cli.output_format") {
  TEST_CASE("the extension names the format; --format wins; '-' and no extension fall back; another extension is refused") {
    using gpuplan::cli::output_format;
    CHECK(output_format(std::nullopt, "out/x.csv", "table") == "csv");
    CHECK(output_format(std::nullopt, "x.JSON", "table") == "json");
    CHECK(output_format(std::nullopt, "x.md", "table") == "markdown");
    CHECK(output_format(std::nullopt, "x.htm", "table") == "html");
    CHECK(output_format(std::nullopt, "x.txt", "csv") == "table");
    CHECK(output_format(std::nullopt, "out/x", "table") == "table");
    CHECK_THROWS_WITH_AS(output_format(std::nullopt, "x.out", "table"),
                         "-o x.out: the extension '.out' names no output format; name the file .txt (table), .md "
                         "(markdown), .csv, .json or .html, or pass --format",
                         std::invalid_argument);
    CHECK(output_format(std::string("table"), "x.out", "csv") == "table");  // --format: any name
    CHECK(output_format(std::nullopt, "-", "table") == "table");
    CHECK(output_format(std::string("table"), "x.csv", "table") == "table");
  }

  TEST_CASE("run -o x.csv writes CSV, --format table -o x.csv a table, -o - standard output and no file '-'") {
    const std::string dir = temp_dir();
    const auto csv = run_gpuplan("run " + kScenario + " -o " + dir + "/x.csv");
    REQUIRE(csv.exit_code == 0);
    CHECK(slurp(dir + "/x.csv").rfind("strategy,gpu,parameters,frozen_parameters,gpus,nodes,", 0) == 0);
    const auto table = run_gpuplan("run " + kScenario + " --format table -o " + dir + "/t.csv");
    REQUIRE(table.exit_code == 0);
    CHECK(slurp(dir + "/t.csv").rfind("ResNet-50 v1.5 on ImageNet-1k", 0) == 0);
    const auto out = run_gpuplan("run " + kScenario + " --format json -o -");
    REQUIRE(out.exit_code == 0);
    CHECK(out.out.rfind("{\n  \"scenario\": ", 0) == 0);
    CHECK_FALSE(std::filesystem::exists("-"));
    std::filesystem::remove_all(dir);
  }

  TEST_CASE("an extension the command does not write is a usage error, and nothing is written") {
    const std::string dir = temp_dir();
    const auto r = run_gpuplan("validate " + std::string(GPUPLAN_SOURCE_DIR) + "/tests/validation -o " + dir + "/v.html");
    CHECK(r.exit_code == 2);
    CHECK(r.err == "gpuplan: -o " + dir + "/v.html asks for html, which this command does not write; pass --format table, "
                   "markdown, csv, json (see gpuplan --help)\n");
    CHECK_FALSE(std::filesystem::exists(dir + "/v.html"));
    std::filesystem::remove_all(dir);
  }

  TEST_CASE("-o naming the input scenario is refused and the scenario kept; -o run.yaml names no format") {
    const std::string dir = temp_dir();
    const std::string scenario = dir + "/selfout.yaml";
    std::filesystem::copy_file(kScenario, scenario);
    const std::string before = slurp(scenario);
    const auto same = run_gpuplan("run " + scenario + " --format table -o " + scenario);
    CHECK(same.exit_code == 2);
    CHECK(same.err == "gpuplan: cannot write '" + scenario + "': it is the input file " + scenario +
                          ", which the output would replace; give -o another file, such as " + dir +
                          "/selfout-report.txt (see gpuplan --help)\n");
    // The same file by another name (a ./ prefix) is the same inode: refused too.
    const auto other_name = run_gpuplan("run " + scenario + " --format csv -o " + dir + "/./selfout.yaml");
    CHECK(other_name.exit_code == 2);
    CHECK(other_name.err.find("it is the input file " + scenario + ", which the output would replace") !=
          std::string::npos);
    CHECK(slurp(scenario) == before);
    // Without --format, .yaml names no format: refused before the file is opened.
    const auto yaml = run_gpuplan("run " + scenario + " -o " + dir + "/report.yaml");
    CHECK(yaml.exit_code == 2);
    CHECK(yaml.err == "gpuplan: -o " + dir + "/report.yaml: the extension '.yaml' names no output format; name the "
                          "file .txt (table), .md (markdown), .csv, .json or .html, or pass --format (see gpuplan "
                          "--help)\n");
    CHECK_FALSE(std::filesystem::exists(dir + "/report.yaml"));
    // --print-resolved writes YAML, so .yaml is its extension.
    const auto resolved = run_gpuplan("run " + scenario + " --print-resolved -o " + dir + "/resolved.yaml");
    CHECK(resolved.exit_code == 0);
    CHECK(std::filesystem::exists(dir + "/resolved.yaml"));
    std::filesystem::remove_all(dir);
  }
}

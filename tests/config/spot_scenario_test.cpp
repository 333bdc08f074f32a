// cloud.preemption_rate in a scenario: the catalog default with its source, a replayed trace,
// and errors at file:line:column with the key path.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "config/config_error.h"
#include "config/scenario_loader.h"
#include "config_fixture.h"

namespace gpuplan::config {
namespace {

using namespace testing;

std::string spot_scenario(const std::string& rate) {
  return R"(format: gpuplan/v1
workload: {model: resnet50, dataset: {samples: 1281167, sample_size: "110 KiB", decode_time: "6 ms"}, epochs: 90}
training: {batch_size: 32}
cloud:
  instance: aws/p3.2xlarge
  market: spot
  replacement_wait: "5 min"
)" + rate;
}

}  // namespace

TEST_SUITE("config.spot_scenario") {
  TEST_CASE("preemption_rate: catalog takes the family's rate and start-up, with the source") {
    const Scenario s = parse_scenario(spot_scenario(""), "s.yaml", shipped_catalogs(), builtin_families());
    REQUIRE(s.variants.size() == 1);
    const models::CloudSpec& c = *s.variants[0].job.cloud;
    CHECK(c.preemption_rate_per_s == doctest::Approx(0.31 / 3600.0));
    CHECK(c.startup_s == 300.0);
    CHECK(c.preemption_rate_source.find("0.31 /h per node, aws/p3") == 0);
  }

  TEST_CASE("without simulation.trials: 200 Monte Carlo trials on spot, one on-demand, as written otherwise") {
    const Scenario spot = parse_text(spot_scenario(""));
    CHECK(spot.variants[0].job.trials == 200);
    std::string on_demand = spot_scenario("");
    on_demand.replace(on_demand.find("market: spot"), 12, "market: on_demand");
    CHECK(parse_text(on_demand).variants[0].job.trials == 1);
    CHECK(parse_text(spot_scenario("simulation: {trials: 7}\n")).variants[0].job.trials == 7);
  }

  TEST_CASE("a written rate is used as written") {
    const Scenario s = parse_scenario(spot_scenario("  preemption_rate: \"0.05 /h\"\n"), "s.yaml",
                                      shipped_catalogs(), builtin_families());
    CHECK(s.variants[0].job.cloud->preemption_rate_per_s == doctest::Approx(0.05 / 3600.0));
    CHECK(s.variants[0].job.cloud->preemption_rate_source == "0.05 /h per node, from the scenario");
  }

  TEST_CASE("a trace is read into the job; a malformed one is an error at the key") {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gpuplan_spot_scenario_test";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "ok.json") << R"({"metadata": {"gap_seconds": 600}, "data": [1, 1, 0, 1]})";
    std::ofstream(dir / "bad.json") << R"({"data": [1, 1, 0, 1]})";
    const Scenario s = parse_scenario(spot_scenario("  preemption_rate: {trace: ok.json}\n"),
                                      (dir / "s.yaml").string(), shipped_catalogs(), builtin_families());
    REQUIRE(s.variants[0].job.cloud->trace);
    CHECK(s.variants[0].job.cloud->trace->alive.size() == 4);
    CHECK(s.variants[0].job.cloud->trace->gap_s == 600.0);
    try {
      parse_scenario(spot_scenario("  preemption_rate: {trace: bad.json}\n"), (dir / "s.yaml").string(),
                     shipped_catalogs(), builtin_families());
      FAIL("expected a ConfigError");
    } catch (const ConfigError& e) {
      REQUIRE(e.messages().size() == 1);
      CHECK(e.messages()[0].find("missing metadata.gap_seconds") != std::string::npos);
      CHECK(e.messages()[0].find("s.yaml:8:") != std::string::npos);
      CHECK(e.messages()[0].find("(cloud.preemption_rate.trace)") != std::string::npos);
    }
    std::filesystem::remove_all(dir);
  }

  TEST_CASE("a rate whose mean time between preemptions is shorter than a checkpoint write is refused") {
    // ResNet-50's checkpoint, 0.204 GB, at p3.2xlarge's 0.131 GB/s: 1.56 s a write. At 1e6 /h a
    // node is preempted every 3.6 ms, and interval auto (Young/Daly) would be far below the
    // write, which a written interval is refused for. 3600 s / 1.56 s = 2300 /h (3 digits, down).
    const std::string auto_interval = "checkpointing: {interval: auto}\n";
    CHECK(scenario_errors(spot_scenario("  preemption_rate: \"1e6 /h\"\n" + auto_interval)) ==
          Messages{"a preemption rate of 1e+06 /h per node leaves 0.0036 s between preemptions of 1 node(s) on "
                   "average, less than one checkpoint write (0.204 GB at 0.131 GB/s: 1.56 s), so no checkpoint would "
                   "finish at s.yaml:8:20 (cloud.preemption_rate); lower cloud.preemption_rate to at most 2300 /h per "
                   "node, such as \"0.1 /h\""});
    // The same with a written interval; the fix's rates are accepted.
    CHECK(scenario_errors(spot_scenario("  preemption_rate: \"1e6 /h\"\ncheckpointing: {interval: \"30 min\"}\n"))
              .size() == 1);
    CHECK_NOTHROW(parse_text(spot_scenario("  preemption_rate: \"2300 /h\"\n" + auto_interval)));
    CHECK_NOTHROW(parse_text(spot_scenario("  preemption_rate: \"0.1 /h\"\n" + auto_interval)));
    // Without checkpoints there is no write to finish: the simulation reports what such a rate does.
    CHECK_NOTHROW(parse_text(spot_scenario("  preemption_rate: \"1e6 /h\"\n")));
  }

  TEST_CASE("preemption_rate: Catalog is told to write catalog") {
    CHECK(scenario_errors(spot_scenario("  preemption_rate: Catalog\n")) ==
          Messages{"expected catalog, a rate such as \"0.05 /h\" or {trace: path}, found 'Catalog' at s.yaml:8:20 "
                   "(cloud.preemption_rate); write catalog (in lower case)"});
    CHECK_NOTHROW(parse_text(spot_scenario("  preemption_rate: catalog\n")));
  }

  TEST_CASE("replacement_wait: -1 is told a duration of zero or more, not \"-1 s\"") {
    std::string text = spot_scenario("");
    text.replace(text.find("\"5 min\""), 7, "-1");
    CHECK(scenario_errors(text) ==
          Messages{"a bare number is not a duration: found '-1' at s.yaml:7:21 (cloud.replacement_wait); write a "
                   "duration of zero or more, with its unit, e.g. \"10 min\" (how long a preempted node takes to "
                   "come back)"});
    text.replace(text.find("-1"), 2, "\"10 min\"");
    CHECK_NOTHROW(parse_text(text));
  }
}

}  // namespace gpuplan::config

// Checks of the cloud-economics code against real data: SkyPilot spot traces replayed, the
// preemption catalog, and ResNet-50 on 8x H100 priced from the shipped AWS catalog.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "config/catalogs.h"
#include "config/config_error.h"
#include "config/preemption_catalog.h"
#include "config/spot_trace.h"
#include "models/cost/cost.h"
#include "models/job/job_time.h"
#include "models/job/spot_job.h"
#include "config_fixture.h"

using namespace gpuplan;
using gpuplan::config::testing::error_of;

namespace {
const config::Catalogs& shipped() {
  static const config::Catalogs c = config::Catalogs::load(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs");
  return c;
}
std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_SUITE("config.spot_reality") {
  TEST_CASE("every SkyPilot spot trace replayed gives as many preemptions as its JSON has drops") {
    const std::filesystem::path dir = std::filesystem::path(GPUPLAN_SHARED_DIR) / "data" / "spot-traces";
    if (!std::filesystem::is_directory(dir)) {
      MESSAGE("no ../shared/data/spot-traces: skipped");
      return;
    }
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".json") continue;
      ++files;
      // Count the drops here, independently of the reader: a probe below the previous one
      // (1 -> 0 on the 1-node traces).
      const auto j = nlohmann::json::parse(slurp(entry.path()));
      const auto& data = j["data"];
      int drops = 0;
      for (std::size_t i = 1; i < data.size(); ++i) drops += data[i].get<int>() < data[i - 1].get<int>() ? 1 : 0;
      const models::AvailabilityTrace trace = config::read_spot_trace(entry.path().string());
      REQUIRE(trace.alive.size() == data.size());
      CHECK(trace.gap_s == j["metadata"]["gap_seconds"].get<double>());
      models::SpotJobParams p;
      p.work_s = 1e12;  // never finishes: the replay covers the whole trace once
      p.nodes = 1;
      p.trace = &trace;
      p.cap_s = trace.gap_s * static_cast<double>(trace.alive.size());
      p.replacement_wait_s = 60.0;
      p.startup_s = 120.0;
      const models::SpotTrial t = models::simulate_spot_trial(p, 0, 0);
      INFO(entry.path().filename().string());
      CHECK(t.preemptions == drops);
      CHECK(models::trace_drops(trace) == drops);
    }
    CHECK(files == 8);
  }

  TEST_CASE("spot trace reader: errors name the file and the fix") {
    CHECK_THROWS_WITH_AS(config::parse_spot_trace(R"({"data": [1]})", "t.json"),
                         doctest::Contains("t.json: missing metadata.gap_seconds"), config::ConfigError);
    CHECK_THROWS_WITH_AS(config::parse_spot_trace(R"({"metadata": {"gap_seconds": 60}, "data": [1, -1]})", "t.json"),
                         doctest::Contains("data[1] is not a count of instances from 0 to 1,000,000, found -1"),
                         config::ConfigError);
    CHECK_THROWS_AS(config::parse_spot_trace("{", "t.json"), config::ConfigError);
    const std::string fix =
        "; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}";
    // A probe every millisecond made run replay millions of preemptions: refused at the key.
    CHECK(error_of([] { config::parse_spot_trace(R"({"metadata": {"gap_seconds": 0.001}, "data": [1, 0]})", "t.json"); }) ==
          "t.json: metadata.gap_seconds must be from 1 to 10,000,000 (seconds between probes), found 0.001" + fix);
    // A count outside double range: an input error at its position, not nlohmann's out_of_range.
    CHECK(error_of([] { config::parse_spot_trace("{\"metadata\": {\"gap_seconds\": 600},\n \"data\": [1, 1e400]}", "t.json"); }) ==
          "number '1e400' outside the range of a double (about 1.8e308) at t.json:2:14" + fix);
    CHECK(error_of([] { config::parse_spot_trace(R"({"metadata": {"gap_seconds": 600}, "data": [1, 10000000000]})", "t.json"); }) ==
          "t.json: data[1] is not a count of instances from 0 to 1,000,000, found 10000000000" + fix);
  }

  TEST_CASE("preemption catalog: family rate, provider default, none for Lambda; strict errors") {
    const config::PreemptionCatalog& c = shipped().preemption;
    const auto p3 = c.find("aws", "p3.2xlarge");
    REQUIRE(p3);
    CHECK(p3->rate_per_s == doctest::Approx(0.31 / 3600.0));
    CHECK(p3->source.find("aws/p3 (catalogs/preemption.yaml)") == 0);
    const auto p4d = c.find("aws", "p4d.24xlarge");
    REQUIRE(p4d);
    CHECK(p4d->rate_per_s == doctest::Approx(0.13 / 3600.0));
    CHECK(p4d->startup_s == 300.0);
    CHECK(c.find("gcp", "a2-highgpu-8g"));
    CHECK_FALSE(c.find("lambda", "gpu_8x_h100_sxm5"));
    CHECK(config::PreemptionCatalog::family_of("a2-highgpu-8g") == "a2");
    CHECK_THROWS_WITH_AS(config::PreemptionCatalog::parse("format: gpuplan/v1\nproviders:\n  aws: {rate: fast}\n", "p.yaml"),
                         doctest::Contains("p.yaml:3"), config::ConfigError);
  }

  TEST_CASE("90 epochs of ResNet-50 at a pinned 20,728 images/s on 8x H100 SXM: 1.55 h, $152 on p5.48xlarge (2 %)") {
    // published-measurements / issue 5: 20,728 images/s measured; p5.48xlarge $98.32/h on demand
    // in the shipped AWS catalog (SkyPilot v7 excerpt).
    const models::InstanceSpec* p5 = shipped().instances.find("aws/p5.48xlarge", "us-east-1");
    REQUIRE(p5 != nullptr);
    CHECK(p5->price_usd_per_s * 3600.0 == doctest::Approx(98.32));
    models::JobSpec job;
    job.dataset.samples = 1281167;
    job.duration.epochs = 90;
    job.training.batch_size = 256;
    job.hardware.gpus_per_node = 8;
    job.workload.parameters = 25.557e6;
    const double step_s = models::step_time_for_throughput(job, 20728.0);
    const models::JobTimes t = models::job_times(job, step_s, 0.0);
    CHECK(t.time_to_train_s / 3600.0 == doctest::Approx(1.55).epsilon(0.02));
    CHECK(models::on_demand_cost_usd(*p5, 1, t.time_to_train_s) == doctest::Approx(152.0).epsilon(0.02));
  }
}

// gpuplan run --trace FILE: the Chrome trace of the shipped RTX 3090 scenario loads as JSON and
// the events of one batch appear in pipeline order (storage, worker, pin_memory, H2D, GPU).

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <string>
#include <unistd.h>

#include "../cli/run_command.h"

using namespace gpuplan;

TEST_SUITE("practitioner") {
  TEST_CASE("gpuplan run --trace writes Chrome trace JSON with one batch in pipeline order") {
    const std::string path = "/tmp/gpuplan_trace_test_" + std::to_string(::getpid()) + ".json";
    const auto r = testing::run_gpuplan("run " + std::string(GPUPLAN_SOURCE_DIR) +
                                        "/scenarios/resnet50-imagenet-rtx3090.yaml --format csv --trace " + path);
    CAPTURE(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json doc = nlohmann::json::parse(testing::slurp(path));
    std::remove(path.c_str());
    REQUIRE(doc["traceEvents"].is_array());
    // The pin_memory variant (process 3): batch 1 is read and decoded by worker 1 (both on its
    // track), pinned, copied.
    int pid = 0;
    for (const auto& e : doc["traceEvents"]) {
      if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == "pin_memory") pid = e["pid"];
    }
    REQUIRE(pid > 0);
    std::map<std::string, std::string> track;  // tid -> name
    for (const auto& e : doc["traceEvents"]) {
      if (e["pid"] == pid && e["ph"] == "M" && e["name"] == "thread_name") {
        track[std::to_string(e["tid"].get<int>())] = e["args"]["name"];
      }
    }
    auto span = [&](const std::string& name, const std::string& label) {
      for (const auto& e : doc["traceEvents"]) {
        if (e["pid"] == pid && e["ph"] == "X" && e["name"] == label &&
            track[std::to_string(e["tid"].get<int>())] == name) {
          return std::make_pair(e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
        }
      }
      return std::make_pair(-1.0, -1.0);
    };
    const auto read = span("worker 1", "batch 1 read");
    const auto decode = span("worker 1", "batch 1");
    const auto pin = span("pin_memory", "batch 1");
    const auto h2d = span("h2d", "batch 1 H2D");
    REQUIRE(read.first >= 0.0);
    REQUIRE(decode.first >= 0.0);
    REQUIRE(pin.first >= 0.0);
    REQUIRE(h2d.first >= 0.0);
    CHECK(read.second <= decode.first);
    CHECK(decode.second <= pin.first);
    CHECK(pin.second <= h2d.first);
    bool kernel_after = false;
    for (const auto& e : doc["traceEvents"]) {
      if (e["pid"] == pid && e["ph"] == "X" && track[std::to_string(e["tid"].get<int>())] == "gpu" &&
          e["ts"].get<double>() >= h2d.second) {
        kernel_after = true;
      }
    }
    CHECK(kernel_after);
  }
}

// Chrome trace event JSON of the simulated timeline (report/trace_json.h): the JSON Object
// Format of the Trace Event Format (traceEvents array; complete events "ph": "X" with
// microsecond ts and dur; "M" metadata naming processes and threads).

#include "report/trace_json.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

using namespace gpuplan;

TEST_SUITE("report.trace_json") {
  TEST_CASE("complete events in microseconds, one thread per track in pipeline order") {
    report::TraceProcess p;
    p.name = "baseline";
    p.spans = {{"gpu", "fwd", 0.004, 0.009},
               {"worker 10", "batch 1", 0.0, 0.002},
               {"h2d", "batch 0 H2D", 0.003, 0.004},
               {"storage", "batch 0", 0.0, 0.001},
               {"worker 2", "batch 0", 0.001, 0.0025},
               {"pin_memory", "batch 0", 0.0025, 0.003}};
    const std::string text = report::render_chrome_trace({p});
    CHECK(text == report::render_chrome_trace({p}));  // deterministic
    const nlohmann::json doc = nlohmann::json::parse(text);
    REQUIRE(doc.contains("traceEvents"));
    REQUIRE(doc["traceEvents"].is_array());
    CHECK(doc["displayTimeUnit"] == "ms");
    std::map<std::string, int> tid;
    int complete = 0;
    for (const auto& e : doc["traceEvents"]) {
      REQUIRE(e.contains("ph"));
      REQUIRE(e.contains("pid"));
      REQUIRE(e.contains("tid"));
      REQUIRE(e.contains("name"));
      if (e["ph"] == "M" && e["name"] == "thread_name") tid[e["args"]["name"]] = e["tid"];
      if (e["ph"] == "X") {
        ++complete;
        CHECK(e["ts"].is_number());
        CHECK(e["dur"].get<double>() >= 0.0);
      }
      if (e["ph"] == "M" && e["name"] == "process_name") CHECK(e["args"]["name"] == "baseline");
    }
    CHECK(complete == 6);
    // storage, workers by number, pin_memory, h2d, gpu.
    CHECK(tid["storage"] == 1);
    CHECK(tid["worker 2"] == 2);
    CHECK(tid["worker 10"] == 3);
    CHECK(tid["pin_memory"] == 4);
    CHECK(tid["h2d"] == 5);
    CHECK(tid["gpu"] == 6);
    // 4 ms -> 4000 us; 5 ms long -> 5000 us.
    for (const auto& e : doc["traceEvents"]) {
      if (e["ph"] == "X" && e["name"] == "fwd") {
        CHECK(e["ts"].get<double>() == doctest::Approx(4000.0));
        CHECK(e["dur"].get<double>() == doctest::Approx(5000.0));
      }
    }
  }
}

// `gpuplan run --trace FILE --trace-steps FROM:TO` (issue 10 item 3): the Chrome/Perfetto
// trace covers any window of optimizer steps, shows every loader worker at work in it, and
// bad windows are input errors with the whole message.

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "run_command.h"

using gpuplan::testing::run_gpuplan;
using gpuplan::testing::slurp;

namespace {

const std::string kScenario = std::string(GPUPLAN_SOURCE_DIR) + "/scenarios/dle-resnet50-a100.yaml";

std::string temp_path(const std::string& name) {
  return "/tmp/gpuplan_trace_test_" + std::to_string(::getpid()) + "_" + name;
}

/// Per process (variant) name: the tracks with at least one span, and the GPU spans' first
/// start and last end, microseconds.
struct Traced {
  std::set<std::string> tracks;
  double gpu_first_us = 1e300;
  double gpu_last_us = 0.0;
  int gpu_spans = 0;
};

std::map<std::string, Traced> read_trace(const std::string& path) {
  const nlohmann::json doc = nlohmann::json::parse(slurp(path));
  std::map<int, std::string> process;
  std::map<std::pair<int, int>, std::string> thread;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "M") continue;
    if (e["name"] == "process_name") process[e["pid"].get<int>()] = e["args"]["name"].get<std::string>();
    if (e["name"] == "thread_name") {
      thread[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"].get<std::string>();
    }
  }
  std::map<std::string, Traced> out;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const int pid = e["pid"].get<int>();
    const std::string track = thread[{pid, e["tid"].get<int>()}];
    Traced& t = out[process[pid]];
    t.tracks.insert(track);
    if (track == "gpu") {
      ++t.gpu_spans;
      t.gpu_first_us = std::min(t.gpu_first_us, e["ts"].get<double>());
      t.gpu_last_us = std::max(t.gpu_last_us, e["ts"].get<double>() + e["dur"].get<double>());
    }
  }
  return out;
}

}  // namespace

TEST_SUITE("cli.trace_steps") {
  TEST_CASE("a later window of steps: every worker is in it, and it starts after the first steps") {
    const std::string early = temp_path("early.json");
    const std::string late = temp_path("late.json");
    // The old form: --trace alone records steps 0:3.
    REQUIRE(run_gpuplan("run " + kScenario + " --trace " + early).exit_code == 0);
    // Steps 100 to 105: more than one loader cycle (5 workers, batch i from worker i mod 5),
    // so each of the 5 workers reads or decodes in it.
    REQUIRE(run_gpuplan("run " + kScenario + " --trace " + late + " --trace-steps 100:106").exit_code == 0);
    const auto first = read_trace(early);
    const auto later = read_trace(late);
    REQUIRE(later.size() == 4);  // the scenario's four strategies
    for (const auto& entry : later) {
      const auto& name = entry.first;  // not a binding: CAPTURE cannot capture one under clang 14
      const auto& t = entry.second;
      CAPTURE(name);
      for (int w = 0; w < 5; ++w) CHECK(t.tracks.count("worker " + std::to_string(w)) == 1);
      CHECK(t.tracks.count("gpu") == 1);
      CHECK(t.tracks.count("h2d") == 1);
      // Step 100 starts after step 3 has ended: the windows do not overlap.
      CHECK(t.gpu_first_us > first.at(name).gpu_last_us);
      // Every step runs the same kernels, and the host syncs on the loss between steps: six
      // steps hold twice the kernels of three.
      CHECK(t.gpu_spans == 2 * first.at(name).gpu_spans);
    }
    std::filesystem::remove(early);
    std::filesystem::remove(late);
  }

  TEST_CASE("a bad window or a window without --trace: exit 2, the whole message, no file") {
    const std::string out = temp_path("bad.json");
    const std::string syntax =
        "': expected FROM:TO, whole optimizer steps counted from 0 with FROM < TO (e.g. 100:103 traces steps 100, "
        "101 and 102) (see gpuplan --help)\n";
    for (const char* window : {"5", "5:5", "7:3", "a:7", "-1:2", "1:2:3"}) {
      CAPTURE(window);
      const auto r = run_gpuplan("run " + kScenario + " --trace " + out + " --trace-steps " + window);
      CHECK(r.exit_code == 2);
      CHECK(r.err == "gpuplan: --trace-steps '" + std::string(window) + syntax);
      CHECK_FALSE(std::filesystem::exists(out));
    }
    const auto r = run_gpuplan("run " + kScenario + " --trace-steps 1:2");
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "gpuplan: --trace-steps needs --trace FILE, the file to write the timeline to (see gpuplan --help)\n");
  }

  TEST_CASE("the trace's cost is bounded: TO <= 10000 and at most 1000 steps, else exit 2 and no file") {
    const std::string out = temp_path("big.json");
    auto r = run_gpuplan("run " + kScenario + " --trace " + out + " --trace-steps 9500:10001");
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "gpuplan: --trace-steps '9500:10001': TO is at most 10000 (every step before TO is simulated with its "
          "timeline kept); trace steps before 10000 (see gpuplan --help)\n");
    r = run_gpuplan("run " + kScenario + " --trace " + out + " --trace-steps 0:100000");
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "gpuplan: --trace-steps '0:100000': TO is at most 10000 (every step before TO is simulated with its "
          "timeline kept); trace steps before 10000 (see gpuplan --help)\n");
    r = run_gpuplan("run " + kScenario + " --trace " + out + " --trace-steps 10:1011");
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "gpuplan: --trace-steps '10:1011' traces 1001 steps, more than the 1000 one trace holds; trace at most "
          "1000 steps, e.g. 10:1010 (see gpuplan --help)\n");
    CHECK_FALSE(std::filesystem::exists(out));
  }

  TEST_CASE("a window past the job's last step is refused with the job's step count; the default is clipped") {
    // GPT-2 on one H100, 1,048,576 tokens of 1,024-token samples, batch 8: 1048576 / (8 x 1024)
    // = 128 optimizer steps, 0 to 127.
    const std::string scenario = temp_path("small.yaml");
    const std::string out = temp_path("small.json");
    std::ofstream(scenario) << ("format: gpuplan/v1\nname: small\n"
                                 "workload: {model: gpt2, sequence_length: 1024, tokens: 1048576, "
                                 "dataset: {synthetic: true}}\n"
                                 "training: {batch_size: 8, precision: bf16_amp, optimizer: adamw}\n"
                                 "hardware: {gpu: h100-sxm}\n");
    auto r = run_gpuplan("run " + scenario + " --trace " + out + " --trace-steps 100:200");
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "gpuplan: --trace-steps '100:200': the job of baseline has 128 optimizer steps (0 to 127); trace steps "
          "inside it, e.g. 28:128 (see gpuplan --help)\n");
    CHECK_FALSE(std::filesystem::exists(out));
    // The last steps of the job are traced: their GPU spans end by the job's 10.25 s (128 steps
    // of 80.1 ms), the last three begin after 125 of them (10.01 s).
    r = run_gpuplan("run " + scenario + " --trace " + out + " --trace-steps 125:128");
    REQUIRE(r.exit_code == 0);
    const auto traced = read_trace(out);
    REQUIRE(traced.size() == 1);
    CHECK(traced.begin()->second.gpu_last_us < 10.26e6);
    CHECK(traced.begin()->second.gpu_first_us > 9.9e6);
    std::filesystem::remove(out);
    std::filesystem::remove(scenario);
  }
}

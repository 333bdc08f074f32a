// Calibration profiles and probe files in config/: the fixture probe fitted back to its
// known lines, the profile round trip, a scenario naming a profile, and every error a user
// can meet, asserted whole (STYLE.md T4). Fixtures: tests/fixtures/calibration/ (written by
// its make_fixtures.py; the constants below are its LINES).

#include "config/calibration_profile.h"
#include "config_fixture.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/probe_results.h"
#include "config/scenario_loader.h"
#include "models/calibration/calibration_fit.h"
#include "models/run/run_variant.h"
#include "models/workload/workload_family.h"

namespace gpuplan::config {
namespace {

using namespace testing;


const std::string kFixtures = std::string(GPUPLAN_SOURCE_DIR) + "/tests/fixtures/calibration";
const std::string kProfile = kFixtures + "/profiles/a100-80gb-2026-01-01.json";

/// A temporary folder of files, removed at the end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("gpuplan-calibration-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

Messages errors_of_profile(const std::string& text, const std::string& file = "p.json") {
  try {
    parse_calibration_profile(text, file);
  } catch (const ConfigError& e) {
    return e.messages();
  }
  FAIL("the profile was accepted");
  return {};
}

// A scenario whose hardware.gpu is `gpu_yaml`; written into `dir` as s.yaml when given.
std::string scenario_text(const std::string& gpu_yaml) {
  return R"(format: gpuplan/v1
name: ResNet-50 on a calibrated A100
workload:
  model: resnet50
  dataset:
    samples: 1281167
    sample_size: "110 KiB"
    decode_time: "2 ms"
  epochs: 90
training:
  batch_size: 256
  precision: fp16_amp
  memory_format: channels_last
data_loader:
  num_workers: 5
  pin_memory: true
hardware:
  gpu: )" + gpu_yaml + R"(
  cpu_cores: 16
  host_memory: "1 TiB"
  storage: nvme_ssd
)";
}

Messages errors_of_scenario(const std::string& text, const std::string& file) {
  try {
    parse_scenario(text, file, shipped_catalogs(), builtin_families());
  } catch (const ConfigError& e) {
    return e.messages();
  }
  FAIL("the scenario was accepted");
  return {};
}

}  // namespace

TEST_SUITE("config.calibration_profile") {
  TEST_CASE("the fixture probe file fits back to its known lines within 1 %") {
    const models::ProbeResults probe = load_probe_results(kFixtures + "/probe-a100-2gpu.json");
    CHECK(probe.provenance.gpu_name == "NVIDIA A100-SXM4-80GB");
    CHECK(probe.provenance.gpu_count == 2);
    CHECK(probe.gemm.size() == 4);
    CHECK(probe.h2d_pinned.size() == 10);  // 4 KiB .. 1 GiB by x4
    const models::CalibrationProfile p = models::fit_calibration(probe, "a100-80gb", "fixture");
    const auto near = [](double fitted, double known) { return doctest::Approx(known).epsilon(0.01) == fitted; };
    const models::GpuCalibration& c = p.rates;
    // make_fixtures.py LINES: (fixed_s, rate_per_s)
    CHECK(near(c.gemm_fp32->rate_per_s, 18.5e12));
    CHECK(near(c.gemm_fp32->fixed_s, 8e-6));
    CHECK(near(c.gemm_tf32->rate_per_s, 140e12));
    CHECK(near(c.gemm_tf32->fixed_s, 12e-6));
    CHECK(near(c.gemm_fp16->rate_per_s, 275e12));
    CHECK(near(c.gemm_fp16->half_size(), 15e-6 * 275e12));  // n_1/2 = 4.125e9 FLOP
    CHECK(near(c.gemm_bf16->rate_per_s, 270e12));
    CHECK_FALSE(c.gemm_fp8);
    CHECK(near(c.memory->rate_per_s, 1.75e12));
    CHECK(near(c.memory->fixed_s, 4e-6));
    CHECK(near(c.h2d_pinned->rate_per_s, 24.5e9));
    CHECK(near(c.h2d_pinned->fixed_s, 8e-6));
    CHECK(near(c.h2d_pageable->rate_per_s, 11e9));
    CHECK(near(c.h2d_pageable->fixed_s, 15e-6));
    CHECK(near(c.d2h_pinned->rate_per_s, 25.5e9));
    CHECK(near(c.d2h_pageable->rate_per_s, 9e9));
    CHECK(near(c.d2h_pageable->fixed_s, 20e-6));
    CHECK(c.launch_latency_s == 2.5e-6);
    CHECK(c.small_kernel_dispatch_s == 3.0e-6);
    REQUIRE(c.p2p.size() == 2);
    CHECK(near(c.p2p[0].line.rate_per_s, 250e9));
    CHECK(near(c.p2p[1].line.rate_per_s, 240e9));
    REQUIRE(c.all_reduce);
    CHECK(near(c.all_reduce->algbw.rate_per_s, 150e9));
    CHECK(near(c.all_reduce->algbw.fixed_s, 30e-6));
    CHECK(near(c.all_reduce->busbw_bytes_per_s, 150e9));  // x 2 (2 - 1) / 2 = x 1
  }

  TEST_CASE("a profile survives writing and reading") {
    const models::ProbeResults probe = load_probe_results(kFixtures + "/probe-a100-2gpu.json");
    const models::CalibrationProfile p = models::fit_calibration(probe, "a100-80gb", "x");
    const std::string text = calibration_profile_to_json(p);
    const models::CalibrationProfile q = parse_calibration_profile(text, "round.json");
    CHECK(q.gpu == "a100-80gb");
    CHECK(q.provenance.gpu_name == p.provenance.gpu_name);
    CHECK(q.provenance.driver_version == "550.54.15");
    CHECK(q.provenance.date == "2026-01-01T00:00:00Z");
    CHECK(q.provenance.repeats == 10);
    CHECK(q.rates.gemm_fp16->rate_per_s == p.rates.gemm_fp16->rate_per_s);
    CHECK(q.rates.gemm_fp16->fixed_s == p.rates.gemm_fp16->fixed_s);
    CHECK(q.rates.memory->rate_per_s == p.rates.memory->rate_per_s);
    CHECK(q.rates.h2d_pageable->fixed_s == p.rates.h2d_pageable->fixed_s);
    CHECK(q.rates.d2h_pinned->rate_per_s == p.rates.d2h_pinned->rate_per_s);
    CHECK(q.rates.launch_latency_s == p.rates.launch_latency_s);
    CHECK(q.rates.p2p.size() == 2);
    CHECK(q.rates.all_reduce->busbw_bytes_per_s == p.rates.all_reduce->busbw_bytes_per_s);
    CHECK(q.fits.size() == p.fits.size());
    CHECK(q.rates.profile == "round.json (measured 2026-01-01T00:00:00Z)");
    // writing what was read gives the same bytes
    CHECK(calibration_profile_to_json(q) == text);
  }

  TEST_CASE("a scenario naming a profile gets the catalog GPU with measured rates, and runs calibrated") {
    // resnet50-a100-profile.yaml is tests/validation/V002 with hardware.gpu: {profile: ...}.
    const Scenario s = load_scenario(kFixtures + "/resnet50-a100-profile.yaml", shipped_catalogs(), builtin_families());
    REQUIRE(s.variants.size() == 1);
    const models::GpuSpec& gpu = s.variants.front().job.hardware.gpu;
    CHECK(gpu.name == "a100-80gb");
    CHECK(gpu.memory_bytes == shipped_catalogs().gpus.find("a100-80gb")->memory_bytes);  // datasheet facts stay
    CHECK(gpu.calibrated);
    REQUIRE(gpu.calibration);
    CHECK(gpu.calibration->gemm_fp16->rate_per_s == 275e12);
    CHECK(gpu.calibration->profile == kProfile + " (measured 2026-01-01T00:00:00Z)");
    const models::VariantRun run = models::run_variant(s.variants.front().job, "baseline", models::ModelParams{});
    CHECK(run.result.calibrated);
    CHECK(run.result.throughput_samples_per_s > 0.0);

    const Scenario plain = load_scenario(std::string(GPUPLAN_SOURCE_DIR) + "/tests/validation/V002-resnet50-a100-amp.yaml",
                                         shipped_catalogs(), builtin_families());
    const models::VariantRun uncalibrated =
        models::run_variant(plain.variants.front().job, "baseline", models::ModelParams{});
    CHECK_FALSE(uncalibrated.result.calibrated);
    // different rates, different prediction
    CHECK(uncalibrated.result.throughput_samples_per_s != run.result.throughput_samples_per_s);
  }

  TEST_CASE("a missing profile file is reported at the scenario key, with the resolved path") {
    const std::string file = kFixtures + "/s.yaml";
    CHECK(errors_of_scenario(scenario_text("{profile: profiles/none.json}"), file) ==
          Messages{"cannot read calibration profile '" + kFixtures +
                   "/profiles/none.json': No such file or directory at " + file +
                   ":18:18 (hardware.gpu.profile); paths are relative to the scenario's folder; write a profile "
                   "with gpuplan calibrate"});
  }

  TEST_CASE("a malformed profile: its own error with line:column, and the scenario key that names it") {
    TempDir dir;
    dir.write("bad.json", "{\n  \"format\": \"gpuplan-calibration/v1\",\n  \"gpu\": \"a100-80gb\"\n  \"x\": 1\n}\n");
    const std::string file = (dir.path / "s.yaml").string();
    const std::string bad = (dir.path / "bad.json").string();
    // The loader lists messages by file and position; line:column is the end of the token
    // where nlohmann_json noticed the problem.
    CHECK(errors_of_scenario(scenario_text("{profile: bad.json}"), file) ==
          Messages{"malformed JSON: syntax error while parsing object - unexpected string literal; expected '}' at " +
                       bad + ":4:5; write the profile again with gpuplan calibrate",
                   "invalid calibration profile '" + bad + "' at " + file +
                       ":18:18 (hardware.gpu.profile); fix the errors reported in it, or write it again with "
                       "gpuplan calibrate"});
  }

  TEST_CASE("a profile of a GPU the catalog lacks is reported at the scenario key with a suggestion") {
    TempDir dir;
    std::string text = std::string(std::istreambuf_iterator<char>(*std::make_unique<std::ifstream>(kProfile)), {});
    text.replace(text.find("\"gpu\": \"a100-80gb\""), 18, "\"gpu\": \"a100-80g\"");
    const std::string profile = dir.write("p.json", text);
    const std::string file = (dir.path / "s.yaml").string();
    CHECK(errors_of_scenario(scenario_text("{profile: p.json}"), file) ==
          Messages{"calibration profile '" + profile + "' names gpu 'a100-80g', which the GPU catalog lacks at " +
                   file + ":18:18 (hardware.gpu.profile); did you mean a100-80gb or a100-80gb-pcie?"});
  }

  TEST_CASE("a profile naming an AMD GPU is refused: no probe measures one") {
    TempDir dir;
    std::string text = std::string(std::istreambuf_iterator<char>(*std::make_unique<std::ifstream>(kProfile)), {});
    text.replace(text.find("\"gpu\": \"a100-80gb\""), 18, "\"gpu\": \"mi300x\"");
    const std::string profile = dir.write("p.json", text);
    const std::string file = (dir.path / "s.yaml").string();
    CHECK(errors_of_scenario(scenario_text("{profile: p.json}"), file) ==
          Messages{"calibration profile '" + profile + "' names gpu 'mi300x': mi300x is an AMD GPU (gfx942 (CDNA 3)) at " +
                   file + ":18:18 (hardware.gpu.profile); cuda_probe measures CUDA GPUs only and gpuplan has no ROCm "
                   "probe, so no calibration profile can describe it: use mi300x without a profile (its predictions "
                   "are prediction-only)"});
  }

  TEST_CASE("a profile of another GPU than the cloud instance's is a contradiction at hardware.gpu") {
    const std::string file = kFixtures + "/s.yaml";
    std::string text = scenario_text("{profile: profiles/a100-80gb-2026-01-01.json}");
    text += "cloud:\n  instance: aws/p3.2xlarge\n";
    const Messages m = errors_of_scenario(text, file);
    REQUIRE(!m.empty());
    CHECK(m.front() ==
          "gpu (a profile of a100-80gb) contradicts cloud.instance aws/p3.2xlarge, which has 1 x v100-16gb at " +
              file + ":18:8 (hardware.gpu); use a profile measured on v100-16gb or choose an instance with a100-80gb");
  }

  TEST_CASE("profile content errors name the file and the key path, all at once") {
    const Messages m = errors_of_profile(R"({
  "format": "gpuplan-calibration/v2",
  "provenance": {"gpu_name": "NVIDIA A100-SXM4-80GB"},
  "gemm": {"fp16": {"fixed_s": -1, "rate_flop_per_s": "fast"}, "fp64": {}},
  "memroy": {}
})");
    CHECK(m == Messages{
                   "unsupported calibration profile format 'gpuplan-calibration/v2', expected "
                   "'gpuplan-calibration/v1' at p.json (format); write the profile again with gpuplan calibrate",
                   "missing key 'gpu' at p.json (gpu); add \"gpu\": a string",
                   "missing key 'date' at p.json (provenance.date); add \"date\": a string",
                   "expected a number of zero or more, found -1 at p.json (gemm.fp16.fixed_s)",
                   "expected a number, found a string at p.json (gemm.fp16.rate_flop_per_s)",
                   "unknown key 'fp64' at p.json (gemm.fp64); did you mean fp32, fp16 or fp8?",
                   "unknown key 'memroy' at p.json (memroy); did you mean memory?",
               });
  }

  TEST_CASE("a probe file with a one-size series cannot be fitted") {
    try {
      parse_probe_results(R"({"format": "gpuplan-probe/v1",
        "provenance": {"gpu_name": "X", "date": "2026-01-01T00:00:00Z"},
        "h2d_pinned": [{"bytes": 4096, "median_s": 1e-5}]})",
                          "probe.json");
      FAIL("accepted");
    } catch (const ConfigError& e) {
      CHECK(e.messages() == Messages{"needs at least two distinct sizes to fit a line, found 1 at probe.json "
                                     "(h2d_pinned)"});
    }
  }

  TEST_CASE("profiles in a folder: found, and the newest one per GPU chosen") {
    const std::vector<ProfileFile> found = find_calibration_profiles(kFixtures + "/profiles");
    REQUIRE(found.size() == 1);
    CHECK(found[0].path == kProfile);
    CHECK(profile_for_gpu(found, "a100-80gb") == &found[0]);
    CHECK(profile_for_gpu(found, "v100-16gb") == nullptr);
    CHECK(find_calibration_profiles(kFixtures + "/no-such-folder").empty());
  }

  TEST_CASE("the shipped folder: the H200 profile, not the raw measurements beside it") {
    // catalogs/calibrations holds h200-2026-12-04.json with .probe.json, .torch-steps.json and
    // .dmon.txt beside it: only the profile is one.
    const std::vector<ProfileFile> found =
        find_calibration_profiles(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs/calibrations");
    REQUIRE(found.size() == 1);
    CHECK(found[0].path.ends_with("/h200-2026-12-04.json"));
    CHECK(found[0].profile.gpu == "h200");
    CHECK(found[0].profile.provenance.date == "2026-12-04T17:42:29Z");
    // The fit of the measured bf16 GEMM series: 799.8 TFLOP/s (gpuplan calibrate's table).
    REQUIRE(found[0].profile.rates.gemm_bf16.has_value());
    CHECK(found[0].profile.rates.gemm_bf16->rate_per_s == doctest::Approx(7.998e14).epsilon(1e-3));
    CHECK(profile_for_gpu(found, "h200") == &found[0]);
  }
}

}  // namespace gpuplan::config

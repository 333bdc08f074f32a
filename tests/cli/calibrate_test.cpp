// `gpuplan calibrate` and `gpuplan validate --calibrations` end to end, without a GPU: the
// probe is either absent, a stand-in script, or replaced by a recorded file (--from).

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "run_command.h"

using gpuplan::testing::run_gpuplan;
using gpuplan::testing::slurp;
using gpuplan::testing::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kSource = GPUPLAN_SOURCE_DIR;
const std::string kFixtures = kSource + "/tests/fixtures/calibration";

/// An executable shell script standing in for cuda_probe.
std::string fake_probe(const TempDir& dir, const std::string& body) {
  const std::string path = dir / "cuda_probe";
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ::chmod(path.c_str(), 0755);
  return path;
}

double json_rate(const nlohmann::json& line, const char* unit) {
  return line[std::string("rate_") + unit + "_per_s"].get<double>();
}

}  // namespace

TEST_SUITE("cli.calibrate") {
  TEST_CASE("without a GPU the probe's exit 3 becomes a clear input error, exit 2") {
    TempDir dir("nogpu");
    const std::string probe = fake_probe(
        dir, "echo 'cuda_probe: no CUDA GPU found (cudaGetDeviceCount: no CUDA-capable device is detected)' >&2\n"
             "exit 3\n");
    const auto r = run_gpuplan("calibrate --probe " + probe + " -o " + (dir / "p.json"));
    CHECK(r.exit_code == 2);
    CHECK(r.err == "gpuplan: 1 error:\n  no NVIDIA GPU found: " + probe +
                       " says \"cuda_probe: no CUDA GPU found (cudaGetDeviceCount: no CUDA-capable device is "
                       "detected)\"; run gpuplan calibrate on a machine with a CUDA GPU, or fit a probe file "
                       "recorded there with --from FILE\n");
    CHECK_FALSE(fs::exists(dir / "p.json"));
  }

  TEST_CASE("the real probe on this machine, when it has no GPU: exit 2, no profile") {
    if (fs::exists("/dev/nvidia0")) {
      MESSAGE("skipped: this machine has an NVIDIA device");
      return;
    }
    TempDir dir("real");
    const auto r = run_gpuplan("calibrate -o " + (dir / "p.json"));
    CHECK(r.exit_code == 2);
    // Built where nvcc is (CI, these machines): the probe runs and finds no GPU; elsewhere it
    // is not built and calibrate says so.
    const bool no_gpu = r.err.find("no NVIDIA GPU found: ") != std::string::npos;
    const bool no_probe = r.err.find("cuda_probe not found") != std::string::npos;
    CHECK_MESSAGE((no_gpu || no_probe), r.err);
    CHECK_FALSE(fs::exists(dir / "p.json"));
  }

  TEST_CASE("a failing probe's other exit codes are reported with its message") {
    TempDir dir("fail");
    const std::string probe = fake_probe(dir, "echo 'cuda_probe: cudaMalloc failed' >&2\nexit 1\n");
    const auto r = run_gpuplan("calibrate --probe " + probe + " -o " + (dir / "p.json"));
    CHECK(r.exit_code == 2);
    CHECK(r.err == "gpuplan: 1 error:\n  cuda_probe failed (exit 1): cuda_probe: cudaMalloc failed\n");
  }

  TEST_CASE("--from fits a recorded probe file and writes the profile") {
    TempDir dir("from");
    const auto r = run_gpuplan("calibrate --from " + kFixtures + "/probe-a100-2gpu.json -o " + (dir / "p.json"));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.out.find("Calibration of a100-80gb (NVIDIA A100-SXM4-80GB, 2026-01-01T00:00:00Z):") == 0);
    CHECK(r.out.find("gemm.fp16") != std::string::npos);
    CHECK(r.out.find("Profile written to " + (dir / "p.json")) != std::string::npos);
    const auto j = nlohmann::json::parse(slurp(dir / "p.json"));
    CHECK(j["format"] == "gpuplan-calibration/v1");
    CHECK(j["gpu"] == "a100-80gb");
    CHECK(j["provenance"]["probe_git_sha"] == "fixture");
    // make_fixtures.py LINES, within 1 %
    CHECK(json_rate(j["gemm"]["fp16"], "flop") == doctest::Approx(275e12).epsilon(0.01));
    CHECK(json_rate(j["memory"], "bytes") == doctest::Approx(1.75e12).epsilon(0.01));
    CHECK(json_rate(j["h2d_pinned"], "bytes") == doctest::Approx(24.5e9).epsilon(0.01));
    CHECK(j["all_reduce"]["busbw_bytes_per_s"].get<double>() == doctest::Approx(150e9).epsilon(0.01));
  }

  TEST_CASE("the probe is run, and its output kept beside the profile under <catalogs>/calibrations") {
    TempDir dir("run");
    fs::copy(kSource + "/catalogs", dir.path / "catalogs", fs::copy_options::recursive);
    const std::string probe = fake_probe(
        dir, "while [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then cp " + kFixtures + "/probe-a100-2gpu.json \"$2\"; "
             "fi; shift; done\n");
    const auto r = run_gpuplan("calibrate --probe " + probe + " --catalogs " + (dir / "catalogs"));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(fs::exists(dir / "catalogs/calibrations/a100-80gb-2026-01-01.json"));
    CHECK(slurp(dir / "catalogs/calibrations/a100-80gb-2026-01-01.probe.json") ==
          slurp(kFixtures + "/probe-a100-2gpu.json"));
  }

  TEST_CASE("a GPU the catalog lacks needs --gpu; an unknown --gpu is refused") {
    TempDir dir("gpu");
    std::string probe = slurp(kFixtures + "/probe-a100-2gpu.json");
    probe.replace(probe.find("NVIDIA A100-SXM4-80GB"), 21, "NVIDIA Z9000");
    std::ofstream(dir / "probe.json") << probe;
    const auto r = run_gpuplan("calibrate --from " + (dir / "probe.json") + " -o " + (dir / "p.json"));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("  GPU 'NVIDIA Z9000' is not in the GPU catalog at " + (dir / "probe.json") +
                     " (provenance.gpu_name); pass --gpu NAME with the catalog GPU it is (") != std::string::npos);
    const auto named = run_gpuplan("calibrate --from " + (dir / "probe.json") + " --gpu a100-80gb -o " + (dir / "p.json"));
    CHECK(named.exit_code == 0);
    const auto unknown = run_gpuplan("calibrate --from " + (dir / "probe.json") + " --gpu z9000 -o " + (dir / "q.json"));
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err.find("unknown --gpu 'z9000'; known GPUs: ") != std::string::npos);
  }

  TEST_CASE("an AMD GPU is refused: cuda_probe measures CUDA GPUs only, and no profile is written") {
    TempDir dir("amd");
    const auto r = run_gpuplan("calibrate --from " + kFixtures + "/probe-a100-2gpu.json --gpu mi300x -o " + (dir / "p.json"));
    CHECK(r.exit_code == 2);
    CHECK(r.err == "gpuplan: 1 error:\n  cannot calibrate: mi300x is an AMD GPU (gfx942 (CDNA 3)); cuda_probe measures "
                   "CUDA GPUs only and gpuplan has no ROCm probe, so no calibration profile can describe it: use mi300x "
                   "without a profile (its predictions are prediction-only)\n");
    CHECK_FALSE(fs::exists(dir / "p.json"));
  }

  TEST_CASE("a malformed probe file is an input error with file:line:column") {
    TempDir dir("bad");
    std::ofstream(dir / "probe.json") << "{\"format\": \"gpuplan-probe/v1\",\n \"provenance\": }\n";
    const auto r = run_gpuplan("calibrate --from " + (dir / "probe.json"));
    CHECK(r.exit_code == 2);
    CHECK(r.err == "gpuplan: 1 error:\n  malformed JSON: syntax error while parsing value - unexpected '}'; "
                   "expected '[', '{', or a literal at " + (dir / "probe.json") +
                       ":2:16; produce it again with cuda_probe -o FILE\n");
  }
}

TEST_SUITE("cli.validate.calibrated") {
  TEST_CASE("validate with and without a profile: A100 cases get a calibrated error, the rest '-'") {
    const std::string cases = kSource + "/tests/validation";
    const auto without = run_gpuplan("validate " + cases + " --format json --calibrations /tmp/gpuplan-no-such-dir");
    const auto with = run_gpuplan("validate " + cases + " --format json --calibrations " + kFixtures + "/profiles");
    REQUIRE_MESSAGE(without.exit_code == 0, without.err);
    REQUIRE_MESSAGE(with.exit_code == 0, with.err);
    const auto a = nlohmann::json::parse(without.out);
    const auto b = nlohmann::json::parse(with.out);
    CHECK(a["calibrated_rows"] == 0);
    REQUIRE(a["rows"].size() == b["rows"].size());
    int calibrated = 0;
    for (std::size_t i = 0; i < a["rows"].size(); ++i) {
      const auto& ra = a["rows"][i];
      const auto& rb = b["rows"][i];
      CAPTURE(rb["case"].get<std::string>());
      // the uncalibrated figures do not move
      CHECK(ra["relative_error"] == rb["relative_error"]);
      CHECK(ra["calibrated_relative_error"].is_null());
      // the profile is an A100 80GB's: the nanoGPT case on the A100 40GB (X115) stays uncalibrated
      const std::string name = rb["case"].get<std::string>();
      const bool a100 = name.find("a100") != std::string::npos && name.find("a100-40gb") == std::string::npos;
      CHECK(rb["calibrated_relative_error"].is_null() == !a100);
      if (a100) {
        ++calibrated;
        CHECK(rb["calibration_profile"] == kFixtures + "/profiles/a100-80gb-2026-01-01.json");
        CHECK(rb["calibrated_predicted"].get<double>() != rb["predicted"].get<double>());
      }
    }
    // One GPU: V001, V002, V011, V012, V013, V016, V017, V026, V027; eight: V003, V004, V014,
    // V015, V018, V019, V028, V029, L010, X111, X112, D001-D007, K001, K002, and the
    // llm-foundry FSDP cases F002, F005, F007, F009, F011, F012, F014; several nodes: the
    // Megatron-LM pipeline cases P001-P016.
    CHECK(calibrated == 52);
    CHECK(b["calibrated_rows"] == 52);
    CHECK(b["throughput_mape"] == a["throughput_mape"]);

    const auto table = run_gpuplan("validate " + cases + " --calibrations " + kFixtures + "/profiles");
    REQUIRE(table.exit_code == 0);
    CHECK(table.out.find("calibrated error") != std::string::npos);
    CHECK(table.out.find("calibrated: MAPE ") != std::string::npos);
    const auto plain = run_gpuplan("validate " + cases + " --calibrations /tmp/gpuplan-no-such-dir");
    CHECK(plain.out.find("calibrated error: \"-\" = no measured profile") != std::string::npos);
  }

  TEST_CASE("a run with a profile says calibrated; without, uncalibrated") {
    const auto with = run_gpuplan("run " + kFixtures + "/resnet50-a100-profile.yaml");
    REQUIRE_MESSAGE(with.exit_code == 0, with.err);
    CHECK(with.out.find("Calibrated GPU profile.") != std::string::npos);
    const auto without = run_gpuplan("run " + kSource + "/tests/validation/V002-resnet50-a100-amp.yaml");
    REQUIRE(without.exit_code == 0);
    CHECK(without.out.find("(uncalibrated)") != std::string::npos);
  }
}

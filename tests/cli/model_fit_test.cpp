// `gpuplan fit` and `gpuplan validate --leave-one-gpu-out` end to end, on nine of the
// validation cases (three per GPU type, so each leave-one-out fit has six throughput rows
// for its four parameters) to keep the test short.

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "run_command.h"

using gpuplan::testing::run_gpuplan;
using gpuplan::testing::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kCases = std::string(GPUPLAN_SOURCE_DIR) + "/tests/validation/";

void copy_cases(const TempDir& dir, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    fs::copy_file(kCases + name, dir / name);
  }
}

void copy_three_gpus(const TempDir& dir) {
  copy_cases(dir, {"V001-resnet50-a100-tf32.yaml", "V002-resnet50-a100-amp.yaml", "V026-bert-large-squad-a100-tf32.yaml",
                   "V005-resnet50-v100-fp32.yaml", "V006-resnet50-v100-amp.yaml", "V105-bert-large-v100-fp32-bs4.yaml",
                   "T003-resnet50-rtx3090-amp-nchw-bs512.yaml", "T004-resnet50-rtx3090-amp-nhwc-bs512.yaml",
                   "T010-vit-b16-rtx3090-amp-nchw-bs192.yaml"});
}

// Mean |relative error| of the throughput rows of the cases whose name contains `tag`.
double mape_of(const nlohmann::json& validation, const std::string& tag, int* rows) {
  double sum = 0.0;
  *rows = 0;
  for (const auto& row : validation["rows"]) {
    if (row["metric"] == "throughput" && row["case"].get<std::string>().find(tag) != std::string::npos) {
      sum += std::abs(row["relative_error"].get<double>());
      ++*rows;
    }
  }
  return sum / *rows;
}

}  // namespace

TEST_SUITE("cli.fit") {
  TEST_CASE("fit lowers the throughput MAPE of the cases it is fitted on, every parameter a fraction") {
    TempDir dir("fit");
    copy_three_gpus(dir);
    const auto validation = run_gpuplan("validate " + dir.path.string() + " --format json");
    const auto r = run_gpuplan("fit " + dir.path.string() + " --format json");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["throughput_rows"] == 9);
    // "before" is the shipped parameter set: the same MAPE validate prints
    CHECK(j["throughput_mape_before"].get<double>() ==
          doctest::Approx(nlohmann::json::parse(validation.out)["throughput_mape"].get<double>()));
    CHECK(j["throughput_mape_after"].get<double>() < j["throughput_mape_before"].get<double>());
    REQUIRE(j["parameters"].size() == 4);
    for (const auto& p : j["parameters"]) {
      CAPTURE(p["name"].get<std::string>());
      CHECK(p["fitted"].get<double>() > 0.0);
      CHECK(p["fitted"].get<double>() <= 1.0);
    }
  }

  TEST_CASE("fit reuses a case's simulation at a point the search visits again, and is deterministic") {
    TempDir dir("memo");
    copy_three_gpus(dir);
    const auto a = run_gpuplan("fit " + dir.path.string() + " --format json");
    REQUIRE_MESSAGE(a.exit_code == 0, a.err);
    const auto j = nlohmann::json::parse(a.out);
    const int evaluations = j["evaluations"].get<int>();
    // Without the memo every residual evaluation simulates all nine cases, and the shipped
    // and fitted MAPEs two more passes. Eigen's forward-difference Jacobian re-evaluates the
    // current point first (one of every five evaluations with four parameters), the final
    // residual and the fitted MAPE repeat the search's last point: at least 2 x 9 fewer.
    CHECK(j["simulated_cases"].get<int>() <= 9 * (evaluations + 2) - 2 * 9);
    CHECK(j["simulated_cases"].get<int>() >= 9);
    const auto b = run_gpuplan("fit " + dir.path.string() + " --format json");
    CHECK(a.out == b.out);
  }

  TEST_CASE("leave-one-GPU-out: one row per GPU type, the shipped MAPE is validate's over that GPU's rows") {
    TempDir dir("logo");
    copy_three_gpus(dir);
    const auto validation = nlohmann::json::parse(run_gpuplan("validate " + dir.path.string() + " --format json").out);
    const auto r = run_gpuplan("validate " + dir.path.string() + " --leave-one-gpu-out --format json");
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["gpus"].size() == 3);
    const char* gpus[] = {"a100-80gb", "rtx3090", "v100-16gb"};  // sorted by name
    const char* tags[] = {"a100", "rtx3090", "v100"};
    for (int i = 0; i < 3; ++i) {
      const auto& g = j["gpus"][static_cast<std::size_t>(i)];
      CAPTURE(gpus[i]);
      CHECK(g["gpu"] == gpus[i]);
      int rows = 0;
      CHECK(g["mape_shipped"].get<double>() == doctest::Approx(mape_of(validation, tags[i], &rows)));
      CHECK(g["throughput_rows"] == rows);
      CHECK(rows == 3);
      CHECK(g["mape_held_out"].get<double>() >= 0.0);
    }
  }

  TEST_CASE("too few rows or a single GPU type are input errors with the reason") {
    TempDir dir("few");
    copy_cases(dir, {"V001-resnet50-a100-tf32.yaml", "V002-resnet50-a100-amp.yaml"});
    const auto fit = run_gpuplan("fit " + dir.path.string());
    CHECK(fit.exit_code == 2);
    CHECK(fit.err == "gpuplan: 1 error:\n  gpuplan fit: 2 throughput rows for 4 parameters; fitting needs at least as "
                     "many rows as parameters\n");
    const auto logo = run_gpuplan("validate " + dir.path.string() + " --leave-one-gpu-out");
    CHECK(logo.exit_code == 2);
    CHECK(logo.err == "gpuplan: 1 error:\n  gpuplan validate --leave-one-gpu-out: the cases cover 1 GPU type; it "
                      "needs at least two\n");
    const auto format = run_gpuplan("fit " + dir.path.string() + " --format csv");
    CHECK(format.exit_code == 2);
    CHECK(format.err.find("unknown --format 'csv'; expected table or json") != std::string::npos);
  }
}

#include <filesystem>
#include <map>
#include <set>

#include "cli/app_context.h"
#include "cli/model_fit.h"
#include "cli/validation.h"

// A fitted fraction that only one GPU type's cases move is a per-GPU factor in disguise: a
// leave-one-GPU-out refit without that GPU cannot identify it and leaves it at its 0.5
// start (the V100 was predicted 19 % off that way while conv_cuda_core_relative existed).
// Each fraction, lowered by 10 %, must move the throughput rows of at least two GPU types.
TEST_CASE("cli.fit: every fitted fraction moves the throughput rows of at least two GPU types") {
  const gpuplan::cli::AppContext context = gpuplan::cli::load_context(gpuplan::cli::default_catalog_dir(), {});
  const auto cases = gpuplan::cli::load_validation_cases(kCases, context);
  std::map<std::string, std::string> gpu_of_case;
  for (const auto& c : cases) {
    gpu_of_case[fs::path(c.file).stem().string()] = c.scenario.variants.front().job.hardware.gpu.name;
  }
  const gpuplan::models::ModelParams shipped;
  const auto base = gpuplan::cli::validate_cases(cases, shipped).rows;
  for (const auto& parameter : gpuplan::cli::fitted_parameters()) {
    CAPTURE(parameter.name);
    gpuplan::models::ModelParams lowered = shipped;
    lowered.gpu.*parameter.field *= 0.9;
    const auto rows = gpuplan::cli::validate_cases(cases, lowered).rows;
    REQUIRE(rows.size() == base.size());
    std::set<std::string> moved;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const bool throughput = rows[i].metric == "throughput" || rows[i].metric == "tokens_per_s";
      if (throughput && std::abs(rows[i].predicted_value / base[i].predicted_value - 1.0) > 1e-3) {
        moved.insert(gpu_of_case.at(rows[i].case_name));
      }
    }
    CHECK(moved.size() >= 2);
  }
}

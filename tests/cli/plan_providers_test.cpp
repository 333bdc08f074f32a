// gpuplan plan --providers: a provider the catalogs do not hold is an error, not ignored.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "run_command.h"

using gpuplan::testing::run_gpuplan;

namespace {
/// `gpuplan plan` on the shipped capacity plan with a 48 h deadline and `flags`.
gpuplan::testing::CommandResult plan_capacity(const std::string& flags) {
  return run_gpuplan("plan " + std::string(GPUPLAN_SOURCE_DIR) +
                     "/scenarios/capacity-plan-llm-finetune.yaml --deadline 48h " + flags);
}
}  // namespace

TEST_SUITE("cli.plan_providers") {
  TEST_CASE("--providers aws,foo names foo and the providers the catalogs hold") {
    const auto r = plan_capacity("--providers aws,foo");
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "gpuplan: unknown provider 'foo' in --providers; the catalogs hold aws, azure, gcp, lambda (see "
                   "gpuplan --help)\n");
    // A near miss is named.
    const auto typo = plan_capacity("--providers lambda,lamda");
    CHECK(typo.exit_code == 2);
    CHECK(typo.err == "gpuplan: unknown provider 'lamda' in --providers; did you mean lambda? Besides, the catalogs "
                      "hold aws, azure, gcp, lambda (see gpuplan --help)\n");
  }

  TEST_CASE("--providers or --gpus that name nothing are refused, not read as every one") {
    for (const std::string option : {"--providers ''", "--providers ,", "--gpus ''"}) {
      CAPTURE(option);
      const auto r = plan_capacity(option);
      CHECK(r.exit_code == 2);
      CHECK(r.out.empty());
      CHECK(r.err.find("names no") != std::string::npos);
      CHECK(r.err.find("leave the option out") != std::string::npos);
    }
  }

  TEST_CASE("CSV and JSON where no plan meets the deadline: a note on stderr, exit 0") {
    for (const std::string format : {"csv", "json"}) {
      CAPTURE(format);
      const auto r = run_gpuplan("plan " + std::string(GPUPLAN_SOURCE_DIR) +
                                 "/scenarios/capacity-plan-llm-finetune.yaml --deadline 1min --providers lambda "
                                 "--format " + format);
      CHECK(r.exit_code == 0);
      CHECK(r.err.rfind("note: No plan meets the deadline of 60.00 s at p90.\n", 0) == 0);
    }
  }

  TEST_CASE("--threads takes 1 to 1024; -3 was read as 2^64 - 3") {
    for (const std::string value : {"-3", "0", "1025", "two", "1.5"}) {
      CAPTURE(value);
      const auto r = run_gpuplan("plan " + std::string(GPUPLAN_SOURCE_DIR) +
                                 "/scenarios/capacity-plan-llm-finetune.yaml --deadline 48h --threads " + value);
      CHECK(r.exit_code == 2);
      CHECK(r.err == "gpuplan: --threads expects a whole number from 1 to 1024, found '" + value +
                         "'; leave it out to use every core (see gpuplan --help)\n");
    }
  }
}

TEST_SUITE("cli.plan_gpus") {
  TEST_CASE("--gpus h100-sxn names the GPU and the closest name; --gpus zzz where the names are listed") {
    const auto r = plan_capacity("--gpus a100-80gb,h100-sxn");
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "gpuplan: unknown GPU 'h100-sxn' in --gpus; did you mean h100-sxm? (see gpuplan --help)\n");
    const auto none = plan_capacity("--gpus zzzzzzzz");
    CHECK(none.exit_code == 2);
    CHECK(none.err == "gpuplan: unknown GPU 'zzzzzzzz' in --gpus; `gpuplan list gpus` names them (see gpuplan --help)\n");
  }

  TEST_CASE("--gpus b200, a catalog GPU no shipped instance has: the GPUs that have instances, and --catalog") {
    const auto r = plan_capacity("--gpus b200");
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "gpuplan: plan: no instance in the catalogs has b200; the instances in the catalogs have these GPUs: "
                   "a10, a100-40gb, a100-40gb-pcie, a100-80gb, a100-80gb-pcie, a10g, h100-pcie, h100-sxm, h200, l4, l40s, "
                   "rtx-a6000, t4, v100-16gb, v100-32gb, v100-pcie; --catalog FILE adds instance rows (a SkyPilot vms.csv) "
                   "for other GPUs (see gpuplan --help)\n");
    const auto lambda = plan_capacity("--gpus b200,l4 --providers lambda");
    CHECK(lambda.exit_code == 2);
    CHECK(lambda.err == "gpuplan: plan: no instance of lambda in the catalogs has b200 or l4; the instances of lambda in "
                        "the catalogs have these GPUs: a10, a100-40gb, a100-40gb-pcie, a100-80gb, h100-pcie, h100-sxm, "
                        "rtx-a6000, v100-16gb; --catalog FILE adds instance rows (a SkyPilot vms.csv) for other GPUs (see "
                        "gpuplan --help)\n");
  }
}

TEST_SUITE("cli.catalog_notes") {
  TEST_CASE("rows a --catalog file skips are named with file:line and why, on every command") {
    const gpuplan::testing::TempDir dir("catalog-notes");
    std::filesystem::create_directories(dir.path / "aws");
    const std::string csv = dir / "aws/vms.csv";
    // Line 2: an accelerator the GPU catalog lacks; line 3: no on-demand price; line 4: kept.
    std::ofstream(csv) << "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
                          "Region,AvailabilityZone\n"
                          "z9.xlarge,Z9000,1.0,8.0,64.0,,1.5,,eu-central-1,euc1-az1\n"
                          "p4d.24xlarge,A100,8.0,96.0,1152.0,,,6.7915,eu-central-1,euc1-az1\n"
                          "p4d.24xlarge,A100,8.0,96.0,1152.0,,32.7726,6.7915,eu-central-1,euc1-az2\n";
    const auto r = run_gpuplan("list instances --catalog " + csv);
    CHECK(r.exit_code == 0);
    CHECK(r.err.find("note: " + csv + ":2: aws/z9.xlarge: accelerator 'Z9000' is not in the GPU catalog: skipped") !=
          std::string::npos);
    CHECK(r.err.find("note: " + csv + ":3: aws/p4d.24xlarge") != std::string::npos);
    CHECK(r.err.find("has no on-demand Price: skipped") != std::string::npos);
    CHECK(r.err.find("catalogs/instances/") == std::string::npos);  // the shipped files' notes: --wide only
    CHECK(r.out.find("euc1-az2") != std::string::npos);
    CHECK(r.out.find("catalog rows were skipped or cleaned; gpuplan list instances --wide names each") !=
          std::string::npos);
    const auto wide = run_gpuplan("list instances --wide --catalog " + csv);
    CHECK(wide.out.find("note: " + csv + ":2: aws/z9.xlarge: accelerator 'Z9000'") != std::string::npos);
  }
}

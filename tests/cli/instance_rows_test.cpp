// `gpuplan run` and `gpuplan plan` resolve an instance catalog row into hardware with the
// same function (config/instance_hardware.h): a row of a plain SkyPilot vms.csv, which has
// no Interconnect, Network or Storage column, gets the same interconnect and step time in
// both, and a plan over it runs, naming the row it cannot plan on two nodes.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli/app_context.h"
#include "cli/plan.h"
#include "config/config_error.h"
#include "config/scenario_loader.h"
#include "models/run/run_variant.h"

using namespace gpuplan;
namespace fs = std::filesystem;

namespace {

// shared/data/catalogs/skypilot-v7-aws-vms-excerpt.csv line 16 (p4d.24xlarge, us-east-1),
// moved to eu-central-1, a region the shipped catalogs/instances/aws.csv lacks.
constexpr const char* kPlainSkyPilotCsv =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n"
    "p4d.24xlarge,A100,8.0,96.0,1152.0,\"{'Gpus': [{'Name': 'A100', 'Manufacturer': 'NVIDIA', 'Count': 8, "
    "'MemoryInfo': {'SizeInMiB': 40960}}], 'TotalGpuMemoryInMiB': 327680}\",32.7726,6.791500,eu-central-1,euc1-az2\n";

constexpr const char* kWorkload = R"(format: gpuplan/v1
name: BERT-large on 8 A100s
workload:
  model: bert-large
  sequence_length: 128
  dataset: {samples: 100000, sample_size: "2 KiB", decode_time: "50 us"}
  epochs: 1
training: {batch_size: 32, precision: bf16_amp, optimizer: adamw}
data_loader: {num_workers: 4, pin_memory: true}
)";

struct Fixture {
  fs::path dir = fs::temp_directory_path() / ("gpuplan-instance-rows-test-" + std::to_string(::getpid()));
  cli::AppContext context;
  Fixture() {
    fs::create_directories(dir);
    std::ofstream(dir / "aws.csv") << kPlainSkyPilotCsv;
    context = cli::load_context(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs", {(dir / "aws.csv").string()});
  }
  ~Fixture() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  config::Scenario load(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return config::load_scenario((dir / name).string(), context.catalogs, context.families);
  }
  /// The scenario `gpuplan run` gets for cloud.instance aws/p4d.24xlarge in eu-central-1.
  config::Scenario on_p4d() const {
    return load("p4d.yaml", std::string(kWorkload) +
                                "hardware: {storage: nvme_ssd}\nparallelism: {strategy: ddp}\n"
                                "cloud: {instance: aws/p4d.24xlarge, region: eu-central-1, market: on_demand}\n");
  }
};

}  // namespace

TEST_SUITE("cli.instance_rows") {
  TEST_CASE("an 8x A100 SXM row of a plain SkyPilot CSV: the same interconnect and step time in run and plan") {
    const Fixture f;
    const models::JobSpec run_job = f.on_p4d().variants.front().job;
    // `gpuplan plan` starts from the scenario's own hardware (here one GPU of a workstation)
    // and puts it on every catalog row.
    const config::Scenario workstation = f.load(
        "one-gpu.yaml", std::string(kWorkload) +
                            "hardware: {gpu: a100-40gb, cpu_cores: 8, host_memory: \"64 GiB\", storage: nvme_ssd}\n");
    const models::InstanceSpec* row = f.context.catalogs.instances.find("aws/p4d.24xlarge", "eu-central-1");
    REQUIRE(row != nullptr);
    CHECK(row->interconnect.empty());  // the plain file has no Interconnect column
    const models::JobSpec plan_job = cli::plan_job(workstation.variants.front().job, *row, 1, f.context.catalogs);
    // Both: the A100 SXM's HGX board (NVLink 3 through NVSwitch), 48 cores, 8 GPUs, DDP.
    CHECK(run_job.hardware.gpu_interconnect == "nvlink3");
    CHECK(plan_job.hardware.gpu_interconnect == "nvlink3");
    CHECK(plan_job.hardware.cpu_cores == run_job.hardware.cpu_cores);
    CHECK(plan_job.hardware.gpus_per_node == 8);
    CHECK(plan_job.hardware.gpus_per_pcie_switch == run_job.hardware.gpus_per_pcie_switch);
    CHECK(plan_job.parallelism.strategy == models::ParallelStrategy::kDdp);
    const models::VariantResult in_run = models::run_variant(run_job, "run", models::ModelParams{}).result;
    const models::VariantResult in_plan = models::run_variant(plan_job, "plan", models::ModelParams{}).result;
    CHECK(in_run.interconnect == "nvlink3_nvswitch");
    CHECK(in_plan.interconnect == in_run.interconnect);
    CHECK(in_plan.step.step_time_s == in_run.step.step_time_s);
    CHECK(in_plan.step.communication_exposed_s == in_run.step.communication_exposed_s);
  }

  TEST_CASE("a p4d.24xlarge row in a region the shipped catalog lacks: plan runs and names the row") {
    const Fixture f;
    const config::Scenario scenario = f.on_p4d();
    cli::PlanOptions options;
    options.deadline_s = 48 * 3600.0;
    options.providers = {"aws"};
    options.gpus = {"a100-40gb"};  // the p4d rows' GPU: keeps the search small
    options.threads = 1;
    const cli::Planner planner(scenario, f.context.catalogs, f.context.families, options);
    const cli::PlanResult r = planner.finish(planner.evaluate());
    CHECK(std::find(r.notes.begin(), r.notes.end(),
                    "aws/p4d.24xlarge in eu-central-1 (euc1-az2) gives no Network in the catalog: planned on one "
                    "node only") != r.notes.end());
    const models::VariantResult in_run =
        models::run_variant(scenario.variants.front().job, "run", models::ModelParams{}).result;
    int one_node = 0;
    for (const cli::PlanPoint& p : r.points) {
      if (p.instance != "aws/p4d.24xlarge" || p.region != "eu-central-1") continue;
      CHECK(p.nodes == 1);  // no network: never two nodes
      // The scenario's own layout (DDP, 32 per GPU, no accumulation, no recomputation).
      if (p.market != "on_demand" || p.data_parallel != "ddp" || p.tensor_parallel != 1 || p.micro_batch != 32 ||
          p.gradient_accumulation != 1 || p.recompute != "false") {
        continue;
      }
      ++one_node;
      REQUIRE(p.fits);
      // The plan's time to train is the run's (no preemptions on-demand, no checkpoints).
      CHECK(p.time_p50_s == doctest::Approx(in_run.time_to_train_s).epsilon(1e-6));
    }
    CHECK(one_node == 1);
  }
}

TEST_SUITE("cli.catalog_provider") {
  TEST_CASE("--catalog takes the provider from the file name, else from SkyPilot's folder layout") {
    CHECK(cli::catalog_provider("/tmp/aws-vms.csv") == "aws");
    CHECK(cli::catalog_provider("gcp.csv") == "gcp");
    CHECK(cli::catalog_provider("/home/me/.sky/catalogs/v7/azure/vms.csv") == "azure");
    CHECK(cli::catalog_provider("/home/me/.sky/catalogs/v7/lambda/vms.csv") == "lambda");
    CHECK(cli::catalog_provider("/home/me/prices/vms.csv") == std::nullopt);
    CHECK(cli::catalog_provider("vms.csv") == std::nullopt);
  }

  TEST_CASE("a catalog in SkyPilot's layout loads as that provider's rows") {
    const fs::path root = fs::temp_directory_path() / ("gpuplan-sky-layout-test-" + std::to_string(::getpid()));
    const fs::path file = root / ".sky" / "catalogs" / "v7" / "aws" / "vms.csv";
    fs::create_directories(file.parent_path());
    std::ofstream(file) << kPlainSkyPilotCsv;
    const cli::AppContext context =
        cli::load_context(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs", {file.string()});
    const models::InstanceSpec* row = context.catalogs.instances.find("aws/p4d.24xlarge", "eu-central-1");
    REQUIRE(row != nullptr);
    CHECK(row->provider == "aws");
    CHECK(row->zone == "euc1-az2");
    CHECK(row->spot_price_usd_per_s == doctest::Approx(6.7915 / 3600.0));
    const fs::path unnamed = root / "prices" / "vms.csv";
    fs::create_directories(unnamed.parent_path());
    std::ofstream(unnamed) << kPlainSkyPilotCsv;
    try {
      cli::load_context(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs", {unnamed.string()});
      FAIL("a catalog that names no provider was accepted");
    } catch (const config::ConfigError& e) {
      CHECK(std::string(e.what()).find("cannot tell the provider of catalog '" + unnamed.string() + "'") == 0);
    }
    std::error_code ec;
    fs::remove_all(root, ec);
  }
}

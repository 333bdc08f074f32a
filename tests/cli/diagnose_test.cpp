// gpuplan diagnose end to end: logs the test writes in the formats nvidia-smi and mpstat
// print, the real torch profiler table of ../shared/data/logs, the simulated job beside the
// measured one, and the errors (whole messages, exit code 2).
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "run_command.h"

using gpuplan::testing::run_gpuplan;

namespace {

const std::string kSource = GPUPLAN_SOURCE_DIR;

std::string temp_path(const std::string& name) {
  return "/tmp/gpuplan_diagnose_test_" + std::to_string(::getpid()) + "_" + name;
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

/// nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,memory.used,memory.total,power.draw,power.limit
/// --format=csv -l 1 of an RTX 3090 fed by the training process alone: two busy seconds, six
/// idle, 48 readings (utilization 2 x 95 % / 8 = 23.75 % on average).
std::string rtx3090_log() {
  std::string log = "timestamp, index, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], power.limit [W]\n";
  for (int t = 0; t < 48; ++t) {
    const bool busy = t % 8 < 2;
    log += "2024/03/02 14:00:" + std::string(t < 10 ? "0" : "") + std::to_string(t) + ".250, 0, NVIDIA GeForce RTX 3090, " +
           (busy ? "95 %" : "0 %") + ", 5120 MiB, 24576 MiB, " + (busy ? "330.10 W" : "110.00 W") + ", 350.00 W\n";
  }
  return log;
}

/// mpstat -P ALL 1 on the 8-core host: CPU 0 full (the training process), the rest idle.
std::string mpstat_log() {
  std::string log = "Linux 6.1.0-18-amd64 (workstation) \t03/02/2024 \t_x86_64_\t(8 CPU)\n\n";
  for (int t = 1; t <= 5; ++t) {
    log += "\n14:00:0" + std::to_string(t) +
           "     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle\n";
    log += "14:00:0" + std::to_string(t) + "     all   12.00    0.00    0.50    0.00    0.00    0.00    0.00    0.00    0.00   87.50\n";
    log += "14:00:0" + std::to_string(t) + "       0   97.00    0.00    3.00    0.00    0.00    0.00    0.00    0.00    0.00    0.00\n";
    for (int c = 1; c < 8; ++c) {
      log += "14:00:0" + std::to_string(t) + "       " + std::to_string(c) +
             "    0.00    0.00    0.00    0.00    0.00    0.00    0.00    0.00    0.00  100.00\n";
    }
  }
  return log;
}

}  // namespace

TEST_SUITE("cli.diagnose") {
  TEST_CASE("nvidia-smi CSV and mpstat -P ALL: the loader in the training process, in words first") {
    const std::string gpu = temp_path("gpu.csv");
    const std::string cpu = temp_path("cpu.log");
    write(gpu, rtx3090_log());
    write(cpu, mpstat_log());
    const auto r = run_gpuplan("diagnose " + gpu + " " + cpu);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    // 1 - 0.2375 = 76 % waiting.
    INFO(r.out);
    // The summary comes first, wrapped at 120 columns.
    CHECK(r.out.rfind("GPU 0 waits 76 % of the time while one CPU core is full and the others are free: the training "
                      "process loads the data\n  itself. Try: DataLoader num_workers > 0 (one per free core), then "
                      "pin_memory=True.\n",
                      0) == 0);
    CHECK(r.out.find("GPU 0 (NVIDIA GeForce RTX 3090, rtx3090), " + gpu + ": input_pipeline\n") != std::string::npos);
    CHECK(r.out.find("  - utilization repeats every 8 readings = 8.0 s") != std::string::npos);
    CHECK(r.out.find("  - memory: 5.4 GB used of 25.8 GB (21 %)\n") != std::string::npos);
    // (2 x 330.1 + 6 x 110) / 8 = 165.0 W.
    CHECK(r.out.find("  - power: 165 W on average of a 350 W limit") != std::string::npos);
    CHECK(r.out.find("  - host CPUs busy 12 % on average (8 logical CPUs)\n") != std::string::npos);
    CHECK(r.out.find("  - the busiest single CPU is busy 100 % on average\n") != std::string::npos);
    std::filesystem::remove(gpu);
    std::filesystem::remove(cpu);
  }

  TEST_CASE("a log of a few readings: the finding stands, with a note that it is a hint") {
    // A trial diagnosed two readings as "host_dispatch (likely)" with no word of the sample.
    const std::string gpu = temp_path("short.csv");
    const std::string full = rtx3090_log();
    std::size_t at = 0;  // past the header and the first two readings
    for (int line = 0; line < 3; ++line) at = full.find('\n', at) + 1;
    write(gpu, full.substr(0, at));
    const auto r = run_gpuplan("diagnose " + gpu);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("only 2 readings of a GPU: too few to tell the training's steady state from its start or a "
                     "pause;") != std::string::npos);
    // 48 readings: no such note.
    write(gpu, full);
    CHECK(run_gpuplan("diagnose " + gpu).out.find("too few to tell") == std::string::npos);
    std::filesystem::remove(gpu);
  }

  TEST_CASE("--scenario: simulated beside measured, remedies ranked by simulated gain; JSON carries the figures") {
    const std::string gpu = temp_path("gpu2.csv");
    write(gpu, rtx3090_log());
    const std::string scenario = kSource + "/scenarios/resnet50-imagenet-rtx3090.yaml";
    const auto r = run_gpuplan("diagnose " + gpu + " --scenario " + scenario + " --format json");
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["gpus"][0]["utilization_mean"].get<double>() == doctest::Approx(0.2375));
    CHECK(j["gpus"][0]["period_samples"] == 8);
    CHECK(j["gpus"][0]["catalog_gpu"] == "rtx3090");
    CHECK(j["simulated"]["strategy"] == "baseline");
    CHECK(j["simulated"]["bottleneck"] == "data_loading_cpu");
    // The simulated power follows models/energy: idle + u (TDP - idle).
    CHECK(j["simulated"]["gpu_power_w"].get<double>() > 0.0);
    const auto& remedies = j["remedies"];
    REQUIRE(remedies.size() == 7);
    for (std::size_t i = 1; i < remedies.size(); ++i) {
      CHECK(remedies[i - 1]["gain"].get<double>() >= remedies[i]["gain"].get<double>());
    }
    CHECK(remedies[0]["gain"].get<double>() > 1.0);  // more workers or DALI: several times the baseline
    const auto text = run_gpuplan("diagnose " + gpu + " --scenario " + scenario);
    CHECK(text.out.find("Measured beside simulated (scenario ") != std::string::npos);
    CHECK(text.out.find("Remedies ranked by simulated gain over 'baseline':\n") != std::string::npos);
    // The log's GPU and count are the scenario's: no warning.
    CHECK(j["baseline"] == "baseline");
    CHECK(j["warnings"] == nlohmann::json::array());
    CHECK(text.out.find("Warning") == std::string::npos);
    std::filesystem::remove(gpu);
  }

  TEST_CASE("--scenario whose first strategy is out of memory: said so, the others ranked against the fastest that fits") {
    const std::string gpu = temp_path("gpu_oom.csv");
    write(gpu, rtx3090_log());
    const std::string scenario = temp_path("oom.yaml");
    std::string yaml = gpuplan::testing::slurp(kSource + "/scenarios/resnet50-imagenet-rtx3090.yaml");
    const std::size_t strategies = yaml.find("strategies:\n");
    REQUIRE(strategies != std::string::npos);
    // The job as it ran at batch 1024 (out of the 3090's memory in the simulator), and two that fit.
    write(scenario, yaml.substr(0, strategies) +
                        "strategies:\n  as_run: {training.batch_size: 1024}\n  workers_4: {data_loader.num_workers: 4}\n"
                        "  workers_2: {data_loader.num_workers: 2}\n");
    const auto r = run_gpuplan("diagnose " + gpu + " --scenario " + scenario + " --format json");
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["simulated"]["fits"] == false);
    CHECK(j["baseline"] == "workers_4");
    REQUIRE(j["remedies"].size() == 2);
    CHECK(j["remedies"][0]["strategy"] == "workers_4");
    CHECK(j["remedies"][0]["gain"].get<double>() == 0.0);
    // workers_2 against workers_4: its throughput over workers_4's, minus one.
    CHECK(j["remedies"][1]["gain"].get<double>() ==
          doctest::Approx(j["remedies"][1]["throughput_samples_per_s"].get<double>() /
                              j["remedies"][0]["throughput_samples_per_s"].get<double>() -
                          1.0));
    const auto text = run_gpuplan("diagnose " + gpu + " --scenario " + scenario);
    INFO(text.out);
    // The 93.4 GB is the simulated peak at batch 1024; 25.8 GB the 3090's 24 GiB; 5.4 GB the log's 5120 MiB.
    CHECK(text.out.find("Simulated: 'as_run', the job as it ran, does not fit in memory in the simulator (93.4 GB of "
                        "25.8 GB), while the logs\n  show 5.4 GB used: if they are of this configuration, the memory model "
                        "overestimates it; the others are ranked against\n  'workers_4', the fastest that fits.\n\nLogs: ") !=
          std::string::npos);
    CHECK(text.out.find("Remedies ranked by simulated gain over 'workers_4' (the fastest that fits; 'as_run' does "
                        "not):\n") != std::string::npos);
    CHECK(text.out.find("none of the scenario's other strategies") == std::string::npos);
    std::filesystem::remove(gpu);
    std::filesystem::remove(scenario);
  }

  TEST_CASE("--scenario of another machine: a warning names the logged GPU and count and the scenario's") {
    const std::string gpu = temp_path("gpu_other.csv");
    write(gpu, rtx3090_log());
    // The first strategy of dle-resnet50-8xa100 runs on one A100: another GPU, the same count.
    const auto r = run_gpuplan("diagnose " + gpu + " --scenario " + kSource + "/scenarios/dle-resnet50-8xa100.yaml");
    REQUIRE(r.exit_code == 0);
    INFO(r.out);
    CHECK(r.out.rfind("Warning: the logs show 1 x rtx3090 ('NVIDIA GeForce RTX 3090') where the scenario has 1 x "
                      "a100-80gb: the simulated\n  figures are of another GPU; check that the logs and the scenario are "
                      "the same job.\nGPU 0 works in bursts",
                      0) == 0);
    // The same GPU, but two of them in the scenario and one in the log (which is not one node's either).
    const std::string scenario = temp_path("two.yaml");
    std::string yaml = gpuplan::testing::slurp(kSource + "/scenarios/resnet50-imagenet-rtx3090.yaml");
    yaml.replace(yaml.find("  gpu: rtx3090\n"), 15, "  gpu: rtx3090\n  gpus_per_node: 2\n");
    yaml.replace(yaml.find("\nhardware:\n"), 11, "\nparallelism: {strategy: ddp}\nhardware:\n");
    write(scenario, yaml);
    const auto two = run_gpuplan("diagnose " + gpu + " --scenario " + scenario + " --format json");
    REQUIRE(two.exit_code == 0);
    CHECK(nlohmann::json::parse(two.out)["warnings"] ==
          nlohmann::json::array({"the logs show 1 GPU where the scenario has 2 x rtx3090: the simulated figures are of "
                                 "another GPU count; check that the logs and the scenario are the same job"}));
    std::filesystem::remove(gpu);
    std::filesystem::remove(scenario);
  }

  TEST_CASE("--scenario: the rows are run's rows (checked remedies, the same limiter), priced as run prices them") {
    const std::string gpu = temp_path("gpu3.csv");
    write(gpu, rtx3090_log());
    const std::string scenario = kSource + "/scenarios/resnet50-imagenet-rtx3090.yaml";
    const auto d = run_gpuplan("diagnose " + gpu + " --scenario " + scenario + " --format json");
    const auto r = run_gpuplan("run " + scenario + " --format json");
    REQUIRE(d.exit_code == 0);
    REQUIRE(r.exit_code == 0);
    const auto dj = nlohmann::json::parse(d.out);
    const auto rj = nlohmann::json::parse(r.out);
    std::map<std::string, nlohmann::json> rows;
    for (const auto& v : rj["variants"]) rows[v["strategy"].get<std::string>()] = v;
    // The baseline's suggestion is run's checked remedy (num_workers), not an unchecked hint.
    CHECK(dj["simulated"]["bottleneck"] == rows["baseline"]["bottleneck"]);
    CHECK(dj["simulated"]["suggestion"] == rows["baseline"]["suggestion"]);
    CHECK(dj["simulated"]["suggestion"].get<std::string>().rfind("data_loader.num_workers: ", 0) == 0);
    REQUIRE(dj["remedies"].size() == 7);
    for (const auto& m : dj["remedies"]) {
      const auto& row = rows.at(m["strategy"].get<std::string>());
      CHECK(m["bottleneck"] == row["bottleneck"]);
      // An on-premises scenario: the run's dollars are its on-premises cost.
      CHECK(m["cost_usd"].get<double>() == doctest::Approx(row["cost_on_premises_usd"].get<double>()));
    }
    std::filesystem::remove(gpu);
  }

  TEST_CASE("--gpu that differs from the GPU the log names: used, and the report says so") {
    const std::string gpu = temp_path("gpu_forced.csv");
    write(gpu, rtx3090_log());
    const auto r = run_gpuplan("diagnose " + gpu + " --gpu a100-80gb");
    CHECK(r.exit_code == 0);
    INFO(r.out);
    CHECK(r.out.find("  --gpu a100-80gb differs from the rtx3090 the logs name; its catalog figures (TDP, idle power, "
                     "PCIe link) are used\n    where the log has none\n") != std::string::npos);
    CHECK(r.out.find("GPU 0 (NVIDIA GeForce RTX 3090, a100-80gb)") != std::string::npos);
    // The same --gpu as the log's: no note.
    const auto same = run_gpuplan("diagnose " + gpu + " --gpu rtx3090");
    CHECK(same.exit_code == 0);
    CHECK(same.out.find("differs from") == std::string::npos);
    std::filesystem::remove(gpu);
  }

  TEST_CASE("the real torch profiler table (R03): the single-process loader") {
    const auto r = run_gpuplan("diagnose " + std::string(GPUPLAN_SHARED_DIR) + "/data/logs/R03-v100-torch-profiler-dataloader.txt");
    CHECK(r.exit_code == 0);
    CHECK(r.out.rfind("The training loop spends 89 % of its CPU time fetching batches from the DataLoader. Try: "
                      "DataLoader num_workers > 0 (one\n  per free core) and pin_memory=True.\n",
                      0) == 0);
  }

  TEST_CASE("errors: a malformed line at file:line:column, a missing log, a bad option; exit 2, no output") {
    const std::string gpu = temp_path("bad.csv");
    write(gpu, "timestamp, utilization.gpu [%]\n2024/03/02 14:00:00.000, 95 %\n2024/03/02 14:00:01.000, 95 W\n"
               "2024/03/02 14:00:02.000, 95 %\n");
    const auto r = run_gpuplan("diagnose " + gpu);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "gpuplan: 1 error:\n  '95 W' has unit 'W' at " + gpu + ":3:26 (utilization.gpu); expected %\n");
    const auto missing = run_gpuplan("diagnose /nonexistent/gpu.csv");
    CHECK(missing.exit_code == 2);
    CHECK(missing.err == "gpuplan: 1 error:\n  cannot read file '/nonexistent/gpu.csv': No such file or directory\n");
    const auto none = run_gpuplan("diagnose");
    CHECK(none.exit_code == 2);
    CHECK(none.err == "gpuplan: gpuplan diagnose needs at least one LOG file (see gpuplan --help)\n");
    // A transposed "rtx3900" is one edit from rtx3090 (optimal string alignment), two from
    // rtx3060, rtx3070 and rtx3080: the nearest comes first.
    const auto gpu_name = run_gpuplan("diagnose " + gpu + " --gpu rtx3900");
    CHECK(gpu_name.exit_code == 2);
    CHECK(gpu_name.err == "gpuplan: --gpu 'rtx3900' is not in the GPU catalog; did you mean rtx3090, rtx3060, "
                          "rtx3070? (see gpuplan --help)\n");
    std::filesystem::remove(gpu);
  }
}

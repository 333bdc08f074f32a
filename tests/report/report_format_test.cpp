#include "report/report_format.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "report/human_units.h"

using namespace gpuplan;

namespace {
models::ScenarioResult two_rows() {
  models::ScenarioResult r;
  r.scenario_name = "test scenario";
  r.scenario_path = "x.yaml";
  models::VariantResult fit;
  fit.strategy = "baseline";
  fit.gpu = "a100-80gb";
  fit.global_batch_samples = 256;
  fit.peak_memory_bytes = 30e9;
  fit.memory_capacity_bytes = 80e9;
  fit.step.step_time_s = 0.25;
  fit.step.gpu_compute_s = 0.2;
  fit.step.optimizer_s = 0.01;
  fit.step.data_wait_s = 0.04;
  fit.throughput_samples_per_s = 1024;
  fit.gpu_utilization = 0.84;
  fit.mfu = 0.15;
  fit.hfu = 0.2;
  fit.epoch_time_s = 1251.25;
  fit.time_to_train_s = 112612.5;
  fit.cost_on_demand_usd = 1234.5;
  fit.energy_j = 3.6e8;
  fit.bottleneck = "gpu_compute";
  fit.suggestion = "training.precision: bf16_amp";
  models::VariantResult oom = fit;
  oom.strategy = "bs1024, big";
  oom.fits = false;
  oom.peak_memory_bytes = 95e9;
  oom.bottleneck = "memory";
  oom.suggestion = "training.activation_checkpointing: true";
  r.variants = {fit, oom};
  return r;
}
}  // namespace

TEST_SUITE("report.report_format") {
  TEST_CASE("table: a GPU no validation case measures is named once as prediction only") {
    models::ScenarioResult r = two_rows();
    const std::string line =
        "b200: prediction only; no validation case measures this GPU, so its error is unknown (gpuplan calibrate on "
        "one narrows it).\n";
    CHECK(report::render_table(r).find("prediction only") == std::string::npos);
    for (auto& v : r.variants) {
      v.gpu = "b200";
      v.gpu_prediction_only = true;
    }
    const std::string table = report::render_table(r);
    REQUIRE(table.find(line) != std::string::npos);
    CHECK(table.find(line, table.find(line) + 1) == std::string::npos);  // two rows, one line
    // An AMD GPU: no profile can narrow it, and the line says why instead.
    for (auto& v : r.variants) {
      v.gpu = "mi300x";
      v.gpu_uncalibratable = true;
    }
    CHECK(report::render_table(r).find(
              "mi300x: prediction only; no validation case measures this GPU, so its error is unknown (an AMD GPU: "
              "cuda_probe measures CUDA GPUs only, so no calibration profile narrows it yet).\n") != std::string::npos);
  }

  TEST_CASE("CSV: the columns of report/variant_fields.cpp, SI values, empty cells for an OOM row, quoted commas") {
    const std::string csv = report::render_csv(two_rows());
    const std::string header =
        "strategy,gpu,parameters,frozen_parameters,gpus,nodes,parallelism,collective,attention_kernel,interconnect,network,"
        "network_bytes_per_s,"
        "global_batch_samples,fits,throughput_samples_per_s,single_gpu_throughput_samples_per_s,"
        "throughput_tokens_per_s,throughput_per_gpu_tokens_per_s,step_time_s,gpu_compute_s,optimizer_s,data_wait_s,"
        "h2d_s,host_dispatch_s,"
        "communication_exposed_s,pipeline_bubble_s,scaling_efficiency,gpu_utilization,mfu,hfu,pipeline_bubble_share,"
        "peak_memory_bytes,"
        "peak_allocated_bytes,"
        "memory_capacity_bytes,"
        "memory_weights_bytes,memory_gradients_bytes,memory_optimizer_state_bytes,memory_activations_bytes,"
        "memory_workspace_bytes,memory_cuda_context_bytes,memory_allocator_slack_bytes,memory_data_parallel_bytes,"
        "memory_gathered_bytes,epoch_time_s,time_to_train_s,cost_on_demand_usd,cost_on_premises_usd,market,time_p50_s,time_p90_s,"
        "cost_p50_usd,cost_p90_usd,expected_preemptions,expected_failures,lost_time_share,finished_share,checkpoint_interval_s,"
        "checkpoint_interval_reason,trials,energy_j,bottleneck,suggestion,suggestion_overrides,suggestion_relieves,"
        "suggestion_goal,suggestion_gain,suggested_throughput_samples_per_s,suggested_throughput_change,"
        "suggested_time_to_train_s,suggested_time_change,suggested_cost_usd,suggested_cost_change_usd,"
        "critical_path_share,notes,calibrated\n";
    CHECK(csv.substr(0, header.size()) == header);
    // Energy in joules, as in JSON (STYLE.md U6): 360000000 J, not 100 kWh.
    CHECK(csv.find("\nbaseline,a100-80gb,0,0,1,1,,,,,,,256,true,1024,,,,0.25,0.2,0.01,0.04,0,0,0,0,,0.84,0.15,0.2,,30000000000,30000000000,80000000000,"
                   "0,0,0,0,0,0,0,0,0,1251.25,112612.5,1234.5,,,,,,,,,,,,,,360000000,gpu_compute,"
                   "training.precision: bf16_amp,,,,,,,,,,,,,false\n") != std::string::npos);
    // OOM: memory and the advice, nothing that needs a simulated step; the comma is quoted.
    CHECK(csv.find("\n\"bs1024, big\",a100-80gb,0,0,1,1,,,,,,,256,false,,,,,,,,,,,,,,,,,,95000000000,95000000000,80000000000,0,0,0,0,0,0,0,0,0,"
                   ",,,,,,,,,,,,,,,,,memory,training.activation_checkpointing: true,,,,,,,,,,,,,false\n") != std::string::npos);
  }

  TEST_CASE("a note every strategy carries is printed once; the others under their strategy") {
    models::ScenarioResult r = two_rows();
    const std::string shared = "workload.dataset.synthetic: true: no storage, cores or host memory are simulated";
    r.variants[0].notes = {shared, "only the first row's note"};
    r.variants[1].notes = {shared};
    const std::string table = report::render_table(r);
    // Printed once, in its own block after the strategies' lines.
    CHECK(table.find(shared) == table.rfind(shared));
    CHECK(table.find("\nNotes on every strategy:\n  " + shared + "\n") != std::string::npos);
    CHECK(table.find("\n    note: only the first row's note\n") != std::string::npos);
    CHECK(table.find("note: " + shared) == std::string::npos);
    // Markdown: a note is a nested bullet, not "-   note:".
    const std::string md = report::render_markdown(r);
    CHECK(md.find("\n  - note: only the first row's note\n") != std::string::npos);
    CHECK(md.find("-   note:") == std::string::npos);
    CHECK(md.find("\n**Notes on every strategy**\n\n- " + shared + "\n") != std::string::npos);
    // One row: its notes stay under it.
    r.variants.resize(1);
    CHECK(report::render_table(r).find("    note: " + shared + "\n") != std::string::npos);
  }

  TEST_CASE("a note some strategies share is printed under the first; the others point to it") {
    // A new user's LoRA comparison printed the same four-line loss-memory note under three
    // strategies.
    models::ScenarioResult r = two_rows();
    r.variants.push_back(r.variants[0]);
    r.variants[2].strategy = "third";
    r.variants[2].fits = true;
    const std::string loss = "memory: the peak is the loss's backward";
    r.variants[0].notes = {"first only"};
    r.variants[1].notes = {loss, "scaling note"};
    r.variants[2].notes = {loss, "scaling note", "third only"};
    const std::string table = report::render_table(r);
    CHECK(table.find(loss) == table.rfind(loss));
    CHECK(table.find("\n    note: " + loss + "\n    note: scaling note\n") != std::string::npos);
    CHECK(table.find("  third: ") != std::string::npos);
    CHECK(table.find("\n    note: third only\n    note: 2 notes the same as under bs1024, big\n") != std::string::npos);
    r.variants[2].notes = {"scaling note"};
    CHECK(report::render_table(r).find("\n    note: the same note as under bs1024, big\n") != std::string::npos);
  }

  TEST_CASE("CSV and JSON carry the same fields under the same names, so the same units") {
    const models::ScenarioResult r = two_rows();
    const std::string csv = report::render_csv(r);
    const std::string header = csv.substr(0, csv.find('\n'));
    const auto j = nlohmann::ordered_json::parse(report::render_json(r));
    for (const auto& row : j["variants"]) {
      std::string keys;
      for (const auto& item : row.items()) keys += (keys.empty() ? "" : ",") + item.key();
      CHECK(keys == header);
    }
    CHECK(j["variants"][0]["energy_j"].get<double>() == doctest::Approx(3.6e8));
    CHECK(header.find("energy_j") != std::string::npos);
    CHECK(header.find("kwh") == std::string::npos);
  }

  TEST_CASE("several GPUs: GPUs, exposed communication and scaling in every format") {
    models::ScenarioResult r = two_rows();
    models::VariantResult& v = r.variants[0];
    v.gpus = 8;
    v.parallelism = "ddp";
    v.collective = "ring/simple";
    v.step.communication_exposed_s = 0.002;
    v.scaling_efficiency = 0.9;
    v.single_gpu_throughput_samples_per_s = 142.0;
    // a language model of 128 tokens per sample: 1024 x 128 = 131072 tokens/s, 16384 per GPU
    v.throughput_tokens_per_s = 131072.0;
    const std::string table = report::render_table(r);
    CHECK(table.find("GPUs") != std::string::npos);
    CHECK(table.find("scaling") != std::string::npos);
    CHECK(table.find("90 %") != std::string::npos);
    CHECK(table.find("2.0 ms") != std::string::npos);
    CHECK(table.find("comm = communication per step not hidden") != std::string::npos);
    v.nodes = 2;
    v.attention_kernel = "flash";
    v.interconnect = "nvlink3_nvswitch";
    v.network = "infiniband";
    v.network_bytes_per_s = 50e9;
    CHECK(report::render_csv(r).find("\nbaseline,a100-80gb,0,0,8,2,ddp,ring/simple,flash,nvlink3_nvswitch,infiniband,50000000000,256,"
                                     "true,1024,142,131072,16384,0.25,0.2,0.01,0.04,0,0,0.002,0,0.9,") != std::string::npos);
    const auto j = nlohmann::json::parse(report::render_json(r));
    CHECK(j["variants"][0]["scaling_efficiency"].get<double>() == doctest::Approx(0.9));
    CHECK(j["variants"][0]["collective"] == "ring/simple");
    CHECK(j["variants"][0]["parallelism"] == "ddp");
    CHECK(j["variants"][0]["interconnect"] == "nvlink3_nvswitch");
    CHECK(j["variants"][0]["attention_kernel"] == "flash");
    CHECK(j["variants"][0]["network_bytes_per_s"].get<double>() == doctest::Approx(50e9));
    // A one-GPU scenario keeps its table as before: no multi-GPU columns.
    CHECK(report::render_table(two_rows()).find("scaling") == std::string::npos);
  }

  TEST_CASE("CSV, JSON and table: the job-level columns of a spot row") {
    models::ScenarioResult r = two_rows();
    models::VariantResult& v = r.variants[0];
    v.market = "spot";
    v.time_p50_s = 3600.0;
    v.time_p90_s = 7200.0;
    v.cost_p50_usd = 10.0;
    v.cost_p90_usd = 20.0;
    v.expected_preemptions = 1.5;
    v.lost_time_share = 0.25;
    v.finished_share = 1.0;
    v.checkpoint_interval_s = 1800.0;
    v.trials = 200;
    const std::string csv = report::render_csv(r);
    CHECK(csv.find(",1234.5,,spot,3600,7200,10,20,1.5,,0.25,1,1800,,200,360000000,") != std::string::npos);
    const auto j = nlohmann::json::parse(report::render_json(r));
    CHECK(j["variants"][0]["time_p90_s"].get<double>() == doctest::Approx(7200.0));
    CHECK(j["variants"][0]["market"] == "spot");
    CHECK(j["variants"][1]["time_p90_s"].is_null());  // the OOM row has no job level
    const std::string table = report::render_table(r);
    CHECK(table.find("$ p90") != std::string::npos);
    CHECK(report::render_table(two_rows()).find("$ p90") == std::string::npos);  // no spot, no spot columns
  }

  TEST_CASE("an on-demand row: quantile columns only where hardware failures move its time; dollars at p50") {
    models::ScenarioResult r = two_rows();
    models::VariantResult& v = r.variants[0];
    v.market = "on_demand";
    v.time_p50_s = v.time_to_train_s;  // 112612.5 s, no failure expected at p90
    v.time_p90_s = v.time_to_train_s;
    v.cost_p50_usd = v.cost_on_demand_usd;
    v.cost_p90_usd = v.cost_on_demand_usd;
    CHECK(report::render_table(r).find("time p50") == std::string::npos);
    CHECK(report::render_table(r).find("time to train = without") == std::string::npos);
    v.time_p50_s = 120000.0;
    v.time_p90_s = 130000.0;
    v.cost_p50_usd = 1315.5;
    v.cost_p90_usd = 1425.1;
    v.expected_failures = 1.2;
    const std::string table = report::render_table(r);
    CHECK(table.find("time p50") != std::string::npos);
    // The summary's dollars are the market's p50, failures included, not the on-demand column's.
    CHECK(table.find("$1,316 per run") != std::string::npos);
    CHECK(table.find("\ntime to train = without preemptions or hardware failures; time p50/p90 = with them (on spot "
                     "over the Monte Carlo trials).\n") != std::string::npos);
    CHECK(report::render_csv(r).find(",on_demand,120000,130000,1315.5,1425.1,,1.2,") != std::string::npos);
    // On own hardware (no market) the same: p50/p90 columns and their footnote, no $ quantiles.
    v.market.clear();
    v.cost_p50_usd.reset();
    v.cost_p90_usd.reset();
    const std::string own = report::render_table(r);
    CHECK(own.find("time p50") != std::string::npos);
    CHECK(own.find("$ p50") == std::string::npos);
    CHECK(own.find("time to train = without") != std::string::npos);
  }

  TEST_CASE("a checked suggestion: its effect in the notes, its overrides as a CSV cell and a JSON map") {
    models::ScenarioResult r = two_rows();
    models::VariantResult& v = r.variants[0];
    v.bottleneck = "data_loading_cpu";
    v.suggestion = "data_loader.num_workers: 7, data_loader.pin_memory: true";
    v.critical_path = {{"gpu_compute", 0.21, 0.84}, {"data_loading_cpu", 0.04, 0.16}};
    models::SuggestedChange c;
    c.overrides = {{"data_loader.num_workers", "7"}, {"data_loader.pin_memory", "true"}};
    c.relieves = "data_loading_cpu";
    c.goal = "time_to_train";
    c.gain = 0.84;
    c.throughput_samples_per_s = 1884.16;  // 1024 x 1.84
    c.throughput_change = 0.84;
    c.time_to_train_s = 61202.4;           // 112612.5 / 1.84
    c.time_change = -0.4565;
    c.cost_usd = 670.92;                   // 1234.5 / 1.84
    c.cost_change_usd = -563.58;
    v.suggested = c;
    CHECK(report::render_table(r).find(
              "  baseline: data_loading_cpu -> data_loader.num_workers: 7, data_loader.pin_memory: true (simulated: "
              "+84 % samples/s, time to train -46 %, -$564 per run)\n") != std::string::npos);
    // Overrides sorted by path; then relieves, goal, gain, samples/s and its change, time and
    // its change, dollars and their change; the critical path sorted by resource.
    CHECK(report::render_csv(r).find(",data_loader.num_workers=7;data_loader.pin_memory=true,data_loading_cpu,"
                                     "time_to_train,0.84,1884.16,0.84,61202.4,-0.4565,670.92,-563.58,"
                                     "data_loading_cpu=0.16;gpu_compute=0.84,") != std::string::npos);
    const auto j = nlohmann::json::parse(report::render_json(r));
    const auto& row = j["variants"][0];
    CHECK(row["suggestion_overrides"]["data_loader.num_workers"] == "7");
    CHECK(row["suggestion_overrides"]["data_loader.pin_memory"] == "true");
    CHECK(row["suggestion_goal"] == "time_to_train");
    CHECK(row["suggestion_relieves"] == "data_loading_cpu");
    CHECK(row["suggested_cost_change_usd"].get<double>() == doctest::Approx(-563.58));
    CHECK(row["critical_path_share"]["data_loading_cpu"].get<double>() == doctest::Approx(0.16));
    CHECK(j["variants"][1]["suggestion_overrides"].is_null());  // the OOM row
    c.goal = "cost";
    v.suggested = c;
    CHECK(report::render_table(r).find("-$564 per run, ranked on cost)") != std::string::npos);
    // A cost remedy that leaves samples/s alone (spot, checkpoints) names only what it moves.
    c.throughput_change = 0.004;
    v.suggested = c;
    CHECK(report::render_table(r).find("(simulated: time to train -46 %, -$564 per run, ranked on cost)") !=
          std::string::npos);
  }

  TEST_CASE("JSON: SI-suffixed keys, no throughput for an OOM row") {
    const auto j = nlohmann::json::parse(report::render_json(two_rows()));
    CHECK(j["variants"][0]["step_time_s"].get<double>() == doctest::Approx(0.25));
    CHECK(j["variants"][0]["cost_on_demand_usd"].get<double>() == doctest::Approx(1234.5));
    CHECK(j["variants"][1]["fits"].get<bool>() == false);
    CHECK(j["variants"][1]["throughput_samples_per_s"].is_null());
    CHECK(j["variants"][1]["peak_memory_bytes"].get<double>() == doctest::Approx(95e9));
  }

  TEST_CASE("table and Markdown: human units, OOM marked, the legend defines GPU utilization") {
    const std::string table = report::render_table(two_rows());
    CHECK(table.find("1,024") != std::string::npos);
    CHECK(table.find("250.0 ms") != std::string::npos);
    CHECK(table.find("84 %") != std::string::npos);
    CHECK(table.find("95.0 GB / 80.0 GB OOM") != std::string::npos);
    CHECK(table.find("share of time a kernel runs") != std::string::npos);
    CHECK(table.find("uncalibrated") != std::string::npos);
    const std::string md = report::render_markdown(two_rows());
    CHECK(md.find("| strategy | params | samples/s |") != std::string::npos);
  }

  TEST_CASE("human units") {
    CHECK(report::human_duration(0.0123) == "12.3 ms");
    CHECK(report::human_duration(90) == "90.00 s");
    CHECK(report::human_duration(5400) == "90.0 min");
    CHECK(report::human_duration(36000) == "10.00 h");
    CHECK(report::human_duration(3 * 86400) == "3.00 d");
    CHECK(report::human_usd(1234567.4) == "$1,234,567");
    CHECK(report::human_usd(12.345) == "$12.35");
    CHECK(report::human_usd(0.004) == "< $0.01");  // not "$0.00": a tiny job is not free
    CHECK(report::human_usd(0.005) == "$0.01");
    CHECK(report::human_usd(0.0) == "$0.00");
    // Energy: 1 kWh = 3.6 MJ. A short run prints Wh rather than "0.0 kWh".
    CHECK(report::human_energy(3.6e6 * 1234.4) == "1,234 kWh");
    CHECK(report::human_energy(3.6e6 * 12.34) == "12.3 kWh");
    CHECK(report::human_energy(3.6e6 * 0.1) == "0.1 kWh");
    CHECK(report::human_energy(3.6e3 * 42.4) == "42 Wh");
    CHECK(report::human_energy(3.6e3 * 0.4) == "< 1 Wh");
    CHECK(report::human_energy(0.0) == "0 Wh");
    // Always GB, with thousands separators: a new user's 100 M-token sequence printed
    // "354973.2 GB".
    CHECK(report::human_bytes(14.94e9) == "14.9 GB");
    CHECK(report::human_bytes(3.549732e14) == "354,973.2 GB");
    // GPU memory as marketed: 80 GiB, not "85.9 GB"; an ECC-reduced 22,888 MiB with a decimal.
    CHECK(report::human_gibibytes(80.0 * 1073741824.0) == "80 GiB");
    CHECK(report::human_gibibytes(22888.0 * 1048576.0) == "22.4 GiB");
  }

  TEST_CASE("unknown format names the accepted ones") {
    CHECK_THROWS_WITH_AS(report::format_from_name("xml"),
                         "unknown format 'xml'; expected table, markdown, csv or json", std::invalid_argument);
  }
}

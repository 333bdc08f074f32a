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
  TEST_CASE("CSV: the documented columns, SI values, empty cells for an OOM row, quoted commas") {
    const std::string csv = report::render_csv(two_rows());
    const std::string header =
        "strategy,throughput_samples_per_s,step_time_s,data_wait_s,h2d_s,gpu_compute_s,optimizer_s,"
        "gpu_utilization,mfu,peak_memory_bytes,memory_capacity_bytes,fits,epoch_time_s,time_to_train_s,"
        "cost_on_demand_usd,energy_kwh,bottleneck,suggestion,throughput_tokens_per_s,host_dispatch_s,"
        "cost_on_premises_usd,gpus,global_batch_samples,gpu,market,time_p50_s,time_p90_s,cost_p50_usd,"
        "cost_p90_usd,expected_preemptions,lost_time_share,finished_share,checkpoint_interval_s,trials,"
        "communication_exposed_s,scaling_efficiency,parallelism,collective,nodes,interconnect,network,"
        "network_bytes_per_s,single_gpu_throughput_samples_per_s,suggestion_overrides,suggestion_goal,"
        "suggestion_gain,suggested_throughput_samples_per_s,suggested_time_to_train_s,suggested_cost_usd\n";
    CHECK(csv.substr(0, header.size()) == header);
    // energy 3.6e8 J = 100 kWh
    CHECK(csv.find("baseline,1024,0.25,0.04,0,0.2,0.01,0.84,0.15,3e+10,8e+10,true,1251.25,112612,1234.5,100,"
                   "gpu_compute,training.precision: bf16_amp,,0,,1,256,a100-80gb,,,,,,,,,,,0,,,,1,,,,,,,,,,\n") != std::string::npos);
    CHECK(csv.find("\"bs1024, big\",,,,,,,,,9.5e+10,8e+10,false,,,,,memory,") != std::string::npos);
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
    const std::string table = report::render_table(r);
    CHECK(table.find("GPUs") != std::string::npos);
    CHECK(table.find("scaling") != std::string::npos);
    CHECK(table.find("90 %") != std::string::npos);
    CHECK(table.find("2.0 ms") != std::string::npos);
    CHECK(table.find("comm = communication per step not hidden") != std::string::npos);
    v.nodes = 2;
    v.interconnect = "nvlink3_nvswitch";
    v.network = "infiniband";
    v.network_bytes_per_s = 50e9;
    CHECK(report::render_csv(r).find(",0.002,0.9,ddp,ring/simple,2,nvlink3_nvswitch,infiniband,5e+10,142,,,,,,\n") !=
          std::string::npos);
    const auto j = nlohmann::json::parse(report::render_json(r));
    CHECK(j["variants"][0]["scaling_efficiency"].get<double>() == doctest::Approx(0.9));
    CHECK(j["variants"][0]["collective"] == "ring/simple");
    CHECK(j["variants"][0]["parallelism"] == "ddp");
    CHECK(j["variants"][0]["interconnect"] == "nvlink3_nvswitch");
    CHECK(j["variants"][0]["network_bytes_per_s"].get<double>() == doctest::Approx(50e9));
    // A one-GPU scenario keeps its table as before: no multi-GPU columns.
    CHECK(report::render_table(two_rows()).find("scaling") == std::string::npos);
  }

  TEST_CASE("CSV, JSON and table: the job-level columns of a spot row come after the existing ones") {
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
    CHECK(csv.find(",a100-80gb,spot,3600,7200,10,20,1.5,0.25,1,1800,200,0,,,,1,,,,,,,,,,\n") != std::string::npos);
    const auto j = nlohmann::json::parse(report::render_json(r));
    CHECK(j["variants"][0]["job_level"]["time_p90_s"].get<double>() == doctest::Approx(7200.0));
    CHECK(j["variants"][0]["job_level"]["market"] == "spot");
    const std::string table = report::render_table(r);
    CHECK(table.find("$ p90") != std::string::npos);
    CHECK(report::render_table(two_rows()).find("$ p90") == std::string::npos);  // no spot, no spot columns
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
    CHECK(report::render_csv(r).find(",data_loader.num_workers=7;data_loader.pin_memory=true,time_to_train,0.84,"
                                     "1884.16,61202.4,670.92\n") != std::string::npos);
    const auto j = nlohmann::json::parse(report::render_json(r));
    const auto& s = j["variants"][0]["suggested"];
    CHECK(s["overrides"]["data_loader.num_workers"] == "7");
    CHECK(s["overrides"]["data_loader.pin_memory"] == "true");
    CHECK(s["goal"] == "time_to_train");
    CHECK(s["relieves"] == "data_loading_cpu");
    CHECK(s["cost_change_usd"].get<double>() == doctest::Approx(-563.58));
    CHECK(j["variants"][0]["critical_path_share"]["data_loading_cpu"].get<double>() == doctest::Approx(0.16));
    CHECK_FALSE(j["variants"][1].contains("suggested"));  // the OOM row
    c.goal = "cost";
    v.suggested = c;
    CHECK(report::render_table(r).find("-$564 per run, ranked on cost)") != std::string::npos);
  }

  TEST_CASE("JSON: SI-suffixed keys, no throughput for an OOM row") {
    const auto j = nlohmann::json::parse(report::render_json(two_rows()));
    CHECK(j["variants"][0]["step_time_s"].get<double>() == doctest::Approx(0.25));
    CHECK(j["variants"][0]["cost_on_demand_usd"].get<double>() == doctest::Approx(1234.5));
    CHECK(j["variants"][1]["fits"].get<bool>() == false);
    CHECK_FALSE(j["variants"][1].contains("throughput_samples_per_s"));
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
    CHECK(md.find("| strategy | samples/s |") != std::string::npos);
  }

  TEST_CASE("human units") {
    CHECK(report::human_duration(0.0123) == "12.3 ms");
    CHECK(report::human_duration(90) == "90.00 s");
    CHECK(report::human_duration(5400) == "90.0 min");
    CHECK(report::human_duration(36000) == "10.00 h");
    CHECK(report::human_duration(3 * 86400) == "3.00 d");
    CHECK(report::human_usd(1234567.4) == "$1,234,567");
    CHECK(report::human_usd(12.345) == "$12.35");
  }

  TEST_CASE("unknown format names the accepted ones") {
    CHECK_THROWS_WITH_AS(report::format_from_name("xml"),
                         "unknown format 'xml'; expected table, markdown, csv or json", std::invalid_argument);
  }
}

/// \file gpuplan_bench.cpp
/// Speed figures (reported, not asserted: DEVELOPERS.md): simulated events per second of the
/// engine on a self-rescheduling loop, and the wall time of each shipped scenario (load,
/// simulate every strategy, check the remedies of each row as `gpuplan run` does, render).
/// Each figure gives the process's CPU time beside the wall time (bench/bench_clock.h): on a
/// shared machine the wall time also counts other work.

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_clock.h"
#include "cli/advisor.h"
#include "cli/app_context.h"
#include "cli/scenario_runner.h"
#include "config/scenario_loader.h"
#include "report/report_format.h"
#include "models/interconnect/interconnect_table.h"
#include "models/run/run_variant.h"
#include "sim/engine.h"

using namespace gpuplan;

namespace {

void bench_engine() {
  constexpr std::uint64_t kEvents = 20'000'000;
  sim::Engine engine;
  std::uint64_t remaining = kEvents;
  std::function<void()> tick = [&] {
    // 16 chains share the budget; each stops once it is spent (no unsigned wrap-around).
    if (remaining > 0) {
      --remaining;
      engine.schedule_in(7, tick);
    }
  };
  for (int i = 0; i < 16; ++i) engine.schedule_in(i, tick);
  const bench::Stopwatch watch;
  engine.run();
  const bench::Elapsed t = watch.elapsed();
  fmt::print("engine: {} events in {:.3f} s wall, {:.3f} s CPU = {:.1f} M events/s of CPU (16 pending)\n",
             engine.events_processed(), t.wall_s, t.cpu_s, static_cast<double>(engine.events_processed()) / t.cpu_s / 1e6);
}

void bench_scenarios() {
  const cli::AppContext context = cli::load_context(cli::default_catalog_dir(), {});
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(GPUPLAN_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const bench::Stopwatch watch;
    const config::Scenario s = config::load_scenario(f.string(), context.catalogs, context.families);
    cli::ScenarioRun run = cli::run_scenario(s, models::ModelParams{});
    const bench::Stopwatch advice_watch;
    cli::advise(run, s, context, models::ModelParams{});
    const bench::Elapsed advice = advice_watch.elapsed();
    const std::string text = report::render_table(run.result);
    const bench::Elapsed t = watch.elapsed();
    fmt::print("scenario {:<38} {:2} variants {:8} events {:6.3f} s wall {:6.3f} s CPU ({:.3f} s CPU of it checking "
               "remedies)\n",
               f.filename().string(), run.result.variants.size(), run.events, t.wall_s, t.cpu_s, advice.cpu_s);
  }
}

// Data-parallel scale: the 8-GPU AMP row of dle-resnet50-8xa100.yaml on 1, 8 and 128 nodes
// (8, 64 and 1,024 GPUs) joined by 8 x 200 Gbit/s InfiniBand NICs per node. Identical ranks are
// simulated once, so the cost should stay flat (each run also simulates one GPU alone for the
// scaling efficiency).
void bench_data_parallel_scale() {
  const cli::AppContext context = cli::load_context(cli::default_catalog_dir(), {});
  const config::Scenario s = config::load_scenario(std::string(GPUPLAN_SOURCE_DIR) + "/scenarios/dle-resnet50-8xa100.yaml",
                                                   context.catalogs, context.families);
  const auto it = std::find_if(s.variants.begin(), s.variants.end(),
                               [](const config::Variant& v) { return v.job.hardware.gpus_per_node == 8; });
  if (it == s.variants.end()) return;
  for (int nodes : {1, 8, 128}) {
    models::JobSpec job = it->job;
    job.cloud.reset();
    job.hardware.nodes = nodes;
    job.hardware.topology.nodes = nodes;
    job.hardware.topology.inter_node =
        models::network_link(models::NetworkKind::kInfiniband, core::gigabits_per_s(200),
                             models::default_message_latency_s(models::NetworkKind::kInfiniband));
    job.hardware.topology.nics_per_node = 8;
    const bench::Stopwatch watch;
    const models::VariantRun run = models::run_variant(job, "scale", models::ModelParams{});
    const bench::Elapsed t = watch.elapsed();
    fmt::print("data parallel {:5} GPUs: {:9.0f} img/s, scaling {:5.1f} %, exposed comm {:.2f} ms/step, "
               "{:8} events, {:.3f} s wall, {:.3f} s CPU\n",
               nodes * 8, run.result.throughput_samples_per_s, 100.0 * run.result.scaling_efficiency.value_or(1.0),
               run.result.step.communication_exposed_s * 1e3, run.events, t.wall_s, t.cpu_s);
  }
}

}  // namespace

void bench_plan_sweep();  // bench/plan_bench.cpp
void bench_plan_6216732();  // bench/plan_bench.cpp: 6216732's plan workload only
void bench_load();        // bench/load_bench.cpp
void bench_layout_scale();  // bench/layout_scale_bench.cpp

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "plan") {  // only the sweep figures (bench/plan_bench.cpp)
    bench_plan_sweep();
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "plan-6216732") {  // only 6216732's plan workload
    bench_plan_6216732();
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "load") {  // only the loading figures (bench/load_bench.cpp)
    bench_load();
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "scale") {  // only the data- and model-parallel scale figures
    bench_data_parallel_scale();
    bench_layout_scale();
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "scenarios") {  // only the engine and scenario figures
    bench_engine();
    bench_scenarios();
    return 0;
  }
  bench_engine();
  bench_scenarios();
  bench_data_parallel_scale();
  bench_layout_scale();
  bench_plan_sweep();
  bench_load();
  return 0;
}

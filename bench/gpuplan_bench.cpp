/// \file gpuplan_bench.cpp
/// Speed figures (reported, not asserted: DEVELOPERS.md): simulated events per second of the
/// engine on a self-rescheduling loop, and the wall time of each shipped scenario (load,
/// simulate every strategy, render).

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/app_context.h"
#include "cli/scenario_runner.h"
#include "config/scenario_loader.h"
#include "report/report_format.h"
#include "sim/engine.h"

using namespace gpuplan;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

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
  const auto start = Clock::now();
  engine.run();
  const double wall = seconds_since(start);
  fmt::print("engine: {} events in {:.3f} s = {:.1f} M events/s (16 pending)\n", engine.events_processed(), wall,
             static_cast<double>(engine.events_processed()) / wall / 1e6);
}

void bench_scenarios() {
  const cli::AppContext context = cli::load_context(cli::default_catalog_dir(), {});
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(GPUPLAN_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const auto start = Clock::now();
    const config::Scenario s = config::load_scenario(f.string(), context.catalogs, context.families);
    const cli::ScenarioRun run = cli::run_scenario(s, models::ModelParams{});
    const std::string text = report::render_table(run.result);
    const double wall = seconds_since(start);
    fmt::print("scenario {:<45} {:2} variants  {:8} events  {:.3f} s wall\n", f.filename().string(),
               run.result.variants.size(), run.events, wall);
  }
}

}  // namespace

void bench_plan_sweep();  // bench/plan_bench.cpp

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "plan") {  // only the sweep figures (bench/plan_bench.cpp)
    bench_plan_sweep();
    return 0;
  }
  bench_engine();
  bench_scenarios();
  bench_plan_sweep();
  return 0;
}

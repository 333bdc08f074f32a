/// \file load_bench.cpp
/// Speed of loading alone (issue 15 target: 10,000 variants in under a second): a scenario
/// with a sweep of 100 x 100 values (10,000 sweep points), one with 10,000 strategies, and
/// one with a single sweep key of 10,000 values, each parsed and validated (no simulation).
/// Before the overrides were applied in place (config/applied_overrides.h) the file was
/// re-parsed per variant: 1,000 sweep values took 113 s.

#include <fmt/format.h>

#include <string>

#include "bench_clock.h"
#include "cli/app_context.h"
#include "config/scenario_loader.h"

using namespace gpuplan;

namespace {

/// The one-GPU scenario of tests/config/config_fixture.h.
const std::string kBase = R"(format: gpuplan/v1
name: load bench
seed: 1
workload:
  model: resnet50
  dataset:
    samples: 1281167
    sample_size: "110 KiB"
    decode_time: "6 ms"
  epochs: 1
training:
  batch_size: 32
hardware:
  gpu: rtx3090
  cpu_cores: 8
  host_memory: "64 GiB"
  storage: nvme_ssd
)";

std::string values(int from, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += (i == 0 ? "" : ", ") + std::to_string(from + i);
  return out;
}

void time_load(const std::string& label, const std::string& text, const cli::AppContext& context) {
  const bench::Stopwatch watch;
  const config::Scenario s = config::parse_scenario(text, "bench.yaml", context.catalogs, context.families);
  const auto [wall_s, cpu_s] = watch.elapsed();
  fmt::print("load: {:<34} {:>6} variants in {:.3f} s wall, {:.3f} s CPU ({:.1f} us CPU per variant, {:.1f} MB "
             "of YAML)\n",
             label, s.variants.size(), wall_s, cpu_s, 1e6 * cpu_s / static_cast<double>(s.variants.size()),
             static_cast<double>(text.size()) / 1e6);
}

}  // namespace

void bench_load() {
  const cli::AppContext context = cli::load_context(cli::default_catalog_dir(), {});
  time_load("sweep 100 x 100", kBase + "sweep:\n  training.batch_size: [" + values(1, 100) +
                                   "]\n  data_loader.prefetch_factor: [" + values(1, 100) + "]\n",
            context);
  std::string strategies = kBase + "strategies:\n";
  for (int i = 0; i < 10'000; ++i) {
    strategies += "  s" + std::to_string(i) + ": {training.batch_size: " + std::to_string(1 + i % 512) +
                  ", data_loader.num_workers: " + std::to_string(i % 8) + "}\n";
  }
  time_load("10,000 strategies of 2 overrides", strategies, context);
  time_load("sweep of 10,000 values on one key",
            kBase + "sweep:\n  training.batch_size: [" + values(1, 10'000) + "]\n", context);
}

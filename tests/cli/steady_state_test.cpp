// One steady state (issue 10 item 5): the steady-state shortcut and `--exact` (every batch of
// every epoch simulated) agree within 2 % on throughput and epoch time, for every shipped
// scenario and for latency-bound storage (an object-store mount with 8, 12 and 16 workers).
// Datasets are cut to a few hundred steps per epoch (jobs to one or two epochs) so that the
// exact mode stays fast; both modes run the same reduced job.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/app_context.h"
#include "cli/scenario_runner.h"
#include "config/scenario_loader.h"
#include "models/job/job_time.h"

using namespace gpuplan;

namespace {

const cli::AppContext& context() {
  static const cli::AppContext c = cli::load_context(std::string(GPUPLAN_SOURCE_DIR) + "/catalogs", {});
  return c;
}

/// Cuts every variant to `steps` optimizer steps per epoch and `epochs` epochs (a token budget
/// becomes epochs of the cut dataset).
config::Scenario reduced(config::Scenario s, double steps, double epochs) {
  for (config::Variant& v : s.variants) {
    v.job.dataset.samples = steps * models::global_batch_samples(v.job);
    v.job.dataset.eval_samples = std::min(v.job.dataset.eval_samples, v.job.dataset.samples / 10.0);
    v.job.duration.epochs = epochs;
    v.job.duration.tokens = 0.0;
  }
  return s;
}

/// Runs `scenario` in both modes and checks each row's throughput and epoch time agree.
void check_modes_agree(const config::Scenario& scenario) {
  models::ModelParams steady;
  models::ModelParams exact;
  exact.step.exact = true;
  const cli::ScenarioRun a = cli::run_scenario(scenario, steady);
  const cli::ScenarioRun b = cli::run_scenario(scenario, exact);
  REQUIRE(a.result.variants.size() == b.result.variants.size());
  for (std::size_t i = 0; i < a.result.variants.size(); ++i) {
    const models::VariantResult& x = a.result.variants[i];
    const models::VariantResult& y = b.result.variants[i];
    if (!x.fits) continue;  // an OOM row is not simulated in either mode
    INFO(scenario.name, " / ", x.strategy, ": steady ", x.throughput_samples_per_s, " samples/s, epoch ",
         x.epoch_time_s, " s; exact ", y.throughput_samples_per_s, " samples/s, epoch ", y.epoch_time_s, " s");
    CHECK(x.throughput_samples_per_s == doctest::Approx(y.throughput_samples_per_s).epsilon(0.02));
    CHECK(x.epoch_time_s == doctest::Approx(y.epoch_time_s).epsilon(0.02));
  }
}

}  // namespace

TEST_SUITE("cli.steady_state") {
  TEST_CASE("every shipped scenario: the steady state and --exact agree within 2 %") {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(std::string(GPUPLAN_SOURCE_DIR) + "/scenarios")) {
      if (e.path().extension() == ".yaml") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() >= 10);
    for (const auto& f : files) {
      CAPTURE(f.string());
      const config::Scenario s =
          config::load_scenario(f.string(), context().catalogs, context().families, config::LoadOptions{});
      // One epoch: later epochs use the same formula, and the exact mode stays quick.
      check_modes_agree(reduced(s, 400.0, 1.0));
    }
  }

  TEST_CASE("an object-store mount with 8, 12 and 16 workers: latency-bound, both modes agree") {
    // ResNet-18 AMP, batch 64, ImageNet JPEG files on object_store_fuse (100 ms per GET, 64 in
    // flight, 80 MB/s random reads). A worker reads its batch's 64 files one after another:
    // 6.4 s of latency, then 64 x 110 KiB = 7.21 MB over the shared 80 MB/s (0.09 s alone).
    // Upper bound, latency alone: W x 64 / 6.4 s = 10 W samples/s. Lower bound, all W workers
    // in phase so that their bytes always share the link: W x 64 / (6.4 + W x 0.0901 s):
    // 71.9 (8), 102.7 (12) and 130.6 (16) samples/s. Workers that start together drift out of
    // phase (their decode times differ), so the steady state lies between the two.
    const std::string yaml =
        "format: gpuplan/v1\n"
        "name: object store\n"
        "seed: 42\n"
        "workload:\n"
        "  model: resnet18\n"
        "  dataset: {samples: 100000, sample_size: \"110 KiB\", layout: files, decode_time: \"6 ms\"}\n"
        "  epochs: 1\n"
        "training: {batch_size: 64, precision: fp16_amp, optimizer: sgd_momentum, memory_format: channels_last}\n"
        "data_loader: {num_workers: 8, pin_memory: true, persistent_workers: true}\n"
        "hardware: {gpu: rtx3090, cpu_cores: 16, host_memory: \"32 GiB\", storage: object_store_fuse}\n"
        "strategies:\n"
        "  w8: {}\n"
        "  w12: {data_loader.num_workers: 12}\n"
        "  w16: {data_loader.num_workers: 16}\n";
    const config::Scenario s = config::parse_scenario(yaml, "object-store.yaml", context().catalogs, context().families);
    // 1,500 steps, one epoch (the cut dataset would fit the page cache of a second one).
    const config::Scenario cut = reduced(s, 1500.0, 1.0);
    check_modes_agree(cut);
    const cli::ScenarioRun r = cli::run_scenario(cut, models::ModelParams{});
    const int workers[] = {8, 12, 16};
    for (std::size_t i = 0; i < 3; ++i) {
      const double w = workers[i];
      const double in_phase = w * 64.0 / (6.4 + w * 64.0 * 110.0 * 1024.0 / 80e6);
      CAPTURE(r.result.variants[i].strategy);
      CHECK(r.result.variants[i].throughput_samples_per_s <= 10.0 * w);
      CHECK(r.result.variants[i].throughput_samples_per_s > in_phase);
    }
  }
}

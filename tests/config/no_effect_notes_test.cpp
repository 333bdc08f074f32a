// Notes for keys that change nothing in the job (config/no_effect_notes.h): each note, and no
// note where the key does act.

#include "config/no_effect_notes.h"

#include <doctest/doctest.h>

#include <string>

#include "config/scenario_loader.h"
#include "config_fixture.h"

namespace gpuplan::config {
namespace {

using namespace testing;

/// The notes of the only variant of `text`.
std::vector<std::string> notes_of(const std::string& text) { return parse_text(text).variants.front().notes; }

bool has_note(const std::vector<std::string>& notes, const std::string& note) {
  for (const std::string& n : notes) {
    if (n == note) return true;
  }
  return false;
}

const char* const kSynthetic = "format: gpuplan/v1\nname: s\nworkload:\n  model: resnet50\n"
                               "  dataset: {samples: 10000, synthetic: true, sample_size: \"110 KiB\", decode_time: \"6 ms\"}\n"
                               "  epochs: 1\ntraining: {batch_size: 32}\n"
                               "data_loader: {num_workers: 16, pin_memory: true}\n"
                               "hardware: {gpu: a100-80gb}\n"
                               "parallelism: {strategy: none, bucket_size: \"50 MiB\"}\n"
                               "checkpointing: {interval: auto}\n"
                               "simulation: {trials: 50}\n";

}  // namespace

TEST_SUITE("config.no_effect_notes") {
  TEST_CASE("synthetic data, one GPU, no cloud: each key that does nothing is named") {
    const std::vector<std::string> notes = notes_of(kSynthetic);
    CHECK(has_note(notes, "synthetic data: workload.dataset.sample_size and workload.dataset.decode_time have no "
                          "effect (no sample is read or decoded; batches are made on the GPU)"));
    CHECK(has_note(notes, "synthetic data: data_loader.num_workers and data_loader.pin_memory have no effect (no "
                          "loader runs)"));
    CHECK(has_note(notes, "parallelism.bucket_size has no effect: one GPU exchanges no gradients"));
    // checkpointing.interval auto without a cloud section is Young/Daly's for hardware failures
    // (models/job/cloud_job.cpp): it has an effect, so no note here.
    for (const std::string& n : notes) CHECK(n.find("checkpointing.interval") == std::string::npos);
    CHECK(has_note(notes, "simulation.trials has no effect: without preemptions (no cloud spot market) every trial is "
                          "the same"));
  }

  TEST_CASE("real data, ddp buckets on 8 GPUs, a written interval: no note") {
    const std::string real =
        "format: gpuplan/v1\nname: r\nworkload:\n  model: resnet50\n"
        "  dataset: {samples: 10000, sample_size: \"110 KiB\", decode_time: \"6 ms\"}\n  epochs: 1\n"
        "training: {batch_size: 32}\ndata_loader: {num_workers: 4}\n"
        "hardware: {gpu: a100-80gb, gpus_per_node: 8, cpu_cores: 64, host_memory: \"512 GiB\", storage: nvme_ssd}\n"
        "parallelism: {strategy: ddp, bucket_size: \"50 MiB\"}\ncheckpointing: {interval: \"1 h\"}\n";
    for (const std::string& n : notes_of(real)) {
      CAPTURE(n);
      CHECK(n.find("no effect") == std::string::npos);
      CHECK(n.find("interval auto") == std::string::npos);
    }
    // FSDP reduces per unit: its bucket_size does nothing.
    const std::string fsdp = with_replaced(real, "strategy: ddp", "strategy: fsdp");
    CHECK(has_note(notes_of(fsdp), "parallelism.bucket_size has no effect: this strategy reduces gradients per unit, "
                                   "not in buckets (ddp and zero stages 1-2 use them)"));
  }
}

}  // namespace gpuplan::config

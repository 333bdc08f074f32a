// The critical path, the candidate remedies and the choice among simulated ones, by hand.
#include "models/run/advice.h"

#include <doctest/doctest.h>

#include "../test_gpus.h"
#include "models/interconnect/interconnect_table.h"
#include "models/run/bottleneck.h"
#include "models/run/critical_path.h"
#include "models/run/remedies.h"

using namespace gpuplan::models;

namespace {

JobSpec ddp_job(const std::string& link, int nodes, int accumulation) {
  JobSpec job;
  job.hardware.gpu = testing::ampere_like();
  job.hardware.gpus_per_node = 8;
  job.hardware.nodes = nodes;
  job.hardware.cpu_cores = 64;
  job.hardware.topology.gpus_per_node = 8;
  job.hardware.topology.nodes = nodes;
  job.hardware.topology.intra_node = intra_node_link(link);
  job.parallelism.strategy = ParallelStrategy::kDdp;
  job.training.batch_size = 16;
  job.training.gradient_accumulation = accumulation;
  job.training.precision = Precision::kBf16Amp;
  job.training.framework_overhead = FrameworkOverhead::kCompiled;
  job.dataset.synthetic = true;
  return job;
}

VariantResult row_with(const std::vector<CriticalPathPart>& path, double time_s, std::optional<double> usd) {
  VariantResult r;
  r.fits = true;
  r.critical_path = path;
  r.time_to_train_s = time_s;
  r.throughput_samples_per_s = 1000.0 / time_s;
  r.cost_on_demand_usd = usd;
  return r;
}

std::vector<std::string> paths_of(const std::vector<Remedy>& remedies) {
  std::vector<std::string> out;
  for (const Remedy& r : remedies) out.push_back(r.overrides.front().path + ": " + r.overrides.front().value);
  return out;
}

}  // namespace

TEST_SUITE("models.run.advice") {
  TEST_CASE("the critical path splits the data wait by where the readers spent their time") {
    StepBreakdown s;
    s.step_time_s = 0.200;
    s.gpu_compute_s = 0.090;
    s.optimizer_s = 0.010;
    s.data_wait_s = 0.080;
    s.h2d_s = 0.020;
    LoaderStats loader;
    loader.storage_s = 0.030;  // readers: 30 ms storage, 60 ms decode + 30 ms pin per batch
    loader.cpu_s = 0.060;
    loader.pin_s = 0.030;
    loader.batches_measured = 5;
    const std::vector<CriticalPathPart> path = critical_path(StepPlan{}, s, loader);
    REQUIRE(path.size() == 6);
    CHECK(path[0].resource == "gpu_compute");
    CHECK(path[0].seconds == doctest::Approx(0.100));  // kernels + optimizer
    CHECK(path[0].share == doctest::Approx(0.5));
    CHECK(path[1].resource == "data_loading_cpu");
    CHECK(path[1].seconds == doctest::Approx(0.060));  // 80 ms x 90 / 120
    CHECK(path[2].resource == "storage_io");
    CHECK(path[2].seconds == doctest::Approx(0.020));  // 80 ms x 30 / 120
    CHECK(path[3].share == doctest::Approx(0.1));      // h2d 20 / 200
    // The GPU waits 40 % of the step for its input: the loader sets the step, not the 50 % of
    // kernels (a faster GPU would wait longer), and decode is its larger part.
    CHECK(binding_part(path) == "data_loading_cpu");
    // A 1 % wait (under kLoaderBindingShare) is warm-up or jitter: the largest part limits.
    s.data_wait_s = 0.002;
    s.step_time_s = 0.122;
    CHECK(binding_part(critical_path(StepPlan{}, s, loader)) == "gpu_compute");
    // 2 % of the step: the loader's.
    s.data_wait_s = 0.0025;
    s.step_time_s = 0.125;
    CHECK(binding_part(critical_path(StepPlan{}, s, loader)) == "data_loading_cpu");
    CHECK(binding_part({}) == "gpu_compute");
  }

  TEST_CASE("remedies are offered for the resources on the critical path only") {
    const JobSpec job = ddp_job("pcie4_host_bridge", 1, 1);
    // 100 ms of kernels, 40 ms of exposed all-reduce per step (40 / 140 = 29 %).
    const VariantResult row =
        row_with({{"gpu_compute", 0.100, 0.714}, {"communication", 0.040, 0.286}}, 3600.0, std::nullopt);
    CHECK(paths_of(candidate_remedies(job, row, {})) ==
          std::vector<std::string>{"training.batch_size: 32", "training.gradient_accumulation: 4",
                                   "hardware.gpu_interconnect: pcie4_switch"});
    // 1.9 % of the step: removing it all gains 0.019 / 0.981 = 1.94 % < 2 %, not simulated.
    const VariantResult hidden =
        row_with({{"gpu_compute", 0.100, 0.981}, {"communication", 0.0019, 0.019}}, 3600.0, std::nullopt);
    CHECK(paths_of(candidate_remedies(job, hidden, {})) == std::vector<std::string>{"training.batch_size: 32"});
    // 2 %: 0.02 / 0.98 = 2.04 %, worth a simulation.
    const VariantResult exposed =
        row_with({{"gpu_compute", 0.100, 0.98}, {"communication", 0.002, 0.02}}, 3600.0, std::nullopt);
    CHECK(candidate_remedies(job, exposed, {}).size() == 3);
  }

  TEST_CASE("an fp32 CNN waiting on its loader gets workers, AMP, compiled and a bigger batch to try") {
    JobSpec job;
    job.hardware.gpu = testing::ampere_like();
    job.hardware.cpu_cores = 8;
    job.workload.family = "resnet";
    job.training.batch_size = 32;
    job.data_loader.num_workers = 3;
    job.dataset.layout = DatasetLayout::kShards;
    const VariantResult row =
        row_with({{"gpu_compute", 0.060, 0.6}, {"data_loading_cpu", 0.040, 0.4}}, 3600.0, std::nullopt);
    // 8 cores: 7 workers, one core for the main process. channels_last needs tensor-core
    // convolutions, which fp32 has not: offered only after AMP.
    CHECK(paths_of(candidate_remedies(job, row, {})) ==
          std::vector<std::string>{"data_loader.num_workers: 7", "training.precision: bf16_amp",
                                   "training.framework_overhead: compiled", "training.batch_size: 64"});
  }

  TEST_CASE("recomputation is offered off where it runs: the replayed forward is GPU work the memory may spare") {
    JobSpec job;
    job.hardware.gpu = testing::ampere_like();
    job.training.batch_size = 4;
    job.training.precision = Precision::kBf16Amp;
    job.training.framework_overhead = FrameworkOverhead::kCompiled;
    const VariantResult row = row_with({{"gpu_compute", 0.100, 1.0}}, 3600.0, std::nullopt);
    CHECK(paths_of(candidate_remedies(job, row, {})) == std::vector<std::string>{"training.batch_size: 8"});
    for (const ActivationRecompute r :
         {ActivationRecompute::kFull, ActivationRecompute::kSelective, ActivationRecompute::kEvery}) {
      job.training.activation_recompute = r;
      CHECK(paths_of(candidate_remedies(job, row, {})) ==
            std::vector<std::string>{"training.activation_checkpointing: false", "training.batch_size: 8"});
    }
  }

  TEST_CASE("the remedy with the largest gain on its goal is the suggestion and names the bottleneck") {
    VariantResult row = row_with({{"gpu_compute", 0.1, 0.0}}, 3600.0, 100.0);
    const Remedy workers{"data_loading_cpu", {{"data_loader.num_workers", "7"}}, RemedyGoal::kTimeToTrain, ""};
    const Remedy amp{"gpu_compute", {{"training.precision", "bf16_amp"}}, RemedyGoal::kTimeToTrain, ""};
    const Remedy batch{"gpu_compute", {{"training.batch_size", "64"}}, RemedyGoal::kTimeToTrain, ""};
    VariantResult oom = row_with({}, 1000.0, 20.0);  // faster, but does not fit: never suggested
    oom.fits = false;
    apply_advice(row, {{amp, row_with({}, 3500.0, 97.0)},       // 3600 / 3500 - 1 = +2.9 %
                       {workers, row_with({}, 2000.0, 55.0)},   // +80 %
                       {batch, oom}});
    CHECK(row.bottleneck == "data_loading_cpu");
    CHECK(row.suggestion == "data_loader.num_workers: 7");
    REQUIRE(row.suggested);
    CHECK(row.suggested->gain == doctest::Approx(0.8));
    CHECK(row.suggested->throughput_change == doctest::Approx(0.8));
    CHECK(row.suggested->goal == "time_to_train");
    CHECK(*row.suggested->cost_change_usd == doctest::Approx(-45.0));
  }

  TEST_CASE("out of memory: a fitting change that keeps the numerics is preferred; otherwise the caveat is named") {
    VariantResult row = row_with({}, 3600.0, std::nullopt);
    row.fits = false;
    row.peak_memory_bytes = 100e9;
    const auto fitting = [](double time_s, double peak_bytes) {
      VariantResult r = row_with({}, time_s, std::nullopt);
      r.peak_memory_bytes = peak_bytes;
      r.memory_capacity_bytes = 80e9;
      return r;
    };
    const Remedy checkpointing{"memory", {{"training.activation_checkpointing", "true"}}, RemedyGoal::kTimeToTrain, ""};
    const Remedy bf16{"memory", {{"training.precision", "bf16"}}, RemedyGoal::kTimeToTrain,
                      "bf16 weights without fp32 master copies"};
    // Pure bf16 is faster, but checkpointing fits too and trains the same model.
    VariantResult both = row;
    apply_advice(both, {{bf16, fitting(3000.0, 60e9)}, {checkpointing, fitting(4000.0, 50e9)}});
    CHECK(both.suggestion == "training.activation_checkpointing: true (checked: fits, 50.0 GB of 80.0 GB)");
    // Only bf16 fits: named, with what it changes.
    VariantResult only = row;
    VariantResult still_oom = fitting(4000.0, 90e9);
    still_oom.fits = false;
    apply_advice(only, {{bf16, fitting(3000.0, 60e9)}, {checkpointing, still_oom}});
    CHECK(only.suggestion == "training.precision: bf16 (checked: fits, 60.0 GB of 80.0 GB; changes the numerics: bf16 "
                             "weights without fp32 master copies)");
    // A faster change that fits within 5 % of the memory gives way to one with room; alone, it
    // is named with that margin.
    const Remedy fused{"memory", {{"workload.model", "{base: llama3-8b, loss: fused_linear_cross_entropy}"}},
                       RemedyGoal::kTimeToTrain, ""};
    VariantResult room = row;
    apply_advice(room, {{fused, fitting(3000.0, 79e9)}, {checkpointing, fitting(4000.0, 50e9)}});
    CHECK(room.suggestion == "training.activation_checkpointing: true (checked: fits, 50.0 GB of 80.0 GB)");
    VariantResult tight = row;
    apply_advice(tight, {{fused, fitting(3000.0, 79e9)}, {checkpointing, still_oom}});
    CHECK(tight.suggestion == "workload.model: {base: llama3-8b, loss: fused_linear_cross_entropy} (checked: fits, "
                              "79.0 GB of 80.0 GB, within 5 % of capacity)");
    // A pair carries both members' caveats.
    const Remedy eight_bit{"memory", {{"training.optimizer", "adamw_8bit"}}, RemedyGoal::kTimeToTrain,
                           "8-bit optimizer moments"};
    const std::optional<Remedy> pair = combined_remedy(bf16, eight_bit);
    REQUIRE(pair);
    CHECK(pair->numerics_change == "bf16 weights without fp32 master copies, 8-bit optimizer moments");
  }

  TEST_CASE("below the minimum gain the row keeps its critical-path bottleneck and hint") {
    VariantResult row = row_with({{"gpu_compute", 0.1, 0.0}}, 3600.0, std::nullopt);
    row.bottleneck = "gpu_compute";
    row.suggestion = "a faster GPU or more GPUs";
    const Remedy amp{"gpu_compute", {{"training.precision", "bf16_amp"}}, RemedyGoal::kTimeToTrain, ""};
    apply_advice(row, {{amp, row_with({}, 3600.0 / 1.019, std::nullopt)}});  // +1.9 % < 2 %
    CHECK(row.bottleneck == "gpu_compute");
    CHECK(row.suggestion == "a faster GPU or more GPUs");
    CHECK_FALSE(row.suggested);
  }

  TEST_CASE("a pair is looked for from the best two fitting remedies only when none gains enough") {
    VariantResult row = row_with({{"gpu_compute", 0.1, 0.0}}, 3600.0, 100.0);
    const Remedy compiled{"gpu_compute", {{"training.framework_overhead", "compiled"}}, RemedyGoal::kTimeToTrain, ""};
    const Remedy dali{"data_loading_cpu", {{"data_loader.preprocess_on", "gpu"}}, RemedyGoal::kTimeToTrain, ""};
    const Remedy batch{"gpu_compute", {{"training.batch_size", "512"}}, RemedyGoal::kTimeToTrain, ""};
    VariantResult oom = row_with({}, 1000.0, 20.0);
    oom.fits = false;
    // compiled +0.5 %, GPU decoding -15 %, the bigger batch does not fit: starts compiled, then dali.
    const std::vector<RemedyOutcome> weak = {{dali, row_with({}, 3600.0 / 0.85, 120.0)},
                                             {batch, oom},
                                             {compiled, row_with({}, 3600.0 / 1.005, 99.0)}};
    CHECK(pair_starts(row, weak) == std::vector<std::size_t>{2, 0});
    // One remedy at +2.9 % is enough: no pair.
    const std::vector<RemedyOutcome> strong = {{compiled, row_with({}, 3500.0, 97.0)}};
    CHECK(pair_starts(row, strong).empty());
    VariantResult oom_row = row;
    oom_row.fits = false;
    CHECK(pair_starts(oom_row, weak).empty());
  }

  TEST_CASE("a combined remedy keeps the first one's resource and goal, and refuses a shared key") {
    const Remedy compiled{"gpu_compute", {{"training.framework_overhead", "compiled"}}, RemedyGoal::kTimeToTrain, ""};
    const Remedy dali{"data_loading_cpu", {{"data_loader.preprocess_on", "gpu"}}, RemedyGoal::kTimeToTrain, ""};
    const Remedy graphs{"host_dispatch", {{"training.framework_overhead", "cuda_graphs"}}, RemedyGoal::kTimeToTrain, ""};
    const Remedy interval{"preemptions", {{"checkpointing.interval", "auto"}}, RemedyGoal::kCost, ""};
    const std::optional<Remedy> pair = combined_remedy(compiled, dali);
    REQUIRE(pair);
    CHECK(pair->relieves == "gpu_compute");
    CHECK(pair->goal == RemedyGoal::kTimeToTrain);
    CHECK(overrides_text(pair->overrides) == "training.framework_overhead: compiled, data_loader.preprocess_on: gpu");
    CHECK_FALSE(combined_remedy(compiled, graphs));    // both set training.framework_overhead
    CHECK_FALSE(combined_remedy(compiled, interval));  // time against dollars
  }

  TEST_CASE("a cost remedy is ranked on dollars") {
    VariantResult row = row_with({{"gpu_compute", 0.1, 0.0}}, 3600.0, 100.0);
    row.cost_p50_usd = 100.0;
    row.time_p50_s = 36000.0;
    VariantResult after = row_with({}, 3600.0, 100.0);
    after.cost_p50_usd = 40.0;  // 100 / 40 - 1 = +150 %
    after.time_p50_s = 9000.0;
    const Remedy checkpoints{"preemptions", {{"checkpointing.interval", "auto"}}, RemedyGoal::kCost, ""};
    apply_advice(row, {{checkpoints, after}});
    CHECK(row.bottleneck == "preemptions");
    REQUIRE(row.suggested);
    CHECK(row.suggested->goal == "cost");
    CHECK(row.suggested->gain == doctest::Approx(1.5));
    CHECK(row.suggested->time_to_train_s == doctest::Approx(9000.0));
    CHECK(*row.suggested->cost_change_usd == doctest::Approx(-60.0));
  }

  TEST_CASE("unchecked hints follow what is left to change") {
    // Fewer or more GPUs change the data-parallel ranks: the hint says how the global batch
    // (micro-batch x accumulation x ranks) stays, or that it changes.
    CHECK(unchecked_hint("communication", ddp_job("nvlink3_nvswitch", 2, 8)) ==
          "a faster network between nodes (InfiniBand/EFA class), or fewer nodes with more "
          "training.gradient_accumulation (the same global batch)");
    CHECK(unchecked_hint("communication", ddp_job("pcie4_host_bridge", 1, 8)) ==
          "NVLink between the GPUs, or fewer GPUs with more training.gradient_accumulation (the same global batch)");
    CHECK(unchecked_hint("gpu_compute", ddp_job("pcie4_host_bridge", 1, 8)) ==
          "a faster GPU, or more GPUs with less training.gradient_accumulation (the same global batch)");
    JobSpec one_step = ddp_job("pcie4_host_bridge", 1, 1);  // batch 16 x 1 micro-step
    CHECK(unchecked_hint("gpu_compute", one_step) ==
          "a faster GPU, or more GPUs with a smaller training.batch_size (the same global batch)");
    one_step.training.batch_size = 1;
    CHECK(unchecked_hint("gpu_compute", one_step) ==
          "a faster GPU, or more GPUs (a larger global batch: retune the learning rate)");
    JobSpec pipeline = ddp_job("nvlink3_nvswitch", 1, 8);
    pipeline.parallelism.pipeline_parallel = 4;
    CHECK(unchecked_hint("pipeline_bubble", pipeline) ==
          "more, smaller micro-batches (training.gradient_accumulation up, training.batch_size down by as much: the "
          "same global batch), the interleaved schedule with parallelism.virtual_stages, fewer pipeline stages (more "
          "data-parallel ranks: less training.gradient_accumulation keeps the global batch), or layers moved off the "
          "slowest stage");
    pipeline.training.batch_size = 1;
    CHECK(unchecked_hint("pipeline_bubble", pipeline) ==
          "more micro-batches (training.gradient_accumulation up: a larger global batch, retune the learning rate), the "
          "interleaved schedule with parallelism.virtual_stages, fewer pipeline stages (more data-parallel ranks: less "
          "training.gradient_accumulation keeps the global batch), or layers moved off the slowest stage");
  }

  TEST_CASE("a suggestion that changes the global batch says so, in sequences for a language model") {
    VariantResult row = row_with({{"gpu_compute", 0.1, 1.0}}, 3600.0, std::nullopt);
    row.global_batch_samples = 256;  // 32 per GPU x 1 micro-step x 8 GPUs
    VariantResult doubled = row_with({}, 3000.0, std::nullopt);
    doubled.global_batch_samples = 512;
    CHECK(global_batch_change(row, doubled) == "global batch 256 -> 512 samples: retune the learning rate");
    CHECK(global_batch_change(row, row).empty());
    VariantResult lm = row;
    lm.samples_are_sequences = true;
    CHECK(global_batch_change(lm, doubled) == "global batch 256 -> 512 sequences: retune the learning rate");
    // training.batch_size x2 (+20 %) changes the optimization; 16 x 2 micro-steps (+10 %)
    // trains on the same 256 samples and says nothing more.
    const Remedy bigger{"gpu_compute", {{"training.batch_size", "64"}}, RemedyGoal::kTimeToTrain, ""};
    const Remedy same{"gpu_compute",
                      {{"training.batch_size", "16"}, {"training.gradient_accumulation", "2"}},
                      RemedyGoal::kTimeToTrain, ""};
    // The row's own global batch of 256, `speedup` times as fast.
    const auto keeping_batch = [](double speedup) {
      VariantResult r = row_with({}, 3600.0 / speedup, std::nullopt);
      r.global_batch_samples = 256;
      return r;
    };
    const auto advised_with = [&row](const std::vector<RemedyOutcome>& outcomes) {
      VariantResult r = row;
      apply_advice(r, outcomes);
      return r;
    };
    const VariantResult same_batch = keeping_batch(1.1);
    const VariantResult advised = advised_with({{same, same_batch}, {bigger, doubled}});
    CHECK(advised.suggestion == "training.batch_size: 64 (global batch 256 -> 512 samples: retune the learning rate)");
    REQUIRE(advised.suggested);
    CHECK(overrides_text(advised.suggested->overrides) == "training.batch_size: 64");
    const VariantResult kept = advised_with({{same, same_batch}});
    CHECK(kept.suggestion == "training.batch_size: 16, training.gradient_accumulation: 2");
    // +17 % with the same global batch is at least 0.8 x the doubled batch's +20 % (0.16):
    // it goes first; at +15 % it does not.
    const VariantResult preferred = advised_with({{bigger, doubled}, {same, keeping_batch(1.17)}});
    CHECK(preferred.suggestion == "training.batch_size: 16, training.gradient_accumulation: 2");
    REQUIRE(preferred.suggested);
    CHECK(preferred.suggested->gain == doctest::Approx(0.17));
    const VariantResult faster = advised_with({{bigger, doubled}, {same, keeping_batch(1.15)}});
    CHECK(faster.suggestion == "training.batch_size: 64 (global batch 256 -> 512 samples: retune the learning rate)");
  }

  TEST_CASE("a bigger batch is offered with half the accumulation too, which keeps the global batch") {
    VariantResult row = row_with({{"communication", 0.3, 1.0}}, 3600.0, std::nullopt);
    const std::vector<Remedy> even = candidate_remedies(ddp_job("nvlink3_nvswitch", 2, 8), row, {});
    bool kept = false;
    bool doubled = false;
    for (const Remedy& r : even) {
      kept = kept || overrides_text(r.overrides) == "training.batch_size: 32, training.gradient_accumulation: 4";
      doubled = doubled || overrides_text(r.overrides) == "training.batch_size: 32";
    }
    CHECK(kept);
    CHECK(doubled);
    // An odd accumulation cannot halve: the plain doubling only.
    std::vector<std::string> odd;
    for (const Remedy& r : candidate_remedies(ddp_job("nvlink3_nvswitch", 2, 3), row, {})) {
      if (r.overrides.front().path == "training.batch_size") odd.push_back(overrides_text(r.overrides));
    }
    CHECK(odd == std::vector<std::string>{"training.batch_size: 32"});
  }

  TEST_CASE("out of memory: context parallelism halves the data-parallel ranks: said, and after a change that keeps them") {
    VariantResult row = row_with({}, 3600.0, std::nullopt);
    row.fits = false;
    row.samples_are_sequences = true;
    row.peak_memory_bytes = 100e9;
    row.global_batch_samples = 64;  // 1 x 8 micro-steps x 8 GPUs
    const auto result = [](bool fits, double peak_bytes, std::int64_t global_batch) {
      VariantResult r = row_with({}, 4000.0, std::nullopt);
      r.fits = fits;
      r.peak_memory_bytes = peak_bytes;
      r.memory_capacity_bytes = 80e9;
      r.global_batch_samples = global_batch;
      return r;
    };
    const Remedy cp{"memory", {{"parallelism.context_parallel", "2"}}, RemedyGoal::kTimeToTrain, ""};
    VariantResult fits = row;
    apply_advice(fits, {{cp, result(true, 60e9, 32)}});
    CHECK(fits.suggestion == "parallelism.context_parallel: 2 (checked: fits, 60.0 GB of 80.0 GB; global batch 64 -> 32 "
                             "sequences: retune the learning rate)");
    // Checkpointing fits too, slower, on the same 64 sequences: it goes first, as a change that
    // keeps the numerics does.
    const Remedy checkpointing{"memory", {{"training.activation_checkpointing", "true"}}, RemedyGoal::kTimeToTrain, ""};
    VariantResult slower = result(true, 50e9, 64);
    slower.time_to_train_s = 5000.0;
    VariantResult same = row;
    apply_advice(same, {{cp, result(true, 60e9, 32)}, {checkpointing, slower}});
    CHECK(same.suggestion == "training.activation_checkpointing: true (checked: fits, 50.0 GB of 80.0 GB)");
    VariantResult nearest = row;
    apply_advice(nearest, {{cp, result(false, 90e9, 32)}});
    CHECK(nearest.suggestion == "none of the checked changes fits; nearest: parallelism.context_parallel: 2 (90.0 GB of "
                                "80.0 GB; global batch 64 -> 32 sequences: retune the learning rate); a GPU with more "
                                "memory, or more GPUs");
  }

  TEST_CASE("out of memory at batch 1 with checkpointing: lighter optimizer state, pure bf16, a bigger GPU") {
    JobSpec job = ddp_job("nvlink3_nvswitch", 1, 1);
    job.parallelism.strategy = ParallelStrategy::kFsdp;  // the states are sharded already
    job.training.batch_size = 1;
    job.training.activation_checkpointing = true;
    job.training.optimizer = Optimizer::kAdamW;
    CHECK(oom_suggestion(job) ==
          "training.optimizer: adamw_8bit (about 2 B of state per parameter instead of 8), training.precision: bf16 "
          "(bf16 weights and gradients, no fp32 master copy), or a GPU with more memory");
    // no bf16 before compute capability 8.0
    job.hardware.gpu = testing::volta_like();
    CHECK(oom_suggestion(job) ==
          "training.optimizer: adamw_8bit (about 2 B of state per parameter instead of 8), or a GPU with more memory");
    job.training.optimizer = Optimizer::kAdamW8bit;
    CHECK(oom_suggestion(job) == "a GPU with more memory");
  }

  TEST_CASE("out of memory with Megatron's distributed optimizer and fp32 main grads: bf16 ones first") {
    JobSpec job = ddp_job("nvlink3_nvswitch", 1, 8);
    job.training.precision = Precision::kBf16Amp;
    job.training.optimizer = Optimizer::kAdamW;
    job.parallelism.distributed_optimizer = true;
    CHECK(oom_suggestion(job) ==
          "parallelism.grad_reduce_in_fp32: false (2 B main gradients per parameter instead of 4), "
          "training.activation_checkpointing: true, or a smaller training.batch_size with more "
          "training.gradient_accumulation (the same global batch)");
    job.parallelism.grad_reduce_in_fp32 = false;  // already bf16: the rest alone
    CHECK(oom_suggestion(job) ==
          "training.activation_checkpointing: true, or a smaller training.batch_size with more "
          "training.gradient_accumulation (the same global batch)");
    job.parallelism.grad_reduce_in_fp32.reset();
    job.training.precision = Precision::kFp32;  // fp32 parameters keep fp32 grads
    CHECK(oom_suggestion(job) ==
          "training.activation_checkpointing: true, or a smaller training.batch_size with more "
          "training.gradient_accumulation (the same global batch)");
  }

  TEST_CASE("out of memory on 8 GPUs with DDP at batch 1 with checkpointing: shard the states with FSDP") {
    JobSpec job = ddp_job("nvlink3_nvswitch", 1, 1);
    job.training.batch_size = 1;
    job.training.activation_checkpointing = true;
    job.training.optimizer = Optimizer::kAdamW;
    CHECK(oom_suggestion(job) == "parallelism.strategy: fsdp (weights, gradients and optimizer state sharded over the "
                                 "8 GPUs)");
    // ZeRO-2 keeps the parameters whole: FSDP would shard them too.
    job.parallelism.strategy = ParallelStrategy::kZero;
    job.parallelism.zero_stage = 2;
    CHECK(oom_suggestion(job) == "parallelism.strategy: fsdp (weights, gradients and optimizer state sharded over the "
                                 "8 GPUs)");
  }
}

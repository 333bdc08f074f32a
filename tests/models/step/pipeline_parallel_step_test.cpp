// Pipeline parallelism in the step: the schedule's makespan, waits and sends by hand, the
// stage's units, the step time it gives, and the memory of each stage.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "../test_gpus.h"
#include "dispatch_unit.h"
#include "../workload/catalog_models.h"
#include "models/interconnect/interconnect_table.h"
#include "models/memory/footprint.h"
#include "models/memory/parallel_memory.h"
#include "models/step/job_steps.h"
#include "models/step/pipeline_parallel_plan.h"
#include "models/step/pipeline_schedule.h"
#include "models/step/step_plan.h"
#include "models/step/step_simulation.h"

using namespace gpuplan::models;

namespace {

constexpr int kBatch = 2;

/// GPT-2 124M (12 layers), bf16 AMP, synthetic data, one node of `gpus` NVSwitch GPUs,
/// `stages` pipeline stages with `micro_batches` micro-batches, DDP over the rest.
JobSpec gpt2_pipeline(int gpus, int stages, int micro_batches,
                      PipelineSchedule schedule = PipelineSchedule::kOneFOneB, int virtual_stages = 1) {
  JobSpec job;
  job.workload = testing::build_catalog_model("gpt2");
  job.dataset.samples = 1e6;
  job.dataset.synthetic = true;
  job.training.batch_size = kBatch;
  job.training.gradient_accumulation = micro_batches;
  job.training.precision = Precision::kBf16Amp;
  job.training.optimizer = Optimizer::kAdamW;
  job.training.attention = AttentionKernel::kFlash;
  job.hardware.gpu = testing::ampere_like();
  job.hardware.gpus_per_node = gpus;
  job.hardware.cpu_cores = 64;
  job.hardware.topology.gpus_per_node = gpus;
  job.hardware.topology.intra_node = intra_node_link("nvlink3_nvswitch");
  job.parallelism.strategy = ParallelStrategy::kDdp;
  job.parallelism.pipeline_parallel = stages;
  job.parallelism.pipeline_schedule = schedule;
  job.parallelism.virtual_stages = virtual_stages;
  return job;
}

double gpu_s(const std::vector<DispatchUnit>& units) {
  double s = 0.0;
  for (const DispatchUnit& u : units) s += u.gpu_s;
  return s;
}

/// Stage 0 of a 2-stage pipeline as a hand-made plan: one forward unit of `forward_s` and one
/// backward of `backward_s` per micro-batch (host dispatch 0.1 ms each), an optimizer of 1 ms,
/// `micro_batches` micro-steps, synthetic data, one data-parallel rank (no DDP buckets), and
/// the wait that the schedule of `chunk_forward_s` / `chunk_backward_s` (no send time) gives
/// stage 0.
StepPlan stage0_plan(double forward_s, double backward_s, int micro_batches, const std::vector<double>& chunk_forward_s,
                     const std::vector<double>& chunk_backward_s) {
  StepPlan p;
  p.forward = {testing::unit("forward", 1e-4, forward_s)};
  p.backward = {testing::unit("backward", 1e-4, backward_s)};
  p.optimizer = {testing::unit("optimizer.step", 1e-4, 1e-3)};
  p.micro_batch = 1;
  p.gradient_accumulation = micro_batches;
  p.loader.synthetic = true;
  PipelineInput in;
  in.stages = 2;
  in.micro_batches = micro_batches;
  in.forward_s = chunk_forward_s;
  in.backward_s = chunk_backward_s;
  const PipelineResult r = simulate_pipeline(in);
  p.pipeline.stages = 2;
  p.pipeline.stage = 0;
  p.pipeline.wait_s = r.last_end_s[0] - r.busy_s[0];
  p.pipeline.bubble_fraction = r.bubble_fraction;
  p.pipeline.makespan_s = r.makespan_s;
  p.pipeline.roles = {0, 1};
  return p;
}

bool has_label(const std::vector<DispatchUnit>& units, const std::string& label) {
  for (const DispatchUnit& u : units) {
    if (u.label == label) return true;
  }
  return false;
}

}  // namespace

TEST_SUITE("models.step.pipeline_parallel") {
  TEST_CASE("2 stages, 2 micro-batches of 1F1B by hand: makespan, waits, bubble and sends") {
    // F = 1 s, B = 2 s per stage and micro-batch, sends c = 0.5 s. Stage 0 runs F0 F1 B0 B1,
    // stage 1 F0 B0 F1 B1 (1F1B: p - s - 1 warm-up forwards):
    //   S0 F0 [0, 1], send to 1.5; S1 F0 [1.5, 2.5], B0 [2.5, 4.5];
    //   S0 F1 [1, 2]; S1 F1 waits for its B0: [4.5, 5.5], B1 [5.5, 7.5];
    //   S0 B0 after S1's B0 + c: [5, 7]; S0 B1 after S1's B1 + c: [8, 10].
    // Makespan 10 s = (m + p - 1)(F + B) + 2(p - 1)c; each stage is busy 6 s, so the
    // bubble is 1 - 6/10 and stage 0 waits 10 - 6 = 4 s, stage 1 7.5 - 6 = 1.5 s.
    PipelineInput in;
    in.stages = 2;
    in.micro_batches = 2;
    in.forward_s = {1.0, 1.0};
    in.backward_s = {2.0, 2.0};
    in.send_s = 0.5;
    const PipelineResult r = simulate_pipeline(in);
    CHECK(r.makespan_s == doctest::Approx(10.0));
    CHECK(r.bubble_fraction == doctest::Approx(0.4));
    CHECK(r.busy_s == std::vector<double>{6.0, 6.0});
    CHECK(r.last_end_s[0] == doctest::Approx(10.0));
    CHECK(r.last_end_s[1] == doctest::Approx(7.5));
    CHECK(r.sends == 4);  // 2·m·(p - 1): each micro-batch's activation and its gradient
  }

  TEST_CASE("4 stages of GPipe with sends: (m + p - 1)(F + B) + 2(p - 1)c; 1F1B exposes more of them") {
    PipelineInput in;
    in.schedule = PipelineSchedule::kGpipe;
    in.stages = 4;
    in.micro_batches = 8;
    in.forward_s.assign(4, 1.0);
    in.backward_s.assign(4, 2.0);
    in.send_s = 0.5;
    // GPipe: the last forward reaches stage 3 at (p - 1)(F + c) + m·F = 12.5 s, its m
    // backwards end at 28.5 s, and the gradient of the last one needs (p - 1)(B + c) = 7.5 s
    // more to leave stage 0: 36 s = 11 x 3 s + 2 x 3 x 0.5 s; each stage busy 8 x 3 = 24 s.
    const PipelineResult gpipe = simulate_pipeline(in);
    CHECK(gpipe.makespan_s == doctest::Approx(36.0));
    CHECK(gpipe.bubble_fraction == doctest::Approx(1.0 - 24.0 / 36.0));
    CHECK(gpipe.sends == 48);  // 2 x 8 x 3
    CHECK(gpipe.last_end_s[0] == doctest::Approx(36.0));
    // 1F1B without sends: the same 11 x 3 s; with them, its alternation waits for each
    // round trip between neighbours, so it ends later than GPipe.
    in.schedule = PipelineSchedule::kOneFOneB;
    const PipelineResult one_f_one_b = simulate_pipeline(in);
    CHECK(one_f_one_b.sends == 48);
    CHECK(one_f_one_b.makespan_s > 36.0);
    in.send_s = 0.0;
    CHECK(simulate_pipeline(in).makespan_s == doctest::Approx(33.0));
  }

  TEST_CASE("a stage runs its layers only: embedding on the first, head and loss on the last") {
    const JobSpec job = gpt2_pipeline(2, 2, 4);
    const StepPlan first = plan_step(job, GpuEfficiency::defaults(), 0);
    const StepPlan last = plan_step(job, GpuEfficiency::defaults(), 1);
    CHECK(has_label(first.forward, "embed.tokens fwd"));
    CHECK(has_label(first.forward, "layers.5.mlp.down fwd"));
    CHECK_FALSE(has_label(first.forward, "layers.6.mlp.down fwd"));
    CHECK_FALSE(has_label(first.forward, "lm_head fwd"));
    CHECK(has_label(last.forward, "layers.6.mlp.down fwd"));
    CHECK(has_label(last.forward, "lm_head fwd"));
    CHECK(has_label(last.backward, "loss bwd"));
    CHECK_FALSE(has_label(last.forward, "embed.tokens fwd"));
    // The two stages together are the whole model's units.
    const StepPlan whole = plan_step(gpt2_pipeline(2, 1, 4), GpuEfficiency::defaults());
    CHECK(first.forward.size() + last.forward.size() == whole.forward.size());
    CHECK(gpu_s(first.forward) + gpu_s(last.forward) == doctest::Approx(gpu_s(whole.forward)));
    // Model FLOP per GPU: half the model's.
    CHECK(first.model_flop_per_step == doctest::Approx(whole.model_flop_per_step / 2.0));
    // Two GPUs, two stages: one data-parallel rank, no DDP buckets.
    CHECK(first.comm.buckets.empty());
    CHECK(first.pipeline.roles == std::vector<int>{0, 1});
    // GPT-2 ties its LM head to the embedding: on the last stage the head keeps its own copy
    // (50,257 x 768 = 38,597,376 parameters), so a replica holds the embedding twice.
    const Workload rank = rank_workload(job);
    const Workload last_stage = pipeline_stage_workload(rank, job.parallelism, 1);
    double head = 0.0;
    for (const Op& op : last_stage.ops) {
      if (op.name == "lm_head") head = op.parameters;
    }
    CHECK(head == doctest::Approx(50257.0 * 768.0));
    CHECK(rank.parameters == doctest::Approx(job.workload.parameters + 50257.0 * 768.0));
  }

  TEST_CASE("the embedding and the loss counted as pipeline layers (Megatron-Core's account_for_*_in_pipeline_split)") {
    // GPT-2's 12 layers + the embedding + the loss = 14 over 7 stages, 2 each: stage 0 the
    // embedding and layer 0, stages 1-5 layers 1-2 .. 9-10, stage 6 layer 11 and the loss.
    JobSpec job = gpt2_pipeline(7, 7, 7);
    job.parallelism.embedding_in_pipeline_split = true;
    job.parallelism.loss_in_pipeline_split = true;
    CHECK(job.parallelism.pipeline_split_layers(12) == 14);
    const Workload rank = rank_workload(job);
    const auto layers_of = [&](int stage) {
      std::vector<std::string> blocks;
      for (const Op& op : pipeline_stage_workload(rank, job.parallelism, stage).ops) {
        if (op.name.rfind("layers.", 0) != 0) continue;
        const std::string block = op.name.substr(0, op.name.find('.', 7));
        if (blocks.empty() || blocks.back() != block) blocks.push_back(block);
      }
      return blocks;
    };
    CHECK(layers_of(0) == std::vector<std::string>{"layers.0"});
    CHECK(layers_of(1) == std::vector<std::string>{"layers.1", "layers.2"});
    CHECK(layers_of(5) == std::vector<std::string>{"layers.9", "layers.10"});
    CHECK(layers_of(6) == std::vector<std::string>{"layers.11"});
    const StepPlan first = plan_step(job, GpuEfficiency::defaults(), 0);
    const StepPlan last = plan_step(job, GpuEfficiency::defaults(), 6);
    CHECK(has_label(first.forward, "embed.tokens fwd"));
    CHECK(has_label(last.forward, "lm_head fwd"));
    // The loss alone: 13 layers do not split over 7 stages (config/ refuses that first).
    job.parallelism.embedding_in_pipeline_split = false;
    CHECK_THROWS_AS(pipeline_stage_workload(rank, job.parallelism, 0), std::invalid_argument);
  }

  TEST_CASE("2 stages: the schedule runs the stages' own times, and the step is its makespan plus the optimizer") {
    const JobSpec job = gpt2_pipeline(2, 2, 4);
    const StepPlan s0 = plan_step(job, GpuEfficiency::defaults(), 0);
    const StepPlan s1 = plan_step(job, GpuEfficiency::defaults(), 1);
    // The schedule by hand from the stages' units, with the send of one micro-batch's
    // residual stream: s·b·h at 2 B = 1024 x 2 x 768 x 2 = 3,145,728 B over NVLink.
    PipelineInput in;
    in.stages = 2;
    in.micro_batches = 4;
    in.forward_s = {gpu_s(s0.forward), gpu_s(s1.forward)};
    in.backward_s = {gpu_s(s0.backward), gpu_s(s1.backward)};
    in.send_s = pipeline_send_s(job, 3'145'728.0);
    CHECK(s0.pipeline.send_s == doctest::Approx(in.send_s));
    const PipelineResult r = simulate_pipeline(in);
    CHECK(s0.pipeline.makespan_s == doctest::Approx(r.makespan_s));
    CHECK(s0.pipeline.bubble_fraction == doctest::Approx(r.bubble_fraction));
    CHECK(s0.pipeline.sends == 8);
    CHECK(s0.pipeline.wait_s == doctest::Approx(r.last_end_s[0] - r.busy_s[0]));
    CHECK(s1.pipeline.wait_s == doctest::Approx(r.last_end_s[1] - r.busy_s[1]));
    // Stage 0 ends the schedule (its last backward is the last work); its step adds the
    // optimizer on its parameters after it, and the host's dispatch gaps (under 2 %).
    const StepStats stats = simulate_steps(s0);
    const double expected_s = r.makespan_s + gpu_s(s0.optimizer);
    CHECK(stats.breakdown.step_time_s == doctest::Approx(expected_s).epsilon(0.02));
    CHECK(stats.breakdown.step_time_s >= expected_s);
    // The wait is the pipeline bubble (not compute, not data, not communication: one
    // data-parallel rank has no gradients to exchange).
    CHECK(stats.breakdown.pipeline_bubble_s == doctest::Approx(s0.pipeline.wait_s));
    CHECK(stats.breakdown.communication_exposed_s < 0.01 * stats.breakdown.step_time_s);
    CHECK(stats.breakdown.gpu_compute_s == doctest::Approx(4.0 * (in.forward_s[0] + in.backward_s[0])).epsilon(0.01));
    // The job's step is the slowest stage's.
    const StepPlan slowest = slowest_stage_plan(job, GpuEfficiency::defaults(), StepSimOptions{});
    CHECK(simulate_steps(slowest).breakdown.step_time_s >= stats.breakdown.step_time_s);
  }

  TEST_CASE("2 equal stages: the bubble is (p - 1) / (m + p - 1) of the schedule, its own slice, no communication") {
    // 1F1B, f = 2 ms, b = 4 ms on both stages, m = 4, no send time. Stage 0: F0 0-2, F1 2-4,
    // idle 4-8 (stage 1 runs F0 2-4, B0 4-8), B0 8-12, F2 12-14, B1 14-18, F3 18-20, B2 20-24,
    // idle 24-26 (stage 1's B3 22-26), B3 26-30. Makespan (m + p - 1)(f + b) = 30 ms, busy
    // m (f + b) = 24 ms, idle (p - 1)(f + b) = 6 ms: 6 / 30 = (p - 1) / (m + p - 1) = 1/5.
    const StepPlan plan = stage0_plan(2e-3, 4e-3, 4, {2e-3, 2e-3}, {4e-3, 4e-3});
    CHECK(plan.pipeline.makespan_s == doctest::Approx(30e-3));
    CHECK(plan.pipeline.bubble_fraction == doctest::Approx(1.0 / 5.0));
    CHECK(plan.pipeline.wait_s == doctest::Approx(6e-3));
    // The step: 4 x 6 ms of kernels, the 6 ms bubble, the 1 ms optimizer, and 3 x 0.1 ms the
    // GPU waits for a micro-step's first dispatch after the previous one's loss read (the
    // last micro-step's is hidden under the bubble, which the GPU runs without a dispatch).
    const StepStats s = simulate_steps(plan);
    CHECK(s.breakdown.gpu_compute_s == doctest::Approx(24e-3));
    CHECK(s.breakdown.pipeline_bubble_s == doctest::Approx(6e-3));
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(0.0));
    CHECK(s.breakdown.optimizer_s == doctest::Approx(1e-3));
    CHECK(s.breakdown.host_dispatch_wait_s == doctest::Approx(0.3e-3));
    CHECK(s.breakdown.step_time_s == doctest::Approx(31.3e-3));
  }

  TEST_CASE("forward only (evaluation): the slowest stage's forward is the period, the first micro-batch adds the fill") {
    // 1F1B, chunks' forwards 2 and 3 ms: period max(2, 3) = 3 ms; fill 2 + 3 ms + one send - 3.
    const JobSpec job = gpt2_pipeline(2, 2, 4);
    const PipelineStagePlan plan = plan_pipeline_stage(job, {2e-3, 3e-3}, {4e-3, 6e-3}, 1e6, 0);
    CHECK(plan.forward_period_s == doctest::Approx(3e-3));
    CHECK(plan.forward_fill_s == doctest::Approx(2e-3 + plan.send_s));
    // Interleaved, v = 2: stage 0 runs chunks 0 and 2 (1 + 3 = 4 ms), stage 1 chunks 1 and 3
    // (2 + 4 = 6 ms): period 6 ms; fill 1 + 2 + 3 + 4 ms + 3 sends - 6 = 4 ms + 3 sends.
    const JobSpec interleaved = gpt2_pipeline(2, 2, 4, PipelineSchedule::kInterleavedOneFOneB, 2);
    const PipelineStagePlan v2 =
        plan_pipeline_stage(interleaved, {1e-3, 2e-3, 3e-3, 4e-3}, {1e-3, 2e-3, 3e-3, 4e-3}, 1e6, 1);
    CHECK(v2.forward_period_s == doctest::Approx(6e-3));
    CHECK(v2.forward_fill_s == doctest::Approx(4e-3 + 3.0 * v2.send_s));
  }

  TEST_CASE("a slower last stage (LM head and loss): stage 0 waits on it, and the wait is bubble, not communication") {
    // 1F1B, m = 4, stage 0 f = 2, b = 4 ms; stage 1 f = 3, b = 6 ms. Stage 1: F0 2-5, B0 5-11,
    // F1 11-14, B1 14-20, F2 20-23, B2 23-29, F3 29-32, B3 32-38. Stage 0: F0 0-2, F1 2-4,
    // B0 11-15, F2 15-17, B1 20-24, F3 24-26, B2 29-33, B3 38-42: busy 24 ms, ends at 42 ms,
    // so it waits 18 ms: 6 ms of fill and drain as with equal stages, 12 ms on the slower stage.
    const StepPlan plan = stage0_plan(2e-3, 4e-3, 4, {2e-3, 3e-3}, {4e-3, 6e-3});
    CHECK(plan.pipeline.makespan_s == doctest::Approx(42e-3));
    CHECK(plan.pipeline.wait_s == doctest::Approx(18e-3));
    const StepStats s = simulate_steps(plan);
    CHECK(s.breakdown.gpu_compute_s == doctest::Approx(24e-3));
    CHECK(s.breakdown.pipeline_bubble_s == doctest::Approx(18e-3));
    CHECK(s.breakdown.communication_exposed_s == doctest::Approx(0.0));
    CHECK(s.breakdown.step_time_s == doctest::Approx(43.3e-3));  // + 1 ms optimizer, 0.3 ms dispatch
  }

  TEST_CASE("4 stages x DDP 2 on 8 GPUs: middle stages share one role, DDP over the stage's group") {
    const JobSpec job = gpt2_pipeline(8, 4, 8);
    const StepPlan s0 = plan_step(job, GpuEfficiency::defaults(), 0);
    CHECK(s0.pipeline.stages == 4);
    CHECK(s0.pipeline.sends == 48);  // 2 x 8 x 3
    REQUIRE(s0.pipeline.roles.size() == 3);
    CHECK(s0.pipeline.roles.front() == 0);
    CHECK(s0.pipeline.roles.back() == 3);
    // 1F1B: middle stage 1 ends after stage 2, so it stands for both.
    CHECK(s0.pipeline.roles[1] == 1);
    // The stage's gradients only: its 3 layers (and the embedding) in DDP's buckets.
    double bucket_bytes = 0.0;
    for (const GradientBucket& b : s0.comm.buckets) bucket_bytes += b.bytes;
    const Workload stage0 = pipeline_stage_workload(rank_workload(job), job.parallelism, 0);
    CHECK(bucket_bytes == doctest::Approx(stage0.parameters * 4.0));
    const Topology group = pipeline_data_parallel_topology(job);
    CHECK(group.ranks() == 2);
    CHECK(group.nodes == 1);
  }

  TEST_CASE("plan_step_roles: each role's plan is plan_step's for that stage, from one schedule") {
    const JobSpec job = gpt2_pipeline(8, 4, 8);
    const std::vector<StepPlan> roles = plan_step_roles(job, GpuEfficiency::defaults());
    REQUIRE(roles.size() == 3);
    const std::vector<int> stages{0, 1, 3};  // first, the middle one that ends last, last
    for (std::size_t k = 0; k < roles.size(); ++k) {
      CAPTURE(k);
      const StepPlan one = plan_step(job, GpuEfficiency::defaults(), stages[k]);
      CHECK(roles[k].pipeline.stage == stages[k]);
      CHECK(roles[k].pipeline.roles == stages);
      CHECK(roles[k].pipeline.wait_s == one.pipeline.wait_s);
      CHECK(roles[k].pipeline.makespan_s == one.pipeline.makespan_s);
      REQUIRE(roles[k].forward.size() == one.forward.size());
      REQUIRE(roles[k].backward.size() == one.backward.size());
      for (std::size_t i = 0; i < one.backward.size(); ++i) CHECK(roles[k].backward[i].label == one.backward[i].label);
      CHECK(gpu_s(roles[k].forward) == gpu_s(one.forward));
      CHECK(gpu_s(roles[k].backward) == gpu_s(one.backward));
      CHECK(gpu_s(roles[k].optimizer) == gpu_s(one.optimizer));
      CHECK(roles[k].comm.buckets.size() == one.comm.buckets.size());
    }
    // The stages differ: the embedding on the first, the head and loss on the last.
    CHECK(roles[0].pipeline.wait_s != roles[2].pipeline.wait_s);
    CHECK(gpu_s(roles[0].backward) != gpu_s(roles[2].backward));
    // Without a pipeline, stage 0 alone; a stage outside the pipeline is refused.
    CHECK(plan_step_roles(gpt2_pipeline(8, 1, 8), GpuEfficiency::defaults()).size() == 1);
    CHECK_THROWS_WITH_AS(plan_step(job, GpuEfficiency::defaults(), 4), "plan_step: stage 4 of 4", std::invalid_argument);
  }

  TEST_CASE("stage memory: each stage its own weights; 1F1B keeps p - s micro-batches of activations") {
    const JobSpec job = gpt2_pipeline(4, 4, 8);
    const auto params = MemoryModelParams::defaults();
    const Workload rank = rank_workload(job);
    double weights = 0.0;
    for (int s = 0; s < 4; ++s) {
      const Workload stage = pipeline_stage_workload(rank, job.parallelism, s);
      weights += stage.parameters;
      CHECK(pipeline_activation_micro_batches(job.parallelism, 8, s) == 4 - s);
    }
    CHECK(weights == doctest::Approx(rank.parameters));
    // The activations the schedule holds are those the simulation counts in flight.
    PipelineInput in;
    in.stages = 4;
    in.micro_batches = 8;
    in.forward_s.assign(4, 1.0);
    in.backward_s.assign(4, 2.0);
    CHECK(simulate_pipeline(in).peak_in_flight == std::vector<int>{4, 3, 2, 1});
    // Stage 0 (embedding, 3 layers, 4 micro-batches in flight) is the worst of GPT-2's four
    // (the last holds 1 micro-batch but the logits); its memory by hand from the footprint.
    int worst = -1;
    const MemoryBreakdown m = rank_memory(job, params, &worst);
    const Workload stage0 = pipeline_stage_workload(rank, job.parallelism, 0);
    const MemoryBreakdown one = training_memory(stage0, job.training, params);
    CHECK(worst == 0);
    CHECK(m.weights_bytes == doctest::Approx(one.weights_bytes));
    CHECK(m.activations_bytes == doctest::Approx(4.0 * one.activations_bytes));
    CHECK(m.data_parallel_bytes == 0.0);  // 4 GPUs, 4 stages: no data parallelism
  }

  TEST_CASE("interleaved stage memory follows Megatron: p(1 + (p - 1)/(p·v)) micro-batches on the first stage") {
    const JobSpec job = gpt2_pipeline(2, 2, 4, PipelineSchedule::kInterleavedOneFOneB, 2);
    // p = 2, v = 2: 2 x (1 + 1/4) = 2.5 micro-batches; the simulation holds 5 chunks of 1/2.
    CHECK(pipeline_activation_micro_batches(job.parallelism, 4, 0) == doctest::Approx(2.5));
    PipelineInput in;
    in.schedule = PipelineSchedule::kInterleavedOneFOneB;
    in.stages = 2;
    in.micro_batches = 4;
    in.virtual_stages = 2;
    in.forward_s.assign(4, 0.5);
    in.backward_s.assign(4, 1.0);
    const PipelineResult r = simulate_pipeline(in);
    CHECK(r.peak_in_flight[0] == 5);
    CHECK(pipeline_activation_micro_batches(job.parallelism, 4, 1) == doctest::Approx(r.peak_in_flight[1] / 2.0));
    // Stage 0 runs chunks 0 and 2: layers 0-2 and 6-8 of GPT-2's 12.
    const StepPlan s0 = plan_step(job, GpuEfficiency::defaults(), 0);
    CHECK(has_label(s0.forward, "layers.2.mlp.down fwd"));
    CHECK(has_label(s0.forward, "layers.8.mlp.down fwd"));
    CHECK_FALSE(has_label(s0.forward, "layers.3.mlp.down fwd"));
    CHECK(s0.pipeline.bubble_fraction < plan_step(gpt2_pipeline(2, 2, 4), GpuEfficiency::defaults()).pipeline.bubble_fraction);
  }
}

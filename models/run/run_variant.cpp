#include "models/run/run_variant.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/units.h"
#include "models/cost/cost.h"
#include "models/energy/energy.h"
#include "models/gpu/op_time.h"
#include "models/job/cloud_job.h"
#include "models/job/job_time.h"
#include "models/memory/activation_offload.h"
#include "models/memory/footprint.h"
#include "models/memory/parallel_memory.h"
#include "models/run/advice.h"
#include "models/run/bottleneck.h"
#include "models/run/critical_path.h"
#include "models/run/job_time_range_error.h"
#include "models/run/remedies.h"
#include "models/step/job_steps.h"
#include "models/step/step_plan.h"
#include "models/workload/moe_expert_shard.h"
#include "sim/sim_time.h"

namespace gpuplan::models {

/// Share of the peak above which the loss's backward phase gets a run note: a twentieth, where a
/// fused loss would change what fits.
constexpr double kLossBackwardNoteShare = 0.05;
namespace {

/// "47.5 d" from two days up, else "14.6 h": a run's wall time in a note.
std::string days_or_hours(double s) {
  return s >= 2.0 * 86400.0 ? fmt::format("{:.1f} d", s / 86400.0) : fmt::format("{:.1f} h", s / 3600.0);
}

/// Throws JobTimeRangeError when the job's time to train does not fit in SimTime: a job
/// longer than the engine can represent comes from absurd input, not from a defect.
void check_time_range(const JobTimes& times, double step_s) {
  const double max_s = sim::to_seconds(sim::kMaxSimTime);
  if (times.time_to_train_s <= max_s) return;
  throw JobTimeRangeError(fmt::format(
      "time to train {:.3g} s ({:.3g} epochs x {:.3g} steps per epoch x {:.3g} s per step, with evaluation and "
      "checkpoints) exceeds {:.3g} s (2^63 ns, about 292 years)",
      times.time_to_train_s, times.epochs, times.steps_per_epoch, step_s, max_s));
}

// Forward-only time of one evaluation batch through a model replica: the GPU forward (or
// the loader, if slower); under pipeline parallelism the forward-only pipeline's period, with
// its fill spread over the pass's batches.
double eval_batch_s(const StepPlan& plan, const JobSpec& job) {
  double gpu = 0.0;
  double host = 0.0;
  for (const DispatchUnit& u : plan.forward) {
    gpu += u.gpu_s;
    host += u.dispatch_s;
  }
  if (plan.pipeline.stages > 1) {
    gpu = plan.pipeline.forward_period_s + plan.pipeline.forward_fill_s / std::max(1.0, eval_batches_per_replica(job));
  }
  double loader = plan.loader.synthetic ? 0.0 : plan.loader.batch_load_s;
  if (!plan.loader.synthetic && plan.loader.workers > 0) {
    // Workers beyond the cores time-share them (models/step/step_graph.cpp).
    const int cores = plan.loader.cpu_cores > 0 ? plan.loader.cpu_cores : plan.loader.workers;
    loader /= std::min(plan.loader.workers, cores);
  }
  return std::max({gpu, host, loader});
}

// The checkpoint interval and its reason, and what interrupts the job: on a cloud market its
// name and p50/p90 of time and dollars (spot: the trials), on own hardware the times hardware
// failures give (models/job/hardware_failures.h).
void fill_job_outputs(const JobSpec& job, const JobOutcome& o, VariantResult& r) {
  r.checkpoint_interval_s = o.checkpoint_interval_s;
  r.checkpoint_interval_reason = o.checkpoint_interval_reason;
  if (!o.checkpoint_interval_reason.empty()) r.notes.push_back("checkpoint " + o.checkpoint_interval_reason);
  for (const std::string& n : o.notes) r.notes.push_back(n);
  if (!job.cloud && !o.failures) return;  // own hardware that never fails: the time to train alone
  r.time_p50_s = o.time_p50_s;
  r.time_p90_s = o.time_p90_s;
  if (job.cloud) r.market = std::string(name_of(job.cloud->market));
  if (job.cloud && job.cloud->market == Market::kSpot && o.spot) {
    r.cost_p50_usd = o.spot->cost_p50_usd;
    r.cost_p90_usd = o.spot->cost_p90_usd;
    r.expected_preemptions = o.spot->preemptions_mean;
    r.lost_time_share = o.spot->lost_time_share;
    r.finished_share = static_cast<double>(o.spot->finished) / o.spot->trials;
    r.trials = o.spot->trials;
    if (!o.preemption_source.empty()) r.notes.push_back("spot preemptions: " + o.preemption_source);
    // A quantile of the run exists only where that share of the trials finished: the
    // p50 trial of a job that half the trials never finish has no time and no per-run cost
    // (a capped trial's dollars are those of work left undone, often less than a finished run's).
    if (!o.spot->finishes_at(0.9)) {
      r.time_p90_s.reset();
      r.cost_p90_usd.reset();
    }
    if (!o.spot->finishes_at(0.5)) {
      r.time_p50_s.reset();
      r.cost_p50_usd.reset();
      r.notes.push_back("spot: the job does not finish (fewer than half the trials finish within the cap): no p50 "
                        "time or dollars per run");
    } else if (!o.spot->finishes_at(0.9)) {
      r.notes.push_back("spot: fewer than 90 % of the trials finish within the cap: no p90 time or dollars");
    }
    return;
  }
  // On demand or own hardware: hardware failures lengthen the run; a quantile past the cap
  // has no time or dollars, as on spot.
  if (job.cloud) {
    const auto dollars = [&](double time_s) -> std::optional<double> {
      if (!std::isfinite(time_s)) return std::nullopt;
      return on_demand_cost_usd(job.cloud->instance, job.hardware.nodes, time_s);
    };
    r.cost_p50_usd = dollars(o.time_p50_s);
    r.cost_p90_usd = dollars(o.time_p90_s);
  }
  if (!std::isfinite(o.time_p50_s)) r.time_p50_s.reset();
  if (!std::isfinite(o.time_p90_s)) r.time_p90_s.reset();
  if (o.failures) r.expected_failures = o.failures->expected_failures;
}

// `job` on one GPU of the same kind alone on the node (all its CPU cores, storage and PCIe
// uplink), same per-GPU batch, the whole model on it: the reference of scaling efficiency.
JobSpec single_gpu_job(const JobSpec& job) {
  JobSpec one = job;
  one.hardware.gpus_per_node = 1;
  one.hardware.nodes = 1;
  one.hardware.gpus_per_pcie_switch = 1;
  one.hardware.topology = Topology{};
  one.parallelism.strategy = ParallelStrategy::kNone;
  one.parallelism.tensor_parallel = 1;  // the whole model on the one GPU
  one.parallelism.sequence_parallel = false;
  one.parallelism.context_parallel = 1;
  one.parallelism.pipeline_parallel = 1;
  one.parallelism.pipeline_schedule = PipelineSchedule::kOneFOneB;
  one.parallelism.virtual_stages = 1;
  one.parallelism.expert_parallel = 1;  // every expert on the one GPU
  one.parallelism.expert_load_imbalance = 1.0;
  return one;
}

/// Scaling efficiency above this is explained in a note (superlinear_scaling_note): 1 %, past
/// the rounding of the printed percentage.
constexpr double kSuperlinearScaling = 1.01;

/// The run note of a scaling efficiency above 100 %: the reference is one GPU running the
/// whole job, and what this layout splits per GPU that data parallelism alone would not (the
/// model-parallel sizes, a sharded optimizer step). One sentence, no semicolons.
std::string superlinear_scaling_note(const JobSpec& job, double efficiency) {
  const ParallelismSpec& p = job.parallelism;
  std::vector<std::string> splits;
  if (p.tensor_parallel > 1) splits.push_back(fmt::format("tensor parallel {}", p.tensor_parallel));
  if (p.pipeline_parallel > 1) splits.push_back(fmt::format("pipeline parallel {}", p.pipeline_parallel));
  if (p.context_parallel > 1) splits.push_back(fmt::format("context parallel {}", p.context_parallel));
  if (p.expert_parallel > 1) splits.push_back(fmt::format("expert parallel {}", p.expert_parallel));
  if (p.strategy == ParallelStrategy::kFsdp || p.strategy == ParallelStrategy::kZero || p.distributed_optimizer) {
    splits.push_back("the sharded optimizer step");
  }
  std::string what;
  for (std::size_t i = 0; i < splits.size(); ++i) {
    what += (i == 0 ? "" : i + 1 == splits.size() ? " and " : ", ") + splits[i];
  }
  const std::string reference = fmt::format("scaling: {:.0f} % is above 100 % because the reference is one {} running "
                                            "the whole job alone",
                                            efficiency * 100.0, job.hardware.gpu.name);
  if (what.empty()) return reference + ", whose step takes longer per sample than each GPU's here";
  return fmt::format("{}, while here {} {} each GPU's share of the per-sample work (fewer weights read, dequantized or "
                     "updated per GPU)",
                     reference, what, splits.size() == 1 ? "divides" : "divide");
}

// Steady-state samples/s of `one` (single_gpu_job) over the same epochs as the job's quoted
// throughput (the page-cache epochs when later epochs read the page cache, job_steps.h): the
// denominator of scaling efficiency. (A reference read from storage against page-cache epochs
// gave more than linear scaling.)
double single_gpu_throughput(const JobSpec& one, const ModelParams& params, double epochs) {
  StepSimOptions options = params.step;
  options.trace_steps = 0;
  StepPlan plan = plan_step(one, params.gpu);
  plan.loader.page_cache_hit = later_epochs_from_page_cache(one, plan, epochs);
  const StepStats stats = simulate_steps(plan, options);
  return global_batch_samples(one) / stats.breakdown.step_time_s;
}

/// The run note of a decoder whose peak is its loss's backward (rank_memory's phase): what the
/// loss's gradients add, what the loss saves besides, and the fused loss that holds neither
/// (Liger-Kernel's, models/workload/layer_ops.h), written as the scenario would set it. One
/// sentence, no semicolons (the CSV joins notes with "; ").
std::string loss_backward_note(const JobSpec& job, const MemoryBreakdown& m) {
  const Op& loss = job.workload.ops.back();
  const bool unfused = loss.upcasts_fp32;  // F.cross_entropy; the fused kernels keep the logits' dtype
  const double saved_bytes = saved_bytes_per_sample(job.workload, job.training).back() * job.training.batch_size;
  const ScenarioOverride o = fused_linear_loss_override(job);
  const std::string fix = "write " + o.path + ": " + o.value;
  return fmt::format(
      "memory: the peak is the loss's backward, where {} {:.1f} GB over the rest of the step (counted as "
      "workspace), beside the {:.1f} GB of {} the loss keeps from forward, and Liger-Kernel's fused linear "
      "cross-entropy holds neither ({})",
      unfused ? "F.cross_entropy's two fp32 gradients of the logits (tokens x vocabulary) add"
              : "the fused cross-entropy's gradient of the logits (tokens x vocabulary) adds",
      m.loss_backward_excess_bytes / 1e9, saved_bytes / 1e9,
      unfused ? "fp32 log-probabilities" : "logits", fix);
}

/// The run note of training.activation_offloading: what waits in pinned host memory, what
/// stays on the GPU, the copies' rate and what is not modelled (activation_offload.h,
/// activation_offload_plan.h). One sentence, no semicolons (the CSV joins notes with "; ").
std::string activation_offloading_note(const JobSpec& job, const ModelParams& params) {
  const Workload rank = rank_workload(job);
  const ActivationOffload o = activation_offload(rank, job.training, saved_bytes_per_sample(rank, job.training));
  const double batch = job.training.batch_size;
  return fmt::format(
      "activation offloading: {:.2f} GB per GPU of {} wait in pinned host memory ({:.1f} GB per node) while "
      "{:.2f} GB of saved activations stay on the GPU (two blocks in flight and the ops outside the blocks), copied at {:.1f} GB/s per direction beside compute (the pinned host "
      "link shared by {} GPU(s)), without the allocator's memory-pressure waits",
      o.host_bytes * batch / core::kGiga,
      job.training.activation_checkpointing ? "checkpoint inputs" : "saved activations",
      offloaded_activation_host_bytes_per_node(job) / core::kGiga, o.gpu_bytes() * batch / core::kGiga,
      host_link_bytes_per_s(job, params.gpu) / core::kGiga, std::max(1, job.hardware.gpus_per_pcie_switch));
}

}  // namespace

VariantRun run_variant(const JobSpec& job, const std::string& strategy, const ModelParams& params) {
  VariantRun run;
  VariantResult& r = run.result;
  r.strategy = strategy;
  r.gpu = job.hardware.gpu.name;
  r.parameters = job.workload.parameters;
  r.frozen_parameters = job.workload.frozen_parameters;
  r.gpus = job.hardware.gpus_per_node * job.hardware.nodes;
  r.global_batch_samples = static_cast<std::int64_t>(global_batch_samples(job));
  r.samples_are_sequences = job.workload.is_language_model;
  r.calibrated = job.hardware.gpu.calibrated;
  r.gpu_prediction_only = job.hardware.gpu.prediction_only;
  r.gpu_uncalibratable = job.hardware.gpu.is_amd();
  r.parallelism = std::string(name_of(job.parallelism.strategy));
  const bool has_attention = std::any_of(job.workload.ops.begin(), job.workload.ops.end(),
                                         [](const Op& op) { return op.op_class == OpClass::kAttention; });
  if (has_attention) r.attention_kernel = std::string(name_of(job.training.attention));
  r.nodes = job.hardware.nodes;
  if (r.gpus > 1) r.interconnect = job.hardware.topology.intra_node.name;
  if (job.hardware.nodes > 1 && job.hardware.topology.inter_node) {
    r.network = job.hardware.topology.inter_node->name;
    r.network_bytes_per_s =
        job.hardware.topology.inter_node->bytes_per_s_per_direction * job.hardware.topology.nics_per_node;
  }
  r.memory = rank_memory(job, params.memory);  // per GPU (the worst pipeline stage's)
  r.peak_memory_bytes = r.memory.total_bytes();
  r.memory_capacity_bytes = job.hardware.gpu.memory_bytes;
  r.fits = r.peak_memory_bytes <= r.memory_capacity_bytes;
  if (job.cloud && job.cloud->instance.accelerator_count > job.hardware.gpus_per_node) {
    r.notes.push_back(fmt::format("uses {} of the {} GPUs of {}/{}; the price is the whole instance's",
                                  job.hardware.gpus_per_node, job.cloud->instance.accelerator_count,
                                  job.cloud->instance.provider, job.cloud->instance.instance_type));
  }
  if (routed_experts(job.workload) > 0.0) {
    // Total (trained and frozen) and active parameters of a mixture-of-experts model
    // (Workload::active_parameters), in billions as model cards state them.
    // With the validation gap of tests/validation-gaps/README.md (M001-M005), said where it applies.
    r.notes.push_back(fmt::format("mixture of experts: {:.3g} B parameters, {:.3g} B active per token; published GPT-OSS "
                                  "120B pre-training runs measured 1.5-1.7x below gpuplan's throughput "
                                  "(tests/validation-gaps/README.md): read it as an upper bound",
                                  (job.workload.parameters + job.workload.frozen_parameters) / core::kGiga,
                                  job.workload.active_parameters() / core::kGiga));
  }
  const bool grouped_convolutions = std::any_of(job.workload.ops.begin(), job.workload.ops.end(),
                                                [](const Op& op) { return op.conv_group_input_channels > 0.0; });
  if (grouped_convolutions) {
    // The validation gap of tests/validation-gaps/README.md (E001-E016), said where it applies.
    r.notes.push_back(
        "grouped or depthwise convolutions: published EfficientNet, ResNeXt and SE-ResNeXt runs measured 8-85 % "
        "below gpuplan's throughput (tests/validation-gaps/README.md); read this throughput as an upper bound");
  }
  if (job.training.precision == Precision::kFp16Amp && !job.hardware.gpu.has_tensor_cores_fp16()) {
    r.notes.push_back(job.hardware.gpu.name + " has no fp16 tensor cores: fp16_amp runs without speed-up");
  }
  if (job.training.precision == Precision::kTf32 && job.hardware.gpu.is_amd()) {
    r.notes.push_back(job.hardware.gpu.name + " (" + job.hardware.gpu.architecture_text() +
                      ") has no TF32 path that gpuplan models: tf32 runs as fp32 matmuls at the FP32 matrix rate "
                      "(CDNA 3's xf32 is not modelled)");
  }
  if (r.fits && r.peak_memory_bytes > kTightMemoryShare * r.memory_capacity_bytes) {
    r.notes.push_back(fmt::format("memory: the peak is {:.0f} % of the GPU's {:.1f} GB; within {:.0f} % of capacity, "
                                  "fragmentation beyond the modelled allocator slack, communication buffers or a "
                                  "longer sample can still run out of memory",
                                  100.0 * r.peak_memory_bytes / r.memory_capacity_bytes, r.memory_capacity_bytes / 1e9,
                                  100.0 * (1.0 - kTightMemoryShare)));
  }
  if (job.workload.family == "transformer_decoder" &&
      r.memory.loss_backward_excess_bytes > kLossBackwardNoteShare * r.peak_memory_bytes) {
    r.notes.push_back(loss_backward_note(job, r.memory));
  }
  if (job.training.activation_offloading) r.notes.push_back(activation_offloading_note(job, params));
  if (!r.fits) {
    r.bottleneck = "memory";
    r.suggestion = oom_suggestion(job);
    return run;
  }

  // Steady state per epoch kind (first epoch from storage, later ones maybe from the page
  // cache), or every batch with params.step.exact (models/step/job_steps.h).
  const JobTimes shape = job_times(job, 1.0, 0.0);
  JobSteps job_steps = simulate_job_steps(job, params.gpu, params.step, shape.steps_per_epoch, shape.epochs);
  const StepPlan& plan = job_steps.plan;
  StepStats& stats = job_steps.steady;
  run.trace = std::move(stats.trace);
  run.events = job_steps.events;
  r.step = stats.breakdown;
  const double step_s = r.step.step_time_s;
  r.throughput_samples_per_s = global_batch_samples(job) / job_steps.throughput_step_s;
  if (job.workload.is_language_model) {
    r.throughput_tokens_per_s = r.throughput_samples_per_s * job.workload.tokens_per_sample;
  }
  r.gpu_utilization = stats.gpu_busy_s / step_s;
  r.mfu = plan.peak_flop_per_s > 0.0 ? plan.model_flop_per_step / step_s / plan.peak_flop_per_s : 0.0;
  // Per GPU, as MFU's numerator: a tensor-parallel rank's share of the model.
  const double hardware_flop_per_step = job.workload.hardware_flop_per_sample(job.training.activation_checkpointing) *
                                        job.training.batch_size * job.training.gradient_accumulation /
                                        job.parallelism.model_parallel_size();
  r.hfu = plan.peak_flop_per_s > 0.0 ? hardware_flop_per_step / step_s / plan.peak_flop_per_s : 0.0;
  if (plan.pipeline.stages > 1) r.pipeline_bubble_share = plan.pipeline.bubble_fraction;

  const double first_batch_s = plan.loader.synthetic ? 0.0 : plan.loader.batch_load_s;
  // The job level sees the job's mean step: start-up, pipeline fill and page-cache epochs in.
  const JobOutcome job_level = run_job_level(job, job_steps.job_mean_step_s, eval_batch_s(plan, job), first_batch_s);
  if (job_steps.page_cache) {
    // Hours from an hour up, seconds below (a note is read by people: no exponent).
    const auto duration = [](double s) { return s >= 3600.0 ? fmt::format("{:.2f} h", s / 3600.0) : fmt::format("{:.1f} s", s); };
    r.notes.push_back(fmt::format("page cache: the dataset fits in host memory; first epoch {} of training, "
                                  "later epochs {}",
                                  duration(job_steps.first_epoch_train_s), duration(job_steps.later_epoch_train_s)));
  }
  const double total_steps = shape.steps_per_epoch * shape.epochs;
  if (job.dataset.eval_samples > 0.0 && job.dataset.eval_every_steps > total_steps) {
    // A trainer evaluates at steps N, 2N, ...: none of them is reached. The job time still
    // charges the run's share of one pass (total steps / N, models/job/job_time.cpp).
    r.notes.push_back(fmt::format("workload.dataset.eval_every_steps {:g} exceeds the run's {:g} optimizer steps: "
                                  "no evaluation pass runs (the job time counts {:.3g} of one pass)",
                                  job.dataset.eval_every_steps, total_steps, total_steps / job.dataset.eval_every_steps));
  }
  const JobTimes& times = job_level.times;
  r.epoch_time_s = times.epoch_time_s;
  r.time_to_train_s = times.time_to_train_s;
  check_time_range(times, job_steps.job_mean_step_s);
  r.energy_j = training_energy_j(job.hardware, r.gpu_utilization, r.time_to_train_s);
  if (job.cloud) {
    r.cost_on_demand_usd = on_demand_cost_usd(job.cloud->instance, job.hardware.nodes, r.time_to_train_s);
  }
  fill_job_outputs(job, job_level, r);
  // Owned hardware is paid for the wall time, hardware failures included (p50); none for a
  // job that does not finish.
  if (job.on_premises && (!r.expected_failures || r.time_p50_s)) {
    const double wall_s = r.time_p50_s.value_or(r.time_to_train_s);
    r.cost_on_premises_usd = on_premises_cost_usd(*job.on_premises, job.hardware.nodes, wall_s, r.energy_j);
    if (wall_s > job.on_premises->amortization_s) {
      // Straight-line amortization charges the run's share of the price: past the period,
      // more than the hardware cost.
      r.notes.push_back(fmt::format(
          "on premises: the run ({}) outlasts on_premises.amortization ({}), so its hardware share is {:.1f}x the "
          "purchase price of its {} node{}; amortize over the hardware's service life, or read the dollars as rent",
          days_or_hours(wall_s), days_or_hours(job.on_premises->amortization_s),
          wall_s / job.on_premises->amortization_s, job.hardware.nodes, job.hardware.nodes == 1 ? "" : "s"));
    }
  }
  if (r.gpus > 1 && params.scaling_reference) {
    // Only against a reference that runs: one GPU that cannot hold the job (an 8 B AdamW job
    // needs about 16 B per parameter on one GPU) has no throughput to scale from.
    const JobSpec one = single_gpu_job(job);
    const double one_bytes = rank_memory(one, params.memory).total_bytes();
    if (one_bytes <= job.hardware.gpu.memory_bytes) {
      const double single = single_gpu_throughput(one, params, shape.epochs);
      r.single_gpu_throughput_samples_per_s = single;
      r.scaling_efficiency = r.throughput_samples_per_s / (r.gpus * single);
      if (*r.scaling_efficiency > kSuperlinearScaling) r.notes.push_back(superlinear_scaling_note(job, *r.scaling_efficiency));
    } else {
      r.notes.push_back(fmt::format("scaling: no efficiency, the job does not fit on one {} ({:.1f} GB of {:.1f} GB "
                                    "without parallelism), so there is no one-GPU throughput to scale from",
                                    job.hardware.gpu.name, one_bytes / 1e9, job.hardware.gpu.memory_bytes / 1e9));
    }
  }
  if (r.gpus > 1) r.collective = plan.comm.algorithm;
  // The limiter before any remedy is checked (cli/advisor.h replaces it with the remedy that
  // gains most): the critical path's binding part and a hint.
  r.critical_path = critical_path(plan, r.step, stats.loader);
  r.bottleneck = binding_part(r.critical_path);
  r.suggestion = unchecked_hint(r.bottleneck, job);
  // A job that does not finish is limited by its interruptions whatever its step does.
  if (does_not_finish(r)) {
    r.bottleneck = r.market == "spot" ? "preemptions" : "hardware_failures";
    r.suggestion = unfinished_hint(r, job.checkpointing.survives_preemption);
  }
  return run;
}

}  // namespace gpuplan::models

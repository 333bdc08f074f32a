#include "report/variant_fields.h"

#include <fmt/format.h>

#include <cmath>

#include "report/human_units.h"

namespace gpuplan::report {
namespace {

using models::VariantResult;
using Field = ResultField<VariantResult>;
using Value = std::optional<FieldValue>;

Value number(double x) { return FieldValue(x); }
Value optional_number(const std::optional<double>& x) { return x ? Value(FieldValue(*x)) : std::nullopt; }
Value positive(double x) { return x > 0.0 ? number(x) : std::nullopt; }
Value count(std::int64_t n) { return FieldValue(n); }
Value text(const std::string& s) { return FieldValue(s); }
Value nonempty(const std::string& s) { return s.empty() ? std::nullopt : text(s); }

bool multi_gpu(const VariantResult& v) { return v.gpus > 1; }
bool on_spot(const VariantResult& v) { return v.market == "spot"; }
/// The table shows a run's quantiles on spot, and on demand or on own hardware where hardware
/// failures move its wall time off the time to train (the row then has p50/p90 or does not finish).
bool interrupted(const VariantResult& v) {
  return on_spot(v) || (v.fits && (!v.market.empty() || v.expected_failures) &&
                        v.time_p90_s != std::optional<double>(v.time_to_train_s));
}
/// The market and dollar-quantile columns: with a cloud instance, where the row's quantiles are shown.
bool market_shown(const VariantResult& v) { return !v.market.empty() && interrupted(v); }
/// The table shows the memory split for language models and for rows that do not fit.
bool memory_split_shown(const VariantResult& v) { return !v.fits || v.throughput_tokens_per_s.has_value(); }

std::vector<Field> make_fields() {
  constexpr Applies kAlways = Applies::kAlways;
  constexpr Applies kFits = Applies::kFits;
  std::vector<Field> f;
  f.push_back({"strategy", "", kAlways, "strategy name, with the sweep point if any",
               [](const VariantResult& v) { return text(v.strategy); }, "strategy"});
  f.push_back({"gpu", "", kAlways, "GPU catalog name", [](const VariantResult& v) { return text(v.gpu); }});
  const auto count_text = [](double p) {
    return p >= 1e9 ? fmt::format("{:.3g} B", p / 1e9) : fmt::format("{:.3g} M", p / 1e6);
  };
  f.push_back({"parameters", "", kAlways, "trainable parameters of the model",
               [](const VariantResult& v) { return number(v.parameters); }, "params",
               // A LoRA/QLoRA row: the whole model, and the adapters trained ("6.74 B (40 M trained)").
               [count_text](const VariantResult& v) {
                 return v.frozen_parameters > 0.0
                            ? count_text(v.parameters + v.frozen_parameters) + " (" + count_text(v.parameters) +
                                  " trained)"
                            : count_text(v.parameters);
               }});
  f.push_back({"frozen_parameters", "", kAlways, "frozen parameters (a LoRA/QLoRA base); 0 in full training",
               [](const VariantResult& v) { return number(v.frozen_parameters); }});
  f.push_back({"gpus",
               "",
               kAlways,
               "GPUs training (GPUs per node x nodes)",
               [](const VariantResult& v) { return count(v.gpus); },
               "GPUs",
               {},
               multi_gpu});
  f.push_back({"nodes", "", kAlways, "nodes", [](const VariantResult& v) { return count(v.nodes); }});
  f.push_back({"parallelism", "", kAlways, "none | data_parallel | ddp",
               [](const VariantResult& v) { return text(v.parallelism); }});
  f.push_back({"collective", "", kAlways, "DDP: NCCL algorithm/protocol of the largest bucket",
               [](const VariantResult& v) { return nonempty(v.collective); }});
  f.push_back({"attention_kernel", "", kAlways,
               "the attention kernel that runs: training.attention with sdpa resolved to what PyTorch dispatches to "
               "(flash | memory_efficient | eager), or flash3 | flash_triton as named; none without attention",
               [](const VariantResult& v) { return nonempty(v.attention_kernel); }});
  f.push_back({"interconnect", "", kAlways, "intra-node link (interconnect table name); none on one GPU",
               [](const VariantResult& v) { return nonempty(v.interconnect); }});
  f.push_back({"network", "", kAlways, "transport between nodes (infiniband | ethernet); none on one node",
               [](const VariantResult& v) { return nonempty(v.network); }});
  f.push_back({"network_bytes_per_s", "B/s", kAlways, "all NICs of a node, per direction; none on one node",
               [](const VariantResult& v) { return positive(v.network_bytes_per_s); }});
  f.push_back({"global_batch_samples", "", kAlways, "micro-batch x gradient accumulation x data-parallel ranks",
               [](const VariantResult& v) { return count(v.global_batch_samples); }});
  f.push_back({"fits",
               "",
               kAlways,
               "peak GPU memory <= capacity",
               [](const VariantResult& v) { return Value(v.fits); },
               {},
               {},
               {},
               "-",
               "fits"});
  f.push_back({"throughput_samples_per_s",
               "samples/s",
               kFits,
               "global batch / step time",
               [](const VariantResult& v) { return number(v.throughput_samples_per_s); },
               "samples/s",
               {},
               {},
               "OOM",
               "throughput"});
  f.push_back({"single_gpu_throughput_samples_per_s", "samples/s", kFits,
               "one GPU of the same kind alone on the node, same per-GPU batch; several GPUs only, where the job fits on that one GPU",
               [](const VariantResult& v) { return optional_number(v.single_gpu_throughput_samples_per_s); }});
  f.push_back({"throughput_tokens_per_s",
               "tokens/s",
               kFits,
               "samples/s x sequence length; language models only",
               [](const VariantResult& v) { return optional_number(v.throughput_tokens_per_s); },
               "tokens/s",
               {},
               [](const VariantResult& v) { return v.throughput_tokens_per_s.has_value(); },
               "-",
               "tokens_per_s"});
  f.push_back({"throughput_per_gpu_tokens_per_s",
               "tokens/s",
               kFits,
               "tokens/s / GPUs; language models only",
               [](const VariantResult& v) {
                 return v.throughput_tokens_per_s ? number(*v.throughput_tokens_per_s / v.gpus) : std::nullopt;
               },
               "tokens/s/GPU",
               {},
               [](const VariantResult& v) { return v.throughput_tokens_per_s.has_value() && multi_gpu(v); }});
  f.push_back({"step_time_s",
               "s",
               kFits,
               "one optimizer step, accumulation micro-steps included (simulated)",
               [](const VariantResult& v) { return number(v.step.step_time_s); },
               "step",
               {},
               {},
               "-",
               "step_time"});
  f.push_back({"gpu_compute_s", "s", kFits, "forward and backward kernels per step",
               [](const VariantResult& v) { return number(v.step.gpu_compute_s); }});
  f.push_back({"optimizer_s", "s", kFits, "optimizer kernels per step",
               [](const VariantResult& v) { return number(v.step.optimizer_s); }});
  f.push_back({"data_wait_s", "s", kFits, "time per step the GPU waits for data",
               [](const VariantResult& v) { return number(v.step.data_wait_s); }});
  f.push_back({"h2d_s", "s", kFits, "host-to-device copies per step not overlapped",
               [](const VariantResult& v) { return number(v.step.h2d_s); }});
  f.push_back({"host_dispatch_s", "s", kFits, "host dispatch per step the GPU waits on",
               [](const VariantResult& v) { return number(v.step.host_dispatch_wait_s); }});
  f.push_back({"communication_exposed_s", "s", kFits, "communication per step not hidden behind compute",
               [](const VariantResult& v) { return number(v.step.communication_exposed_s); }, "comm",
               [](const VariantResult& v) { return v.gpus > 1 ? human_duration(v.step.communication_exposed_s) : "-"; },
               multi_gpu});
  f.push_back({"pipeline_bubble_s", "s", kFits,
               "pipeline parallelism: time per step the simulated stage's GPU waits for the other stages (the "
               "schedule's warm-up and drain, and waits on a slower stage); 0 without a pipeline",
               // "stage wait", not "bubble": the simulated stage is the slowest, which waits longer
               // than the busiest stage idles (pipeline_bubble_share, the table's "bubble").
               [](const VariantResult& v) { return number(v.step.pipeline_bubble_s); }, "stage wait",
               [](const VariantResult& v) { return human_duration(v.step.pipeline_bubble_s); },
               [](const VariantResult& v) { return v.pipeline_bubble_share.has_value(); }});
  f.push_back({"scaling_efficiency",
               "1",
               kFits,
               "samples/s / (GPUs x samples/s of one such GPU alone on the node); several GPUs only, and only where the job fits on that one GPU (else absent, with a note)",
               [](const VariantResult& v) { return optional_number(v.scaling_efficiency); },
               "scaling",
               {},
               multi_gpu});
  f.push_back({"gpu_utilization",
               "1",
               kFits,
               "share of time a kernel runs (nvidia-smi)",
               [](const VariantResult& v) { return number(v.gpu_utilization); },
               "GPU util",
               {},
               {},
               "-",
               "gpu_utilization"});
  f.push_back({"mfu",
               "1",
               kFits,
               "model FLOP/s / dense peak FLOP/s of the precision (PaLM)",
               [](const VariantResult& v) { return number(v.mfu); },
               "MFU",
               {},
               {},
               "-",
               "mfu"});
  f.push_back({"hfu",
               "1",
               kFits,
               "hardware FLOP/s (model FLOP plus recomputation: fused attention's backward, selective or "
               "checkpointed replays) / dense peak FLOP/s of the precision; >= mfu",
               [](const VariantResult& v) { return number(v.hfu); },
               "HFU",
               {},
               [](const VariantResult& v) { return v.hfu > v.mfu + 0.005; }});
  f.push_back({"pipeline_bubble_share",
               "1",
               kFits,
               "pipeline parallelism: share of the simulated schedule's makespan the busiest stage's GPU idles "
               "(warm-up, drain and waits for sends); empty without a pipeline",
               [](const VariantResult& v) { return optional_number(v.pipeline_bubble_share); },
               "bubble (busiest)",
               {},
               [](const VariantResult& v) { return v.pipeline_bubble_share.has_value(); }});
  f.push_back({"peak_memory_bytes",
               "B",
               kAlways,
               "peak GPU memory per GPU (models/memory/footprint.h)",
               [](const VariantResult& v) { return number(v.peak_memory_bytes); },
               "peak mem",
               [](const VariantResult& v) {
                 return human_bytes(v.peak_memory_bytes) + " / " + human_bytes(v.memory_capacity_bytes) +
                        (v.fits ? "" : " OOM");
               },
               {},
               "-",
               "peak_memory"});
  f.push_back({"peak_allocated_bytes",
               "B",
               kAlways,
               "peak memory in tensors, as torch.cuda.max_memory_allocated() counts it: the peak without the "
               "CUDA context and the caching allocator's slack",
               [](const VariantResult& v) {
                 return number(v.peak_memory_bytes - v.memory.cuda_context_bytes - v.memory.allocator_slack_bytes);
               },
               {},
               {},
               {},
               "-",
               "peak_memory_allocated"});
  f.push_back({"memory_capacity_bytes", "B", kAlways, "usable memory of one GPU",
               [](const VariantResult& v) { return number(v.memory_capacity_bytes); }});
  // The parts of the peak. The four that a user changes (weights, gradients, optimizer state,
  // activations) also get a table column for language models and out-of-memory rows, where
  // the split says what to cut; the fixed overheads stay in CSV and JSON.
  const auto part = [&f](const char* name, const char* doc, double models::MemoryBreakdown::*member,
                         const char* heading = "") {
    f.push_back({std::string("memory_") + name + "_bytes", "B", kAlways, doc,
                 [member](const VariantResult& v) { return number(v.memory.*member); }, heading, {},
                 *heading == '\0' ? std::function<bool(const VariantResult&)>{} : memory_split_shown});
  };
  part("weights", "peak memory: weights (under AMP the fp32 parameters and autocast's 16-bit copies)",
       &models::MemoryBreakdown::weights_bytes, "weights");
  part("gradients", "peak memory: gradients", &models::MemoryBreakdown::gradients_bytes, "grads");
  part("optimizer_state",
       "peak memory: optimizer state, and the fp32 master weights where the optimizer holds them apart from "
       "16-bit parameters (ZeRO, distributed optimizer)",
       &models::MemoryBreakdown::optimizer_state_bytes, "optimizer");
  part("activations", "peak memory: saved activations", &models::MemoryBreakdown::activations_bytes,
       "activations");
  part("workspace", "peak memory: kernel workspace, a quantized base's largest dequantized weight included",
       &models::MemoryBreakdown::workspace_bytes);
  part("cuda_context", "peak memory: CUDA context", &models::MemoryBreakdown::cuda_context_bytes);
  part("allocator_slack", "peak memory: caching-allocator slack", &models::MemoryBreakdown::allocator_slack_bytes);
  part("data_parallel", "peak memory: DDP gradient buckets, DataParallel's extras on GPU 0, FSDP's gathered units",
       &models::MemoryBreakdown::data_parallel_bytes);
  part("gathered", "peak memory: parameters all-gathered for the units in flight (FSDP/ZeRO-3); 0 without sharding",
       &models::MemoryBreakdown::gathered_bytes);
  f.push_back({"epoch_time_s", "s", kFits, "one pass over the dataset",
               [](const VariantResult& v) { return number(v.epoch_time_s); }, "epoch"});
  f.push_back({"time_to_train_s",
               "s",
               kFits,
               "all epochs, without preemptions or hardware failures",
               [](const VariantResult& v) { return number(v.time_to_train_s); },
               "time to train",
               {},
               {},
               "-",
               "time_to_train"});
  f.push_back({"cost_on_demand_usd",
               "USD",
               kFits,
               "on-demand price x nodes x time to train; with an instance",
               [](const VariantResult& v) { return optional_number(v.cost_on_demand_usd); },
               "on-demand",
               // A spot row's dollars are its $ p50/p90: the table leaves this reference out there.
               [](const VariantResult& v) { return on_spot(v) ? std::string("-") : human_usd(*v.cost_on_demand_usd); },
               [](const VariantResult& v) { return v.cost_on_demand_usd.has_value() && !on_spot(v); }});
  f.push_back({"cost_on_premises_usd",
               "USD",
               kFits,
               "amortized hardware and electricity; with on_premises",
               [](const VariantResult& v) { return optional_number(v.cost_on_premises_usd); },
               "on-prem",
               {},
               [](const VariantResult& v) { return v.cost_on_premises_usd.has_value(); }});
  f.push_back({"market", "", kAlways, "on_demand | spot; with a cloud instance",
               [](const VariantResult& v) { return nonempty(v.market); }, "market",
               [](const VariantResult& v) { return v.fits ? v.market : std::string("-"); }, market_shown});
  // A spot run whose quantile trial does not finish has no time or dollars there
  // (models/run/run_variant.cpp).
  const auto unfinished = [](const VariantResult& v) {
    return v.market.empty() && !v.expected_failures ? std::string("-") : std::string("does not finish");
  };
  f.push_back({"time_p50_s",
               "s",
               kFits,
               "median wall time to finish on the market, preemptions and hardware failures included (models/job/cloud_job.h); absent when the job does not finish (spot: fewer than half the trials finish within the cap)",
               [](const VariantResult& v) { return optional_number(v.time_p50_s); },
               "time p50",
               {},
               interrupted,
               "-",
               {},
               unfinished});
  f.push_back({"time_p90_s",
               "s",
               kFits,
               "90th percentile of the wall time; absent when the job does not finish at that quantile (spot: fewer than 90 % of the trials finish)",
               [](const VariantResult& v) { return optional_number(v.time_p90_s); },
               "time p90",
               {},
               interrupted,
               "-",
               {},
               unfinished});
  f.push_back({"cost_p50_usd",
               "USD",
               kFits,
               "median dollars on the market (its price x nodes x wall time on demand); absent where time p50 is",
               [](const VariantResult& v) { return optional_number(v.cost_p50_usd); },
               "$ p50",
               {},
               market_shown,
               "-",
               {},
               unfinished});
  f.push_back({"cost_p90_usd",
               "USD",
               kFits,
               "90th percentile of the dollars; absent where time p90 is",
               [](const VariantResult& v) { return optional_number(v.cost_p90_usd); },
               "$ p90",
               {},
               market_shown,
               "-",
               {},
               unfinished});
  f.push_back({"expected_preemptions", "", kFits, "spot: mean preemptions over the trials",
               [](const VariantResult& v) { return optional_number(v.expected_preemptions); }, "preempt.",
               [](const VariantResult& v) { return fmt::format("{:.1f}", *v.expected_preemptions); }, on_spot});
  f.push_back({"expected_failures", "", kFits,
               "on demand and on own hardware: mean hardware failures over the run (hardware.gpu_failure_rate; on "
               "spot they count among the preemptions)",
               [](const VariantResult& v) { return optional_number(v.expected_failures); }});
  f.push_back({"lost_time_share",
               "1",
               kFits,
               "spot: share of wall time lost to preemptions",
               [](const VariantResult& v) { return optional_number(v.lost_time_share); },
               "lost",
               {},
               on_spot});
  f.push_back({"finished_share", "1", kFits, "spot: share of trials finished within the cap",
               [](const VariantResult& v) { return optional_number(v.finished_share); }});
  f.push_back({"checkpoint_interval_s", "s", kFits, "chosen checkpoint interval (work seconds); none without",
               [](const VariantResult& v) { return positive(v.checkpoint_interval_s); }});
  f.push_back({"checkpoint_interval_reason", "", kFits, "which interval and why",
               [](const VariantResult& v) { return nonempty(v.checkpoint_interval_reason); }});
  f.push_back({"trials", "", kAlways, "Monte Carlo trials run (spot)",
               [](const VariantResult& v) { return v.trials > 0 ? count(v.trials) : std::nullopt; }});
  f.push_back({"energy_j", "J", kFits, "GPU and host energy over the time to train (models/energy/energy.h)",
               [](const VariantResult& v) { return number(v.energy_j); }, "energy"});
  f.push_back({"bottleneck", "", kAlways, "the resource that limits the step, or memory (OOM)",
               [](const VariantResult& v) { return text(v.bottleneck); }, "bottleneck"});
  f.push_back({"suggestion", "", kAlways, "what relieves the bottleneck",
               [](const VariantResult& v) { return text(v.suggestion); }});
  // The checked suggestion (models/run/advice.h): the remedy with the largest simulated gain.
  const auto suggested = [](double models::SuggestedChange::*member) {
    // A remedy that makes a row that does not finish finish gains without bound: no number.
    return [member](const VariantResult& v) {
      return v.suggested && std::isfinite((*v.suggested).*member) ? number((*v.suggested).*member) : std::nullopt;
    };
  };
  f.push_back({"suggestion_overrides", "", kFits,
               "the suggestion as scenario overrides (path -> value), as a strategy would write them",
               [](const VariantResult& v) -> Value {
                 if (!v.suggested) return std::nullopt;
                 TextMap overrides;
                 for (const models::ScenarioOverride& o : v.suggested->overrides) overrides[o.path] = o.value;
                 return FieldValue(overrides);
               }});
  f.push_back({"suggestion_relieves", "", kFits, "the resource the suggested remedy relieves",
               [](const VariantResult& v) { return v.suggested ? text(v.suggested->relieves) : std::nullopt; }});
  f.push_back({"suggestion_goal", "", kFits, "what the remedies were ranked on: time_to_train | cost",
               [](const VariantResult& v) { return v.suggested ? text(v.suggested->goal) : std::nullopt; }});
  f.push_back({"suggestion_gain", "1", kFits, "goal before / goal after - 1, simulated",
               suggested(&models::SuggestedChange::gain)});
  f.push_back({"suggested_throughput_samples_per_s", "samples/s", kFits, "samples/s with the suggestion, simulated",
               suggested(&models::SuggestedChange::throughput_samples_per_s)});
  f.push_back({"suggested_throughput_change", "1", kFits, "samples/s after / before - 1",
               suggested(&models::SuggestedChange::throughput_change)});
  f.push_back({"suggested_time_to_train_s", "s", kFits,
               "time to train with the suggestion (wall time p50 on a cloud market), simulated",
               suggested(&models::SuggestedChange::time_to_train_s)});
  f.push_back({"suggested_time_change", "1", kFits, "time to train after / before - 1",
               suggested(&models::SuggestedChange::time_change)});
  f.push_back({"suggested_cost_usd", "USD", kFits, "dollars with the suggestion on the row's market (p50)",
               [](const VariantResult& v) { return v.suggested ? optional_number(v.suggested->cost_usd) : std::nullopt; }});
  f.push_back({"suggested_cost_change_usd", "USD", kFits, "suggested_cost_usd - the row's dollars",
               [](const VariantResult& v) {
                 return v.suggested ? optional_number(v.suggested->cost_change_usd) : std::nullopt;
               }});
  f.push_back({"critical_path_share", "1", kFits,
               "each resource's share of the simulated step (models/run/critical_path.h), adding up to 1",
               [](const VariantResult& v) -> Value {
                 if (v.critical_path.empty()) return std::nullopt;
                 NumberMap shares;
                 for (const models::CriticalPathPart& p : v.critical_path) shares[p.resource] = p.share;
                 return FieldValue(shares);
               }});
  f.push_back({"notes", "", kAlways, "warnings about the row",
               [](const VariantResult& v) { return Value(FieldValue(v.notes)); }});
  f.push_back({"calibrated", "", kAlways, "the GPU's figures come from a measured profile",
               [](const VariantResult& v) { return Value(v.calibrated); }});
  return f;
}

}  // namespace

const std::vector<Field>& variant_fields() {
  static const std::vector<Field> fields = make_fields();
  return fields;
}

const Field* field_measured_as(const std::string& metric) {
  for (const Field& f : variant_fields()) {
    if (!f.measured_as.empty() && f.measured_as == metric) return &f;
  }
  return nullptr;
}

}  // namespace gpuplan::report

#include "config/scenario_validator.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "config/applied_overrides.h"
#include "config/no_effect_notes.h"
#include "config/scenario_fine_tuning.h"
#include "config/scenario_recompute.h"
#include "config/scenario_hardware.h"
#include "config/scenario_expert_parallel.h"
#include "config/scenario_model_parallel.h"
#include "config/scenario_parallelism.h"
#include "config/scenario_reading.h"
#include "config/scenario_workload.h"
#include "core/units.h"
#include "models/job/job_time.h"
#include "models/job/spot_job.h"
#include "models/workload/architecture_reader.h"
#include "models/workload/attention_kernel.h"
#include "models/workload/workload.h"

namespace gpuplan::config {
namespace {

constexpr std::int64_t kMaxBatchSize = 1'000'000;
constexpr std::int64_t kMaxGradientAccumulation = 1'000'000;
constexpr std::int64_t kMaxWorkers = 1024;
constexpr std::int64_t kMaxPrefetchFactor = 1024;
constexpr std::int64_t kMaxTrials = 1'000'000;

/// The documented defaults of scenario-format.md (config/README.md lists them).
constexpr models::Precision kDefaultPrecision = models::Precision::kFp32;
constexpr models::Optimizer kDefaultOptimizer = models::Optimizer::kSgdMomentum;
/// torch.optim allocates its state like the parameter (models/memory/optimizer_state.h).
constexpr models::OptimizerStatePrecision kDefaultOptimizerStatePrecision = models::OptimizerStatePrecision::kParam;
/// PyTorch's default tensor layout is NCHW (torch.contiguous_format).
constexpr models::MemoryFormat kDefaultMemoryFormat = models::MemoryFormat::kChannelsFirst;
constexpr models::FrameworkOverhead kDefaultFrameworkOverhead = models::FrameworkOverhead::kEager;
constexpr models::Framework kDefaultFramework = models::Framework::kPytorch;
/// PyTorch's nn.MultiheadAttention, HF transformers (attn_implementation="sdpa" since 4.36) and
/// nanoGPT call scaled_dot_product_attention; config resolves it per GPU and precision.
constexpr models::AttentionKernel kDefaultAttention = models::AttentionKernel::kSdpa;
/// A causal mask reaches SDPA as is_causal=True unless the scenario says otherwise: nanoGPT,
/// litgpt, torchtitan and HF transformers in eager mode pass the flag (models/precision.h).
constexpr models::CausalMask kDefaultCausalMask = models::CausalMask::kIsCausal;
/// Names other tools give the precisions (folded as for kAttentionAliases), for "did you mean":
/// PyTorch Lightning's Trainer(precision=...) ("bf16-mixed", "16-mixed", "bf16-true",
/// "32-true"), HF Trainer's flags (bf16=True, fp16=True: autocast over fp32 weights) and
/// torch.autocast's dtypes. A mixed name must not be read as pure bf16 (different numerics and
/// memory), which is the nearest by spelling.
const std::vector<ChoiceAlias> kPrecisionAliases = {
    {"bf16mixed", "bf16_amp"}, {"16mixed", "fp16_amp"},   {"fp16mixed", "fp16_amp"}, {"bf16true", "bf16"},
    {"32true", "fp32"},        {"32", "fp32"},            {"float32", "fp32"},       {"16", "fp16_amp"},
    {"fp16", "fp16_amp"},      {"float16", "fp16_amp"},   {"half", "fp16_amp"},      {"amp", "fp16_amp"},
    {"bfloat16", "bf16"},      {"transformerengine", "fp8"}, {"float8", "fp8"}};

/// Names HF Trainer's `optim` gives the optimizers (folded as for kAttentionAliases), for "did
/// you mean": adamw_torch, adamw_torch_fused (torch AdamW; gpuplan's
/// training.optimizer_implementation says fused), adamw_bnb_8bit, paged_adamw_8bit's
/// spellings and sgd.
const std::vector<ChoiceAlias> kOptimizerAliases = {
    {"adamwtorch", "adamw"},     {"adamwtorchfused", "adamw"}, {"adamwhf", "adamw"},
    {"adamwapexfused", "adamw"}, {"fusedadam", "adamw"},       {"adamwbnb8bit", "adamw_8bit"},
    {"adamw8bitbnb", "adamw_8bit"}, {"bnbadamw8bit", "adamw_8bit"}, {"pagedadamw", "paged_adamw_8bit"},
    {"pagedadamw8bitbnb", "paged_adamw_8bit"}};

/// Names other tools give the attention kernels (folded: lower case, no '-', '_', '.' or
/// spaces), for "did you mean": HF transformers' attn_implementation ("flash_attention_2",
/// "flash_attention_3"), the flash-attn package (flash_attn, FlashAttention-2/-3, "FA2"; llm-foundry attn_impl "triton"),
/// PyTorch's SDPA backends (SDPBackend.MATH, EFFICIENT_ATTENTION; torch.nn.attention) and
/// xformers' memory_efficient_attention.
const std::vector<ChoiceAlias> kAttentionAliases = {
    {"fa", "flash"},           {"fa2", "flash"},         {"flash2", "flash"},
    {"flashattn", "flash"},    {"flashattn2", "flash"},  {"flashattention", "flash"},
    {"flashattention2", "flash"}, {"fa3", "flash3"},     {"flashattn3", "flash3"},
    {"flashattention3", "flash3"}, {"cudnn", "flash3"},  {"cudnnattention", "flash3"},
    {"sdp", "sdpa"},           {"torchsdpa", "sdpa"},    {"scaleddotproductattention", "sdpa"},
    {"math", "eager"},         {"naive", "eager"},       {"vanilla", "eager"},
    {"memefficient", "memory_efficient"}, {"efficient", "memory_efficient"},
    {"efficientattention", "memory_efficient"}, {"memoryefficientattention", "memory_efficient"},
    {"xformers", "memory_efficient"}, {"memeff", "memory_efficient"},
    {"triton", "flash_triton"}, {"flashattntriton", "flash_triton"}, {"tritonflash", "flash_triton"}};
/// PyTorch's and cuDNN's names of the two layouts (torch.channels_last is "NHWC" in memory,
/// torch.contiguous_format "NCHW"), for "did you mean".
const std::vector<ChoiceAlias> kMemoryFormatAliases = {
    {"nhwc", "channels_last"}, {"nchw", "channels_first"}, {"contiguousformat", "channels_first"},
    {"contiguous", "channels_first"}, {"channelslast", "channels_last"}};
/// torch.utils.data.DataLoader defaults (PyTorch 2.x docs): num_workers=0, prefetch_factor=2
/// (per worker), pin_memory=False, persistent_workers=False.
constexpr int kDefaultNumWorkers = 0;
constexpr int kDefaultPrefetchFactor = 2;

template <typename Enum>
Enum enum_or(const std::optional<std::string>& name, Enum fallback) {
  return name ? *models::from_name<Enum>(*name) : fallback;
}

std::optional<models::TrainingSpec> read_training(std::optional<MapReader>& t, const models::Workload* workload,
                                                  const core::Registry<models::IWorkloadFamily>& families) {
  if (!t) {
    return std::nullopt;
  }
  const std::size_t errors_before = t->sink().messages().size();
  models::TrainingSpec spec;
  const auto batch_size = t->integer("batch_size", 1, kMaxBatchSize, Requirement::kRequired);
  const auto accumulation = t->integer("gradient_accumulation", 1, kMaxGradientAccumulation);
  const std::optional<std::string> precision =
      t->choice("precision", models::names_of<models::Precision>(), Requirement::kOptional, kPrecisionAliases);
  spec.precision = enum_or(precision, kDefaultPrecision);
  spec.optimizer = enum_or(
      t->choice("optimizer", models::names_of<models::Optimizer>(), Requirement::kOptional, kOptimizerAliases),
      kDefaultOptimizer);
  spec.optimizer_state_precision =
      enum_or(t->choice("optimizer_state_precision", models::names_of<models::OptimizerStatePrecision>()),
              kDefaultOptimizerStatePrecision);
  const std::optional<std::string> implementation =
      t->choice("optimizer_implementation", models::names_of<models::OptimizerImplementation>());
  if (implementation) {
    spec.optimizer_implementation = models::from_name<models::OptimizerImplementation>(*implementation);
  }
  if (spec.optimizer_state_precision != kDefaultOptimizerStatePrecision &&
      (spec.optimizer == models::Optimizer::kAdamW8bit || spec.optimizer == models::Optimizer::kPagedAdamW8bit)) {
    t->error("optimizer_state_precision",
             std::string(models::name_of(spec.optimizer)) + " keeps its state block-wise quantized to 8 bit",
             "; remove training.optimizer_state_precision or use optimizer: adamw");
  }
  const std::optional<RecomputeChoice> recompute = read_activation_checkpointing(*t);
  if (recompute) {
    spec.activation_recompute = recompute->mode;
    spec.checkpoint_every = recompute->every;
    spec.activation_checkpointing = recompute->mode == models::ActivationRecompute::kFull;
  }
  spec.activation_offloading = value_or(t->boolean("activation_offloading"), false);
  spec.memory_format =
      enum_or(t->choice("memory_format", models::names_of<models::MemoryFormat>(), Requirement::kOptional,
                        kMemoryFormatAliases),
              kDefaultMemoryFormat);
  spec.framework_overhead = enum_or(t->choice("framework_overhead", models::names_of<models::FrameworkOverhead>()),
                                    kDefaultFrameworkOverhead);
  spec.framework = enum_or(t->choice("framework", models::names_of<models::Framework>()), kDefaultFramework);
  // optimizer_implementation names how torch.optim's SGD and Adam(W) run; the 8-bit optimizers
  // and Adafactor loop over the tensors with kernels of their own (op_time.h).
  if (implementation) {
    const models::Optimizer o = spec.optimizer;
    if (o != models::Optimizer::kSgd && o != models::Optimizer::kSgdMomentum && o != models::Optimizer::kAdam &&
        o != models::Optimizer::kAdamW) {
      t->error("optimizer_implementation",
               "optimizer_implementation says how torch.optim's SGD and Adam(W) run, and " +
                   std::string(models::name_of(o)) + " loops over the tensors with kernels of its own",
               "; remove training.optimizer_implementation");
    }
  }
  spec.attention = enum_or(t->choice("attention", models::names_of<models::AttentionKernel>(), Requirement::kOptional,
                                     kAttentionAliases),
                           kDefaultAttention);
  spec.causal_mask = enum_or(t->choice("causal_mask", models::names_of<models::CausalMask>()), kDefaultCausalMask);
  // A precision that was written and refused has no value to check fine_tuning against: the
  // default (fp32) in its place would add an error about a value the user never wrote.
  const std::optional<models::FineTuningSpec> fine_tuning = read_fine_tuning(
      *t, workload, precision || !t->has("precision") ? std::optional(spec.precision) : std::nullopt);
  report_architecture_keys(*t, workload, families);  // training.loss: ... belongs in workload.model
  t->finish();
  if (t->sink().messages().size() != errors_before) {
    return std::nullopt;
  }
  if (!fine_tuning) {
    return std::nullopt;
  }
  spec.fine_tuning = *fine_tuning;
  spec.batch_size = static_cast<int>(*batch_size);
  spec.gradient_accumulation = static_cast<int>(value_or(accumulation, 1));
  return spec;
}

std::optional<models::DataLoaderSpec> read_data_loader(MapReader& root) {
  models::DataLoaderSpec spec;
  spec.num_workers = kDefaultNumWorkers;
  spec.prefetch_factor = kDefaultPrefetchFactor;
  if (!root.has("data_loader")) {
    root.declare({"data_loader"});
    return spec;
  }
  const std::size_t errors_before = root.sink().messages().size();
  auto d = root.map("data_loader");
  if (!d) {
    return std::nullopt;
  }
  spec.num_workers = static_cast<int>(value_or(d->integer("num_workers", 0, kMaxWorkers), kDefaultNumWorkers));
  // Allowed with num_workers 0 (PyTorch >= 2.0 refuses it there), and then ignored.
  spec.prefetch_factor =
      static_cast<int>(value_or(d->integer("prefetch_factor", 1, kMaxPrefetchFactor), kDefaultPrefetchFactor));
  spec.pin_memory = value_or(d->boolean("pin_memory"), false);
  spec.persistent_workers = value_or(d->boolean("persistent_workers"), false);
  spec.preprocess_on =
      enum_or(d->choice("preprocess_on", models::names_of<models::PreprocessOn>()), models::PreprocessOn::kCpu);
  d->finish();
  if (root.sink().messages().size() != errors_before) {
    return std::nullopt;
  }
  return spec;
}

/// `checkpointing.destination`: where the checkpoints are written. A name takes its storage
/// class's write and read bandwidth from catalogs/storage.yaml; local_nvme is the node's own
/// disk, which a preemption takes with the node.
struct CheckpointDestination {
  const char* name;
  const char* storage_class;  ///< catalogs/storage.yaml entry; nullptr = hardware.storage
  bool survives_preemption;
};
constexpr std::array kCheckpointDestinations = {
    CheckpointDestination{"hardware_storage", nullptr, true},
    CheckpointDestination{"local_nvme", "nvme_ssd", false},
    CheckpointDestination{"object_store", "object_store_fuse", true},
    CheckpointDestination{"network_fs", "nfs", true},
};

/// Reads `checkpointing.destination` into `spec` (a name, or {write_bandwidth,
/// read_bandwidth, survives_preemption}).
void read_checkpoint_destination(MapReader& c, const StorageCatalog& storage, models::CheckpointSpec& spec) {
  const YAML::Node node = c.raw("destination");
  if (!node.IsDefined()) {
    return;
  }
  if (node.IsMap()) {
    MapReader d(node, c.path_of("destination"), c.sink());
    const auto write = d.quantity("write_bandwidth", core::Dimension::kBytesPerSecond, Range::kPositive,
                                  Requirement::kRequired);
    const auto read = d.quantity("read_bandwidth", core::Dimension::kBytesPerSecond, Range::kPositive);
    const auto survives = d.boolean("survives_preemption");
    d.finish();
    spec.destination = "custom";
    spec.write_bytes_per_s = value_or(write, 0.0);
    spec.read_bytes_per_s = value_or(read, spec.write_bytes_per_s);
    spec.survives_preemption = value_or(survives, true);
    return;
  }
  const std::optional<std::string> name = c.choice("destination", checkpoint_destination_names());
  if (!name) {
    return;
  }
  for (const CheckpointDestination& d : kCheckpointDestinations) {
    if (*name != d.name) continue;
    spec.destination = d.name;
    spec.survives_preemption = d.survives_preemption;
    if (d.storage_class != nullptr) {
      const models::StorageSpec* s = storage.find(d.storage_class);
      if (s == nullptr) {
        c.error("destination", std::string("the storage catalog has no class ") + d.storage_class + " for " + d.name,
                "; add it to catalogs/storage.yaml or write destination: {write_bandwidth: \"1 GB/s\"}");
        return;
      }
      spec.write_bytes_per_s = s->write_bytes_per_s;
      spec.read_bytes_per_s = s->read_bytes_per_s;
    }
  }
}

std::optional<models::CheckpointSpec> read_checkpointing(MapReader& root, const StorageCatalog& storage,
                                                         SourceMark& interval_mark) {
  models::CheckpointSpec spec;
  if (!root.has("checkpointing")) {
    root.declare({"checkpointing"});
    return spec;  // no checkpoints
  }
  const std::size_t errors_before = root.sink().messages().size();
  auto c = root.map("checkpointing");
  if (!c) {
    return std::nullopt;
  }
  spec.enabled = true;
  const YAML::Node interval = c->raw("interval");
  if (interval.IsDefined() && interval.IsScalar() && interval.Scalar() == "auto") {
    spec.automatic = true;  // Young/Daly, computed by the job model
  } else if (interval.IsDefined() && interval.IsMap()) {
    c->error("interval", "expected a duration such as \"30 min\" or auto, found a mapping");
  } else if (interval.IsDefined() && interval.IsScalar() && written_in_another_case(interval.Scalar(), "auto")) {
    c->error("interval", "expected a duration such as \"30 min\" or auto, found '" + interval.Scalar() + "'",
             "; write auto (in lower case)");
  } else {
    spec.interval_s = value_or(c->quantity("interval", core::Dimension::kSeconds, Range::kPositive,
                                           Requirement::kRequired, "\"30 min\", or auto (Young/Daly)"),
                               0.0);
    interval_mark = root.sink().to_source_mark(c->mark_of("interval"));
  }
  spec.async = value_or(c->boolean("async"), false);
  read_checkpoint_destination(*c, storage, spec);
  c->finish();
  if (root.sink().messages().size() != errors_before) {
    return std::nullopt;
  }
  return spec;
}

/// A checkpoint interval written shorter than one checkpoint write (models/job/job_time.h:
/// checkpoint bytes / the destination's write bandwidth) is refused at `interval_mark`: each
/// write would start before the last has ended, and the job would do little but write
/// checkpoints (a 1 ns interval made a 4.6 s GPT-2 job on one H100 last 19,035 days). Returns false then.
bool check_checkpoint_interval(const models::JobSpec& job, const SourceMark& interval_mark, ErrorSink& sink) {
  const double bytes_per_s = models::checkpoint_write_bytes_per_s(job);
  if (!job.checkpointing.enabled || job.checkpointing.interval_s <= 0.0 || bytes_per_s <= 0.0) return true;
  const double write_s = models::checkpoint_bytes(job) / bytes_per_s;
  if (job.checkpointing.interval_s >= write_s) return true;
  sink.add_formatted(format_diagnostic(
      fmt::format("a checkpoint interval of {:.3g} s is shorter than one checkpoint write ({:.3g} GB at {:.3g} GB/s: "
                  "{:.3g} s)",
                  job.checkpointing.interval_s, models::checkpoint_bytes(job) / 1e9, bytes_per_s / 1e9, write_s),
      interval_mark, "checkpointing.interval",
      "; raise it well above the write, e.g. \"30 min\", or write auto (Young/Daly)"));
  return false;
}

/// A preemption rate written so high that the job's mean time between preemptions (1 / (nodes
/// x rate), models/job/spot_job.h) is shorter than one checkpoint write (as in
/// check_checkpoint_interval) is refused at cloud.preemption_rate: no checkpoint would finish
/// before the next preemption, and interval auto (Young/Daly) would pick an interval shorter
/// than the write that a written interval is refused for (1e6 /h on 16 nodes: 0.18 s against a
/// 4.45 s write). Returns false then. A catalog rate or a trace is not checked here: the
/// catalog's are below 1 /h, and a trace's drops are what was measured.
bool check_preemption_rate(const models::JobSpec& job, const CloudSection& cloud) {
  if (!job.cloud || job.cloud->market != models::Market::kSpot || cloud.preemption_source != PreemptionSource::kRate ||
      !cloud.reader || !job.checkpointing.enabled) {
    return true;
  }
  const double rate_per_s = job.cloud->preemption_rate_per_s;
  const double bytes_per_s = models::checkpoint_write_bytes_per_s(job);
  if (rate_per_s <= 0.0 || bytes_per_s <= 0.0) return true;
  const double write_s = models::checkpoint_bytes(job) / bytes_per_s;
  const double mtbf_s = models::mean_time_between_preemptions_s(job.hardware.nodes, rate_per_s, nullptr);
  if (mtbf_s >= write_s) return true;
  // The largest rate that leaves one write between preemptions, rounded down to 3 digits so
  // that the rate the fix names is itself accepted.
  const double max_rate_per_h = core::kSecondsPerHour / (write_s * job.hardware.nodes);
  const double digit = std::pow(10.0, std::floor(std::log10(max_rate_per_h)) - 2.0);
  const double shown_max_per_h = std::floor(max_rate_per_h / digit) * digit;
  const std::string example = shown_max_per_h >= 0.1 ? "\"0.1 /h\"" : fmt::format("\"{:.2g} /h\"", shown_max_per_h / 2);
  cloud.reader->error(
      "preemption_rate",
      fmt::format("a preemption rate of {:.3g} /h per node leaves {:.3g} s between preemptions of {} node(s) on "
                  "average, less than one checkpoint write ({:.3g} GB at {:.3g} GB/s: {:.3g} s), so no checkpoint "
                  "would finish",
                  rate_per_s * core::kSecondsPerHour, mtbf_s, job.hardware.nodes,
                  core::to_gigabytes(models::checkpoint_bytes(job)), core::to_gigabytes_per_s(bytes_per_s), write_s),
      fmt::format(
          "; lower cloud.preemption_rate to at most {} /h per node, such as {}",
          shown_max_per_h < 1000.0 ? fmt::format("{:.3g}", shown_max_per_h) : fmt::format("{:.0f}", shown_max_per_h),
          example));
  return false;
}

/// Monte Carlo trials of a spot variant whose scenario gives no simulation.trials: 200, the
/// example of scenario-format.md (p90 from 200 draws is within a few % of its limit).
constexpr int kDefaultSpotTrials = 200;

/// `simulation.trials`; 0 when the scenario leaves it out (the market then decides:
/// kDefaultSpotTrials on spot, 1 on-demand, where nothing is random).
std::optional<int> read_trials(MapReader& root) {
  if (!root.has("simulation")) {
    root.declare({"simulation"});
    return 0;
  }
  const std::size_t errors_before = root.sink().messages().size();
  auto s = root.map("simulation");
  if (!s) {
    return std::nullopt;
  }
  const auto trials = s->integer("trials", 1, kMaxTrials);
  s->finish();
  if (root.sink().messages().size() != errors_before) {
    return std::nullopt;
  }
  return static_cast<int>(value_or(trials, 0));
}

std::string cc_text(const models::GpuSpec& gpu) {
  return std::to_string(gpu.compute_capability_major) + "." + std::to_string(gpu.compute_capability_minor);
}

/// Tensor-core precisions need their compute capability (DESIGN.md: tf32/bf16 from 8.0,
/// fp8 from 8.9). fp16_amp runs everywhere (slowly without tensor cores), so it is allowed.
/// fp8 also needs an op that runs in fp8: only the linear layers of repeated blocks do
/// (models::runs_fp8_gemm, as Transformer Engine and torchao's float8 convert them), so on a
/// model with none (ResNet's convolutions run bf16) fp8 would silently be bf16_amp. A GPU
/// without fp8 is reported first: its fix holds for either.
void check_precision(MapReader& training, models::Precision precision, const models::GpuSpec& gpu,
                     const models::Workload* workload) {
  const std::string name(models::name_of(precision));
  if (precision == models::Precision::kFp8 && !gpu.has_fp8()) {
    training.error("precision",
                   "fp8 needs a GPU of compute capability 8.9 or newer, and " + gpu.name + " has " + cc_text(gpu),
                   gpu.has_tf32_bf16() ? "; use bf16_amp or fp16_amp" : "; use fp16_amp or fp32");
  } else if (precision == models::Precision::kFp8 && workload != nullptr &&
             std::none_of(workload->ops.begin(), workload->ops.end(), models::runs_fp8_gemm)) {
    training.error("precision",
                   "fp8 runs only the linear layers of a model's repeated blocks in fp8 (Transformer Engine's "
                   "fp8 Linear), and " + workload->name + " (family " + workload->family +
                       ") has none: no op would run in fp8, and the rest runs in bf16",
                   "; use bf16_amp");  // the GPU runs fp8, so it runs bf16
  } else if ((precision == models::Precision::kTf32 || precision == models::Precision::kBf16Amp ||
              precision == models::Precision::kBf16) &&
             !gpu.has_tf32_bf16()) {
    training.error("precision",
                   name + " needs a GPU of compute capability 8.0 or newer, and " + gpu.name + " has " +
                       cc_text(gpu),
                   "; use fp16_amp or fp32");
  }
}

/// Resolves `training.attention` for the model and GPU: sdpa becomes the backend PyTorch
/// dispatches to; an explicit kernel that cannot run is an error at the key, with a fix.
/// Returns the resolved kernel (kEager for a model without attention).
models::AttentionKernel resolve_attention(MapReader& training, const models::TrainingSpec& spec,
                                          const models::Workload& workload, const models::GpuSpec& gpu) {
  const std::optional<models::AttentionShape> shape = models::attention_shape(workload, spec.causal_mask);
  if (spec.causal_mask == models::CausalMask::kAttnMask && (!shape || !shape->causal)) {
    training.error("causal_mask",
                   "causal_mask: attn_mask says how a causal mask reaches scaled_dot_product_attention, and " +
                       workload.name + " (family " + workload.family + ") has " +
                       (shape ? "no causal mask (its attention sees every token)" : "no attention"),
                   "; remove training.causal_mask");
  }
  if (!shape) {
    if (spec.attention != models::AttentionKernel::kSdpa && spec.attention != models::AttentionKernel::kEager) {
      training.error("attention", workload.name + " (family " + workload.family + ") has no attention",
                     "; remove training.attention");
    }
    return models::AttentionKernel::kEager;
  }
  if (spec.attention == models::AttentionKernel::kSdpa) {
    return models::sdpa_backend(spec.precision, gpu, *shape);
  }
  const std::string why = models::attention_kernel_unsupported(spec.attention, spec.precision, gpu, *shape);
  if (!why.empty()) {
    models::AttentionShape with_is_causal = *shape;
    with_is_causal.causal_mask_tensor = false;
    const bool mask_only =
        shape->causal_mask_tensor &&
        models::attention_kernel_unsupported(spec.attention, spec.precision, gpu, with_is_causal).empty();
    training.error("attention", why,
                   mask_only ? "; remove training.causal_mask (a FlashAttention kernel applies the causal mask "
                               "itself: HF's attn_implementation flash_attention_2 passes none), or use attention: sdpa"
                             : "; use attention: sdpa (PyTorch picks a kernel that runs) or eager");
  }
  return spec.attention;
}

}  // namespace

std::vector<std::string_view> checkpoint_destination_names() {
  std::vector<std::string_view> names;
  for (const CheckpointDestination& d : kCheckpointDestinations) names.emplace_back(d.name);
  return names;
}

std::optional<ValidatedJob> validate_variant(const YAML::Node& root_node, const ValidationContext& context,
                                             ErrorSink& sink) {
  const std::size_t errors_before = sink.messages().size();
  MapReader root(root_node, "", sink);
  if (!root.valid()) {
    return std::nullopt;
  }
  root.declare({"format", "name", "seed", "strategies", "sweep", "expected"});

  WorkloadSection workload = read_workload_section(root, context.catalogs, context.families, context.workload_memo);
  std::optional<MapReader> training_reader = root.map("training", Requirement::kRequired);
  std::optional<models::TrainingSpec> training =
      read_training(training_reader, workload.workload ? &*workload.workload : nullptr, context.families);
  const std::optional<models::DataLoaderSpec> data_loader = read_data_loader(root);
  const CloudSection cloud = read_cloud_section(root, context.catalogs, context.scenario_dir);
  HardwareSection hardware = read_hardware_section(root, cloud, context.catalogs,
                                                   workload.synthetic_data);

  // Parallelism: `none` for one GPU; with more, the strategy must be written (config/README.md).
  ParallelismSection parallelism = read_parallelism_section(root);

  SourceMark interval_mark;  // line 0 unless checkpointing.interval is a duration
  const std::optional<models::CheckpointSpec> checkpointing =
      read_checkpointing(root, context.catalogs.storage, interval_mark);
  const std::optional<models::OnPremisesSpec> on_premises = read_on_premises_section(root, cloud);
  const std::optional<int> trials = read_trials(root);
  root.finish();

  // Cross-field checks, each at the key that references the other (STYLE.md C6).
  models::KeyValueHeads key_value_heads = models::KeyValueHeads::kRepeated;
  std::vector<std::string> training_notes;  // how the training section was read, for the report
  if (hardware.spec) {
    const models::HardwareSpec& hw = *hardware.spec;
    const int total_gpus = hw.gpus_per_node * hw.nodes;
    if (training && training_reader) {
      check_precision(*training_reader, training->precision, hw.gpu,
                      workload.workload ? &*workload.workload : nullptr);
      if (workload.workload) {
        // FlashAttention-2/3 called as such (flash_attn_func, Megatron-Core / TE, HF's
        // flash_attention_2) takes grouped K and V; F.scaled_dot_product_attention's callers
        // (litgpt, HF's sdpa path) expand them first (attention_kernel.h).
        key_value_heads = models::is_flash_kernel(training->attention) ? models::KeyValueHeads::kGrouped
                                                                        : models::KeyValueHeads::kRepeated;
        // The defaults are the image recipes' (scenario-format.md): say so where a language
        // model takes them, which few train that way.
        if (workload.workload->is_language_model) {
          if (!training_reader->has("optimizer")) {
            training_notes.push_back(std::string("training.optimizer defaults to ") +
                                     std::string(models::name_of(kDefaultOptimizer)) +
                                     "; language models mostly train with adamw: set training.optimizer");
          }
          if (!training_reader->has("precision")) {
            training_notes.push_back(std::string("training.precision defaults to ") +
                                     std::string(models::name_of(kDefaultPrecision)) +
                                     "; language models mostly train in bf16_amp or bf16: set training.precision");
          }
        }
        const bool sdpa = training->attention == models::AttentionKernel::kSdpa;
        training->attention = resolve_attention(*training_reader, *training, *workload.workload, hw.gpu);
        if (sdpa && training->causal_mask == models::CausalMask::kAttnMask &&
            training->attention == models::AttentionKernel::kMemoryEfficient) {
          training_notes.push_back(
              "training.causal_mask: attn_mask: SDPA cannot pick flash with a mask tensor and runs the "
              "memory-efficient kernel over every tile (causal_mask: is_causal would let it skip the masked half)");
        }
        check_activation_checkpointing(*training_reader,
                                       RecomputeChoice{training->activation_recompute, training->checkpoint_every},
                                       *workload.workload, training->attention);
      }
    }
    check_parallelism(parallelism, hardware, cloud);
    if (training && training_reader && training->activation_offloading && parallelism.spec.pipeline_parallel > 1) {
      // Each stage keeps the activations of several micro-batches (the schedule's), which the
      // offload model's one micro-batch in flight does not describe.
      training_reader->error("activation_offloading",
                             "activation offloading is not modelled with pipeline parallelism (pipeline_parallel " +
                                 std::to_string(parallelism.spec.pipeline_parallel) + ")",
                             "; remove training.activation_offloading, or set parallelism.pipeline_parallel: 1");
    }
    if (parallelism.spec.fp8_all_gather && training && training->precision != models::Precision::kFp8) {
      parallelism.reader->error("fp8_all_gather",
                                "fp8_all_gather gathers the float8 weights of precision fp8, but training.precision "
                                "is " + std::string(models::name_of(training->precision)),
                                "; set training.precision: fp8, or remove fp8_all_gather");
    }
    if (training && training_reader && training->optimizer_implementation &&
        *training->optimizer_implementation != models::OptimizerImplementation::kFused) {
      // DeepSpeed (ZeRO, its CPU Adam when offloaded) and Megatron's distributed optimizer
      // run their own fused Adam: no torch.optim loop to describe.
      const models::ParallelismSpec& par = parallelism.spec;
      const char* owner = par.strategy == models::ParallelStrategy::kZero ? "strategy zero runs DeepSpeed's fused Adam"
                          : par.optimizer_offload != models::OffloadTarget::kNone
                              ? "an offloaded optimizer steps on the host (DeepSpeed's CPU Adam, FSDP's CPU offload)"
                          : par.distributed_optimizer ? "distributed_optimizer runs Megatron's fused Adam"
                                                      : nullptr;
      if (owner != nullptr) {
        training_reader->error("optimizer_implementation",
                               "optimizer_implementation " +
                                   std::string(models::name_of(*training->optimizer_implementation)) +
                                   " is torch.optim's unfused step, and " + owner,
                               "; use optimizer_implementation: fused, or remove it");
      }
    }
    const bool sharded_pipeline = (parallelism.spec.strategy == models::ParallelStrategy::kFsdp ||
                                   parallelism.spec.strategy == models::ParallelStrategy::kZero) &&
                                  parallelism.spec.pipeline_parallel > 1;
    if (sharded_pipeline && training) {
      // FSDP and ZeRO-1 under a pipeline run as the distributed optimizer's layout
      // (models/memory/distributed_optimizer.h), whose bytes are Adam's or SGD's.
      const models::Optimizer o = training->optimizer;
      if (o != models::Optimizer::kAdam && o != models::Optimizer::kAdamW && o != models::Optimizer::kSgd &&
          o != models::Optimizer::kSgdMomentum) {
        parallelism.reader->error("pipeline_parallel",
                                  "pipeline_parallel " + std::to_string(parallelism.spec.pipeline_parallel) +
                                      " with strategy " + std::string(models::name_of(parallelism.spec.strategy)) +
                                      " is modelled with Adam or SGD state sharded over the stage's data-parallel "
                                      "ranks, and training.optimizer is " +
                                      std::string(models::name_of(o)),
                                  "; use training.optimizer: adam, adamw, sgd or sgd_momentum, or strategy: ddp");
      }
    }
    if (parallelism.spec.distributed_optimizer && training) {
      const models::Optimizer o = training->optimizer;
      if (o != models::Optimizer::kAdam && o != models::Optimizer::kAdamW && o != models::Optimizer::kSgd &&
          o != models::Optimizer::kSgdMomentum) {
        parallelism.reader->error("distributed_optimizer",
                                  "distributed_optimizer runs Megatron's Adam or SGD on fp32 main parameters, but "
                                  "training.optimizer is " +
                                      std::string(models::name_of(o)),
                                  "; use training.optimizer: adam, adamw, sgd or sgd_momentum, or remove "
                                  "distributed_optimizer");
      }
      const models::Precision precision = training->precision;
      if (parallelism.spec.grad_reduce_in_fp32 == false &&
          (precision == models::Precision::kFp32 || precision == models::Precision::kTf32)) {
        parallelism.reader->error("grad_reduce_in_fp32",
                                  "grad_reduce_in_fp32: false keeps main grads in the parameters' 16 bit, but "
                                  "training.precision " + std::string(models::name_of(precision)) +
                                      " trains fp32 parameters",
                                  "; set training.precision: bf16_amp (or bf16, fp16_amp, fp8), or remove "
                                  "grad_reduce_in_fp32");
      }
    }
    if (parallelism.reader && workload.workload) {
      check_model_parallel(*parallelism.reader, parallelism.spec, hw, *workload.workload,
                           training ? &*training : nullptr);
      check_expert_parallel(*parallelism.reader, parallelism.spec, hw, *workload.workload);
    }
    // A data loader needs a core per training process; with none it could never deliver.
    if (workload.dataset && !workload.dataset->synthetic && hw.cpu_cores > 0 && hw.cpu_cores < hw.gpus_per_node) {
      const std::string problem = "cpu_cores " + std::to_string(hw.cpu_cores) + " leaves no CPU core for the data " +
                                  "loader of each of the " + std::to_string(hw.gpus_per_node) + " GPUs per node";
      const std::string fix = "; give at least one core per GPU (cpu_cores >= gpus_per_node), or use "
                              "workload.dataset.synthetic: true";
      if (hardware.reader && hardware.reader->has("cpu_cores")) {
        hardware.reader->error("cpu_cores", problem, fix);
      } else if (hardware.explicit_gpus_per_node) {
        hardware.reader->error("gpus_per_node", problem, fix);
      } else if (cloud.reader) {
        cloud.reader->error("instance", problem, fix);
      }
    }
    // samples is 0 only when it was left to a token budget that could not be resolved.
    if (training && training_reader && workload.dataset && workload.dataset->samples > 0.0) {
      const int replicas = parallelism.spec.data_parallel_size(total_gpus);  // tensor-parallel ranks share a batch
      const double global_batch = static_cast<double>(training->batch_size) * training->gradient_accumulation *
                                  replicas;
      const std::string replicas_text =
          replicas == total_gpus ? plural(total_gpus, "GPU") : plural(replicas, "data-parallel rank");
      const bool sized_by_tokens = workload.duration && workload.duration->tokens > 0.0 && workload.dataset_reader &&
                                   !workload.dataset_reader->has("samples");
      const double trained_samples =
          workload.duration && workload.duration->epochs > 0.0 ? workload.dataset->samples * workload.duration->epochs
                                                                : workload.dataset->samples;
      // "<global batch> (batch_size B x gradient_accumulation A x <replicas>)", in every message below.
      const std::string global_batch_text = models::format_architecture_value(global_batch) + " (batch_size " +
                                            std::to_string(training->batch_size) + " x gradient_accumulation " +
                                            std::to_string(training->gradient_accumulation) + " x " + replicas_text +
                                            ")";
      const std::string batch_text = "one global batch of " + global_batch_text;
      const double budget = workload.dataset->samples;  // sequences, where a token budget sets them
      // The nodes make the batch too big where one node's batch fits: say so at nodes.
      const double batch_per_node = global_batch / hw.nodes;
      const double max_nodes = std::floor(budget / batch_per_node);
      const bool nodes_too_many = global_batch > budget && hw.nodes > 1 && max_nodes >= 1.0 &&
                                  hardware.reader && hardware.reader->has("nodes");
      const std::string nodes_text = "nodes " + std::to_string(hw.nodes) + " x gpus_per_node " +
                                     std::to_string(hw.gpus_per_node) + " give " + replicas_text + ": ";
      const std::string lower_nodes = "; lower nodes to at most " + models::format_architecture_value(max_nodes);
      if (global_batch > budget && sized_by_tokens && workload.workload) {
        // The dataset is the token budget: the budget is what to raise. Reported at the key
        // that makes the batch's tokens too many (a strategy's override is then found from it):
        // a sequence_length above the model's own whose batch would fit, the nodes, else the batch.
        const double tokens_per_sequence = workload.workload->tokens_per_sample;
        const double tokens = workload.duration->tokens;
        const std::string batch_tokens = models::format_architecture_value(global_batch * tokens_per_sequence);
        const std::string tokens_problem =
            batch_text + " x sequence_length " + models::format_architecture_value(tokens_per_sequence) + " = " +
            batch_tokens + " tokens, more than workload.tokens " + models::format_architecture_value(tokens) +
            ": the job ends before its first optimizer step";
        const std::string raise_tokens = "raise workload.tokens to at least " + batch_tokens;
        const std::optional<double> own_length = workload.catalog_sequence_length;
        if (workload.reader && workload.reader->has("sequence_length") && own_length &&
            tokens_per_sequence > *own_length && global_batch * *own_length <= tokens) {
          const std::string max_length = models::format_architecture_value(std::floor(tokens / global_batch));
          workload.reader->error("sequence_length", tokens_problem,
                                 "; lower sequence_length to at most " + max_length + " (the model's own is " +
                                     models::format_architecture_value(*own_length) + "), or " + raise_tokens);
        } else if (nodes_too_many) {
          hardware.reader->error("nodes", nodes_text + tokens_problem, lower_nodes + ", or " + raise_tokens);
        } else {
          training_reader->error(
              "batch_size",
              "tokens " + models::format_architecture_value(tokens) + " make " +
                  models::format_architecture_value(budget) + " sequence(s), fewer than " + batch_text +
                  ": the job ends before its first optimizer step",
              "; raise tokens to at least " + batch_tokens + " (" + models::format_architecture_value(global_batch) +
                  " sequences of " + models::format_architecture_value(tokens_per_sequence) +
                  " tokens), or lower batch_size or gradient_accumulation");
        }
      } else if (global_batch > budget && nodes_too_many) {
        hardware.reader->error("nodes",
                               nodes_text + "global batch " + global_batch_text + " exceeds the dataset's " +
                                   models::format_architecture_value(budget) + " samples",
                               lower_nodes + ", or lower batch_size or gradient_accumulation");
      } else if (global_batch > budget) {
        training_reader->error(
            "batch_size",
            "global batch " + global_batch_text + " exceeds the dataset's " +
                models::format_architecture_value(budget) + " samples",
            "; lower batch_size or gradient_accumulation, or check workload.dataset.samples");
      } else if (global_batch > trained_samples && workload.reader) {
        // Less than one optimizer step of training: its time would be a fraction of a step.
        workload.reader->error(
            "epochs",
            "epochs " + models::format_architecture_value(workload.duration->epochs) + " of " +
                models::format_architecture_value(workload.dataset->samples) + " samples train " +
                models::format_architecture_value(trained_samples) + " samples, fewer than " + batch_text +
                ": the job ends before its first optimizer step",
            "; raise epochs to at least " +
                models::format_architecture_value(global_batch / workload.dataset->samples) +
                ", or lower batch_size or gradient_accumulation");
      }
    }
  }

  if (sink.messages().size() != errors_before || !workload.workload || !workload.dataset ||
      !workload.duration || !training || !data_loader || !hardware.spec || !checkpointing || !trials ||
      (cloud.present && !cloud.spec)) {
    return std::nullopt;
  }
  ValidatedJob result;
  models::JobSpec& job = result.job;
  job.workload = context.workload_memo != nullptr
                     ? context.workload_memo->job_table(workload.workload, *training, key_value_heads)
                     : job_op_table(*workload.workload, *training, key_value_heads);
  job.dataset = *workload.dataset;
  job.duration = *workload.duration;
  job.training = *training;
  job.data_loader = *data_loader;
  job.hardware = *hardware.spec;
  job.parallelism = parallelism.spec;
  job.checkpointing = *checkpointing;
  job.cloud = cloud.spec;
  job.on_premises = on_premises;
  // Without simulation.trials: enough Monte Carlo trials on spot for a p90 that means
  // something, one on-demand (nothing is random there).
  const bool spot = job.cloud && job.cloud->market == models::Market::kSpot;
  job.trials = *trials > 0 ? *trials : (spot ? kDefaultSpotTrials : 1);
  std::vector<std::string> host_notes;
  if (!check_host_memory(job, hardware, cloud, host_notes)) return std::nullopt;
  if (!check_checkpoint_interval(job, interval_mark, sink)) return std::nullopt;
  if (!check_preemption_rate(job, cloud)) return std::nullopt;
  result.preemption_source = cloud.preemption_source;
  result.preemption_trace = cloud.preemption_trace;
  const std::string duration_key = workload.reader->has("tokens") ? "tokens" : "epochs";
  result.duration_key = workload.reader->path_of(duration_key);
  result.duration_mark = sink.to_source_mark(workload.reader->mark_of(duration_key));
  result.notes = workload.notes;
  result.notes.insert(result.notes.end(), hardware.notes.begin(), hardware.notes.end());
  result.notes.insert(result.notes.end(), cloud.notes.begin(), cloud.notes.end());
  result.notes.insert(result.notes.end(), host_notes.begin(), host_notes.end());
  result.notes.insert(result.notes.end(), training_notes.begin(), training_notes.end());
  const std::vector<std::string> unused = no_effect_notes(root_node, job);
  result.notes.insert(result.notes.end(), unused.begin(), unused.end());
  // PyTorch's DataLoader warns when a process's workers outnumber the CPUs it may use
  // (torch/utils/data/dataloader.py, _check_worker_number_rationality); the simulation runs
  // each worker's batches, so thousands of them also cost time here.
  const int node_workers = job.data_loader.num_workers * job.hardware.gpus_per_node;
  if (!job.dataset.synthetic && job.hardware.cpu_cores > 0 && node_workers > job.hardware.cpu_cores) {
    result.notes.push_back(
        "data_loader: " + std::to_string(job.data_loader.num_workers) + " workers per GPU x " +
        std::to_string(job.hardware.gpus_per_node) + " GPU(s) = " + std::to_string(node_workers) +
        " worker processes share " + std::to_string(job.hardware.cpu_cores) +
        " CPU cores (PyTorch warns above the core count); more workers than cores add no decode throughput");
  }
  return result;
}

std::optional<ValidatedJob> validate_with_overrides(const YAML::Node& root, const std::vector<const Override*>& overrides,
                                                    const ValidationContext& context, ErrorSink& sink) {
  const AppliedOverrides applied(root, overrides, sink);
  return validate_variant(root, context, sink);
}

}  // namespace gpuplan::config

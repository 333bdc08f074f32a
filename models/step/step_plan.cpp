#include "models/step/step_plan.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/collective/builtin.h"
#include "models/collective/fastest_collective.h"
#include "models/gpu/op_time.h"
#include "models/host/host_cpu.h"
#include "models/memory/distributed_optimizer.h"
#include "models/memory/parallel_memory.h"
#include "models/memory/sharding.h"
#include "models/step/context_parallel_plan.h"
#include "models/step/data_parallel_plan.h"
#include "models/step/expert_parallel_plan.h"
#include "models/step/pipeline_parallel_plan.h"
#include "models/step/sharded_data_parallel_plan.h"
#include "models/step/tensor_parallel_plan.h"
#include "models/storage/storage_model.h"

namespace gpuplan::models {
namespace {

DispatchUnit unit_of(std::string label, const KernelWork& work, const TrainingSpec& t,
                     bool backward, const GpuEfficiency& e) {
  DispatchUnit u;
  u.label = std::move(label);  // taken, not copied: one string per unit
  u.dispatch_s = work.kernels * dispatch_time_s(t.framework_overhead, backward, e, t.precision);
  u.gpu_s = work.gpu_time_s;
  u.flop = work.flop;
  return u;
}

bool data_parallel(const JobSpec& job) {
  return job.parallelism.strategy == ParallelStrategy::kDataParallel && job.hardware.gpus_per_node > 1;
}

/// DDP with more than one data-parallel rank (tensor-parallel ranks hold one replica).
bool ddp(const JobSpec& job) {
  const int gpus = job.hardware.gpus_per_node * job.hardware.nodes;
  return job.parallelism.strategy == ParallelStrategy::kDdp && job.parallelism.gradient_ranks(gpus) > 1;
}

/// Training processes on a node, each with its own DataLoader: one per GPU with DDP, one in
/// all with DataParallel.
int loaders_per_node(const JobSpec& job) { return data_parallel(job) ? 1 : job.hardware.gpus_per_node; }

/// Samples one loader produces per micro-step: the per-GPU batch, or DataParallel's whole batch.
int loader_batch(const JobSpec& job) {
  return job.training.batch_size * (data_parallel(job) ? job.hardware.gpus_per_node : 1);
}

LoaderPlan plan_loader(const JobSpec& job) {
  LoaderPlan l;
  l.synthetic = job.dataset.synthetic;
  if (l.synthetic) {
    return l;
  }
  const DataLoaderSpec& dl = job.data_loader;
  const int batch = loader_batch(job);
  const int loaders = loaders_per_node(job);
  l.workers = dl.num_workers;
  l.prefetch_batches = std::max(1, dl.num_workers * dl.prefetch_factor);
  l.seed = job.seed;
  // The loaders of a node's GPUs run alike, so each gets an even share of the node's cores,
  // storage bandwidth and queue depth (identical ranks are simulated once).
  l.cpu_cores = cores_per_gpu(job.hardware.cpu_cores, loaders);
  // Storage: the reader issues its requests one after another; each holds a device slot for
  // the latency, then the bytes share the device bandwidth (models/storage/storage_model.h).
  const BatchReads reads = batch_reads(job.hardware.storage, job.dataset, batch);
  l.read_latency_s = reads.latency_s;
  l.read_bytes = reads.bytes;
  l.storage_bytes_per_s = reads.bandwidth_bytes_per_s / loaders;
  l.storage_queue_depth = std::max(1, job.hardware.storage.queue_depth / loaders);
  l.batch_storage_s = reads.latency_s + reads.bytes / reads.bandwidth_bytes_per_s;
  // CPU: decode + augment per sample, lognormal around the mean; DALI-style GPU decode
  // leaves the CPU only reading and batching the encoded bytes (models/host/host_cpu.h).
  const bool gpu_decode = dl.preprocess_on == PreprocessOn::kGpu;
  l.samples_per_batch = batch;
  l.sample_cpu_s = job.dataset.decode_time_s * (gpu_decode ? kGpuDecodeCpuShare : 1.0);
  l.sample_cpu_cv = kDecodeTimeCv;
  l.batch_cpu_s = batch * l.sample_cpu_s;
  l.gpu_preprocess_s = gpu_decode ? batch * job.dataset.decode_time_s * kGpuDecodeShare : 0.0;
  l.batch_load_s = l.batch_cpu_s + l.batch_storage_s;
  if (dl.pin_memory) {
    l.pin_copy_s = job.workload.input_bytes_per_sample * batch / kPinCopyBytesPerS;
  }
  return l;
}

/// plan_step of the stages `stages` of `job` (empty: PipelineStagePlan::roles; stage 0
/// without a pipeline), the whole rank's units and the schedule built once for all of them.
std::vector<StepPlan> plan_stages(const JobSpec& job, const GpuEfficiency& e, std::vector<int> stages, bool labels) {
  const TrainingSpec& t = job.training;
  if (t.batch_size < 1 || t.gradient_accumulation < 1) {
    throw std::invalid_argument("batch_size and gradient_accumulation must be at least 1");
  }
  StepPlan whole;  // the whole rank's units (every chunk's), then each stage's plan from it
  whole.micro_batch = t.batch_size;
  whole.gradient_accumulation = t.gradient_accumulation;
  const GpuSpec& gpu = job.hardware.gpu;
  // One tensor-parallel rank runs its shard of the model (tensor_parallel_shard.h) and the
  // group's collectives around it (tensor_parallel_plan.h).
  const Workload whole_rank = rank_workload(job);
  const TensorParallelPlan tensor_parallel(job, e, labels);
  const auto label = [labels](const Op& op, const char* phase) { return labels ? op.name + phase : std::string(); };
  // Context parallelism: ring attention's key/value exchange after each attention unit.
  const ContextParallelPlan context_parallel(job, whole_rank, e);
  const auto& ops = whole_rank.ops;
  // Pipeline parallelism: the model chunk of each op (one chunk without a pipeline).
  const int p = job.parallelism.pipeline_parallel;
  // Megatron's distributed optimizer, and FSDP / ZeRO-1 under a pipeline run as it, with more
  // than one data-parallel rank (distributed_optimizer.h).
  const bool distributed_optimizer = runs_distributed_optimizer(job.parallelism) &&
                                     job.parallelism.gradient_ranks(job.hardware.gpus_per_node * job.hardware.nodes) > 1;
  // Expert parallelism: the all-to-alls around each MoE layer's experts (expert_parallel_plan.h),
  // within the rank's data-parallel group.
  const bool data_parallel_groups = ddp(job) || distributed_optimizer || job.parallelism.expert_parallel > 1;
  const Topology data_parallel_group = !data_parallel_groups ? job.hardware.topology
                                       : p > 1               ? pipeline_data_parallel_topology(job)
                                                             : data_parallel_topology(job);
  const ExpertParallelPlan expert_parallel(job, e, data_parallel_group);
  // The model-parallel communication an op has at `point`: tensor parallelism's collectives,
  // then expert parallelism's all-to-alls.
  const auto model_parallel = [&](std::vector<DispatchUnit>& units, const Op& op, TensorParallelPoint point,
                                  double gemm_s) {
    tensor_parallel.add(units, op, point, whole.micro_batch, gemm_s);
    expert_parallel.add(units, op, point, whole.micro_batch);
  };
  const int chunks = p * job.parallelism.virtual_stages;
  const std::vector<int> op_chunk =
      p > 1 ? pipeline_chunk_of_ops(whole_rank, job.parallelism) : std::vector<int>(ops.size(), 0);
  // Under autocast, a tensor stays fp32 from an op autocast runs in fp32 through the
  // elementwise ops that follow it (type promotion), until a matmul or convolution casts it.
  std::vector<bool> input_fp32(ops.size(), false);
  bool stream_fp32 = false;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    input_fp32[i] = stream_fp32;
    const OpClass c = ops[i].op_class;
    const bool math = c == OpClass::kConv || c == OpClass::kMatmul || c == OpClass::kAttention;
    stream_fp32 = runs_fp32_under_autocast(ops[i], job.training.framework_overhead) ||
                  (stream_fp32 && !math && c != OpClass::kEmbedding);
  }
  auto input_cast = [&](std::size_t i) { return static_cast<bool>(input_fp32[i]); };
  // The units of the whole rank, each with the chunk of its op.
  std::vector<int> forward_chunk;
  std::vector<int> backward_chunk;
  const auto tag = [](const std::vector<DispatchUnit>& units, std::vector<int>& chunk_of, int chunk) {
    chunk_of.resize(units.size(), chunk);
  };
  // Where each op's units are (FSDP / ZeRO-3 gather and reduce per unit of ops).
  OpUnitSpans spans;
  spans.backward_begin.resize(ops.size());
  spans.backward_end.resize(ops.size());
  std::vector<OpWork> work;  // each op's, for forward and then backward
  work.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    const OpWork& w = work.emplace_back(op_work(op, whole.micro_batch, gpu, t, e, input_cast(i)));
    spans.forward_begin.push_back(whole.forward.size());
    model_parallel(whole.forward, op, TensorParallelPoint::kBeforeForward, w.forward.gpu_time_s);
    whole.forward.push_back(unit_of(label(op, " fwd"), w.forward, t, false, e));
    // (a copy of the unit: the ring's push_back may move it; no call when there is no ring)
    if (context_parallel.active()) {
      context_parallel.add(whole.forward, op, DispatchUnit(whole.forward.back()), false, whole.micro_batch);
    }
    model_parallel(whole.forward, op, TensorParallelPoint::kAfterForward, w.forward.gpu_time_s);
    spans.forward_end.push_back(whole.forward.size());
    tag(whole.forward, forward_chunk, op_chunk[i]);
  }
  // DDP buckets hold .grad (fp32; bf16 in pure bf16); Megatron's distributed optimizer its
  // main grads (distributed_optimizer.h).
  const double gradient_bytes =
      runs_distributed_optimizer(job.parallelism)
          ? distributed_optimizer_bytes_per_parameter(t, job.parallelism.grad_reduce_in_fp32).gradient_bytes
          : parameter_element_bytes(t.precision);
  // Backward runs in reverse; a recomputed op's forward is replayed before its backward
  // (replays_forward: full checkpointing replays every block, one extra forward of the blocks:
  // Chen et al. 2016, "Training Deep Nets with Sublinear Memory Cost"; selective and {every: N}
  // the ops they mark). The replayed forward is the module's Python forward run again
  // (torch.utils.checkpoint's backward calls it), so its kernels cost a forward's dispatch,
  // not autograd's.
  for (std::size_t r = ops.size(); r-- > 0;) {
    const OpWork& w = work[r];
    spans.backward_begin[r] = whole.backward.size();
    if (replays_forward(ops[r], t.activation_checkpointing)) {
      // The replayed forward runs its collectives again (Megatron's checkpointed blocks do).
      model_parallel(whole.backward, ops[r], TensorParallelPoint::kBeforeForward, w.forward.gpu_time_s);
      whole.backward.push_back(unit_of(label(ops[r], " recompute"), w.forward, t, false, e));
      if (context_parallel.active()) {
        context_parallel.add(whole.backward, ops[r], DispatchUnit(whole.backward.back()), false, whole.micro_batch);
      }
      model_parallel(whole.backward, ops[r], TensorParallelPoint::kAfterForward, w.forward.gpu_time_s);
    }
    model_parallel(whole.backward, ops[r], TensorParallelPoint::kBeforeBackward, w.backward.gpu_time_s);
    DispatchUnit bwd = unit_of(label(ops[r], " bwd"), w.backward, t, true, e);
    bwd.grad_bytes = ops[r].parameters * gradient_bytes;
    bwd.expert_grads = ops[r].experts > 0.0;
    whole.backward.push_back(bwd);
    context_parallel.add(whole.backward, ops[r], bwd, true, whole.micro_batch);
    model_parallel(whole.backward, ops[r], TensorParallelPoint::kAfterBackward, w.backward.gpu_time_s);
    spans.backward_end[r] = whole.backward.size();
    tag(whole.backward, backward_chunk, op_chunk[r]);
  }
  // Activation offloading: each block's copies out after its forward and in before its
  // backward, on the rank's share of the host link (activation_offload_plan.h).
  if (t.activation_offloading) {
    if (p > 1) throw std::invalid_argument("plan_step: activation offloading with pipeline parallelism is not modelled");
    whole.activation_copies =
        plan_activation_copies(job, whole_rank, spans, whole.micro_batch, host_link_bytes_per_s(job, e));
  }
  const ShardingLayout sharding = sharding_layout(job);
  if (p > 1 && sharding.sharded_strategy) {
    throw std::invalid_argument("plan_step: pipeline parallelism with FSDP or ZeRO is not modelled");
  }
  // The schedule, played once for every stage (pipeline_parallel_plan.h).
  std::vector<PipelineStagePlan> pipelines(1);  // without a pipeline: stage 0's, inactive
  if (p > 1) {
    // Each chunk's forward and backward of one micro-batch (the GPU's time: the host
    // dispatches ahead), the schedule over them, and the stage's own units.
    std::vector<double> forward_s(static_cast<std::size_t>(chunks), 0.0);
    std::vector<double> backward_s(static_cast<std::size_t>(chunks), 0.0);
    for (std::size_t i = 0; i < whole.forward.size(); ++i) forward_s[forward_chunk[i]] += whole.forward[i].gpu_s;
    for (std::size_t i = 0; i < whole.backward.size(); ++i) backward_s[backward_chunk[i]] += whole.backward[i].gpu_s;
    pipelines = plan_pipeline_stages(job, forward_s, backward_s,
                                     pipeline_send_elements(whole_rank, op_chunk, job.parallelism) *
                                         whole.micro_batch * activation_element_bytes(t.precision));
  }
  if (stages.empty()) stages = p > 1 ? pipelines.front().roles : std::vector<int>{0};
  std::vector<StepPlan> plans;
  plans.reserve(stages.size());
  for (std::size_t k = 0; k < stages.size(); ++k) {
    const int stage = stages[k];
    if (stage < 0 || stage >= std::max(1, p)) {
      throw std::invalid_argument("plan_step: stage " + std::to_string(stage) + " of " + std::to_string(std::max(1, p)));
    }
    // The last stage planned takes the whole rank's units; the others copy them.
    StepPlan& plan = plans.emplace_back(k + 1 < stages.size() ? whole : std::move(whole));
    if (p > 1) {
      plan.pipeline = pipelines[static_cast<std::size_t>(stage)];
      const auto keep = [&](std::vector<DispatchUnit>& units, const std::vector<int>& chunk_of) {
        std::vector<DispatchUnit> kept;
        for (std::size_t i = 0; i < units.size(); ++i) {
          if (pipeline_stage_runs_chunk(chunk_of[i], stage, p)) kept.push_back(std::move(units[i]));
        }
        units = std::move(kept);
      };
      keep(plan.forward, forward_chunk);
      keep(plan.backward, backward_chunk);
    }
    // The stage's ops (all of the rank's without a pipeline: no copy of them then).
    std::optional<Workload> stage_ops;
    if (p > 1) stage_ops.emplace(pipeline_stage_workload(whole_rank, job.parallelism, stage));
    const Workload& rank = stage_ops ? *stage_ops : whole_rank;
    int parameter_tensors = 0;
    for (const Op& op : rank.ops) {
      if (op.parameters > 0.0) parameter_tensors += 2;  // weight and (usually) bias
    }
    // The optimizer's kernels are dispatched one after another while the GPU runs the earlier
    // ones: split into units of at most 64 kernels so dispatch and execution overlap.
    // FSDP / ZeRO: each rank updates its shard of the parameters only; with tensor parallelism
    // the rank's share of them (rank.parameters).
    // Megatron's distributed optimizer likewise updates its 1/d of the fp32 main parameters
    // (of the experts' its share over the ranks holding them: distributed_optimizer_local_parameters).
    const double updated = sharding.optimizer_state ? rank.parameters / sharding.shard_ranks
                                                    : distributed_optimizer_local_parameters(job, rank);
    const KernelWork opt = optimizer_work(updated, std::max(1, parameter_tensors), gpu, t, e);
    const int pieces = std::max(1, static_cast<int>(std::ceil(opt.kernels / 64.0)));
    KernelWork piece = opt;
    piece.kernels = static_cast<int>(std::ceil(static_cast<double>(opt.kernels) / pieces));
    piece.gpu_time_s = opt.gpu_time_s / pieces;
    piece.flop = opt.flop / pieces;
    piece.bytes = opt.bytes / pieces;
    const double tensor_host_s = optimizer_tensor_host_time_s(parameter_tensors, t, e) / pieces;
    for (int i = 0; i < pieces; ++i) {
      DispatchUnit u = unit_of("optimizer.step", piece, t, false, e);
      u.dispatch_s = piece.kernels * optimizer_dispatch_time_s(t, e) + tensor_host_s;
      plan.optimizer.push_back(u);
    }

    plan.loader = plan_loader(job);
    if (!plan.loader.synthetic) {
      // DataParallel copies the whole batch to GPU 0; DDP's ranks copy their own batch at about
      // the same moment, so GPUs behind one PCIe switch share its x16 uplink.
      plan.h2d_bytes = job.workload.input_bytes_per_sample * loader_batch(job);
      plan.pinned = job.data_loader.pin_memory;
      const int sharing = data_parallel(job) ? 1 : std::max(1, job.hardware.gpus_per_pcie_switch);
      plan.h2d_bytes_per_s = h2d_bytes_per_s(gpu, plan.pinned, e) / sharing;
    }
    if (distributed_optimizer) {
      // The main grads' buckets reduce-scattered to their shards' owners on the last micro-step
      // (the experts' over the ranks that hold the same experts), then the updated parameters
      // all-gathered into the parameter buffer before the next forward: the bus volume of DDP's
      // all-reduce (distributed_optimizer.h).
      const Topology expert_group = expert_parallel.active()
                                        ? expert_data_parallel_topology(job, data_parallel_group)
                                        : Topology{};
      plan.comm = expert_parallel.active()
                      ? plan_expert_parallel_ddp(plan.backward, job.parallelism.bucket_bytes, data_parallel_group,
                                                 expert_group, Collective::kReduceScatter)
                      : plan_gradient_buckets(plan.backward, job.parallelism.bucket_bytes, data_parallel_group,
                                              Collective::kReduceScatter);
      plan.comm.strategy = ParallelStrategy::kDdp;
      const double element = distributed_optimizer_bytes_per_parameter(t).parameter_bytes;
      const double expert_bytes = expert_parameters(rank) * element;
      const double dense_bytes = rank.parameters * element - expert_bytes;
      const auto gather_s = [](double bytes, const Topology& group) {
        return bytes > 0.0 && group.ranks() > 1
                   ? fastest_collective(builtin_collective_registry(), Collective::kAllGather, bytes, group).time_s
                   : 0.0;
      };
      plan.comm.parameter_all_gather_s =
          gather_s(dense_bytes, data_parallel_group) + gather_s(expert_bytes, expert_group);
      if (overlaps_parameter_gather(job.parallelism)) {
        plan.comm.parameter_all_gather_first_s =
            std::min(plan.comm.parameter_all_gather_s,
                     gather_s(std::min(dense_bytes, job.parallelism.bucket_bytes), data_parallel_group));
      }
    } else if (ddp(job) && expert_parallel.active()) {
      plan.comm = plan_expert_parallel_ddp(plan.backward, job.parallelism.bucket_bytes, data_parallel_group,
                                           expert_data_parallel_topology(job, data_parallel_group));
    } else if (ddp(job)) {
      plan.comm = plan_ddp_communication(plan.backward, job.parallelism.bucket_bytes, data_parallel_group);
    } else if (data_parallel(job)) {
      // The model's outputs are what the loss reads (the logits); DataParallel gathers them.
      const double output_bytes_per_sample = model_output_elements_per_sample(job.workload) * 4.0;
      const DataParallelCosts dp = data_parallel_costs(job, std::max(1, parameter_tensors), output_bytes_per_sample,
                                                       achieved_memory_bytes_per_s(gpu, e));
      const std::size_t model_units = plan.forward.size();
      apply_data_parallel(dp, plan);
      // DataParallel puts its replicate and scatter before the model's forward units and its
      // gather after them (data_parallel_plan.h): the copies follow the units they name.
      const std::size_t ahead = plan.forward.size() - model_units - 1;
      for (ActivationCopy& c : plan.activation_copies) c.forward_last += ahead;
    } else if (sharding.sharded_strategy) {
      plan_sharded_communication(job, sharding, spans, plan);
      apply_offload(job, sharding, host_link_bytes_per_s(job, e), plan);
    }
    // fp16 needs a loss scaler (bf16 does not); a CUDA-graph step is captured without it.
    plan.host_sync_before_optimizer =
        t.precision == Precision::kFp16Amp && t.framework_overhead != FrameworkOverhead::kCudaGraphs;
    // A model-parallel rank's share of the model FLOP (PaLM's MFU counts the model's FLOP).
    plan.model_flop_per_step = job.workload.training_flop_per_sample() * plan.micro_batch *
                               plan.gradient_accumulation / job.parallelism.model_parallel_size();
    plan.peak_flop_per_s = math_peak_flop_per_s(OpClass::kMatmul, t.precision, gpu);
  }
  return plans;
}

}  // namespace

double host_link_bytes_per_s(const JobSpec& job, const GpuEfficiency& e) {
  return h2d_bytes_per_s(job.hardware.gpu, true, e) / std::max(1, job.hardware.gpus_per_pcie_switch);
}

StepPlan plan_step(const JobSpec& job, const GpuEfficiency& e, int stage, bool labels) {
  return std::move(plan_stages(job, e, {stage}, labels).front());
}

std::vector<StepPlan> plan_step_roles(const JobSpec& job, const GpuEfficiency& e, bool labels) {
  return plan_stages(job, e, {}, labels);
}

}  // namespace gpuplan::models

#include "models/step/step_plan.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/gpu/op_time.h"

namespace gpuplan::models {
namespace {

DispatchUnit unit_of(const std::string& label, const KernelWork& work, const TrainingSpec& t,
                     bool backward, const GpuEfficiency& e) {
  DispatchUnit u;
  u.label = label;
  u.dispatch_s = work.kernels * dispatch_time_s(t.framework_overhead, backward, e, t.precision);
  u.gpu_s = work.gpu_time_s;
  u.flop = work.flop;
  return u;
}

LoaderPlan plan_loader(const JobSpec& job) {
  LoaderPlan l;
  l.synthetic = job.dataset.synthetic;
  if (l.synthetic) {
    return l;
  }
  const DataLoaderSpec& dl = job.data_loader;
  const StorageSpec& storage = job.hardware.storage;
  const double batch = job.training.batch_size;
  l.workers = dl.num_workers;
  l.prefetch_batches = std::max(1, dl.num_workers * dl.prefetch_factor);
  // Storage: one request per sample for `files`, large sequential reads for `shards`;
  // requests overlap up to the queue depth (Little's law).
  const bool files = job.dataset.layout == DatasetLayout::kFiles;
  const double read_rate = files && storage.random_read_bytes_per_s > 0.0 ? storage.random_read_bytes_per_s
                                                                          : storage.read_bytes_per_s;
  if (read_rate <= 0.0) {
    throw std::invalid_argument("storage '" + storage.name + "' has no read bandwidth");
  }
  const double per_request_latency_s =
      files ? storage.latency_s / std::max(1, storage.queue_depth) : 0.0;
  l.batch_storage_s = batch * (job.dataset.sample_bytes / read_rate + per_request_latency_s);
  const bool gpu_decode = dl.preprocess_on == PreprocessOn::kGpu;
  // DALI-style GPU decode leaves the CPU only file reading and batching; nvJPEG on the GPU
  // decodes a sample in about a twentieth of a CPU core's time (placeholder until the
  // input-pipeline issue models it).
  l.batch_cpu_s = gpu_decode ? 0.0 : batch * job.dataset.decode_time_s;
  l.gpu_preprocess_s = gpu_decode ? batch * job.dataset.decode_time_s / 20.0 : 0.0;
  // Workers beyond the free cores time-share them (the main process keeps one core).
  const int cores = job.hardware.cpu_cores / std::max(1, job.hardware.gpus_per_node);
  if (cores < 1) {
    throw std::invalid_argument("no CPU core available to the data loader");
  }
  const int worker_cores = std::max(1, cores - 1);
  const double slowdown = dl.num_workers > worker_cores
                              ? static_cast<double>(dl.num_workers) / worker_cores
                              : 1.0;
  l.batch_cpu_s *= slowdown;
  l.batch_load_s = l.batch_cpu_s + l.batch_storage_s;
  return l;
}

}  // namespace

StepPlan plan_step(const JobSpec& job, const GpuEfficiency& e) {
  const TrainingSpec& t = job.training;
  if (t.batch_size < 1 || t.gradient_accumulation < 1) {
    throw std::invalid_argument("batch_size and gradient_accumulation must be at least 1");
  }
  StepPlan plan;
  plan.micro_batch = t.batch_size;
  plan.gradient_accumulation = t.gradient_accumulation;
  const GpuSpec& gpu = job.hardware.gpu;
  int parameter_tensors = 0;
  const auto& ops = job.workload.ops;
  // An op's input needs an autocast cast when the op before it ran in fp32.
  auto input_cast = [&](std::size_t i) { return i > 0 && ops[i - 1].autocast_fp32; };
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    const OpWork w = op_work(op, plan.micro_batch, gpu, t, e, input_cast(i));
    plan.forward.push_back(unit_of(op.name + " fwd", w.forward, t, false, e));
    if (op.parameters > 0.0) {
      parameter_tensors += 2;  // weight and (usually) bias
    }
  }
  // Backward runs in reverse; with activation checkpointing each op's forward is replayed
  // before its backward (one extra forward in all: Chen et al. 2016, "Training Deep Nets with
  // Sublinear Memory Cost").
  for (std::size_t r = ops.size(); r-- > 0;) {
    const OpWork w = op_work(ops[r], plan.micro_batch, gpu, t, e, input_cast(r));
    if (t.activation_checkpointing) {
      plan.backward.push_back(unit_of(ops[r].name + " recompute", w.forward, t, true, e));
    }
    plan.backward.push_back(unit_of(ops[r].name + " bwd", w.backward, t, true, e));
  }
  // The optimizer's kernels are dispatched one after another while the GPU runs the earlier
  // ones: split into units of at most 64 kernels so dispatch and execution overlap.
  const KernelWork opt = optimizer_work(job.workload.parameters, std::max(1, parameter_tensors), gpu, t, e);
  const int pieces = std::max(1, static_cast<int>(std::ceil(opt.kernels / 64.0)));
  KernelWork piece = opt;
  piece.kernels = static_cast<int>(std::ceil(static_cast<double>(opt.kernels) / pieces));
  piece.gpu_time_s = opt.gpu_time_s / pieces;
  piece.flop = opt.flop / pieces;
  piece.bytes = opt.bytes / pieces;
  for (int i = 0; i < pieces; ++i) {
    plan.optimizer.push_back(unit_of("optimizer.step", piece, t, false, e));
  }

  plan.loader = plan_loader(job);
  if (!plan.loader.synthetic) {
    plan.h2d_bytes = job.workload.input_bytes_per_sample * plan.micro_batch;
    plan.pinned = job.data_loader.pin_memory;
    plan.h2d_bytes_per_s = h2d_bytes_per_s(gpu, plan.pinned, e);
  }
  plan.model_flop_per_step =
      job.workload.training_flop_per_sample() * plan.micro_batch * plan.gradient_accumulation;
  plan.peak_flop_per_s = math_peak_flop_per_s(OpClass::kMatmul, t.precision, gpu);
  return plan;
}

}  // namespace gpuplan::models

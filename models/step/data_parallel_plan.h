#pragma once
/// \file data_parallel_plan.h
/// torch.nn.DataParallel on one node, as GPU 0's timeline (pure; the step simulation plays
/// it). One process drives every GPU (torch/nn/parallel/data_parallel.py): each forward
/// replicates the module from GPU 0 (a broadcast of the parameters plus Python work per
/// parameter tensor and replica), scatters the input batch from GPU 0, runs the replicas in
/// one thread per GPU that contend for the GIL (the Python part of the forward's host dispatch
/// is paid once per GPU), and gathers the outputs on GPU 0. Backward sums every replica's gradients
/// into GPU 0 (ReduceAddCoalesced: peer copies into GPU 0, then additions) before the
/// optimizer, which runs on GPU 0 alone. GPU 0 is the slowest rank; its timeline is the step.
/// Units: bytes, seconds.

#include "models/job_spec.h"
#include "models/step/step_plan.h"

namespace gpuplan::models {

/// Host time of replicate() per parameter tensor and replica (module copy, parameter
/// re-binding in Python). 10 us is an estimate from the DataParallel source; it makes DP's
/// overhead over DDP about 25-35 % on 4 V100s for a 150 M-parameter model (R24).
inline constexpr double kDataParallelReplicateHostSPerTensor = core::microseconds(10.0);

/// Share of an eager op's host dispatch spent in Python holding the GIL. DataParallel runs the
/// replicas' forwards in one thread per GPU; PyTorch's generated bindings release the GIL
/// around the C++ dispatcher and the kernel launch (torch/csrc/autograd/generated/
/// python_torch_functions.cpp: pybind11::gil_scoped_release), so only this share serialises
/// across the threads. 0.5 is an estimate.
inline constexpr double kDataParallelGilShareOfDispatch = 0.5;

/// What DataParallel adds to GPU 0's step.
struct DataParallelCosts {
  double replicate_s = 0.0;       ///< GPU: broadcast of the fp32 parameters from GPU 0
  double replicate_host_s = 0.0;  ///< host: replicate() Python work
  double scatter_s = 0.0;         ///< GPU: input chunks from GPU 0 to the others
  double gather_s = 0.0;          ///< GPU: outputs (logits) of the others into GPU 0
  double reduce_grads_s = 0.0;    ///< GPU: gradient copies into GPU 0 plus their sum
  int dispatch_ranks = 1;         ///< replicas whose forward the one host dispatches
  /// Forward host dispatch relative to one GPU: 1 + kDataParallelGilShareOfDispatch x (n - 1).
  double dispatch_factor = 1.0;
};

/// DataParallel's costs for `job` (gpus_per_node ranks on its intra-node link), with
/// `parameter_tensors` parameter tensors and `output_bytes_per_sample` bytes of model output
/// per sample. `memory_bytes_per_s` is GPU 0's effective memory bandwidth for the sums.
/// Throws std::invalid_argument unless the job is DataParallel on one node of >= 2 GPUs.
DataParallelCosts data_parallel_costs(const JobSpec& job, int parameter_tensors, double output_bytes_per_sample,
                                      double memory_bytes_per_s);

/// Adds `costs` to `plan`: replicate and scatter units before the forward, the forward's
/// dispatch multiplied by `dispatch_factor` (the GIL), a gather unit after it, and the gradient reduction
/// after backward (every micro-step: DataParallel has no no_sync).
void apply_data_parallel(const DataParallelCosts& costs, StepPlan& plan);

}  // namespace gpuplan::models

#pragma once
/// \file pipeline_parallel_plan.h
/// What pipeline parallelism adds to one rank's step (pure but for the schedule it plays on
/// an engine of its own, pipeline_schedule.h): the decoder's layers split into p stages of v
/// chunks (models/memory/parallel_memory.h pipeline_chunk_of_ops: embedding on the first,
/// final norm, head and loss on the last), each chunk's forward and backward per micro-batch
/// from the rank's units (the GPU model, with the tensor-parallel collectives), the
/// activation and gradient sends between stages, and the schedule played over
/// `training.gradient_accumulation` micro-batches. The stage's compute stream is idle for
/// the part of the schedule it waits on the others (PipelineStagePlan::wait_s); the step
/// graph (step_graph.h) emits that wait before the stage's last micro-step, then runs the
/// stage's own micro-steps, DDP's all-reduce of the stage's gradients (overlapping its last
/// backward) and its optimizer: step time = the stage's end in the simulated schedule + what
/// follows it; the slowest stage is the step (job_steps.h simulates each distinct one).
///
/// Placement: tensor-parallel groups inside a node, pipeline stages across nodes first
/// (stage s on node s mod nodes), so that neighbouring stages are on different nodes
/// whenever there is more than one, and a stage's data-parallel group spans nodes / p nodes
/// (p dividing the nodes) or one node (the nodes dividing p); config/ refuses other counts.
/// Sends: Megatron-LM's scatter/gather optimisation (Narayanan et al. 2021, sec. 4.1): each
/// tensor-parallel rank sends 1/t of the boundary activation (already 1/t with sequence
/// parallelism), over the node's GPU link inside a node or, across nodes, over the GPU's
/// share of the node's NICs (every GPU sends at once), at the link's best protocol
/// (latency + bytes / bandwidth). Units: seconds, bytes.

#include <vector>

#include "models/interconnect/link_spec.h"
#include "models/interconnect/topology.h"
#include "models/job_spec.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

/// The pipeline as the simulated stage sees it; inactive (stages 1) without pipeline parallelism.
struct PipelineStagePlan {
  int stages = 1;                ///< p
  int stage = 0;                 ///< the stage this plan runs
  /// Idle time of the stage's compute stream before its last backward ends, per optimizer
  /// step: PipelineResult::last_end_s - busy_s of the stage, seconds.
  double wait_s = 0.0;
  double bubble_fraction = 0.0;  ///< the schedule's PipelineResult::bubble_fraction
  double makespan_s = 0.0;       ///< the schedule's makespan (forward of the first to the last backward), s
  double send_s = 0.0;           ///< one activation (or gradient) send between neighbouring stages, s
  int sends = 0;                 ///< point-to-point sends in one step's schedule
  /// Forward only (evaluation), micro-batches back to back: the slowest stage's forward of
  /// one micro-batch (its v chunks), the pipeline's period, seconds.
  double forward_period_s = 0.0;
  /// Forward only: what the first micro-batch adds to the period, crossing every chunk and
  /// the p·v - 1 sends between them: sum of the chunks' forwards + sends - forward_period_s, s.
  double forward_fill_s = 0.0;
  /// The distinct stages to simulate (first, the middle one that ends last, last): the
  /// others run the same ops and end earlier.
  std::vector<int> roles;
};

/// The topology of one stage's data-parallel group (DDP's buckets), placed as the file
/// comment says; each of a node's groups gets its share of the node's NICs.
Topology pipeline_data_parallel_topology(const JobSpec& job);

/// Elements per sample one tensor-parallel rank sends between stages: the output of the last
/// op of chunk 0 of `rank` (the residual stream, s·h; `op_chunk` from pipeline_chunk_of_ops),
/// over tensor_parallel unless sequence parallelism has already split it (scatter/gather).
double pipeline_send_elements(const Workload& rank, const std::vector<int>& op_chunk, const ParallelismSpec& parallelism);

/// `bytes` sent once over `link` at `share` of its bandwidth, at its best protocol (hop
/// latency + bytes / effective bandwidth), seconds. Throws std::invalid_argument for a link
/// without bandwidth.
double point_to_point_s(const LinkSpec& link, double bytes, double share);

/// One point-to-point send of `payload_bytes` between neighbouring stages of `job`, seconds.
double pipeline_send_s(const JobSpec& job, double payload_bytes);

/// Plays `job`'s schedule with per-chunk forward and backward times of one micro-batch
/// (p·v entries in model order, seconds) and a send of `send_bytes`, and returns what stage
/// `stage` sees. Throws std::invalid_argument as simulate_pipeline does, or for a stage out
/// of range.
PipelineStagePlan plan_pipeline_stage(const JobSpec& job, const std::vector<double>& chunk_forward_s,
                                      const std::vector<double>& chunk_backward_s, double send_bytes, int stage);

/// plan_pipeline_stage of every stage 0 .. p - 1 (index = stage) from one play of the
/// schedule; one entry, stage 0's inactive plan, without pipeline parallelism. Throws
/// std::invalid_argument as simulate_pipeline does.
std::vector<PipelineStagePlan> plan_pipeline_stages(const JobSpec& job, const std::vector<double>& chunk_forward_s,
                                                    const std::vector<double>& chunk_backward_s, double send_bytes);

}  // namespace gpuplan::models

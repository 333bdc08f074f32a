#pragma once
/// \file pipeline_schedule.h
/// A pipeline-parallel schedule played as an activity graph (STYLE.md S1), so that its bubble
/// emerges from the dependencies instead of a closed form. The model is cut into p·v chunks
/// (v = 1 but for the interleaved schedule); chunk c runs on stage c mod p. Every micro-batch
/// runs the forward of each chunk in order and the backward in reverse; a chunk's forward
/// waits for the previous chunk's forward and the point-to-point send of its activation, a
/// chunk's backward for the next chunk's backward and the send of its gradient, the last
/// chunk's backward for its own forward. Each stage runs its work in the order the schedule
/// gives (one compute stream); sends run beside compute (NCCL's own stream) and do not
/// queue behind each other. Sources of the orders:
///
/// - GPipe (Huang et al. 2019): every forward, then every backward;
/// - 1F1B (PipeDream-Flush, Narayanan et al. 2021, "Efficient Large-Scale Language Model
///   Training on GPU Clusters Using Megatron-LM", sec. 2.2.1, fig. 3): stage s runs
///   min(p - s - 1, m) forwards, then alternates one forward and one backward, then drains;
/// - interleaved 1F1B (same paper, sec. 2.2.2, fig. 4; Megatron-LM's
///   forward_backward_pipelining_with_interleaving): the k-th forward of a stage is chunk
///   (k mod p·v) div p of micro-batch (k div p·v)·p + k mod p, backwards the same with the
///   chunks reversed; (p - s - 1)·2 + (v - 1)·p warm-up forwards, at most m·v. Needs m to be
///   a multiple of p, as Megatron-LM does.
///
/// With equal stages and free sends the bubble is (p - 1)/(m + p - 1) of the step for GPipe
/// and 1F1B and (p - 1)/(v·m + p - 1) interleaved (Narayanan et al. 2021, sec. 2.2); the
/// tests compare the simulated figure with those. Units: seconds.

#include <vector>

#include "models/precision.h"

namespace gpuplan::models {

/// The most micro-batches per optimizer step a schedule is played with. A bound on effort, not
/// a limit of pipelines: the schedule holds 2·m·p·v activities and about as many sends (4,096
/// micro-batches of 42 stages: about 680,000, some 100 MB), while 84,000 took gigabytes;
/// Megatron-LM's published runs use tens to hundreds (Narayanan et al. 2021, table 1).
inline constexpr int kMaxPipelineMicroBatches = 4096;

/// One pipeline step to simulate.
struct PipelineInput {
  PipelineSchedule schedule = PipelineSchedule::kOneFOneB;
  int stages = 1;          ///< p
  int micro_batches = 1;   ///< m (training.gradient_accumulation)
  int virtual_stages = 1;  ///< v, chunks per stage (interleaved only; 1 otherwise)
  /// Per chunk (p·v entries, in model order), one micro-batch's forward and backward time.
  std::vector<double> forward_s;
  std::vector<double> backward_s;
  double send_s = 0.0;     ///< one point-to-point send of an activation or gradient between stages
};

/// What the simulated schedule gives.
struct PipelineResult {
  double makespan_s = 0.0;        ///< first forward's start to the last backward's end
  /// Share of the makespan the busiest stage's compute stream is idle: 1 - busy / makespan.
  double bubble_fraction = 0.0;
  /// Per stage, the most micro-batch chunks whose forward has run and backward not yet: the
  /// activations the stage holds at once (1F1B: p - s on stage s; GPipe: m).
  std::vector<int> peak_in_flight;
  /// Per stage, the time its compute stream ran (forwards and backwards), seconds.
  std::vector<double> busy_s;
  /// Per stage, when its last work ended, from the first forward's start, seconds.
  std::vector<double> last_end_s;
  int sends = 0;  ///< point-to-point sends simulated: 2·m·(p·v - 1) with p > 1 and a send time > 0
};

/// Plays `input` on an engine of its own. Throws std::invalid_argument for stages,
/// micro-batches or virtual stages < 1, micro-batches above kMaxPipelineMicroBatches, virtual stages > 1 without the interleaved schedule,
/// micro-batches not a multiple of stages with it, chunk times not p·v finite values >= 0, or
/// a negative send time.
PipelineResult simulate_pipeline(const PipelineInput& input);

}  // namespace gpuplan::models

#include "models/step/pipeline_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/activity_graph.h"
#include "sim/engine.h"
#include "sim/sim_time.h"

namespace gpuplan::models {
namespace {

/// One piece of a stage's work: the forward or backward of one chunk for one micro-batch.
struct PipelineWork {
  bool forward = true;
  int micro_batch = 0;
  int chunk = 0;  ///< global chunk index, 0 .. p·v - 1
};

void check(const PipelineInput& in) {
  const auto fail = [](const std::string& why) { throw std::invalid_argument("simulate_pipeline: " + why); };
  if (in.stages < 1 || in.micro_batches < 1 || in.virtual_stages < 1) {
    fail("stages, micro-batches and virtual stages must be at least 1");
  }
  if (in.micro_batches > kMaxPipelineMicroBatches) {
    fail(std::to_string(in.micro_batches) + " micro-batches: at most " + std::to_string(kMaxPipelineMicroBatches) +
         " are played (kMaxPipelineMicroBatches)");
  }
  const bool interleaved = in.schedule == PipelineSchedule::kInterleavedOneFOneB;
  if (in.virtual_stages > 1 && !interleaved) fail("virtual stages > 1 need the interleaved schedule");
  if (interleaved && in.micro_batches % in.stages != 0) {
    fail(std::to_string(in.micro_batches) + " micro-batches are not a multiple of the " +
         std::to_string(in.stages) + " stages, as the interleaved schedule needs");
  }
  const std::size_t chunks = static_cast<std::size_t>(in.stages) * in.virtual_stages;
  if (in.forward_s.size() != chunks || in.backward_s.size() != chunks) {
    fail("expected " + std::to_string(chunks) + " forward and backward chunk times");
  }
  for (std::size_t c = 0; c < chunks; ++c) {
    if (!(std::isfinite(in.forward_s[c]) && in.forward_s[c] >= 0.0 && std::isfinite(in.backward_s[c]) &&
          in.backward_s[c] >= 0.0)) {
      fail("chunk times must be finite and >= 0");
    }
  }
  if (!(std::isfinite(in.send_s) && in.send_s >= 0.0)) fail("the send time must be finite and >= 0");
}

/// The order in which stage `s` runs its work (see the header for the sources).
std::vector<PipelineWork> stage_order(const PipelineInput& in, int s) {
  const int p = in.stages;
  const int m = in.micro_batches;
  std::vector<PipelineWork> order;
  if (in.schedule == PipelineSchedule::kGpipe) {
    for (int b = 0; b < m; ++b) order.push_back({true, b, s});
    for (int b = 0; b < m; ++b) order.push_back({false, b, s});
    return order;
  }
  const int v = in.virtual_stages;
  const int total = m * v;
  // Megatron-LM's get_model_chunk_id and micro-batch of the k-th forward/backward of a stage;
  // with v = 1 this is plain 1F1B (chunk s, micro-batch k).
  const auto work = [&](int k, bool forward) {
    const int local = (k % (p * v)) / p;
    const int chunk = (forward ? local : v - 1 - local) * p + s;
    return PipelineWork{forward, (k / (p * v)) * p + k % p, chunk};
  };
  const int warmup = std::min(v == 1 ? p - s - 1 : (p - s - 1) * 2 + (v - 1) * p, total);
  for (int k = 0; k < warmup; ++k) order.push_back(work(k, true));
  for (int k = 0; k < total - warmup; ++k) {
    order.push_back(work(warmup + k, true));
    order.push_back(work(k, false));
  }
  for (int k = total - warmup; k < total; ++k) order.push_back(work(k, false));
  return order;
}

}  // namespace

PipelineResult simulate_pipeline(const PipelineInput& in) {
  check(in);
  const int p = in.stages;
  const int chunks = p * in.virtual_stages;
  const int m = in.micro_batches;
  sim::Engine engine;
  sim::ActivityGraph graph(engine);
  // ids[(b * chunks + c) * 2 + (forward ? 0 : 1)]
  std::vector<sim::ActivityId> ids(static_cast<std::size_t>(m) * chunks * 2);
  const auto slot = [&](int b, int c, bool forward) -> sim::ActivityId& {
    return ids[(static_cast<std::size_t>(b) * chunks + c) * 2 + (forward ? 0 : 1)];
  };
  PipelineResult result;
  result.peak_in_flight.assign(p, 0);
  std::vector<std::vector<PipelineWork>> orders;
  for (int s = 0; s < p; ++s) {
    orders.push_back(stage_order(in, s));
    int in_flight = 0;
    for (const PipelineWork& w : orders.back()) {
      in_flight += w.forward ? 1 : -1;
      result.peak_in_flight[s] = std::max(result.peak_in_flight[s], in_flight);
      sim::ActivitySpec spec;
      spec.track = static_cast<std::uint32_t>(s);
      spec.amount = w.forward ? in.forward_s[w.chunk] : in.backward_s[w.chunk];
      spec.bound_per_s = 1.0;
      slot(w.micro_batch, w.chunk, w.forward) = graph.add(std::move(spec));
    }
  }
  // A stage's compute stream runs its work in order.
  for (int s = 0; s < p; ++s) {
    for (std::size_t i = 1; i < orders[s].size(); ++i) {
      const PipelineWork& a = orders[s][i - 1];
      const PipelineWork& b = orders[s][i];
      graph.add_successor(slot(a.micro_batch, a.chunk, a.forward), slot(b.micro_batch, b.chunk, b.forward));
    }
  }
  // Across chunks: activations forward, gradients backward, each through a send between stages.
  std::vector<sim::ActivityId> sends;
  const auto link = [&](sim::ActivityId from, sim::ActivityId to) {
    if (p == 1 || in.send_s == 0.0) {
      graph.add_successor(from, to);
      return;
    }
    sim::ActivitySpec send;
    send.track = static_cast<std::uint32_t>(p);  // beside every stage's compute
    send.amount = in.send_s;
    send.bound_per_s = 1.0;
    const sim::ActivityId id = graph.add(std::move(send));
    graph.add_successor(from, id);
    graph.add_successor(id, to);
    sends.push_back(id);
  };
  for (int b = 0; b < m; ++b) {
    for (int c = 0; c + 1 < chunks; ++c) {
      link(slot(b, c, true), slot(b, c + 1, true));
      link(slot(b, c + 1, false), slot(b, c, false));
    }
    graph.add_successor(slot(b, chunks - 1, true), slot(b, chunks - 1, false));
  }
  std::vector<double> busy_s(p, 0.0);
  std::vector<sim::SimTime> stage_last(p, 0);
  sim::SimTime first = std::numeric_limits<sim::SimTime>::max();
  sim::SimTime last = 0;
  graph.activity_finished().subscribe([&](const sim::ActivityFinished& e) {
    if (static_cast<int>(e.track) >= p) return;  // a send
    busy_s[e.track] += sim::to_seconds(e.end - e.start);
    stage_last[e.track] = std::max(stage_last[e.track], e.end);
    first = std::min(first, e.start);
    last = std::max(last, e.end);
  });
  for (const sim::ActivityId id : ids) graph.start(id);
  for (const sim::ActivityId id : sends) graph.start(id);
  engine.run();
  if (graph.unfinished() != 0) {
    throw std::logic_error("simulate_pipeline: the schedule deadlocked with " +
                           std::to_string(graph.unfinished()) + " activities left");
  }
  result.makespan_s = sim::to_seconds(last - first);
  const double busiest_s = *std::max_element(busy_s.begin(), busy_s.end());
  result.bubble_fraction = result.makespan_s > 0.0 ? 1.0 - busiest_s / result.makespan_s : 0.0;
  result.busy_s = busy_s;
  for (int s = 0; s < p; ++s) result.last_end_s.push_back(sim::to_seconds(stage_last[s] - first));
  result.sends = static_cast<int>(sends.size());
  return result;
}

}  // namespace gpuplan::models

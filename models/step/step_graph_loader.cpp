/// \file step_graph_loader.cpp
/// The data-loader part of StepGraph (step_graph.h): per batch, storage requests, bytes,
/// decode and pinning, emitted when the batch's reader starts it. PyTorch DataLoader
/// semantics (DESIGN.md "Data loading"): with W workers batch i goes to worker i mod W, which
/// starts it once it has finished its previous batch and once batch i - prefetch has been
/// taken by the main process (prefetch = W x prefetch_factor batches in flight).

#include <algorithm>
#include <string>

#include "models/step/step_graph.h"

namespace gpuplan::models {

std::uint8_t& StepGraph::flags(long batch) {
  const auto i = static_cast<std::size_t>(batch);
  if (i >= batch_flags_.size()) batch_flags_.resize(std::max(i + 1, 2 * batch_flags_.size()), 0);
  return batch_flags_[i];
}

void StepGraph::check_arrival(long batch) {
  if (limit_ >= 0 && batch >= limit_) return;
  if ((flags(batch) & kArrived) != 0) return;
  if (batch >= prefetch_ && (flags(batch - prefetch_) & kTaken) == 0) return;  // back-pressure
  if (batch >= workers_ && (flags(batch - workers_) & kDecoded) == 0) return;   // the worker is busy
  arrive(batch);
}

void StepGraph::arrive(long batch) {
  flags(batch) |= kArrived;
  const LoaderPlan& l = plan_.loader;
  const bool main = workers_ == 0;
  const std::size_t reader = main ? 0 : static_cast<std::size_t>(batch % workers_);
  const auto track = main ? StepTrack::kMainProcess
                          : static_cast<StepTrack>(static_cast<std::uint32_t>(StepTrack::kWorker0) + reader);
  const auto tag = static_cast<std::uint64_t>(batch);
  const std::string name = labels_ ? "batch " + std::to_string(batch) : std::string();
  bool has_read = false;
  sim::ActivityId read;
  if (!l.page_cache_hit && l.samples_per_batch == 0 && l.batch_storage_s > 0.0) {
    // Whole-batch plan: storage is a constant per reader.
    read = graph_.add(timer_work(l.batch_storage_s, StepActivity::kRead, track, tag, labels_ ? name + " read" : ""));
    graph_.start(read);
    has_read = true;
  } else if (!l.page_cache_hit && l.samples_per_batch > 0) {
    // The batch's requests hold one of the device's `storage_queue_depth` slots for their
    // latency, first come first served (a G/G/k station with a constant service time: the
    // j-th request starts once request j - k has left its slot), then the bytes share the
    // device bandwidth.
    const StepActivity slot_kind = has_storage_link_ ? StepActivity::kStorageSlot : StepActivity::kRead;
    const StepTrack slot_track = has_storage_link_ ? StepTrack::kStorage : track;
    const sim::ActivityId slot = graph_.add(
        timer_work(l.read_latency_s, slot_kind, slot_track, tag, labels_ && !has_storage_link_ ? name + " read" : ""));
    const std::size_t depth = storage_slots_.size();
    const auto j = static_cast<std::size_t>(storage_requests_++);
    if (j >= depth) graph_.add_successor(storage_slots_[j % depth], slot);
    storage_slots_[j % depth] = slot;
    graph_.start(slot);
    read = slot;
    if (has_storage_link_) {
      sim::ActivitySpec bytes;
      bytes.kind = static_cast<std::uint32_t>(StepActivity::kRead);
      bytes.track = static_cast<std::uint32_t>(track);
      bytes.tag = tag;
      bytes.amount = l.read_bytes;
      bytes.resources = {storage_link_};
      if (labels_) bytes.label = name + " read";
      read = graph_.add(std::move(bytes));
      graph_.add_successor(slot, read);
      graph_.start(read);
    }
    has_read = true;
  }
  // Decode + augment on the reader's thread: per sample, lognormal CPU times from the
  // reader's own stream, drawn in the reader's batch order.
  double core_s = 0.0;
  if (l.samples_per_batch > 0) {
    for (int s = 0; s < l.samples_per_batch; ++s) {
      core_s += readers_[reader]->lognormal_with_mean_cv(l.sample_cpu_s, l.sample_cpu_cv);
    }
  } else {
    core_s = std::max(0.0, (l.batch_load_s > 0.0 ? l.batch_load_s : l.batch_cpu_s) - l.batch_storage_s);
  }
  sim::ActivitySpec decode = cpu_work(core_s, StepActivity::kDecode, track, tag);
  decode.label = name;
  const sim::ActivityId decoded = graph_.add(std::move(decode));
  if (has_read) graph_.add_successor(read, decoded);
  graph_.start(decoded);
  if (main && l.pin_copy_s > 0.0) {
    // The main process pins its own batch, then goes on.
    sim::ActivitySpec pin = cpu_work(l.pin_copy_s, StepActivity::kPin, StepTrack::kMainProcess, tag);
    pin.label = name;
    const sim::ActivityId pinned = graph_.add(std::move(pin));
    graph_.add_successor(decoded, pinned);
    graph_.start(pinned);
  }
}

sim::ActivitySpec StepGraph::timer_work(double s, StepActivity kind, StepTrack track, std::uint64_t tag,
                                            std::string label) const {
  sim::ActivitySpec spec;
  spec.kind = static_cast<std::uint32_t>(kind);
  spec.track = static_cast<std::uint32_t>(track);
  spec.tag = tag;
  spec.amount = s;
  spec.bound_per_s = 1.0;  // s seconds, on no shared resource
  spec.label = std::move(label);
  return spec;
}

void StepGraph::on_decoded(long batch) {
  flags(batch) |= kDecoded;
  if (workers_ == 0) {
    if (plan_.loader.pin_copy_s <= 0.0) on_ready(batch);
    return;
  }
  check_arrival(batch + workers_);  // the worker starts its next batch
  if (!pin_thread_) {
    on_ready(batch);
    return;
  }
  // The pin-memory thread copies batches into page-locked memory in arrival order.
  sim::ActivitySpec pin = cpu_work(plan_.loader.pin_copy_s, StepActivity::kPin, StepTrack::kPinThread,
                                   static_cast<std::uint64_t>(batch));
  if (labels_) pin.label = "batch " + std::to_string(batch);
  const sim::ActivityId id = graph_.add(std::move(pin));
  if (has_pin_tail_) graph_.add_successor(pin_tail_, id);
  graph_.start(id);
  pin_tail_ = id;
  has_pin_tail_ = true;
}

void StepGraph::on_ready(long batch) {
  flags(batch) |= kReady;
  if (batch < emitted_) release_gate(batch);
  if (batch < started_) take(batch);
}

void StepGraph::take(long batch) {
  flags(batch) |= kTaken;
  if (workers_ > 0) check_arrival(batch + prefetch_);
}

}  // namespace gpuplan::models

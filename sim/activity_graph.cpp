#include "sim/activity_graph.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim/reused_storage.h"

namespace gpuplan::sim {

struct ActivityGraph::Spare {
  std::vector<Slot> slots;
  std::vector<Body> bodies;
  std::vector<Extra> extras;
  std::vector<std::uint32_t> free_slots;
  std::vector<std::vector<ActivityId>> more_successors;
  std::vector<std::vector<StartEdge>> start_successors;
};

ActivityGraph::Spare& ActivityGraph::spare() {
  thread_local Spare storage;
  return storage;
}

ActivityGraph::ActivityGraph(Engine& engine) : engine_(engine), network_(engine) {
  Spare& s = spare();
  take_storage(slots_, s.slots);
  take_storage(bodies_, s.bodies);
  take_storage(extras_, s.extras);
  take_storage(free_slots_, s.free_slots);
  take_storage(more_successors_, s.more_successors);
  take_storage(start_successors_, s.start_successors);
}

ActivityGraph::~ActivityGraph() {
  Spare& s = spare();
  keep_storage(slots_, s.slots);
  keep_storage(bodies_, s.bodies);
  keep_storage(extras_, s.extras);
  keep_storage(free_slots_, s.free_slots);
  keep_storage(more_successors_, s.more_successors);
  keep_storage(start_successors_, s.start_successors);
}

ActivityId ActivityGraph::add(ActivitySpec spec) {
  // The message's prefix is built only for an error: no allocation per valid activity.
  const auto name = [&spec] { return "ActivityGraph::add: activity '" + spec.label + "': "; };
  if (!std::isfinite(spec.latency_s) || spec.latency_s < 0.0) {
    throw std::invalid_argument(name() + "latency " + std::to_string(spec.latency_s) +
                                " s; expected a finite number >= 0");
  }
  if (!std::isfinite(spec.amount) || spec.amount < 0.0) {
    throw std::invalid_argument(name() + "amount " + std::to_string(spec.amount) +
                                "; expected a finite number >= 0");
  }
  if (std::isnan(spec.bound_per_s) || !(spec.bound_per_s > 0.0)) {
    throw std::invalid_argument(name() + "rate bound " + std::to_string(spec.bound_per_s) +
                                " per s; expected a bound > 0 (infinity for none)");
  }
  if (spec.amount > 0.0 && spec.resources.empty() && std::isinf(spec.bound_per_s)) {
    throw std::invalid_argument(name() +
                                "work on no resource and without a rate bound has no duration; "
                                "give it a resource or a finite bound");
  }
  std::uint32_t index = 0;
  if (free_slots_.empty()) {
    index = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
    bodies_.emplace_back();
    extras_.emplace_back();
    more_successors_.emplace_back();
    start_successors_.emplace_back();
  } else {
    index = free_slots_.back();
    free_slots_.pop_back();
  }
  Slot& slot = slots_[index];
  slot.state = State::kCreated;
  slot.pending_predecessors = 0;
  Body& body = bodies_[index];
  body.latency_s = spec.latency_s;
  body.amount = spec.amount;
  body.bound_per_s = spec.bound_per_s;
  body.tag = spec.tag;
  body.kind = spec.kind;
  body.track = spec.track;
  body.resources = spec.resources;
  body.earliest = 0;
  body.has_start_successors = false;
  body.has_extra = !spec.label.empty() || static_cast<bool>(spec.on_done);
  if (body.has_extra) {
    extras_[index] = Extra{std::move(spec.label), std::move(spec.on_done)};
  }
  body.successor_count = 0;
  ++unfinished_;
  return ActivityId{index, slot.generation};
}

namespace {

// live()'s error, apart so that the check itself stays small enough to inline.
[[noreturn]] void throw_not_live(ActivityId id, const char* what) {
  throw std::logic_error(std::string("ActivityGraph::") + what + ": activity " +
                         std::to_string(id.index) + "." + std::to_string(id.generation) +
                         " is unknown or has finished");
}

}  // namespace

ActivityGraph::Slot& ActivityGraph::live(ActivityId id, const char* what) {
  if (id.index < slots_.size()) {
    Slot& slot = slots_[id.index];
    if (slot.generation == id.generation && slot.state != State::kFree) {
      return slot;
    }
  }
  throw_not_live(id, what);
}

void ActivityGraph::add_successor(ActivityId before, ActivityId after) {
  if (before == after) {
    throw std::logic_error("ActivityGraph::add_successor: an activity cannot follow itself");
  }
  Slot& next = live(after, "add_successor");
  if (next.state == State::kRunning || next.state == State::kDue) {
    throw std::logic_error("ActivityGraph::add_successor: activity '" + std::string(label(after.index)) +
                           "' is already running; add predecessors before it starts");
  }
  if (finished(before)) {
    return;
  }
  ++next.pending_predecessors;
  Body& body = bodies_[before.index];
  if (body.successor_count < kInlineSuccessors) {
    body.successors[body.successor_count] = after;
  } else {
    more_successors_[before.index].push_back(after);
  }
  ++body.successor_count;
}

void ActivityGraph::add_start_successor(ActivityId before, ActivityId after, SimTime lag) {
  if (before == after) {
    throw std::logic_error("ActivityGraph::add_start_successor: an activity cannot follow itself");
  }
  if (lag < 0) {
    throw std::logic_error("ActivityGraph::add_start_successor: negative lag " + std::to_string(lag) +
                           " ns; expected a lag >= 0");
  }
  const Slot& first = live(before, "add_start_successor");
  Slot& next = live(after, "add_start_successor");
  if (next.state == State::kRunning || next.state == State::kDue) {
    throw std::logic_error("ActivityGraph::add_start_successor: activity '" + std::string(label(after.index)) +
                           "' is already running; add predecessors before it starts");
  }
  if (first.state == State::kRunning) {
    // Its start is known: only the earliest start of `after` moves.
    Body& body = bodies_[after.index];
    body.earliest = std::max(body.earliest, bodies_[before.index].start + lag);
    return;
  }
  ++next.pending_predecessors;
  start_successors_[before.index].push_back(StartEdge{after, lag});
  bodies_[before.index].has_start_successors = true;
}

void ActivityGraph::start(ActivityId id) {
  Slot& slot = live(id, "start");
  if (slot.state != State::kCreated) {
    throw std::logic_error("ActivityGraph::start: activity '" + std::string(label(id.index)) +
                           "' was already started");
  }
  slot.state = State::kReleased;
  bodies_[id.index].released = engine_.now();
  if (slot.pending_predecessors == 0) {
    begin_when_due(id.index);
  }
}

ActivityId ActivityGraph::start_after(const std::vector<ActivityId>& predecessors,
                                      ActivitySpec spec) {
  const ActivityId id = add(std::move(spec));
  for (const ActivityId before : predecessors) {
    add_successor(before, id);
  }
  start(id);
  return id;
}

bool ActivityGraph::finished(ActivityId id) const {
  if (id.index >= slots_.size()) {
    throw std::logic_error("ActivityGraph::finished: unknown activity " +
                           std::to_string(id.index));
  }
  const Slot& slot = slots_[id.index];
  return slot.generation != id.generation || slot.state == State::kFree;
}

void ActivityGraph::begin(std::uint32_t index) {
  Slot& slot = slots_[index];
  slot.state = State::kRunning;
  Body& body = bodies_[index];
  body.start = engine_.now();
  started_.emit(ActivityStarted{ActivityId{index, slot.generation}, label(index),
                                body.kind, body.track, body.tag,
                                body.start});
  // A subscriber may have added activities (and moved the table): index again.
  if (bodies_[index].has_start_successors) {
    // Their earliest starts are now known. Moved out first: beginning one may add activities.
    std::vector<StartEdge> edges = std::move(start_successors_[index]);
    start_successors_[index].clear();
    bodies_[index].has_start_successors = false;
    const SimTime now = engine_.now();
    for (const StartEdge& edge : edges) {
      Slot& s = slots_[edge.after.index];
      if (s.generation != edge.after.generation) continue;
      Body& next = bodies_[edge.after.index];
      next.earliest = std::max(next.earliest, now + edge.lag);
      release(edge.after);
    }
    edges.clear();
    start_successors_[index] = std::move(edges);  // keep the buffer for the slot's next activity
  }
  const double latency_s = bodies_[index].latency_s;
  if (latency_s > 0.0) {
    engine_.schedule_in(to_sim_time(latency_s), [this, index] { work(index); });
  } else {
    work(index);
  }
}

void ActivityGraph::begin_when_due(std::uint32_t index) {
  const SimTime earliest = bodies_[index].earliest;
  if (earliest > engine_.now()) {
    slots_[index].state = State::kDue;
    engine_.schedule_at(earliest, [this, index] { begin(index); });
  } else {
    begin(index);
  }
}

void ActivityGraph::release(ActivityId next) {
  Slot& s = slots_[next.index];
  if (s.generation == next.generation && --s.pending_predecessors == 0 && s.state == State::kReleased) {
    begin_when_due(next.index);
  }
}

void ActivityGraph::work(std::uint32_t index) {
  const Body& s = bodies_[index];
  auto done = [this, index] { finish(index); };
  if (s.amount == 0.0) {
    // Finish in an event of its own: a long chain of empty activities does not recurse.
    engine_.schedule_in(0, done);
  } else if (s.resources.empty()) {
    engine_.schedule_in(to_sim_time(s.amount / s.bound_per_s), done);
  } else {
    network_.start_flow(s.resources, s.amount, done, s.bound_per_s);
  }
}

void ActivityGraph::finish(std::uint32_t index) {
  Slot& slot = slots_[index];
  Body& body = bodies_[index];
  const ActivityId id{index, slot.generation};
  // Free the slot before the signal and the callbacks, which may add activities (moving the
  // table and reusing the slot): the event reads what is taken out of it here. Only the label
  // and the callback own memory; the rest is copied.
  std::string label;
  std::function<void()> on_done;
  if (body.has_extra) {
    Extra& extra = extras_[index];
    label = std::move(extra.label);
    on_done = std::move(extra.on_done);
    extra = Extra{};
    body.has_extra = false;
  }
  const ActivityFinished event{id,       label,         body.kind,     body.track, body.tag,
                               body.released, body.start, engine_.now(), body.amount};
  const std::uint32_t successor_count = body.successor_count;
  const std::array<ActivityId, kInlineSuccessors> successors = body.successors;
  std::vector<ActivityId> more;
  if (successor_count > kInlineSuccessors) {
    more = std::move(more_successors_[index]);
    if (!spare_successors_.empty()) {
      // Give the slot a used vector back: its next activity's successors need no allocation.
      more_successors_[index] = std::move(spare_successors_.back());
      spare_successors_.pop_back();
    }
  }
  slot.state = State::kFree;
  ++slot.generation;
  free_slots_.push_back(index);
  --unfinished_;
  finished_.emit(event);
  if (on_done) {
    on_done();
  }
  for (std::uint32_t i = 0; i < std::min(successor_count, kInlineSuccessors); ++i) {
    release(successors[i]);
  }
  if (successor_count > kInlineSuccessors) {
    for (const ActivityId next : more) {
      release(next);
    }
    more.clear();
    spare_successors_.push_back(std::move(more));
  }
}

}  // namespace gpuplan::sim

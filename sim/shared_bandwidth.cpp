#include "sim/shared_bandwidth.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace gpuplan::sim {

BandwidthNetwork::BandwidthNetwork(Engine& engine) : engine_(engine) {}

ResourceId BandwidthNetwork::add_resource(std::string name, double bytes_per_s) {
  if (!std::isfinite(bytes_per_s) || !(bytes_per_s > 0.0)) {
    throw std::invalid_argument("BandwidthNetwork: resource '" + name + "' has bandwidth " +
                                std::to_string(bytes_per_s) +
                                " B/s; expected a finite bandwidth > 0");
  }
  if (resources_.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("BandwidthNetwork: too many resources");
  }
  const ResourceId id{static_cast<std::uint32_t>(resources_.size())};
  resources_.push_back(Resource{std::move(name), bytes_per_s});
  return id;
}

const BandwidthNetwork::Resource& BandwidthNetwork::resource(ResourceId id) const {
  if (id.index >= resources_.size()) {
    throw std::invalid_argument("BandwidthNetwork: unknown resource id " +
                                std::to_string(id.index) + " (the network has " +
                                std::to_string(resources_.size()) + " resources)");
  }
  return resources_[id.index];
}

void ResourceList::push_back(ResourceId id) {
  if (size_ == kCapacity) {
    throw std::invalid_argument("ResourceList: more than " + std::to_string(kCapacity) +
                                " resources; a flow uses at most that many at once");
  }
  ids_[size_++] = id;
}

void BandwidthNetwork::start_flow(const ResourceList& path, double bytes,
                                  std::function<void()> on_done, double bound_per_s) {
  if (path.empty()) {
    throw std::invalid_argument("BandwidthNetwork::start_flow: empty path; a flow must cross "
                                "at least one resource");
  }
  if (!std::isfinite(bytes) || bytes < 0.0) {
    throw std::invalid_argument("BandwidthNetwork::start_flow: " + std::to_string(bytes) +
                                " bytes; expected a finite number >= 0");
  }
  if (std::isnan(bound_per_s) || !(bound_per_s > 0.0)) {
    throw std::invalid_argument("BandwidthNetwork::start_flow: rate bound " +
                                std::to_string(bound_per_s) +
                                " per s; expected a bound > 0 (infinity for none)");
  }
  for (const ResourceId* id = path.begin(); id != path.end(); ++id) {
    resource(*id);  // throws for an unknown id
    if (std::find(path.begin(), id, *id) != id) {
      throw std::invalid_argument("BandwidthNetwork::start_flow: resource '" +
                                  resources_[id->index].name +
                                  "' appears twice in the path; list each resource once");
    }
  }
  if (bytes == 0.0) {
    ++completed_flows_;
    if (on_done) {
      engine_.schedule_in(0, std::move(on_done));
    }
    return;
  }

  advance_to_now();
  const SimTime now = engine_.now();
  for (const ResourceId id : path) {
    Resource& r = resources_[id.index];
    if (r.active_flows++ == 0) {
      r.busy_since = now;
    }
  }
  flows_.push_back(Flow{path, bytes, 0.0, bound_per_s, kMaxSimTime, std::move(on_done)});
  reallocate_and_reschedule();
}

void BandwidthNetwork::advance_to_now() {
  const SimTime now = engine_.now();
  if (now == last_update_) {
    return;
  }
  const double elapsed_s = to_seconds(now - last_update_);
  for (Flow& flow : flows_) {
    flow.remaining_bytes -= flow.rate_bytes_per_s * elapsed_s;
  }
  for (const std::uint32_t index : in_use_) {
    Resource& r = resources_[index];
    r.bytes_carried += r.allocated_bytes_per_s * elapsed_s;
  }
  last_update_ = now;
}

void BandwidthNetwork::reallocate_and_reschedule() {
  // Progressive filling (Bertsekas & Gallager 1992, 6.5.2). Reset the resources that carried
  // flows before, then gather those that carry them now.
  for (const std::uint32_t index : in_use_) {
    resources_[index].allocated_bytes_per_s = 0.0;
  }
  in_use_.clear();
  unfrozen_.clear();
  if (flows_.size() == 1) {
    allocate_one_flow();
  } else {
    allocate_flows();
  }
  plan_finishes();
}

void BandwidthNetwork::allocate_one_flow() {
  // The progressive filling below with one flow, in closed form and the same arithmetic: each
  // resource's share is its whole capacity (capacity / 1 flow), the least of them is the
  // bottleneck's, and the bound wins where it is at most that share.
  Flow& flow = flows_.front();
  flow.previous_rate_bytes_per_s = flow.rate_bytes_per_s;
  double share = std::numeric_limits<double>::infinity();
  for (const ResourceId id : flow.path) share = std::min(share, resources_[id.index].capacity_bytes_per_s);
  const double rate = flow.bound_per_s <= share ? flow.bound_per_s : share;
  flow.rate_bytes_per_s = rate;
  for (const ResourceId id : flow.path) {
    Resource& r = resources_[id.index];
    r.residual_bytes_per_s = r.capacity_bytes_per_s - rate;
    r.allocated_bytes_per_s = rate;
    in_use_.push_back(id.index);
  }
  if (in_use_.size() > 1) std::sort(in_use_.begin(), in_use_.end());
}

void BandwidthNetwork::allocate_flows() {
  // A flow whose bound is below every equal share it could get saturates its bound first
  // (SimGrid lmm: var.value <= var.bound): the lowest bound of the unfrozen flows, kept up to
  // date as they freeze.
  double lowest_bound = std::numeric_limits<double>::infinity();
  for (std::size_t f = 0; f < flows_.size(); ++f) {
    Flow& flow = flows_[f];
    flow.previous_rate_bytes_per_s = flow.rate_bytes_per_s;
    flow.rate_bytes_per_s = -1.0;  // unfrozen
    unfrozen_.push_back(static_cast<std::uint32_t>(f));
    lowest_bound = std::min(lowest_bound, flow.bound_per_s);
    for (const ResourceId id : flow.path) {
      Resource& r = resources_[id.index];
      if (r.unfrozen_flows++ == 0) {
        r.residual_bytes_per_s = r.capacity_bytes_per_s;
        in_use_.push_back(id.index);
      }
    }
  }
  // Resource order, not discovery order, decides ties between equal shares.
  if (in_use_.size() > 1) std::sort(in_use_.begin(), in_use_.end());

  while (!unfrozen_.empty()) {
    // The bottleneck: the resource whose residual capacity, split equally among its unfrozen
    // flows, is smallest.
    double share = std::numeric_limits<double>::infinity();
    std::uint32_t bottleneck = 0;
    for (const std::uint32_t index : in_use_) {
      const Resource& r = resources_[index];
      if (r.unfrozen_flows > 0) {
        const double candidate =
            std::max(r.residual_bytes_per_s, 0.0) / static_cast<double>(r.unfrozen_flows);
        if (candidate < share) {
          share = candidate;
          bottleneck = index;
        }
      }
    }
    // Freeze, in start order, the lowest-bounded flows at their bound if it comes first, else
    // the bottleneck's flows at its share; the others stay unfrozen, in order.
    const bool bound_first = lowest_bound <= share;
    const double rate = bound_first ? lowest_bound : share;
    double next_lowest_bound = std::numeric_limits<double>::infinity();
    std::size_t kept = 0;
    for (const std::uint32_t f : unfrozen_) {
      Flow& flow = flows_[f];
      const bool freezes = bound_first
                               ? flow.bound_per_s == lowest_bound
                               : flow.path.contains(bottleneck);
      if (!freezes) {
        next_lowest_bound = std::min(next_lowest_bound, flow.bound_per_s);
        unfrozen_[kept++] = f;
        continue;
      }
      flow.rate_bytes_per_s = rate;
      for (const ResourceId id : flow.path) {
        Resource& r = resources_[id.index];
        r.residual_bytes_per_s -= rate;
        r.allocated_bytes_per_s += rate;
        --r.unfrozen_flows;
      }
    }
    unfrozen_.resize(kept);
    lowest_bound = next_lowest_bound;
  }
}

void BandwidthNetwork::plan_finishes() {
  // Plan each flow's finish and schedule one event for the earliest.
  const SimTime now = engine_.now();
  const double horizon_s = to_seconds(kMaxSimTime - now);
  SimTime earliest = kMaxSimTime;
  for (Flow& flow : flows_) {
    if (flow.rate_bytes_per_s == flow.previous_rate_bytes_per_s && flow.planned_finish != kMaxSimTime) {
      // Same rate as when it was planned: the planned finish stands (recomputing it from the
      // remaining bytes would only add rounding).
      earliest = std::min(earliest, flow.planned_finish);
      continue;
    }
    const double remaining_s = std::max(flow.remaining_bytes, 0.0) / flow.rate_bytes_per_s;
    // A flow starved to a zero rate, or one ending beyond the representable range, gets no
    // planned finish; a later reallocation may give it one.
    flow.planned_finish = remaining_s < horizon_s ? now + to_sim_time(remaining_s) : kMaxSimTime;
    earliest = std::min(earliest, flow.planned_finish);
  }
  // Move the one completion event (a new sequence number: as if scheduled anew, so events
  // due at the same time keep the order a fresh event would have).
  if (earliest == kMaxSimTime) {
    if (completion_pending_) engine_.cancel(completion_);
    completion_pending_ = false;
  } else if (!completion_pending_ || !engine_.reschedule_at(completion_, earliest)) {
    completion_ = engine_.schedule_at(earliest, [this] { on_completion_event(); });
    completion_pending_ = true;
  }
}

void BandwidthNetwork::on_completion_event() {
  completion_pending_ = false;  // this event has run
  advance_to_now();
  const SimTime now = engine_.now();

  // The flows planned to finish now are done by definition, whatever floating-point residue
  // their remaining bytes show; they leave in start order.
  std::vector<std::function<void()>> callbacks = std::move(spare_callbacks_);
  callbacks.clear();
  auto done = [now](const Flow& flow) { return flow.planned_finish <= now; };
  for (Flow& flow : flows_) {
    if (!done(flow)) {
      continue;
    }
    for (const ResourceId id : flow.path) {
      Resource& r = resources_[id.index];
      if (--r.active_flows == 0) {
        r.busy_time += now - r.busy_since;
      }
    }
    ++completed_flows_;
    if (flow.on_done) {
      callbacks.push_back(std::move(flow.on_done));
    }
  }
  flows_.erase(std::remove_if(flows_.begin(), flows_.end(), done), flows_.end());
  reallocate_and_reschedule();
  for (auto& callback : callbacks) {
    callback();
  }
  callbacks.clear();
  spare_callbacks_ = std::move(callbacks);  // no allocation at the next completion
}

const std::string& BandwidthNetwork::name(ResourceId id) const { return resource(id).name; }

double BandwidthNetwork::capacity_bytes_per_s(ResourceId id) const {
  return resource(id).capacity_bytes_per_s;
}

int BandwidthNetwork::active_flows(ResourceId id) const { return resource(id).active_flows; }

double BandwidthNetwork::allocated_bytes_per_s(ResourceId id) const {
  return resource(id).allocated_bytes_per_s;
}

SimTime BandwidthNetwork::busy_time(ResourceId id) const {
  const Resource& r = resource(id);
  return r.busy_time + (r.active_flows > 0 ? engine_.now() - r.busy_since : 0);
}

double BandwidthNetwork::bytes_carried(ResourceId id) const {
  const Resource& r = resource(id);
  return r.bytes_carried + r.allocated_bytes_per_s * to_seconds(engine_.now() - last_update_);
}

double BandwidthNetwork::utilization(ResourceId id, SimTime horizon) const {
  if (horizon <= 0) {
    throw std::invalid_argument("BandwidthNetwork: utilization horizon " +
                                std::to_string(horizon) + " ns; expected > 0");
  }
  const Resource& r = resource(id);
  return bytes_carried(id) / (r.capacity_bytes_per_s * to_seconds(horizon));
}

}  // namespace gpuplan::sim

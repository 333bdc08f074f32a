#pragma once
/// \file shared_bandwidth.h
/// Resources shared max-min fairly among concurrent flows, each with an optional rate bound
/// (a fluid model): links and storage read paths in bytes/s, CPU cores in core-seconds/s.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "sim/engine.h"
#include "sim/sim_time.h"

namespace gpuplan::sim {

/// Identifies a resource within the BandwidthNetwork that created it.
struct ResourceId {
  std::uint32_t index = 0;  ///< position in creation order, from 0
  /// Two ids are equal when they name the same resource of the same network.
  friend bool operator==(ResourceId, ResourceId) = default;
};

/// The resources one flow (or activity) uses at once, held inline so that starting one
/// allocates nothing: at most `kCapacity` of them, in the order given. Built from a braced
/// list (`{link}`, `{uplink, slow}`) or a std::vector. Throws std::invalid_argument when more
/// than `kCapacity` are given (a path that long is not a training step's: raise the capacity).
class ResourceList {
 public:
  /// The most resources a list holds (a step's flows use one or two).
  static constexpr std::size_t kCapacity = 4;

  ResourceList() = default;
  /// The resources of `ids`, in order.
  ResourceList(std::initializer_list<ResourceId> ids) {  // NOLINT(google-explicit-constructor): `{link}`
    for (const ResourceId id : ids) push_back(id);
  }
  /// The resources of `ids`, in order.
  ResourceList(const std::vector<ResourceId>& ids) {  // NOLINT(google-explicit-constructor)
    for (const ResourceId id : ids) push_back(id);
  }

  /// Appends `id`. Throws std::invalid_argument if the list already holds `kCapacity`.
  void push_back(ResourceId id);
  /// True when the list holds no resource.
  bool empty() const { return size_ == 0; }
  /// The number of resources.
  std::size_t size() const { return size_; }
  /// True when `index` (a ResourceId's index) is in the list.
  bool contains(std::uint32_t index) const {
    for (const ResourceId id : *this) {
      if (id.index == index) return true;
    }
    return false;
  }
  /// The first resource, for range loops.
  const ResourceId* begin() const { return ids_.data(); }
  /// One past the last resource.
  const ResourceId* end() const { return ids_.data() + size_; }

 private:
  std::array<ResourceId, kCapacity> ids_{};
  std::uint8_t size_ = 0;
};

/// A set of shared resources (links, switch uplinks, a storage device's read path, a pool of
/// CPU cores) used by fluid flows. The amounts are in the resource's unit: bytes for a link,
/// core-seconds for cores (capacity = the number of cores). Each flow crosses a path of one
/// or more resources, may carry a rate bound (a thread runs on at most one core; a request
/// stream is limited by its own window), and receives a rate; the rates are the **max-min
/// fair** allocation under those bounds, computed by progressive filling (water-filling):
/// raise all rates together, freeze the flows of the first resource to saturate at that
/// resource's equal share, or a flow that reaches its bound first at its bound, and repeat
/// with the residual capacities (Bertsekas & Gallager, *Data Networks*, 2nd ed., 1992,
/// section 6.5.2; the bound is SimGrid's `lmm` constraint `var.value <= var.bound`,
/// src/kernel/lmm/maxmin.cpp). This is the fluid model SimGrid's
/// network models build on (Velho et al., "On the validity of flow-level TCP network
/// models for grid and cloud simulations", ACM TOMACS 23(4), 2013), without its TCP
/// corrections. The allocation is recomputed whenever a flow starts or ends; between those
/// events rates are constant, so each flow's finish time is exact up to the ns rounding of
/// `to_sim_time` (rounded up).
///
/// One completion event is pending at a time, for the earliest finishing flow(s); each
/// recomputation moves it (Engine::reschedule_at: the same order as a new event, without a
/// stale one left behind).
///
/// Cost: each start or end recomputes every active flow's rate, in O(K x (R + F x P)) for K
/// filling rounds (at most R + F; one when every flow sits at its bound), R resources in use,
/// F active flows and P resources per path; each round visits only the flows still unfrozen.
/// Fine for the tens of flows of a training step.
///
/// The network emits no signals: an activity's start and end are reported by the activity
/// graph that drives it (activity_graph.h). It must outlive the engine's processing of the
/// events it schedules. Not copyable.
class BandwidthNetwork {
 public:
  /// An empty network whose flows are timed by `engine`.
  explicit BandwidthNetwork(Engine& engine);
  BandwidthNetwork(const BandwidthNetwork&) = delete;
  BandwidthNetwork& operator=(const BandwidthNetwork&) = delete;
  BandwidthNetwork(BandwidthNetwork&&) = delete;
  BandwidthNetwork& operator=(BandwidthNetwork&&) = delete;
  ~BandwidthNetwork() = default;

  /// Adds a resource called `name` with capacity `bytes_per_s` (B/s), shared by the flows that
  /// cross it. Throws std::invalid_argument if `bytes_per_s` is not a finite number > 0.
  ResourceId add_resource(std::string name, double bytes_per_s);

  /// Starts a flow of `bytes` (B) across every resource in `path` now. `on_done` (may be
  /// empty) runs from the engine event at which the last byte has passed, after the rates of
  /// the remaining flows have been recomputed. A zero-byte flow takes no bandwidth and
  /// completes in an event scheduled at `now()`. `bound_per_s` caps the flow's rate (units/s;
  /// infinity = no cap).
  /// Throws std::invalid_argument if `path` is empty, names an unknown resource or the same
  /// resource twice, if `bytes` is negative, NaN or infinite, or if `bound_per_s` is not > 0.
  void start_flow(const ResourceList& path, double bytes, std::function<void()> on_done,
                  double bound_per_s = std::numeric_limits<double>::infinity());

  /// The number of resources.
  std::size_t resource_count() const { return resources_.size(); }
  /// The flows in progress (zero-byte flows never count).
  std::size_t active_flows() const { return flows_.size(); }
  /// Flows completed so far, zero-byte flows included.
  std::uint64_t completed_flows() const { return completed_flows_; }

  /// The resource's name. Throws std::invalid_argument for an unknown id (as do all the
  /// per-resource queries below).
  const std::string& name(ResourceId id) const;
  /// The resource's capacity, B/s.
  double capacity_bytes_per_s(ResourceId id) const;
  /// The flows crossing the resource now.
  int active_flows(ResourceId id) const;
  /// The sum of the current rates of the flows crossing the resource, B/s (at most the
  /// capacity; less when every flow is bottlenecked elsewhere).
  double allocated_bytes_per_s(ResourceId id) const;
  /// Time during which at least one flow crossed the resource, from 0 up to `now()`, in ns.
  SimTime busy_time(ResourceId id) const;
  /// Bytes carried by the resource from 0 up to `now()` (the integral of its allocated rate).
  double bytes_carried(ResourceId id) const;
  /// `bytes_carried / (capacity x horizon)`: the share of the capacity used over `horizon` ns.
  /// Throws std::invalid_argument if `horizon <= 0`.
  double utilization(ResourceId id, SimTime horizon) const;

 private:
  struct Resource {
    std::string name;
    double capacity_bytes_per_s;
    double allocated_bytes_per_s = 0.0;
    double bytes_carried = 0.0;  // integrated up to last_update_
    int active_flows = 0;
    SimTime busy_since = 0;
    SimTime busy_time = 0;  // of past busy periods
    // Water-filling scratch.
    double residual_bytes_per_s = 0.0;
    int unfrozen_flows = 0;
  };
  struct Flow {
    ResourceList path;
    double remaining_bytes;
    double rate_bytes_per_s = 0.0;
    double bound_per_s;
    SimTime planned_finish = kMaxSimTime;  // kMaxSimTime: not within the representable range
    std::function<void()> on_done;
    double previous_rate_bytes_per_s = 0.0;  // before the current reallocation
  };

  const Resource& resource(ResourceId id) const;
  void advance_to_now();
  /// Max-min fair rates of the active flows (progressive filling; allocate_one_flow for the
  /// one-flow case, most calls in a step simulation), then plan_finishes.
  void reallocate_and_reschedule();
  void allocate_one_flow();
  void allocate_flows();
  /// Each flow's planned finish at its new rate, and the one completion event at the earliest.
  void plan_finishes();
  void on_completion_event();

  Engine& engine_;
  std::vector<Resource> resources_;
  std::vector<Flow> flows_;  // active flows in start order
  std::vector<std::uint32_t> in_use_;  // scratch: resources crossed by active flows
  std::vector<std::uint32_t> unfrozen_;  // water-filling scratch: flows not yet frozen, in start order
  SimTime last_update_ = 0;
  bool completion_pending_ = false;  // completion_ is scheduled and has not run
  EventId completion_;              // the one completion event, moved at each reallocation
  std::vector<std::function<void()>> spare_callbacks_;   // on_completion_event's list, reused
  std::uint64_t completed_flows_ = 0;
};

}  // namespace gpuplan::sim

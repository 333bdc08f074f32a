#pragma once
/// \file shared_bandwidth.h
/// Resources shared max-min fairly among concurrent flows, each with an optional rate bound
/// (a fluid model): links and storage read paths in bytes/s, CPU cores in core-seconds/s.
/// SharedLink, a thin one-resource wrapper, lives here too rather than in a file of its own
/// (an exception to STYLE.md L4): it adds no behaviour and is read together with the network.

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine.h"
#include "sim/signal.h"
#include "sim/sim_time.h"

namespace gpuplan::sim {

/// Identifies a resource within the BandwidthNetwork that created it.
struct ResourceId {
  std::uint32_t index = 0;  ///< position in creation order, from 0
  /// Two ids are equal when they name the same resource of the same network.
  friend bool operator==(ResourceId, ResourceId) = default;
};

/// A completed flow, as reported by BandwidthNetwork::flow_finished. The label view is valid
/// only during the subscriber call.
struct FlowFinished {
  std::string_view label;  ///< the flow's label (may be empty)
  SimTime start;           ///< when the flow started
  SimTime end;             ///< when its last unit of work passed
  double amount;           ///< the work it carried (bytes, or core-seconds on a CPU resource)
};

/// A resource's allocation changed (a flow on it started or ended), as reported by
/// BandwidthNetwork::resource_changed: from `time` on, `active_flows` flows cross it at
/// `allocated_per_s` in all.
struct ResourceStateChanged {
  ResourceId resource;
  SimTime time;
  int active_flows;
  double allocated_per_s;
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
/// recomputation increments a generation counter and schedules a new event, so stale events
/// find an old generation and do nothing (no removable heap is needed).
///
/// Cost: each start or end costs O(R x (R + F x P)) for R resources in use, F active flows and
/// P resources per path; fine for the tens of flows of a training step.
///
/// Observers subscribe to `flow_finished` (once per completed flow) and `resource_changed`
/// (once per resource whose allocation or flow count changed, after each reallocation).
/// The network must outlive the engine's processing of the events it schedules. Not copyable.
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
  /// completes in an event scheduled at `now()`. `label` names the flow for observers.
  /// `bound_per_s` caps the flow's rate (units/s; infinity = no cap).
  /// Throws std::invalid_argument if `path` is empty, names an unknown resource or the same
  /// resource twice, if `bytes` is negative, NaN or infinite, or if `bound_per_s` is not > 0.
  void start_flow(std::vector<ResourceId> path, double bytes, std::function<void()> on_done,
                  std::string_view label = {},
                  double bound_per_s = std::numeric_limits<double>::infinity());

  /// Emitted once per completed flow with a positive amount, before its `on_done`.
  Signal<FlowFinished>& flow_finished() { return flow_finished_; }
  /// Emitted after each reallocation, once per resource whose flow count or allocation changed.
  Signal<ResourceStateChanged>& resource_changed() { return resource_changed_; }

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
    int reported_flows = 0;            // as last emitted through resource_changed
    double reported_per_s = 0.0;
    SimTime busy_since = 0;
    SimTime busy_time = 0;  // of past busy periods
    // Water-filling scratch.
    double residual_bytes_per_s = 0.0;
    int unfrozen_flows = 0;
  };
  struct Flow {
    std::vector<std::uint32_t> path;
    double bytes;
    double remaining_bytes;
    double rate_bytes_per_s = 0.0;
    double bound_per_s;
    SimTime start;
    SimTime planned_finish = kMaxSimTime;  // kMaxSimTime: not within the representable range
    std::function<void()> on_done;
    std::string label;
    double previous_rate_bytes_per_s = 0.0;  // before the current reallocation
  };

  const Resource& resource(ResourceId id) const;
  void advance_to_now();
  void reallocate_and_reschedule();
  void on_completion_event(std::uint64_t generation);
  void report_changes(const std::vector<std::uint32_t>& before);

  Engine& engine_;
  std::vector<Resource> resources_;
  std::vector<Flow> flows_;  // active flows in start order
  std::vector<std::uint32_t> in_use_;  // scratch: resources crossed by active flows
  SimTime last_update_ = 0;
  std::uint64_t generation_ = 0;
  std::vector<std::vector<std::uint32_t>> spare_paths_;  // finished flows' paths, emptied, reused
  std::vector<std::function<void()>> spare_callbacks_;   // on_completion_event's list, reused
  std::uint64_t completed_flows_ = 0;
  Signal<FlowFinished> flow_finished_;
  Signal<ResourceStateChanged> resource_changed_;
};

/// One bandwidth resource on its own: a link of `bytes_per_s` shared equally (processor
/// sharing) by the transfers in progress. A convenience wrapper over a one-resource
/// BandwidthNetwork; the same errors and signals apply.
class SharedLink {
 public:
  /// A link called `name` of capacity `bytes_per_s` (B/s).
  /// Throws std::invalid_argument if `bytes_per_s` is not a finite number > 0.
  SharedLink(Engine& engine, std::string name, double bytes_per_s);

  /// Starts a transfer of `bytes` now; `on_done` runs when it completes (see
  /// BandwidthNetwork::start_flow). Throws std::invalid_argument for negative, NaN or
  /// infinite `bytes`.
  void transfer(double bytes, std::function<void()> on_done, std::string_view label = {}) {
    network_.start_flow({id_}, bytes, std::move(on_done), label);
  }

  /// Emitted once per completed transfer (see BandwidthNetwork::flow_finished).
  Signal<FlowFinished>& transfer_finished() { return network_.flow_finished(); }

  /// Transfers in progress.
  int active_transfers() const { return network_.active_flows(id_); }
  /// The link's capacity, B/s.
  double capacity_bytes_per_s() const { return network_.capacity_bytes_per_s(id_); }
  /// Time with at least one transfer in progress, up to `now()`, in ns.
  SimTime busy_time() const { return network_.busy_time(id_); }
  /// Bytes carried up to `now()`.
  double bytes_carried() const { return network_.bytes_carried(id_); }
  /// Share of the capacity used over `horizon` ns. Throws std::invalid_argument if
  /// `horizon <= 0`.
  double utilization(SimTime horizon) const { return network_.utilization(id_, horizon); }

 private:
  BandwidthNetwork network_;
  ResourceId id_;
};

}  // namespace gpuplan::sim

#pragma once
/// \file signal.h
/// A typed observer signal: several subscribers, called in subscription order.

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gpuplan::sim {

/// A signal that delivers `Event` values to every subscriber, in the order they subscribed
/// (so observers run deterministically, STYLE.md E5). Resources and the activity graph emit
/// signals; measurement (busy time, breakdowns, traces) subscribes to them instead of
/// classifying strings. A subscriber must not subscribe or unsubscribe from inside its own
/// call. Not copyable: subscribers capture references to the emitter's owner.
template <typename Event>
class Signal {
 public:
  /// A subscriber: called with each emitted event, which is valid only during the call.
  using Subscriber = std::function<void(const Event&)>;
  /// Identifies a subscription for `unsubscribe`.
  using Subscription = std::size_t;

  Signal() = default;
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;
  Signal(Signal&&) = delete;
  Signal& operator=(Signal&&) = delete;
  ~Signal() = default;

  /// Adds `subscriber`; returns its subscription. Throws std::logic_error if it is empty or if
  /// called while the signal is emitting.
  Subscription subscribe(Subscriber subscriber) {
    if (!subscriber) {
      throw std::logic_error("Signal::subscribe: empty subscriber");
    }
    if (emitting_) {
      throw std::logic_error("Signal::subscribe: called from a subscriber; subscribe before emitting");
    }
    subscribers_.emplace_back(next_id_, std::move(subscriber));
    return next_id_++;
  }

  /// Removes the subscription (no effect if it is already gone). Throws std::logic_error if
  /// called while the signal is emitting.
  void unsubscribe(Subscription subscription) {
    if (emitting_) {
      throw std::logic_error("Signal::unsubscribe: called from a subscriber");
    }
    std::erase_if(subscribers_, [subscription](const auto& s) { return s.first == subscription; });
  }

  /// True when at least one subscriber listens: emitters may skip building an event otherwise.
  bool observed() const { return !subscribers_.empty(); }

  /// Calls every subscriber with `event`; costs one branch when none listens.
  void emit(const Event& event) const {
    if (subscribers_.empty()) {
      return;
    }
    emitting_ = true;
    try {
      for (const auto& s : subscribers_) {
        s.second(event);
      }
    } catch (...) {
      emitting_ = false;
      throw;
    }
    emitting_ = false;
  }

 private:
  std::vector<std::pair<Subscription, Subscriber>> subscribers_;
  Subscription next_id_ = 0;
  mutable bool emitting_ = false;
};

}  // namespace gpuplan::sim

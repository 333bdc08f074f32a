#pragma once
/// \file bounded_queue.h
/// A FIFO buffer of bounded capacity between producer and consumer processes.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/engine.h"
#include "sim/sim_time.h"

namespace gpuplan::sim {

/// A buffer of at most `capacity` items between producers and consumers, with blocking on
/// both sides: `put` waits while the buffer is full and `get` waits while it is empty. Items
/// leave in the order they were accepted; blocked producers are admitted, and blocked
/// consumers served, in the order they arrived (FIFO on all three lines). Models, for example,
/// the DataLoader's prefetch buffer or a pinned-memory staging ring.
///
/// Callback semantics (the one choice documented here): callbacks never run inside `put` or
/// `get`. Each runs as an engine event scheduled at the simulated time when the put is
/// accepted or the item is handed over, in the order those happen. So a producer loop written
/// as `put(x, [&] { put(next, ...); })` cannot recurse, and the caller sees consistent state
/// after `put`/`get` returns. The queue's own state changes at once: an accepted item counts
/// in `size()` as soon as `put` returns.
///
/// T must be movable (move-only types such as std::unique_ptr work). The queue must outlive
/// the engine's processing of the events it schedules. Not copyable.
template <typename T>
class BoundedQueue {
 public:
  /// Called when a put has been accepted into the buffer.
  using AcceptedCallback = std::function<void()>;
  /// Called with the item when a get is served.
  using ItemCallback = std::function<void(T)>;

  /// A queue named `name` holding at most `capacity` items.
  /// Throws std::invalid_argument if `capacity` is 0.
  BoundedQueue(Engine& engine, std::string name, std::size_t capacity)
      : engine_(engine), name_(std::move(name)), capacity_(capacity) {
    if (capacity_ == 0) {
      throw std::invalid_argument("BoundedQueue '" + name_ + "': capacity 0; expected >= 1");
    }
  }
  BoundedQueue(const BoundedQueue&) = delete;
  BoundedQueue& operator=(const BoundedQueue&) = delete;
  BoundedQueue(BoundedQueue&&) = delete;
  BoundedQueue& operator=(BoundedQueue&&) = delete;
  ~BoundedQueue() = default;

  /// Offers `item`. If a consumer is waiting, the item goes straight to the first one; else if
  /// there is room, it enters the buffer; else the producer blocks until a `get` makes room
  /// for it (producers are admitted in the order they blocked). `on_accepted` (may be empty)
  /// runs as an engine event at the time of acceptance.
  void put(T item, AcceptedCallback on_accepted) {
    if (!consumers_.empty()) {
      WaitingConsumer consumer = std::move(consumers_.front());
      consumers_.pop_front();
      empty_get_wait_time_ += engine_.now() - consumer.since;
      hand_over(std::move(item), std::move(consumer.on_item));
      notify(std::move(on_accepted));
    } else if (items_.size() < capacity_) {
      accept(std::move(item));
      notify(std::move(on_accepted));
    } else {
      ++blocked_puts_;
      producers_.push_back(WaitingProducer{std::move(item), std::move(on_accepted), engine_.now()});
    }
  }

  /// Asks for the next item. If the buffer holds one, the oldest is taken at once (and the
  /// first blocked producer, if any, is admitted into the freed place); else the consumer
  /// blocks until a `put` (consumers are served in the order they blocked). `on_item` runs as
  /// an engine event at the time of the hand-over, with the item.
  /// Throws std::invalid_argument if `on_item` is empty (the item would be lost).
  void get(ItemCallback on_item) {
    if (!on_item) {
      throw std::invalid_argument("BoundedQueue '" + name_ + "': get with an empty callback");
    }
    if (items_.empty()) {
      ++empty_gets_;
      consumers_.push_back(WaitingConsumer{std::move(on_item), engine_.now()});
      return;
    }
    T item = std::move(items_.front());
    items_.pop_front();
    integrate_occupancy();
    hand_over(std::move(item), std::move(on_item));
    if (!producers_.empty()) {
      WaitingProducer producer = std::move(producers_.front());
      producers_.pop_front();
      blocked_put_time_ += engine_.now() - producer.since;
      accept(std::move(producer.item));
      notify(std::move(producer.on_accepted));
    }
  }

  /// The queue's name.
  const std::string& name() const { return name_; }
  /// The most items the buffer holds.
  std::size_t capacity() const { return capacity_; }
  /// Items in the buffer now (not counting those of blocked producers).
  std::size_t size() const { return items_.size(); }
  /// True when the buffer holds `capacity()` items.
  bool full() const { return items_.size() >= capacity_; }
  /// Producers blocked in `put`.
  std::size_t waiting_producers() const { return producers_.size(); }
  /// Consumers blocked in `get`.
  std::size_t waiting_consumers() const { return consumers_.size(); }

  /// Puts that had to block because the buffer was full.
  std::uint64_t blocked_puts() const { return blocked_puts_; }
  /// Total time producers spent blocked, over puts admitted so far, in ns.
  SimTime blocked_put_time() const { return blocked_put_time_; }
  /// Gets that had to wait because the buffer was empty.
  std::uint64_t empty_gets() const { return empty_gets_; }
  /// Total time consumers spent waiting on an empty buffer, over gets served so far, in ns.
  SimTime empty_get_wait_time() const { return empty_get_wait_time_; }
  /// Time integral of `size()` from the start up to `now()`, in item-seconds; divide by the
  /// horizon in seconds for the mean occupancy.
  double occupancy_item_seconds() const {
    return occupancy_item_seconds_ +
           static_cast<double>(items_.size()) * to_seconds(engine_.now() - occupancy_since_);
  }

 private:
  struct WaitingProducer {
    T item;
    AcceptedCallback on_accepted;
    SimTime since;
  };
  struct WaitingConsumer {
    ItemCallback on_item;
    SimTime since;
  };
  struct Delivery {
    T item;
    ItemCallback on_item;
  };

  void accept(T item) {
    integrate_occupancy();
    items_.push_back(std::move(item));
  }

  // Deliveries wait in their own FIFO so that the scheduled event need not copy the item
  // (std::function needs a copyable callable); events at equal times run in scheduling order,
  // so each event pops the delivery it was scheduled for.
  void hand_over(T item, ItemCallback on_item) {
    deliveries_.push_back(Delivery{std::move(item), std::move(on_item)});
    engine_.schedule_in(0, [this] {
      Delivery delivery = std::move(deliveries_.front());
      deliveries_.pop_front();
      delivery.on_item(std::move(delivery.item));
    });
  }

  void notify(AcceptedCallback on_accepted) {
    if (on_accepted) {
      engine_.schedule_in(0, std::move(on_accepted));
    }
  }

  // Adds size() x elapsed time to the occupancy integral; called before every size change.
  void integrate_occupancy() {
    const SimTime now = engine_.now();
    occupancy_item_seconds_ +=
        static_cast<double>(items_.size()) * to_seconds(now - occupancy_since_);
    occupancy_since_ = now;
  }

  Engine& engine_;
  std::string name_;
  std::size_t capacity_;
  std::deque<T> items_;
  std::deque<WaitingProducer> producers_;
  std::deque<WaitingConsumer> consumers_;
  std::deque<Delivery> deliveries_;

  std::uint64_t blocked_puts_ = 0;
  SimTime blocked_put_time_ = 0;
  std::uint64_t empty_gets_ = 0;
  SimTime empty_get_wait_time_ = 0;
  double occupancy_item_seconds_ = 0.0;
  SimTime occupancy_since_ = 0;
};

}  // namespace gpuplan::sim

#include "sim/bounded_queue.h"

#include <doctest/doctest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuplan::sim {

TEST_SUITE("sim.bounded_queue") {
  TEST_CASE("a producer blocks at capacity and producers resume in order") {
    Engine engine;
    BoundedQueue<int> queue(engine, "prefetch", 2);
    std::vector<std::string> log;
    auto put = [&](int item) {
      queue.put(item, [&, item] {
        log.push_back("accepted " + std::to_string(item) + " at " + std::to_string(engine.now()));
      });
    };
    for (int item = 0; item < 4; ++item) {
      put(item);  // 0 and 1 fit; 2 and 3 block
    }
    CHECK(queue.size() == 2);
    CHECK(queue.full());
    CHECK(queue.waiting_producers() == 2);
    CHECK(queue.blocked_puts() == 2);
    // A consumer takes one item every 10 ns from t = 10.
    std::vector<int> got;
    for (SimTime t = 10; t <= 40; t += 10) {
      engine.schedule_at(t, [&] { queue.get([&](int item) { got.push_back(item); }); });
    }
    engine.run();
    // Items leave in put order; producer 2 is admitted at 10 (first get), producer 3 at 20.
    CHECK(got == std::vector<int>{0, 1, 2, 3});
    CHECK(log == std::vector<std::string>{"accepted 0 at 0", "accepted 1 at 0", "accepted 2 at 10",
                                          "accepted 3 at 20"});
    // Blocked-put time: producer 2 waited 10 - 0, producer 3 waited 20 - 0: 30 ns.
    CHECK(queue.blocked_put_time() == 30);
    CHECK(queue.empty_gets() == 0);
    CHECK(queue.size() == 0);
  }

  TEST_CASE("a consumer blocks while the queue is empty, consumers are served in order") {
    Engine engine;
    BoundedQueue<std::string> queue(engine, "batches", 1);
    std::vector<std::string> log;
    queue.get([&](std::string item) { log.push_back("A got " + item + " at " + std::to_string(engine.now())); });
    queue.get([&](std::string item) { log.push_back("B got " + item + " at " + std::to_string(engine.now())); });
    CHECK(queue.waiting_consumers() == 2);
    engine.schedule_at(5, [&] { queue.put("x", nullptr); });
    engine.schedule_at(8, [&] { queue.put("y", nullptr); });
    engine.run();
    CHECK(log == std::vector<std::string>{"A got x at 5", "B got y at 8"});
    // Items handed straight to waiting consumers never occupy the buffer.
    CHECK(queue.occupancy_item_seconds() == 0.0);
    // Empty-get wait: A waited 5 - 0, B waited 8 - 0: 13 ns over 2 gets.
    CHECK(queue.empty_gets() == 2);
    CHECK(queue.empty_get_wait_time() == 13);
  }

  TEST_CASE("callbacks run as events at the current time, never inside put or get") {
    Engine engine;
    BoundedQueue<int> queue(engine, "q", 1);
    bool accepted = false;
    queue.put(7, [&] { accepted = true; });
    CHECK_FALSE(accepted);  // not called inside put
    CHECK(queue.size() == 1);  // but the item is already in the buffer
    int got = -1;
    queue.get([&](int item) { got = item; });
    CHECK(got == -1);
    CHECK(queue.size() == 0);
    engine.run();
    CHECK(accepted);
    CHECK(got == 7);
    CHECK(engine.now() == 0);
  }

  TEST_CASE("a producer-consumer pipeline: a fast producer is throttled by a slow consumer") {
    // The producer makes an item 1 ns after its previous put was accepted; the consumer takes
    // 3 ns per item; capacity 2. Item 0 is put at 1 ns; from then on the producer keeps the
    // buffer full, so the consumer never waits again and finishes item k at 1 + 3 (k + 1) ns.
    Engine engine;
    BoundedQueue<std::unique_ptr<int>> queue(engine, "q", 2);  // move-only items work
    int produced = 0;
    int consumed = 0;
    std::function<void()> produce = [&] {
      engine.schedule_in(1, [&] {
        queue.put(std::make_unique<int>(produced++), [&] {
          if (produced < 10) {
            produce();
          }
        });
      });
    };
    std::function<void()> consume = [&] {
      queue.get([&](std::unique_ptr<int> item) {
        CHECK(*item == consumed);
        engine.schedule_in(3, [&] {
          if (++consumed < 10) {
            consume();
          }
        });
      });
    };
    produce();
    consume();
    engine.run();
    CHECK(consumed == 10);
    // Item 9 finishes at 1 + 3 x 10 = 31 ns.
    CHECK(engine.now() == 31);
    CHECK(queue.blocked_puts() > 0);
  }

  TEST_CASE("invalid arguments throw") {
    Engine engine;
    CHECK_THROWS_AS(BoundedQueue<int>(engine, "q", 0), std::invalid_argument);
    BoundedQueue<int> queue(engine, "q", 1);
    CHECK_THROWS_AS(queue.get(nullptr), std::invalid_argument);
  }
}

}  // namespace gpuplan::sim

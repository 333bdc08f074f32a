#include "sim/engine.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuplan::sim {

TEST_SUITE("sim.engine") {
  TEST_CASE("events run in time order, same-time events in insertion order") {
    Engine engine;
    std::vector<int> order;
    engine.schedule_at(20, [&] { order.push_back(3); });
    engine.schedule_at(10, [&] { order.push_back(1); });
    engine.schedule_at(10, [&] { order.push_back(2); });
    engine.schedule_at(20, [&] { order.push_back(4); });
    engine.schedule_at(5, [&] { order.push_back(0); });
    engine.run();
    CHECK(order == std::vector<int>{0, 1, 2, 3, 4});
    CHECK(engine.now() == 20);
    CHECK(engine.events_processed() == 5);
    CHECK(engine.empty());
  }

  TEST_CASE("an event scheduled for now runs after those already due now") {
    Engine engine;
    std::vector<std::string> order;
    engine.schedule_at(7, [&] {
      order.push_back("a");
      engine.schedule_in(0, [&] { order.push_back("c"); });
    });
    engine.schedule_at(7, [&] { order.push_back("b"); });
    engine.run();
    CHECK(order == std::vector<std::string>{"a", "b", "c"});
    CHECK(engine.now() == 7);
  }

  TEST_CASE("1000 same-time events keep insertion order through the heap") {
    Engine engine;
    std::vector<int> order;
    for (int i = 0; i < 1000; ++i) {
      engine.schedule_at(1000 - (i % 3), [&order, i] { order.push_back(i); });
    }
    engine.run();
    REQUIRE(order.size() == 1000);
    // Times 998 (i % 3 == 2), then 999 (i % 3 == 1), then 1000 (i % 3 == 0), each ascending.
    std::vector<int> expected;
    for (int r : {2, 1, 0}) {
      for (int i = r; i < 1000; i += 3) {
        expected.push_back(i);
      }
    }
    CHECK(order == expected);
  }

  TEST_CASE("scheduling in the past or with a negative delay throws") {
    Engine engine;
    engine.schedule_at(100, [] {});
    engine.run();
    CHECK(engine.now() == 100);
    CHECK_THROWS_AS(engine.schedule_at(99, [] {}), std::logic_error);
    CHECK_THROWS_AS(engine.schedule_in(-1, [] {}), std::logic_error);
    CHECK_THROWS_AS(engine.schedule_in(kMaxSimTime, [] {}), std::logic_error);
    CHECK_THROWS_AS(engine.schedule_at(200, Engine::Callback{}), std::logic_error);
    CHECK_NOTHROW(engine.schedule_at(100, [] {}));
    CHECK(engine.pending_events() == 1);
  }

  TEST_CASE("run_until processes events due at or before t, then sets now to t") {
    Engine engine;
    std::vector<SimTime> seen;
    for (SimTime t : {10, 20, 30}) {
      engine.schedule_at(t, [&] { seen.push_back(engine.now()); });
    }
    engine.run_until(20);  // 10 and 20 are due at or before 20; 30 is not.
    CHECK(seen == std::vector<SimTime>{10, 20});
    CHECK(engine.now() == 20);
    engine.run_until(25);  // nothing due: the clock still moves to 25.
    CHECK(engine.now() == 25);
    CHECK(engine.next_event_time() == 30);
    CHECK_THROWS_AS(engine.run_until(24), std::logic_error);
    engine.run_until(100);
    CHECK(seen == std::vector<SimTime>{10, 20, 30});
    CHECK(engine.now() == 100);
    // Nothing pending: scheduling at 100 is now, 99 is the past.
    CHECK_THROWS_AS(engine.schedule_at(99, [] {}), std::logic_error);
    CHECK_THROWS_AS(engine.next_event_time(), std::logic_error);
  }

  TEST_CASE("step processes one event at a time") {
    Engine engine;
    int count = 0;
    engine.schedule_at(3, [&] { ++count; });
    engine.schedule_at(4, [&] { ++count; });
    CHECK(engine.step());
    CHECK(count == 1);
    CHECK(engine.now() == 3);
    CHECK(engine.step());
    CHECK(engine.now() == 4);
    CHECK_FALSE(engine.step());
    CHECK(engine.events_processed() == 2);
  }

  TEST_CASE("stop makes run return after the current event") {
    Engine engine;
    int count = 0;
    for (SimTime t = 1; t <= 5; ++t) {
      engine.schedule_at(t, [&] {
        ++count;
        if (count == 2) {
          engine.stop();
        }
      });
    }
    engine.run();
    CHECK(count == 2);
    CHECK(engine.now() == 2);
    CHECK(engine.pending_events() == 3);
    // A stopped run_until leaves the clock at the last processed event, not at the limit.
    engine.schedule_at(3, [&] { engine.stop(); });
    engine.run_until(10);
    CHECK(engine.now() == 3);
    // A new run resumes where the last one stopped.
    engine.run();
    CHECK(count == 5);
    CHECK(engine.now() == 5);
  }

  TEST_CASE("run, run_until and step refuse to nest inside a callback") {
    Engine engine;
    bool threw = false;
    engine.schedule_at(1, [&] {
      try {
        engine.run();
      } catch (const std::logic_error&) {
        threw = true;
      }
    });
    engine.run();
    CHECK(threw);
  }

  TEST_CASE("an exception from a callback propagates and leaves the engine usable") {
    Engine engine;
    int after = 0;
    engine.schedule_at(1, [] { throw std::runtime_error("model failure"); });
    engine.schedule_at(2, [&] { ++after; });
    CHECK_THROWS_AS(engine.run(), std::runtime_error);
    CHECK(engine.now() == 1);
    engine.run();
    CHECK(after == 1);
  }

  TEST_CASE("callbacks may schedule many events while they run") {
    // Each of the 1000 events schedules the next; the slot table grows while a callback runs.
    Engine engine;
    int count = 0;
    std::function<void()> tick = [&] {
      ++count;
      for (int i = 0; i < 3 && count < 1000; ++i) {
        engine.schedule_in(1, [&, i] {
          if (i == 0) {
            tick();
          }
        });
      }
    };
    engine.schedule_at(0, tick);
    engine.run();
    CHECK(count == 1000);
    // 1 initial + 999 ticks x 3 scheduled events.
    CHECK(engine.events_processed() == 1 + 999 * 3);
    CHECK(engine.now() == 999);
  }

  TEST_CASE("a rescheduled event runs as if scheduled anew; a cancelled one never runs") {
    // a (t 10, scheduled first) is moved to t 20 after b and c are scheduled for 20: it then
    // runs after both, exactly where a new event for 20 would. d (t 5) is moved earlier, to
    // 1. e is cancelled. The order is d, b, c, a.
    Engine engine;
    std::vector<std::string> order;
    EventId a = engine.schedule_at(10, [&] { order.push_back("a"); });
    engine.schedule_at(20, [&] { order.push_back("b"); });
    engine.schedule_at(20, [&] { order.push_back("c"); });
    EventId d = engine.schedule_at(5, [&] { order.push_back("d"); });
    const EventId e = engine.schedule_at(3, [&] { order.push_back("e"); });
    CHECK(engine.reschedule_at(a, 20));
    CHECK(engine.reschedule_at(d, 1));
    CHECK(engine.cancel(e));
    CHECK_FALSE(engine.cancel(e));  // already gone
    CHECK(engine.pending_events() == 4);
    CHECK(engine.next_event_time() == 1);
    engine.run();
    CHECK(order == std::vector<std::string>{"d", "b", "c", "a"});
    CHECK(engine.events_processed() == 4);
    // Ids of events that ran name nothing, even once their slots are reused.
    const EventId f = engine.schedule_at(30, [&] { order.push_back("f"); });
    CHECK_FALSE(engine.reschedule_at(a, 40));
    CHECK_FALSE(engine.cancel(d));
    CHECK(engine.pending_events() == 1);
    CHECK_THROWS_AS(engine.reschedule_at(a, 19), std::logic_error);  // the past
    engine.run();
    CHECK(order.back() == "f");
    CHECK_FALSE(engine.cancel(f));
  }

  TEST_CASE("rescheduling and cancelling keep the heap's order over many events") {
    // 300 events at times 3 x (i mod 100); every third one is moved to 1000 + i, every
    // fifth of the rest cancelled. The others run in (time, scheduling) order, then the moved
    // ones in order of their new times.
    Engine engine;
    std::vector<int> order;
    std::vector<EventId> ids;
    for (int i = 0; i < 300; ++i) ids.push_back(engine.schedule_at(3 * (i % 100), [&order, i] { order.push_back(i); }));
    std::vector<std::pair<SimTime, int>> expected_early;
    std::vector<int> expected_late;
    for (int i = 0; i < 300; ++i) {
      if (i % 3 == 0) {
        REQUIRE(engine.reschedule_at(ids[static_cast<std::size_t>(i)], 1000 + i));
        expected_late.push_back(i);
      } else if (i % 5 == 0) {
        REQUIRE(engine.cancel(ids[static_cast<std::size_t>(i)]));
      } else {
        expected_early.emplace_back(3 * (i % 100), i);
      }
    }
    std::sort(expected_early.begin(), expected_early.end());
    std::vector<int> expected;
    for (const auto& te : expected_early) expected.push_back(te.second);
    expected.insert(expected.end(), expected_late.begin(), expected_late.end());
    engine.run();
    CHECK(order == expected);
  }
}

}  // namespace gpuplan::sim

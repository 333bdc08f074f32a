#include "sim/activity_graph.h"

#include <doctest/doctest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuplan::sim {

namespace {

// Records when each activity finishes, in seconds, from the graph's finished signal.
struct Finishes {
  std::map<std::string, double> at_s;
  std::vector<std::string> order;
  explicit Finishes(ActivityGraph& graph) {
    graph.activity_finished().subscribe([this](const ActivityFinished& e) {
      at_s[std::string(e.label)] = to_seconds(e.end);
      order.emplace_back(e.label);
    });
  }
};

ActivitySpec work(std::string label, double amount, std::vector<ResourceId> resources,
                  double bound_per_s = std::numeric_limits<double>::infinity()) {
  ActivitySpec spec;
  spec.label = std::move(label);
  spec.amount = amount;
  spec.resources = std::move(resources);
  spec.bound_per_s = bound_per_s;
  return spec;
}

}  // namespace

TEST_SUITE("sim.activity_graph") {
  TEST_CASE("a start-to-start edge: the successor begins at the later of its lag and its predecessors") {
    // h (a 2 s timer) begins at 0. k1 follows h's start by 3 s and finishes the 1 s timer g1
    // (ends at 1 s): it begins at 3 s (the lag limits), ends at 4. k2 follows h's start by
    // 3.5 s and k1's finish (4 s): it begins at 4 (the predecessor limits), ends at 5. k3 is
    // added while h runs, 1 s after h's start, after k2: it begins at 5, ends at 6. The times
    // are what the chain of timers h, h + 1 s, h + 1.5 s would give each kernel, without those
    // activities.
    Engine engine;
    ActivityGraph graph(engine);
    Finishes finishes(graph);
    std::map<std::string, double> began_s;
    graph.activity_started().subscribe([&began_s](const ActivityStarted& e) { began_s[std::string(e.label)] = to_seconds(e.time); });
    const ActivityId h = graph.add(work("h", 2.0, {}, 1.0));
    const ActivityId g1 = graph.add(work("g1", 1.0, {}, 1.0));
    const ActivityId k1 = graph.add(work("k1", 1.0, {}, 1.0));
    const ActivityId k2 = graph.add(work("k2", 1.0, {}, 1.0));
    graph.add_start_successor(h, k1, to_sim_time(3.0));
    graph.add_successor(g1, k1);
    graph.add_start_successor(h, k2, to_sim_time(3.5));
    graph.add_successor(k1, k2);
    CHECK_THROWS_AS(graph.add_start_successor(h, h, 0), std::logic_error);
    CHECK_THROWS_AS(graph.add_start_successor(h, k2, -1), std::logic_error);
    for (const ActivityId id : {h, g1, k1, k2}) graph.start(id);
    const ActivityId k3 = graph.add(work("k3", 1.0, {}, 1.0));
    graph.add_start_successor(h, k3, to_sim_time(1.0));  // h is running: its start is known
    graph.add_successor(k2, k3);
    graph.start(k3);
    engine.run();
    CHECK(began_s["k1"] == 3.0);
    CHECK(finishes.at_s["k1"] == 4.0);
    CHECK(began_s["k2"] == 4.0);
    CHECK(finishes.at_s["k2"] == 5.0);
    CHECK(began_s["k3"] == 5.0);
    CHECK(finishes.at_s["k3"] == 6.0);
    CHECK(finishes.at_s["h"] == 2.0);
    CHECK(graph.unfinished() == 0);
    // A finished activity has no start left to follow.
    const ActivityId late = graph.add(work("late", 1.0, {}, 1.0));
    CHECK_THROWS_AS(graph.add_start_successor(h, late, 0), std::logic_error);
  }

  TEST_CASE("an activity waiting for its earliest start takes no more predecessors") {
    Engine engine;
    ActivityGraph graph(engine);
    const ActivityId h = graph.add(work("h", 1.0, {}, 1.0));
    graph.start(h);
    const ActivityId k = graph.add(work("k", 1.0, {}, 1.0));
    graph.add_start_successor(h, k, to_sim_time(2.0));
    graph.start(k);  // due at 2 s: waits in an engine event
    const ActivityId other = graph.add(work("other", 1.0, {}, 1.0));
    CHECK_THROWS_AS(graph.add_successor(other, k), std::logic_error);
    engine.run();
    CHECK(to_seconds(engine.now()) == 3.0);
  }

  TEST_CASE("a wide fork starts its successors in the order they were added") {
    // a (1 s alone at its bound of 1 unit/s) is followed by six activities of 1, 2, ..., 6
    // units, each alone at a bound of 1 unit/s: they start together at 1 s, in the order they
    // were added (the first three held in the activity, the rest beyond), and end at
    // 1 + k s. A second use of the slots (b, after a's fork) finds no stale successor.
    Engine engine;
    ActivityGraph graph(engine);
    Finishes finishes(graph);
    std::vector<std::string> started;
    graph.activity_started().subscribe([&started](const ActivityStarted& e) { started.emplace_back(e.label); });
    const ActivityId a = graph.add(work("a", 1.0, {}, 1.0));
    for (int k = 1; k <= 6; ++k) {
      const ActivityId next = graph.add(work("s" + std::to_string(k), k, {}, 1.0));
      graph.add_successor(a, next);
      graph.start(next);
    }
    graph.start(a);
    engine.run();
    CHECK(started == std::vector<std::string>{"a", "s1", "s2", "s3", "s4", "s5", "s6"});
    for (int k = 1; k <= 6; ++k) {
      CHECK(finishes.at_s["s" + std::to_string(k)] == doctest::Approx(1.0 + k));
    }
    const ActivityId b = graph.add(work("b", 1.0, {}, 1.0));
    const ActivityId c = graph.add(work("c", 1.0, {}, 1.0));
    graph.add_successor(b, c);
    graph.start(c);
    graph.start(b);
    engine.run();
    CHECK(finishes.at_s["c"] == doctest::Approx(9.0));  // b 7..8 s, c 8..9 s
    CHECK(graph.unfinished() == 0);
  }

  TEST_CASE("a chain runs one activity after the other") {
    // One core (capacity 1 core-s/s). a = 2, b = 3 (after a latency of 0.5 s), c = 1 core-s,
    // chained a -> b -> c: a ends at 2, b at 2 + 0.5 + 3 = 5.5, c at 6.5 s.
    Engine engine;
    ActivityGraph graph(engine);
    Finishes finishes(graph);
    const ResourceId core = graph.add_resource("core", 1.0);
    const ActivityId a = graph.add(work("a", 2.0, {core}));
    ActivitySpec b_spec = work("b", 3.0, {core});
    b_spec.latency_s = 0.5;
    const ActivityId b = graph.add(std::move(b_spec));
    const ActivityId c = graph.add(work("c", 1.0, {core}));
    graph.add_successor(a, b);
    graph.add_successor(b, c);
    // Started in reverse: each still waits for its predecessor.
    graph.start(c);
    graph.start(b);
    CHECK(graph.network().active_flows() == 0);
    graph.start(a);
    engine.run();
    CHECK(finishes.order == std::vector<std::string>{"a", "b", "c"});
    CHECK(finishes.at_s["a"] == doctest::Approx(2.0));
    CHECK(finishes.at_s["b"] == doctest::Approx(5.5));
    CHECK(finishes.at_s["c"] == doctest::Approx(6.5));
    CHECK(graph.unfinished() == 0);
    CHECK(graph.finished(a));
  }

  TEST_CASE("fork-join on two cores, each activity bound to one core") {
    // Two cores (capacity 2), every activity is a thread (bound 1 core). a = 1 core-s runs at
    // its bound, not at 2: ends at 1 s. Then b = 2 and c = 4 core-s run side by side, one
    // core each: b ends at 3 s, c at 5 s. d = 1 core-s waits for both: 5 -> 6 s.
    Engine engine;
    ActivityGraph graph(engine);
    Finishes finishes(graph);
    const ResourceId cores = graph.add_resource("cores", 2.0);
    const ActivityId a = graph.start_after({}, work("a", 1.0, {cores}, 1.0));
    const ActivityId b = graph.start_after({a}, work("b", 2.0, {cores}, 1.0));
    const ActivityId c = graph.start_after({a}, work("c", 4.0, {cores}, 1.0));
    graph.start_after({b, c}, work("d", 1.0, {cores}, 1.0));
    engine.run();
    CHECK(finishes.at_s["a"] == doctest::Approx(1.0));
    CHECK(finishes.at_s["b"] == doctest::Approx(3.0));
    CHECK(finishes.at_s["c"] == doctest::Approx(5.0));
    CHECK(finishes.at_s["d"] == doctest::Approx(6.0));
  }

  TEST_CASE("three threads on two cores share them: each gets 2/3 of a core") {
    // 3 x 1 core-s, bound 1 each, on 2 cores: the equal share 2/3 is below the bound, so all
    // three run at 2/3 and end together at 1 / (2/3) = 1.5 s.
    Engine engine;
    ActivityGraph graph(engine);
    Finishes finishes(graph);
    const ResourceId cores = graph.add_resource("cores", 2.0);
    for (const char* name : {"t0", "t1", "t2"}) {
      graph.start_after({}, work(name, 1.0, {cores}, 1.0));
    }
    engine.run();
    for (const char* name : {"t0", "t1", "t2"}) {
      CHECK(finishes.at_s[name] == doctest::Approx(1.5));
    }
  }

  TEST_CASE("a diamond whose middle activities share a link") {
    // Link 1 B/s. a = 1 B: 0 -> 1 s. b = 1 B and c = 2 B then share the link at 0.5 B/s each:
    // b ends at 1 + 1 / 0.5 = 3 s, when c has 1 B left, which it carries alone at 1 B/s: c
    // ends at 4 s. d = 1 B after b and c: 4 -> 5 s.
    Engine engine;
    ActivityGraph graph(engine);
    Finishes finishes(graph);
    const ResourceId link = graph.add_resource("link", 1.0);
    const ActivityId a = graph.start_after({}, work("a", 1.0, {link}));
    const ActivityId b = graph.start_after({a}, work("b", 1.0, {link}));
    const ActivityId c = graph.start_after({a}, work("c", 2.0, {link}));
    graph.start_after({b, c}, work("d", 1.0, {link}));
    engine.run();
    CHECK(finishes.order == std::vector<std::string>{"a", "b", "c", "d"});
    CHECK(finishes.at_s["a"] == doctest::Approx(1.0));
    CHECK(finishes.at_s["b"] == doctest::Approx(3.0));
    CHECK(finishes.at_s["c"] == doctest::Approx(4.0));
    CHECK(finishes.at_s["d"] == doctest::Approx(5.0));
  }

  TEST_CASE("a bounded and an unbounded flow share a link; a bound alone times work") {
    // Link 10 B/s. x = 4 B with bound 2 B/s, y = 40 B unbounded: x runs at its bound, y at the
    // residual 8 B/s. x ends at 2 s; y has 24 B left, alone at 10 B/s: ends at 4.4 s.
    // z after x: 1 unit on no resource at its bound 1 /s, 2 -> 3 s.
    Engine engine;
    ActivityGraph graph(engine);
    Finishes finishes(graph);
    const ResourceId link = graph.add_resource("link", 10.0);
    const ActivityId x = graph.start_after({}, work("x", 4.0, {link}, 2.0));
    graph.start_after({}, work("y", 40.0, {link}));
    graph.start_after({x}, work("z", 1.0, {}, 1.0));
    engine.run();
    CHECK(finishes.at_s["x"] == doctest::Approx(2.0));
    CHECK(finishes.at_s["z"] == doctest::Approx(3.0));
    CHECK(finishes.at_s["y"] == doctest::Approx(4.4));
  }

  TEST_CASE("started and finished reach every subscriber with the caller's tags") {
    // A pure delay of 1 s, then one of 0 s after it.
    Engine engine;
    ActivityGraph graph(engine);
    std::vector<std::string> first;
    int second = 0;
    graph.activity_started().subscribe([&](const ActivityStarted& e) {
      first.push_back("start " + std::string(e.label) + " k" + std::to_string(e.kind) + " t" +
                      std::to_string(e.track) + " @" + std::to_string(e.time));
    });
    graph.activity_finished().subscribe([&](const ActivityFinished& e) {
      first.push_back("end " + std::string(e.label) + " " + std::to_string(e.start) + ".." +
                      std::to_string(e.end));
    });
    graph.activity_finished().subscribe([&](const ActivityFinished&) { ++second; });
    ActivitySpec wait;
    wait.label = "wait";
    wait.kind = 3;
    wait.track = 4;
    wait.latency_s = 1.0;
    const ActivityId w = graph.start_after({}, std::move(wait));
    ActivitySpec mark;
    mark.label = "mark";
    graph.start_after({w}, std::move(mark));
    engine.run();
    CHECK(first == std::vector<std::string>{"start wait k3 t4 @0", "end wait 0..1000000000",
                                            "start mark k0 t0 @1000000000",
                                            "end mark 1000000000..1000000000"});
    CHECK(second == 2);
  }

  TEST_CASE("on_done runs before the successors; finished predecessors are no wait") {
    Engine engine;
    ActivityGraph graph(engine);
    std::vector<std::string> order;
    ActivitySpec first = work("first", 1.0, {}, 1.0);
    first.on_done = [&] { order.emplace_back("first done"); };
    const ActivityId a = graph.start_after({}, std::move(first));
    ActivitySpec next = work("next", 1.0, {}, 1.0);
    next.on_done = [&] { order.emplace_back("next done"); };
    graph.start_after({a}, std::move(next));
    engine.run();
    CHECK(order == std::vector<std::string>{"first done", "next done"});
    CHECK(to_seconds(engine.now()) == doctest::Approx(2.0));
    // a has finished: a new successor of it starts at once (its slot may be reused).
    const ActivityId late = graph.start_after({a}, work("late", 1.0, {}, 1.0));
    CHECK_FALSE(graph.finished(late));
    engine.run();
    CHECK(graph.finished(late));
    CHECK(graph.finished(a));
    CHECK(to_seconds(engine.now()) == doctest::Approx(3.0));
  }

  TEST_CASE("a finished-subscriber grows the graph; events carry the tag and the release time") {
    // a (1 s) is released at 0; b is added and started from a's finished event with a as its
    // predecessor (already finished: no wait), released at 1 s, begins behind c (a 2 s
    // predecessor released at 0) at 2 s and runs 1 s.
    Engine engine;
    ActivityGraph graph(engine);
    ActivitySpec c = work("c", 2.0, {}, 1.0);
    const ActivityId cid = graph.add(std::move(c));
    graph.start(cid);
    std::vector<std::string> seen;
    double b_released_s = -1.0;
    double b_start_s = -1.0;
    std::uint64_t b_tag = 0;
    graph.activity_finished().subscribe([&](const ActivityFinished& e) {
      seen.emplace_back(e.label);
      if (e.label == "a") {
        ActivitySpec b = work("b", 1.0, {}, 1.0);
        b.tag = 42;
        graph.start_after({e.id, cid}, std::move(b));  // may reuse a's slot
      }
      if (e.label == "b") {
        b_released_s = to_seconds(e.released);
        b_start_s = to_seconds(e.start);
        b_tag = e.tag;
      }
    });
    ActivitySpec a = work("a", 1.0, {}, 1.0);
    graph.start(graph.add(std::move(a)));
    engine.run();
    CHECK(seen == std::vector<std::string>{"a", "c", "b"});
    CHECK(b_released_s == doctest::Approx(1.0));
    CHECK(b_start_s == doctest::Approx(2.0));
    CHECK(b_tag == 42);
    CHECK(to_seconds(engine.now()) == doctest::Approx(3.0));
    CHECK(graph.unfinished() == 0);
  }

  TEST_CASE("invalid activities and links throw") {
    Engine engine;
    ActivityGraph graph(engine);
    const ResourceId link = graph.add_resource("link", 1.0);
    CHECK_THROWS_WITH_AS(graph.add(work("lost", 1.0, {})),
                         "ActivityGraph::add: activity 'lost': work on no resource and without "
                         "a rate bound has no duration; give it a resource or a finite bound",
                         std::invalid_argument);
    CHECK_THROWS_AS(graph.add(work("negative", -1.0, {link})), std::invalid_argument);
    CHECK_THROWS_AS(graph.add(work("zero bound", 1.0, {link}, 0.0)), std::invalid_argument);
    const ActivityId a = graph.add(work("a", 1.0, {link}));
    CHECK_THROWS_AS(graph.add_successor(a, a), std::logic_error);
    graph.start(a);
    CHECK_THROWS_AS(graph.start(a), std::logic_error);
    const ActivityId b = graph.add(work("b", 1.0, {link}));
    CHECK_THROWS_WITH_AS(graph.add_successor(b, a),
                         "ActivityGraph::add_successor: activity 'a' is already running; add "
                         "predecessors before it starts",
                         std::logic_error);
    engine.run();
    CHECK(graph.unfinished() == 1);  // b was never started
  }
}

}  // namespace gpuplan::sim

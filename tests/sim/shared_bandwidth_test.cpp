#include "sim/shared_bandwidth.h"

#include <doctest/doctest.h>

#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuplan::sim {

namespace {

// Records when each named flow completes, in seconds.
struct FinishLog {
  Engine& engine;
  std::map<std::string, double> finish_s;
  std::vector<std::string> order;
  std::function<void()> done(const std::string& name) {
    return [this, name] {
      finish_s[name] = to_seconds(engine.now());
      order.push_back(name);
    };
  }
};

}  // namespace

TEST_SUITE("sim.shared_bandwidth") {
  TEST_CASE("k equal flows on one link all finish at k S / B") {
    // k = 4 flows of S = 500 B on a B = 1000 B/s link: each gets B / k = 250 B/s and
    // finishes at S / (B / k) = k S / B = 4 x 500 / 1000 = 2 s.
    const int k = 4;
    const double link_bytes_per_s = 1000.0;
    const double flow_bytes = 500.0;
    Engine engine;
    BandwidthNetwork network(engine);
    const ResourceId link = network.add_resource("pcie", link_bytes_per_s);
    FinishLog log{engine, {}, {}};
    for (int i = 0; i < k; ++i) {
      network.start_flow({link}, flow_bytes, log.done("f" + std::to_string(i)));
    }
    CHECK(network.active_flows(link) == k);
    engine.run();
    REQUIRE(log.finish_s.size() == k);
    for (const auto& [name, t] : log.finish_s) {
      CHECK(t == doctest::Approx(k * flow_bytes / link_bytes_per_s));
    }
    // Flows finishing together leave in start order.
    CHECK(log.order == std::vector<std::string>{"f0", "f1", "f2", "f3"});
    // The link carried k S = 2000 B and was busy the whole 2 s: utilization 1.
    CHECK(network.bytes_carried(link) == doctest::Approx(k * flow_bytes));
    CHECK(network.busy_time(link) == to_sim_time(2.0));
    CHECK(network.utilization(link, to_sim_time(2.0)) == doctest::Approx(1.0));
  }

  TEST_CASE("a flow that ends early hands its share to the others") {
    // Link 100 B/s; A = 100 B and B = 300 B start at 0. Both get 100 / 2 = 50 B/s.
    // A ends at 100 / 50 = 2 s; B has 300 - 2 x 50 = 200 B left, now at 100 B/s:
    // 200 / 100 = 2 s more, so B ends at 4 s.
    Engine engine;
    BandwidthNetwork network(engine);
    const ResourceId link = network.add_resource("link", 100.0);
    FinishLog log{engine, {}, {}};
    network.start_flow({link}, 100.0, log.done("A"));
    network.start_flow({link}, 300.0, log.done("B"));
    engine.run();
    CHECK(log.finish_s["A"] == doctest::Approx(2.0));
    CHECK(log.finish_s["B"] == doctest::Approx(4.0));
    CHECK(engine.now() == to_sim_time(4.0));
  }

  TEST_CASE("a flow that starts late takes its share from then on") {
    // Link 100 B/s. A = 300 B starts at 0 alone at 100 B/s; at 1 s it has 200 B left.
    // B = 100 B starts at 1 s: both at 50 B/s. B ends at 1 + 100 / 50 = 3 s; A then has
    // 200 - 2 x 50 = 100 B left at 100 B/s, ending at 3 + 1 = 4 s (= 400 B / 100 B/s: the
    // link never idles).
    Engine engine;
    BandwidthNetwork network(engine);
    const ResourceId link = network.add_resource("link", 100.0);
    FinishLog log{engine, {}, {}};
    network.start_flow({link}, 300.0, log.done("A"));
    engine.schedule_at(to_sim_time(1.0), [&] { network.start_flow({link}, 100.0, log.done("B")); });
    engine.run();
    CHECK(log.finish_s["B"] == doctest::Approx(3.0));
    CHECK(log.finish_s["A"] == doctest::Approx(4.0));
    CHECK(log.order == std::vector<std::string>{"B", "A"});
  }

  TEST_CASE("max-min fairness across two resources") {
    // L1 = 100 B/s, L2 = 80 B/s. Flows: A over {L1} (120 B), B over {L1, L2} (200 B),
    // C over {L2} (40 B), all at 0.
    // Water-filling at 0: L1 share 100 / 2 = 50, L2 share 80 / 2 = 40 -> L2 is the bottleneck:
    //   B = C = 40 B/s; L1 has 100 - 40 = 60 left for A alone: A = 60 B/s.
    // C ends at 40 / 40 = 1 s. At 1 s: A has 120 - 60 = 60 B left, B has 200 - 40 = 160 B.
    // Refill: L1 share 100 / 2 = 50, L2 share 80 / 1 = 80 -> L1 is the bottleneck:
    //   A = B = 50 B/s (B uses 50 of L2's 80).
    // A ends at 1 + 60 / 50 = 2.2 s. B has 160 - 1.2 x 50 = 100 B left.
    // B alone: min(100, 80) = 80 B/s -> ends at 2.2 + 100 / 80 = 3.45 s.
    Engine engine;
    BandwidthNetwork network(engine);
    const ResourceId l1 = network.add_resource("L1", 100.0);
    const ResourceId l2 = network.add_resource("L2", 80.0);
    FinishLog log{engine, {}, {}};
    network.start_flow({l1}, 120.0, log.done("A"));
    network.start_flow({l1, l2}, 200.0, log.done("B"));
    network.start_flow({l2}, 40.0, log.done("C"));
    // Allocated at 0: L1 carries A + B = 60 + 40 = 100; L2 carries B + C = 40 + 40 = 80.
    CHECK(network.allocated_bytes_per_s(l1) == doctest::Approx(100.0));
    CHECK(network.allocated_bytes_per_s(l2) == doctest::Approx(80.0));
    engine.run_until(to_sim_time(1.5));
    // After C ends: L1 carries 50 + 50 = 100; L2 carries only B's 50.
    CHECK(network.allocated_bytes_per_s(l2) == doctest::Approx(50.0));
    // L2 carried 80 B/s x 1 s + 50 B/s x 0.5 s = 105 B by 1.5 s.
    CHECK(network.bytes_carried(l2) == doctest::Approx(105.0));
    engine.run();
    CHECK(log.finish_s["C"] == doctest::Approx(1.0));
    CHECK(log.finish_s["A"] == doctest::Approx(2.2));
    CHECK(log.finish_s["B"] == doctest::Approx(3.45));
    // L1 carried A + B = 320 B, L2 carried B + C = 240 B; both busy from 0 to the end.
    CHECK(network.bytes_carried(l1) == doctest::Approx(320.0));
    CHECK(network.bytes_carried(l2) == doctest::Approx(240.0));
    CHECK(network.busy_time(l1) == to_sim_time(3.45));
    CHECK(network.completed_flows() == 3);
    CHECK(network.active_flows() == 0);
  }

  TEST_CASE("a flow bottlenecked elsewhere leaves the rest of a link to others") {
    // Uplink U = 100 B/s shared by X over {U, slow} and Y over {U}; slow = 10 B/s.
    // Water-filling: slow share 10 / 1 = 10 < U share 100 / 2 = 50 -> X = 10 B/s first;
    // U then has 100 - 10 = 90 B/s for Y alone (not the equal split 50).
    Engine engine;
    BandwidthNetwork network(engine);
    const ResourceId uplink = network.add_resource("uplink", 100.0);
    const ResourceId slow = network.add_resource("slow", 10.0);
    FinishLog log{engine, {}, {}};
    network.start_flow({uplink, slow}, 20.0, log.done("X"));
    network.start_flow({uplink}, 90.0, log.done("Y"));
    CHECK(network.allocated_bytes_per_s(uplink) == doctest::Approx(100.0));
    engine.run();
    // Y: 90 B at 90 B/s = 1 s. X: 20 B at 10 B/s = 2 s (Y's end does not speed it up).
    CHECK(log.finish_s["Y"] == doctest::Approx(1.0));
    CHECK(log.finish_s["X"] == doctest::Approx(2.0));
    // The uplink was busy 2 s but carried 90 + 20 = 110 B of its 200 B capacity: 0.55.
    CHECK(network.utilization(uplink, to_sim_time(2.0)) == doctest::Approx(0.55));
  }

  TEST_CASE("zero-byte flows complete at once, in the next event at now") {
    Engine engine;
    BandwidthNetwork network(engine);
    const ResourceId link = network.add_resource("link", 100.0);
    bool done = false;
    engine.schedule_at(5, [&] {
      network.start_flow({link}, 0.0, [&] { done = true; });
      CHECK_FALSE(done);  // not inside start_flow
    });
    engine.run();
    CHECK(done);
    CHECK(engine.now() == 5);
    CHECK(network.busy_time(link) == 0);
  }

  TEST_CASE("on_done may start the next flow") {
    Engine engine;
    BandwidthNetwork network(engine);
    FinishLog log{engine, {}, {}};
    const ResourceId a = network.add_resource("a", 1e3);
    const ResourceId b = network.add_resource("b", 2e3);
    // 1000 B over {a, b}: bottleneck a at 1000 B/s -> 1 s. The second flow, 1000 B over {b}
    // at 2000 B/s, starts at 1 s and takes 0.5 s -> ends at 1.5 s.
    network.start_flow({a, b}, 1000.0, [&] {
      log.done("first")();
      network.start_flow({b}, 1000.0, log.done("second"));
    });
    engine.run();
    CHECK(log.order == std::vector<std::string>{"first", "second"});
    CHECK(log.finish_s["first"] == doctest::Approx(1.0));
    CHECK(log.finish_s["second"] == doctest::Approx(1.5));
    // At 1 s both resources go idle; b is busy again from 1 to 1.5 s.
    CHECK(network.busy_time(a) == to_sim_time(1.0));
    CHECK(network.busy_time(b) == to_sim_time(1.5));
    CHECK(network.completed_flows() == 2);
  }

  TEST_CASE("a reallocation orders the completion as a new event: same-time events scheduled before it run first") {
    // Flow A: 100 B on a 100 B/s link, alone: ends at exactly 1 s. At 0.5 s an event X is
    // scheduled for 1 s; at 0.6 s flow B starts on another resource, so the allocation is
    // recomputed (A's rate and finish stay) and the completion event is scheduled again:
    // after X (the order a fresh event has), so at 1 s X runs first, then A's completion.
    // Without B's start, A's completion (scheduled at 0) runs before X.
    for (const bool restart : {true, false}) {
      CAPTURE(restart);
      Engine engine;
      BandwidthNetwork network(engine);
      const ResourceId link = network.add_resource("link", 100.0);
      const ResourceId other = network.add_resource("other", 100.0);
      std::vector<std::string> order;
      network.start_flow({link}, 100.0, [&] { order.push_back("A"); });
      engine.schedule_at(to_sim_time(0.5), [&] { engine.schedule_at(to_sim_time(1.0), [&] { order.push_back("X"); }); });
      if (restart) {
        engine.schedule_at(to_sim_time(0.6), [&] { network.start_flow({other}, 100.0, [&] { order.push_back("B"); }); });
      }
      engine.run();
      // B: 100 B at 100 B/s from 0.6 s ends at 1.6 s.
      CHECK(order == (restart ? std::vector<std::string>{"X", "A", "B"} : std::vector<std::string>{"A", "X"}));
      // Events: the 0.5 s and 0.6 s events, X, and one completion event per flow end (the
      // moved event is not run twice).
      CHECK(engine.events_processed() == (restart ? 5U : 3U));
    }
  }

  TEST_CASE("a bounded and an unbounded flow share a link") {
    // Link 10 B/s. Flow x: 4 B, bound 2 B/s; flow y: 40 B, unbounded. Max-min with bounds:
    // x's bound (2) is below the equal share (5), so x runs at 2 and y gets the rest, 8 B/s.
    // x ends at 4 / 2 = 2 s; y has carried 16 B, its 24 B left run alone at 10 B/s: 2.4 s
    // more, so y ends at 4.4 s.
    Engine engine;
    BandwidthNetwork network(engine);
    FinishLog log{engine, {}, {}};
    const ResourceId link = network.add_resource("link", 10.0);
    network.start_flow({link}, 4.0, log.done("x"), 2.0);
    network.start_flow({link}, 40.0, log.done("y"));
    CHECK(network.allocated_bytes_per_s(link) == doctest::Approx(10.0));
    engine.run();
    CHECK(log.finish_s["x"] == doctest::Approx(2.0));
    CHECK(log.finish_s["y"] == doctest::Approx(4.4));
  }

  TEST_CASE("a bound above the share changes nothing; a bound alone leaves capacity unused") {
    // Two flows of 10 B on a 10 B/s link, bounds 8 and 3 B/s. The equal share is 5: the 3 B/s
    // flow freezes at its bound, the other gets the residual 7 (below its bound 8). "fast"
    // ends at 10 / 7 = 1.4286 s; "slow", alone, stays at its bound 3 B/s (the link is 30 %
    // used) and ends at 10 / 3 = 3.3333 s.
    Engine engine;
    BandwidthNetwork network(engine);
    FinishLog log{engine, {}, {}};
    const ResourceId link = network.add_resource("link", 10.0);
    network.start_flow({link}, 10.0, log.done("fast"), 8.0);
    network.start_flow({link}, 10.0, log.done("slow"), 3.0);
    engine.run();
    CHECK(log.finish_s["fast"] == doctest::Approx(10.0 / 7.0));
    CHECK(log.finish_s["slow"] == doctest::Approx(10.0 / 3.0));
    CHECK_THROWS_AS(network.start_flow({link}, 1.0, nullptr, 0.0),
                    std::invalid_argument);
  }

  TEST_CASE("many staggered flows: the link is work-conserving") {
    // 50 flows of 10 B each, started every 0.01 s on a 100 B/s link. Total 500 B at 100 B/s:
    // the link, never idle once started (each flow alone would take 0.1 s > 0.01 s), drains
    // everything at 500 / 100 = 5 s.
    Engine engine;
    BandwidthNetwork network(engine);
    const ResourceId link = network.add_resource("link", 100.0);
    int done = 0;
    for (int i = 0; i < 50; ++i) {
      engine.schedule_at(to_sim_time(0.01 * i), [&] { network.start_flow({link}, 10.0, [&] { ++done; }); });
    }
    engine.run();
    CHECK(done == 50);
    CHECK(to_seconds(engine.now()) == doctest::Approx(5.0).epsilon(1e-8));
    CHECK(network.bytes_carried(link) == doctest::Approx(500.0));
  }

  TEST_CASE("invalid resources and flows throw") {
    Engine engine;
    BandwidthNetwork network(engine);
    CHECK_THROWS_AS(network.add_resource("zero", 0.0), std::invalid_argument);
    CHECK_THROWS_AS(network.add_resource("negative", -1.0), std::invalid_argument);
    CHECK_THROWS_AS(network.add_resource("nan", std::numeric_limits<double>::quiet_NaN()),
                    std::invalid_argument);
    const ResourceId r = network.add_resource("r", 1.0);
    CHECK_THROWS_AS(network.start_flow({}, 1.0, nullptr), std::invalid_argument);
    CHECK_THROWS_AS(network.start_flow({ResourceId{7}}, 1.0, nullptr), std::invalid_argument);
    CHECK_THROWS_AS(network.start_flow({r, r}, 1.0, nullptr), std::invalid_argument);
    CHECK_THROWS_AS(network.start_flow({r}, -1.0, nullptr), std::invalid_argument);
    CHECK_THROWS_AS(network.start_flow({r}, std::numeric_limits<double>::infinity(), nullptr),
                    std::invalid_argument);
    CHECK_THROWS_AS(network.name(ResourceId{7}), std::invalid_argument);
    CHECK_THROWS_AS(network.utilization(r, 0), std::invalid_argument);
    CHECK(network.active_flows() == 0);
  }
}

}  // namespace gpuplan::sim

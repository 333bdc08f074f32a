#include "models/collective/fastest_collective.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../../shared_measurements.h"
#include "collective_topologies.h"

using namespace gpuplan::models;
using namespace gpuplan::models::testing;
using gpuplan::testing::measurement_value;
using gpuplan::testing::shared_file;

namespace {

// One measured point: payload S in bytes and busbw in B/s (nccl-tests GB/s are decimal).
struct Point {
  double bytes = 0.0;
  double busbw_bytes_per_s = 0.0;
};

// allreduce-8xH200.csv: payload,busbw_GBps,algbw_GBps with payloads like "32KiB", "1GiB".
std::vector<Point> read_h200_csv() {
  std::ifstream in(shared_file("data/logs/allreduce-8xH200.csv"));
  REQUIRE(in.good());
  std::vector<Point> points;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string payload, busbw;
    std::getline(row, payload, ',');
    std::getline(row, busbw, ',');
    const std::map<std::string, double> units = {
        {"KiB", 1024.0}, {"MiB", 1024.0 * 1024}, {"GiB", 1024.0 * 1024 * 1024}};
    const double unit = units.at(payload.substr(payload.size() - 3));
    points.push_back({std::stod(payload.substr(0, payload.size() - 3)) * unit, std::stod(busbw) * 1e9});
  }
  return points;
}

// nccl-tests all_reduce_perf table: size count type redop root | out-of-place time algbw
// busbw #wrong | in-place ...; we take the out-of-place busbw (8th column).
std::vector<Point> read_nccl_tests(const std::string& relative) {
  std::ifstream in(shared_file(relative));
  REQUIRE(in.good());
  std::vector<Point> points;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::vector<std::string> fields;
    for (std::string f; row >> f;) {
      fields.push_back(f);
    }
    if (fields.size() < 13 || fields[0].find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    points.push_back({std::stod(fields[0]), std::stod(fields[7]) * 1e9});
  }
  return points;
}

// published-measurements.csv row `id`: the `value` column, in GB/s.
double published_value(const std::string& id) {
  return measurement_value("data/published-measurements.csv", id);
}

double model_busbw(const Topology& t, double bytes) {
  CollectiveRegistry registry;
  register_builtin_collectives(registry);
  const double time_s = fastest_collective(registry, Collective::kAllReduce, bytes, t).time_s;
  return busbw_bytes_per_s(Collective::kAllReduce, t.ranks(), bytes, time_s);
}

// Compares the model with every point from 1 MiB up; returns the largest |relative error|.
// With GPUPLAN_COLLECTIVE_TABLE set it prints the per-size table.
double compare_curve(const char* title, const Topology& t, const std::vector<Point>& points) {
  CollectiveRegistry registry;
  register_builtin_collectives(registry);
  const bool print = std::getenv("GPUPLAN_COLLECTIVE_TABLE") != nullptr;
  if (print) {
    std::printf("%s\n%14s %12s %12s %8s  %s\n", title, "bytes", "measured", "model", "error", "choice");
  }
  double worst = 0.0;
  int compared = 0;
  for (const Point& p : points) {
    if (p.bytes < 1024.0 * 1024) {
      continue;
    }
    const CollectiveChoice choice = fastest_collective(registry, Collective::kAllReduce, p.bytes, t);
    const double model = busbw_bytes_per_s(Collective::kAllReduce, t.ranks(), p.bytes, choice.time_s);
    const double error = model / p.busbw_bytes_per_s - 1.0;
    if (print) {
      std::printf("%14.0f %9.2f GB/s %9.2f GB/s %+7.1f %%  %s/%s\n", p.bytes, p.busbw_bytes_per_s / 1e9,
                  model / 1e9, 100.0 * error, choice.algorithm.c_str(), protocol_name(choice.protocol));
    }
    INFO(title, ": ", p.bytes, " B measured ", p.busbw_bytes_per_s / 1e9, " GB/s, model ", model / 1e9);
    CHECK(std::abs(error) <= 0.15);  // issue 4: within 15 % busbw from 1 MiB up
    worst = std::max(worst, std::abs(error));
    ++compared;
  }
  CHECK(compared >= 10);
  return worst;
}

}  // namespace

TEST_SUITE("models.collective.fastest_collective") {
  TEST_CASE("8x H200 NVLink4 + NVSwitch: allreduce-8xH200.csv within 15 % from 1 MiB") {
    const std::vector<Point> points = read_h200_csv();
    REQUIRE(points.size() == 20);
    const double worst = compare_curve("8x H200 (allreduce-8xH200.csv)", h200_node(), points);
    CHECK(worst <= 0.11);  // achieved: 10.2 % at 1 MiB (regression guard)
  }

  TEST_CASE("2 x 8 H100 over GPUDirect-TCPXO: nccl-tests log within 15 % from 1 MiB") {
    const std::vector<Point> points = read_nccl_tests("data/logs/nccl-tests-allreduce-2x8xH100.txt");
    REQUIRE(points.size() == 31);  // 8 B ... 8 GiB
    const double worst = compare_curve("2x8 H100 (nccl-tests-allreduce-2x8xH100.txt)", a3_mega(2), points);
    CHECK(worst <= 0.05);  // achieved: 2.0 % at 128 MiB (regression guard)
  }

  TEST_CASE("the automatic choice: protocol switch on the network, NVLS for huge messages") {
    CollectiveRegistry registry;
    register_builtin_collectives(registry);
    const Topology two = a3_mega(2);
    const double mib = 1024.0 * 1024;
    CHECK(fastest_collective(registry, Collective::kAllReduce, 8 * mib, two).protocol == Protocol::kLowLatency);
    CHECK(fastest_collective(registry, Collective::kAllReduce, 32 * mib, two).protocol == Protocol::kSimple);
    CHECK(fastest_collective(registry, Collective::kAllReduce, 1024 * mib, two).algorithm == "hierarchical");
    CHECK(fastest_collective(registry, Collective::kAllReduce, 1024 * mib, h200_node()).algorithm == "nvls");
    CHECK(fastest_collective(registry, Collective::kAllReduce, mib, h200_node()).algorithm == "ring");
    // Ties (one node: hierarchical == ring) go to the ring.
    Topology pcie;
    pcie.gpus_per_node = 2;
    pcie.intra_node = intra_node_link("pcie4");
    CHECK(fastest_collective(registry, Collective::kAllGather, 1e8, pcie).algorithm == "ring");
    CollectiveRegistry empty;
    CHECK_THROWS_AS(fastest_collective(empty, Collective::kAllReduce, 1.0, pcie), std::invalid_argument);
  }

  TEST_CASE("published point checks V084-V087") {
    const double gib = 1024.0 * 1024 * 1024;
    // V084: 2 x 8 H100 (a3-mega), 8 GiB: 338.82 GB/s (the last row of the 2x8 log).
    CHECK(model_busbw(a3_mega(2), 8 * gib) / 1e9 == doctest::Approx(published_value("V084")).epsilon(0.02));
    // V085: 8x A100 NVLink3 + NVSwitch, peak busbw up to 1 GiB "~200" GB/s (model at 1 GiB).
    CHECK(model_busbw(ib_cluster(1, 8), gib) / 1e9 == doctest::Approx(published_value("V085")).epsilon(0.05));
    // V086: 8x A100 NV12, up to 12 GiB: 208 GB/s. The NVLink3 Simple efficiency IS this row
    // (interconnect_table.cpp), so this is a consistency check, not a validation.
    CHECK(model_busbw(ib_cluster(1, 8), 12 * gib) / 1e9 == doctest::Approx(published_value("V086")).epsilon(0.01));
    // V087: 8x H200 NVLS, 16 GiB: 482.26 GB/s (the last row of the H200 CSV).
    CHECK(model_busbw(h200_node(), 16 * gib) / 1e9 == doctest::Approx(published_value("V087")).epsilon(0.02));
  }
}

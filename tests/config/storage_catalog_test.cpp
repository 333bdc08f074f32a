#include "config/storage_catalog.h"

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "config/config_error.h"
#include "config_fixture.h"
#include "core/units.h"

namespace {

using namespace gpuplan::config::testing;

using gpuplan::config::ConfigError;
using gpuplan::config::StorageCatalog;
namespace core = gpuplan::core;

const std::string kStorageYaml = std::string(GPUPLAN_SOURCE_DIR) + "/catalogs/storage.yaml";

/// Lines: 1 format, 2 storage, 3 name, 4 summary, 5 read, 6 random, 7 write, 8 latency,
/// 9 queue_depth, 10 source, 11 retrieved.
std::string disk_yaml(const std::string& replace, const std::string& with) {
  std::string text =
      "format: gpuplan/v1\n"
      "storage:\n"
      "  test_disk:\n"
      "    summary: \"a disk\"\n"
      "    read_bandwidth: \"500 MB/s\"\n"
      "    random_read_bandwidth: \"100 MB/s\"\n"
      "    write_bandwidth: \"400 MB/s\"\n"
      "    latency: \"100 us\"\n"
      "    queue_depth: 32\n"
      "    source: \"https://example.com\"\n"
      "    retrieved: 2026-11-29\n";
  return with_replaced(text, replace, with);
}

}  // namespace

TEST_SUITE("config.storage_catalog") {
  TEST_CASE("the shipped catalog loads with the classes scenarios and instances name") {
    const StorageCatalog storage = StorageCatalog::load(kStorageYaml);
    CHECK(storage.names() == std::vector<std::string>{"ebs_gp3", "gcp_pd_balanced", "hdd", "nfs",
                                                      "nvme_ssd", "object_store_fuse", "sata_ssd"});
    for (const auto& spec : storage.all()) {
      CAPTURE(spec.name);
      CHECK(spec.read_bytes_per_s > 0.0);
      CHECK(spec.random_read_bytes_per_s > 0.0);
      CHECK(spec.random_read_bytes_per_s <= spec.read_bytes_per_s);
      CHECK(spec.write_bytes_per_s > 0.0);
      CHECK(spec.latency_s > 0.0);
      CHECK(spec.queue_depth >= 1);
      CHECK_FALSE(spec.source.empty());
      CHECK_FALSE(storage.summary(spec.name).empty());
    }
    const auto* nvme = storage.find("nvme_ssd");
    REQUIRE(nvme != nullptr);
    CHECK(nvme->read_bytes_per_s == doctest::Approx(core::gigabytes_per_s(7)));  // "7 GB/s"
    CHECK(nvme->latency_s == doctest::Approx(core::microseconds(80)));  // "80 us"
    const auto* hdd = storage.find("HDD");                    // case-insensitive
    REQUIRE(hdd != nullptr);
    CHECK(hdd->latency_s == doctest::Approx(core::milliseconds(8.5)));
    CHECK(hdd->queue_depth == 1);
    // "125 MiB/s" = 125 x 2^20 B/s.
    CHECK(storage.find("ebs_gp3")->read_bytes_per_s == doctest::Approx(core::mebibytes(125)));
    CHECK(storage.find("tape") == nullptr);
    CHECK(storage.summary("tape").empty());
    CHECK(storage.suggestions("nvme") == std::vector<std::string>{"nvme_ssd"});
  }

  TEST_CASE("a valid inline class loads") {
    const StorageCatalog storage = StorageCatalog::parse(disk_yaml("", ""), "inline.yaml");
    const auto* disk = storage.find("test_disk");
    REQUIRE(disk != nullptr);
    CHECK(disk->random_read_bytes_per_s == doctest::Approx(core::megabytes(100)));  // "100 MB/s", per second
    CHECK(disk->queue_depth == 32);
    CHECK(storage.summary("test_disk") == "a disk");
  }

  TEST_CASE("errors are reported in full, all together") {
    CHECK(error_of([] {
            StorageCatalog::parse(disk_yaml("latency: \"100 us\"", "latency: 0.0001\n    lattency: 1"),
                                  "inline.yaml");
          }) ==
          "a bare number is not a duration: found '0.0001' at inline.yaml:8:14 (storage.test_disk.latency); "
          "write it with a unit, e.g. \"0.0001 s\" or \"0.0001 min\" (a duration takes ns, us, µs, ms, s, sec, "
          "min, h, hour, hours, d, day, days, week, weeks, year or years)\n"
          "unknown key 'lattency' at inline.yaml:9:5 (storage.test_disk.lattency); did you mean latency?");
    CHECK(error_of([] {
            StorageCatalog::parse(disk_yaml("\"100 MB/s\"", "\"900 MB/s\""), "inline.yaml");
          }) ==
          "random-read bandwidth above the sequential read bandwidth at inline.yaml:6:28 "
          "(storage.test_disk.random_read_bandwidth); small random reads are never faster than "
          "sequential ones: check both figures");
    CHECK(error_of([] { StorageCatalog::parse(disk_yaml("test_disk:", "Test-Disk:"), "inline.yaml"); }) ==
          "invalid storage class name 'Test-Disk' at inline.yaml:3:3 (storage.Test-Disk); storage "
          "class names are snake_case, e.g. nvme_ssd");
  }

  TEST_CASE("from_specs refuses duplicate names") {
    gpuplan::models::StorageSpec a;
    a.name = "disk";
    CHECK(error_of([&] { StorageCatalog::from_specs({a, a}); }) ==
          "storage class name 'disk' is already used by disk; names must be unique (case-insensitive)");
    CHECK(StorageCatalog::from_specs({a}).find("disk") != nullptr);
  }
}

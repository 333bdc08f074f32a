#include "config/instance_catalog.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "config/catalogs.h"
#include "config/config_error.h"
#include "config_fixture.h"
#include "config/gpu_catalog.h"
#include "config/storage_catalog.h"
#include "core/units.h"

namespace {

using namespace gpuplan::config::testing;

using gpuplan::config::Catalogs;
using gpuplan::config::ConfigError;
using gpuplan::config::GpuCatalog;
using gpuplan::config::InstanceCatalog;
using gpuplan::config::StorageCatalog;
namespace core = gpuplan::core;

const std::string kCatalogDir = std::string(GPUPLAN_SOURCE_DIR) + "/catalogs";
const std::string kExcerptDir = std::string(GPUPLAN_SHARED_DIR) + "/data/catalogs";
const std::string kAwsExcerpt = kExcerptDir + "/skypilot-v7-aws-vms-excerpt.csv";
const std::string kGcpExcerpt = kExcerptDir + "/skypilot-v7-gcp-vms-excerpt.csv";
const std::string kLambdaExcerpt = kExcerptDir + "/skypilot-v7-lambda-vms-excerpt.csv";

const GpuCatalog& shipped_gpus() {
  static const GpuCatalog gpus = GpuCatalog::load(kCatalogDir + "/gpus.yaml");
  return gpus;
}

bool has_note(const InstanceCatalog& catalog, const std::string& note) {
  const auto& notes = catalog.notes();
  return std::find(notes.begin(), notes.end(), note) != notes.end();
}

constexpr const char* kHeader =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
    "AvailabilityZone\n";

}  // namespace

TEST_SUITE("config.instance_catalog") {
  TEST_CASE("SkyPilot AWS excerpt: prices per zone, GPUs by GpuInfo memory") {
    InstanceCatalog catalog;
    catalog.add_csv(kAwsExcerpt, "aws", shipped_gpus());

    // p3.2xlarge, us-east-1, first zone use1-az1: Price 3.06 $/h, SpotPrice 0.5197 $/h.
    const auto* p3 = catalog.find("aws/p3.2xlarge", "us-east-1");
    REQUIRE(p3 != nullptr);
    CHECK(p3->zone == "use1-az1");
    CHECK(p3->price_usd_per_s == doctest::Approx(core::usd_per_hour(3.06)));
    CHECK(p3->spot_price_usd_per_s == doctest::Approx(core::usd_per_hour(0.5197)));
    CHECK(p3->gpu == "v100-16gb");  // 'V100' + 16384 MiB
    CHECK(p3->accelerator_name == "V100");
    CHECK(p3->accelerator_count == 1);
    CHECK(p3->vcpus == 8.0);
    CHECK(p3->memory_bytes == doctest::Approx(core::gibibytes(61)));
    CHECK(p3->provider == "aws");
    // SkyPilot has no billing column: AWS bills per second.
    CHECK(p3->billing_granularity_s == 1.0);
    // use1-az3 has an empty SpotPrice: no spot market there.
    const auto* az3 = catalog.find("aws/p3.2xlarge", "us-east-1", "use1-az3");
    REQUIRE(az3 != nullptr);
    CHECK(az3->spot_price_usd_per_s == 0.0);

    // p5.48xlarge: 98.32 $/h for 8 x H100.
    const auto* p5 = catalog.find("aws/p5.48xlarge");
    REQUIRE(p5 != nullptr);
    CHECK(p5->price_usd_per_s == doctest::Approx(core::usd_per_hour(98.32)));
    CHECK(p5->gpu == "h100-sxm");
    CHECK(p5->accelerator_count == 8);
    CHECK(catalog.find("aws/p5.48xlarge", "us-east-2", "use2-az3")->spot_price_usd_per_s ==
          doctest::Approx(core::usd_per_hour(18.2766)));

    // AcceleratorName 'V100-32GB' with 32768 MiB; 'A100' with 40960 MiB; p4de rows name the
    // GPU 'A100' in GpuInfo but give 81920 MiB; H200 144384 MiB = 141 GiB; L4 22888 MiB is
    // the ECC-reduced 24 GiB.
    CHECK(catalog.find("aws/p3dn.24xlarge")->gpu == "v100-32gb");
    CHECK(catalog.find("aws/p4d.24xlarge")->gpu == "a100-40gb");
    CHECK(catalog.find("aws/p4de.24xlarge")->gpu == "a100-80gb");
    CHECK(catalog.find("aws/p5en.48xlarge")->gpu == "h200");
    CHECK(catalog.find("aws/g6.48xlarge")->gpu == "l4");
    CHECK(catalog.find("aws/g4dn.8xlarge")->gpu == "t4");

    // 61 data rows; p4de.24xlarge repeats use1-az4 (line 28) and use1-az6 (line 31): the
    // first of each pair is kept, so 59 rows remain.
    CHECK(catalog.rows().size() == 59);
    CHECK(catalog.find("aws/p4de.24xlarge", "us-east-1", "use1-az4")->spot_price_usd_per_s ==
          doctest::Approx(core::usd_per_hour(7.8074)));
    CHECK(has_note(catalog, kAwsExcerpt +
                                ":28: aws/p4de.24xlarge in us-east-1 use1-az4 repeats an earlier "
                                "row: skipped (the first one is kept)"));
    CHECK(catalog.notes().size() == 2);
  }

  TEST_CASE("SkyPilot GCP excerpt: GPU rows are added to their host rows") {
    InstanceCatalog catalog;
    catalog.add_csv(kGcpExcerpt, "gcp", shipped_gpus());

    // a2-highgpu-8g, us-central1-a: host row 5.91582 $/h + GPU row A100 x8 23.47126 $/h
    // = 29.38708 $/h; spot 2.36604 + 9.1776 = 11.54364 $/h.
    const auto* a2 = catalog.find("gcp/a2-highgpu-8g", "us-central1", "us-central1-a");
    REQUIRE(a2 != nullptr);
    CHECK(a2->price_usd_per_s == doctest::Approx(core::usd_per_hour(29.38708)));
    CHECK(a2->spot_price_usd_per_s == doctest::Approx(core::usd_per_hour(11.54364)));
    CHECK(a2->accelerator_name == "A100");
    CHECK(a2->accelerator_count == 8);
    CHECK(a2->gpu == "a100-40gb");
    CHECK(a2->vcpus == 96.0);
    CHECK(a2->memory_bytes == doctest::Approx(core::gibibytes(680)));

    // a2-ultragpu-1g: 1.09962 + A100-80GB x1 1.8462 = 2.94582 $/h; spot 0.43983 + 1.5712.
    const auto* ultra = catalog.find("gcp/a2-ultragpu-1g");
    REQUIRE(ultra != nullptr);
    CHECK(ultra->price_usd_per_s == doctest::Approx(core::usd_per_hour(2.94582)));
    CHECK(ultra->spot_price_usd_per_s == doctest::Approx(core::usd_per_hour(2.01103)));
    CHECK(ultra->gpu == "a100-80gb");

    // a3-highgpu-1g: 1.18251 + H100 x1 4.20076 = 5.38327 $/h; a2-megagpu-16g: 8.79698 +
    // A100 x16 46.94253 = 55.73951 $/h.
    CHECK(catalog.find("gcp/a3-highgpu-1g")->price_usd_per_s == doctest::Approx(core::usd_per_hour(5.38327)));
    CHECK(catalog.find("gcp/a2-megagpu-16g")->price_usd_per_s == doctest::Approx(core::usd_per_hour(55.73951)));
    CHECK(catalog.find("gcp/a2-megagpu-16g")->accelerator_count == 16);

    // Imported: a2-highgpu-{1,2,4,8}g, a2-megagpu-16g, a2-ultragpu-1g, a3-edgegpu-8g,
    // a3-highgpu-1g. a2-ultragpu-8g, a3-highgpu-2g and -4g have no GPU row in the excerpt.
    CHECK(catalog.names() ==
          std::vector<std::string>{"gcp/a2-highgpu-1g", "gcp/a2-highgpu-2g", "gcp/a2-highgpu-4g",
                                   "gcp/a2-highgpu-8g", "gcp/a2-megagpu-16g", "gcp/a2-ultragpu-1g",
                                   "gcp/a3-edgegpu-8g", "gcp/a3-highgpu-1g"});
    CHECK(has_note(catalog, kGcpExcerpt +
                                ":8: gcp/a2-ultragpu-8g in us-central1 us-central1-a: no GPU price "
                                "row A100-80GB x8 in the same zone: skipped"));
    CHECK(has_note(catalog, kGcpExcerpt +
                                ":21: GPU price row tpu-v6e-8 x1 in us-central1 us-central1-b "
                                "matches no host row in this file: skipped"));
  }

  TEST_CASE("SkyPilot Lambda excerpt: no spot market, CPU-only and unknown GPUs skipped") {
    InstanceCatalog catalog;
    catalog.add_csv(kLambdaExcerpt, "lambda", shipped_gpus());
    const auto* h100 = catalog.find("lambda/gpu_8x_h100_sxm5");
    REQUIRE(h100 != nullptr);
    CHECK(h100->price_usd_per_s == doctest::Approx(core::usd_per_hour(23.92)));
    CHECK(h100->spot_price_usd_per_s == 0.0);
    CHECK(h100->gpu == "h100-sxm");
    CHECK(h100->accelerator_count == 8);
    CHECK(h100->billing_granularity_s == core::minutes(1));  // Lambda bills in one-minute increments
    CHECK(catalog.find("lambda/gpu_8x_v100")->gpu == "v100-16gb");
    CHECK(catalog.find("lambda/gpu_1x_a6000")->gpu == "rtx-a6000");
    CHECK(catalog.find("lambda/gpu_8x_a100")->price_usd_per_s == doctest::Approx(core::usd_per_hour(10.32)));
    // 11 rows: cpu_4x_general (CPU-only) and gpu_1x_gh200 (GH200 not in gpus.yaml) skipped.
    CHECK(catalog.rows().size() == 9);
    CHECK(catalog.find("lambda/cpu_4x_general") == nullptr);
    CHECK(catalog.notes() ==
          std::vector<std::string>{kLambdaExcerpt +
                                   ":12: lambda/gpu_1x_gh200: accelerator 'GH200' is not in the GPU "
                                   "catalog: skipped; did you mean gb200, h200 or b200?"});
  }

  TEST_CASE("dirty rows: spot above on-demand, placeholders, no price, GPU slices") {
    const std::string csv = std::string(kHeader) +
                            "spot.high,T4,1,4,16,,1.0,1.5,r1,z1\n"          // line 2
                            "place.holder,T4,1,4,16,,700.0,700.0,r1,z1\n"   // line 3
                            "no.price,T4,1,4,16,,,,r1,z1\n"                 // line 4
                            "half.gpu,T4,0.5,4,16,,0.2,,r1,z1\n"            // line 5
                            "cpu.only,,,4,16,,0.1,0.05,r1,z1\n"             // line 6
                            "old.gpu,K80,1,4,16,,0.9,0.2,r1,z1\n"           // line 7
                            "too.dear,T4,1,4,16,,800,,r1,z1\n"              // line 8
                            "good.one,T4,1,4,16,,0.5,0.2,r1,z1\n";          // line 9
    InstanceCatalog catalog;
    catalog.add_csv_text(csv, "dirty.csv", "test", shipped_gpus());
    REQUIRE(catalog.rows().size() == 2);
    const auto* spot_high = catalog.find("test/spot.high");
    REQUIRE(spot_high != nullptr);
    CHECK(spot_high->price_usd_per_s == doctest::Approx(core::usd_per_hour(1.0)));
    CHECK(spot_high->spot_price_usd_per_s == 0.0);  // dropped: kept as "no spot"
    CHECK(catalog.find("test/good.one")->spot_price_usd_per_s == doctest::Approx(core::usd_per_hour(0.2)));
    // An unknown provider has no default billing granularity: per started hour.
    CHECK(catalog.find("test/good.one")->billing_granularity_s == core::hours(1));
    CHECK(catalog.notes() ==
          std::vector<std::string>{
              "dirty.csv:2: test/spot.high in r1 z1 has a SpotPrice 1.5 above its on-demand Price 1.0: "
              "spot price dropped (no spot market)",
              "dirty.csv:2: no BillingGranularity for provider 'test': billed per started hour; add a "
              "BillingGranularity column (\"1 s\", \"1 min\")",
              "dirty.csv:3: test/place.holder in r1 z1 has the placeholder Price 700.0 (SkyPilot's "
              "marker for no published price): skipped",
              "dirty.csv:4: test/no.price in r1 z1 has no on-demand Price: skipped",
              "dirty.csv:5: test/half.gpu has 0.5 GPUs (a GPU slice): skipped",
              "dirty.csv:7: test/old.gpu: accelerator 'K80' is not in the GPU catalog: skipped; did you "
              "mean a10, a30 or a40?",
              "dirty.csv:8: test/too.dear costs 800 USD/h per GPU, not a plausible price: skipped",
          });
  }

  TEST_CASE("GCP style: a dirty GPU spot price leaves the joined row without spot") {
    // The excerpt's H100 x1 row in asia-northeast1-b lists spot 10.01876 > on-demand 4.20076.
    const std::string csv =
        "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
        "AvailabilityZone,Price,SpotPrice\n"
        "a3-highgpu-1g,26.0,234.0,,,,asia-northeast1,asia-northeast1-b,1.51858,1.07106\n"
        ",,,H100,1,{'Gpus': [{'MemoryInfo': {'SizeInMiB': 81920}}]},asia-northeast1,"
        "asia-northeast1-b,4.20076,10.01876\n";
    InstanceCatalog catalog;
    catalog.add_csv_text(csv, "gcp.csv", "gcp", shipped_gpus());
    const auto* row = catalog.find("gcp/a3-highgpu-1g");
    REQUIRE(row != nullptr);
    // 1.51858 + 4.20076 = 5.71934 $/h on demand; the GPU row has no usable spot price.
    CHECK(row->price_usd_per_s == doctest::Approx(core::usd_per_hour(5.71934)));
    CHECK(row->spot_price_usd_per_s == 0.0);
    CHECK(catalog.notes() ==
          std::vector<std::string>{"gcp.csv:3: GPU price row H100 x1 has a SpotPrice 10.01876 above its "
                                   "on-demand Price 4.20076: spot price dropped (no spot market)"});
  }

  TEST_CASE("our columns: interconnect, network, storage, billing, source") {
    const StorageCatalog storage = StorageCatalog::load(kCatalogDir + "/storage.yaml");
    const std::string csv =
        std::string("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
                    "Interconnect,Network,Storage,BillingGranularity,source,retrieved\n") +
        "box.8,A100,8,96,1152,32.7726,r1,nvlink3,400 Gbit/s,nvme_ssd,1 min,\"a, b\",2026-11-29\n";
    InstanceCatalog catalog;
    catalog.add_csv_text(csv, "ours.csv", "onprem", shipped_gpus(), &storage);
    const auto* row = catalog.find("onprem/box.8");
    REQUIRE(row != nullptr);
    CHECK(row->interconnect == "nvlink3");
    CHECK(row->network_bytes_per_s == doctest::Approx(core::gigabits_per_s(400)));  // = 50 GB/s
    CHECK(row->storage == "nvme_ssd");
    // A table name of models/interconnect/interconnect_table.h says the wiring too.
    InstanceCatalog wired;
    wired.add_csv_text(
        csv.substr(0, csv.find('\n') + 1) + "box.2,A100,2,24,170,7.3,r1,pcie4_switch,,nvme_ssd,1 min,a,2026-11-29\n",
        "wired.csv", "onprem", shipped_gpus(), &storage);
    REQUIRE(wired.find("onprem/box.2") != nullptr);
    CHECK(wired.find("onprem/box.2")->interconnect == "pcie4_switch");
    CHECK(row->billing_granularity_s == core::minutes(1));
    CHECK(row->source == "a, b");
    CHECK(row->retrieved == "2026-11-29");
    CHECK(row->zone.empty());

    const std::string bad =
        std::string("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
                    "Interconnect,Network,Storage\n") +
        "box.8,A100,8,96,1152,32.7726,r1,nvlink,100,nvme_sd\n";
    CHECK(error_of([&] { InstanceCatalog().add_csv_text(bad, "bad.csv", "onprem", shipped_gpus(), &storage); }) ==
          "unknown interconnect 'nvlink', expected one of pcie3, pcie4, pcie5, nvlink2, nvlink3, nvlink4, nvlink5, "
          "infinity_fabric_mesh, nvlink2_direct, nvlink2_nvswitch, nvlink3_direct, nvlink3_nvswitch, nvlink4_direct, nvlink4_nvswitch, "
          "nvlink5_direct, nvlink5_nvswitch, "
          "pcie3_host_bridge, pcie3_no_p2p, pcie3_switch, pcie4_host_bridge, pcie4_no_p2p, pcie4_switch, "
          "pcie5_host_bridge, pcie5_no_p2p or pcie5_switch at bad.csv:2:33 (Interconnect); did you mean nvlink2, "
          "nvlink3 or nvlink4?\n"
          "a bare number is not a bandwidth: found '100' at bad.csv:2:40 (Network); write it with a unit, "
          "e.g. \"100 GB/s\" or \"100 Gbit/s\"\n"
          "unknown storage class 'nvme_sd' at bad.csv:2:44 (Storage); did you mean nvme_ssd?");
  }

  TEST_CASE("malformed CSV: a missing column, a non-numeric price, a short row") {
    const std::string no_price =
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Region\n"
        "a,T4,1,4,16,r1\n";
    CHECK(error_of([&] { InstanceCatalog().add_csv_text(no_price, "x.csv", "aws", shipped_gpus()); }) ==
          "missing column 'Price' at x.csv:1 (header); a SkyPilot vms.csv has the columns InstanceType, "
          "AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, GpuInfo, Price, SpotPrice, Region, "
          "AvailabilityZone (any order)");
    const std::string text_price = std::string(kHeader) + "a,T4,1,4,16,,abc,,r1,z1\n";
    CHECK(error_of([&] { InstanceCatalog().add_csv_text(text_price, "x.csv", "aws", shipped_gpus()); }) ==
          "expected a price in USD per hour (a plain number, SkyPilot format) from 0 to 1e+06, found 'abc' at x.csv:2:14 "
          "(Price)");
    // Absurd counts and prices (issue 15): refused with the row, never imported.
    const std::string absurd = std::string(kHeader) + "a,T4,1e10,4,16,,1,,r1,z1\n" +
                               "b,T4,1,1e308,16,,1,,r1,z1\n" + "c,T4,1,4,16,,1e300,,r1,z1\n";
    CHECK(error_of([&] { InstanceCatalog().add_csv_text(absurd, "x.csv", "aws", shipped_gpus()); }) ==
          "expected a GPU count from 1 to 64, found '1e10' at x.csv:2:6 (AcceleratorCount)\n"
          "expected a vCPU count from 0 to 1e+05, found '1e308' at x.csv:3:8 (vCPUs)\n"
          "expected a price in USD per hour (a plain number, SkyPilot format) from 0 to 1e+06, found '1e300' at "
          "x.csv:4:14 (Price)");
    CHECK(error_of([&] {
            InstanceCatalog().add_csv_text(std::string(kHeader) + "p\xFF,T4,1,4,16,,1,,r1,z1\n", "x.csv", "aws",
                                           shipped_gpus());
          }) == "bytes that are not UTF-8 at x.csv:2:2; save the file as UTF-8 text");
    const std::string short_row = std::string(kHeader) + "a,T4,1,4,16\n";
    CHECK(error_of([&] { InstanceCatalog().add_csv_text(short_row, "x.csv", "aws", shipped_gpus()); }) ==
          "too few fields at x.csv:2 (row); every row needs as many comma-separated fields as the header");
    // A failed file leaves the catalog unchanged.
    InstanceCatalog catalog;
    CHECK_THROWS_AS(catalog.add_csv_text(text_price, "x.csv", "aws", shipped_gpus()), ConfigError);
    CHECK(catalog.rows().empty());
  }

  TEST_CASE("a later catalog file replaces the rows it repeats (--catalog updates shipped prices)") {
    InstanceCatalog catalog;
    catalog.add_csv(kAwsExcerpt, "aws", shipped_gpus());
    const std::size_t before = catalog.rows().size();
    const std::string catalog_before_interconnect =
        catalog.find("aws/p3.2xlarge", "us-east-1", "use1-az1")->interconnect;
    // p3.2xlarge us-east-1 use1-az1 was 3.06 $/h on demand, 0.5197 $/h spot in the excerpt.
    const std::string newer =
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n"
        "p3.2xlarge,V100,1.0,8.0,61.0,\"{'Gpus': [{'Name': 'V100', 'Manufacturer': 'NVIDIA', 'Count': 1, "
        "'MemoryInfo': {'SizeInMiB': 16384}}], 'TotalGpuMemoryInMiB': 16384}\",2.50,0.40,us-east-1,use1-az1\n";
    catalog.add_csv_text(newer, "newer-aws.csv", "aws", shipped_gpus());
    CHECK(catalog.rows().size() == before);
    const auto* row = catalog.find("aws/p3.2xlarge", "us-east-1", "use1-az1");
    REQUIRE(row != nullptr);
    CHECK(row->price_usd_per_s == doctest::Approx(2.50 / 3600.0));
    CHECK(row->spot_price_usd_per_s == doctest::Approx(0.40 / 3600.0));
    CHECK(row->interconnect == catalog_before_interconnect);
    // the other zones of p3.2xlarge keep the excerpt's on-demand price
    CHECK(catalog.find("aws/p3.2xlarge", "us-east-1", "use1-az2")->price_usd_per_s == doctest::Approx(3.06 / 3600.0));
  }

  TEST_CASE("find by region and zone; names sorted and unique") {
    InstanceCatalog catalog;
    catalog.add_csv(kAwsExcerpt, "aws", shipped_gpus());
    catalog.add_csv(kLambdaExcerpt, "lambda", shipped_gpus());
    const auto* p4d = catalog.find("aws/p4d.24xlarge", "us-west-2");
    REQUIRE(p4d != nullptr);
    CHECK(p4d->zone == "usw2-az1");
    CHECK(catalog.find("aws/p4d.24xlarge", "eu-west-1") == nullptr);
    CHECK(catalog.find("aws/p4d.24xlarge", "us-east-1", "use1-az5") == nullptr);
    CHECK(catalog.find("aws/no.such") == nullptr);
    CHECK(catalog.find("AWS/P4D.24XLARGE") != nullptr);  // case-insensitive fallback
    CHECK(catalog.find_all("aws/p4d.24xlarge").size() == 8);
    const auto names = catalog.names();
    CHECK(std::is_sorted(names.begin(), names.end()));
    CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
    CHECK(names.size() == 20);  // 11 AWS types + 9 Lambda types
    CHECK(catalog.suggestions("aws/p4d.24xl") == std::vector<std::string>{"aws/p4d.24xlarge"});
  }

  TEST_CASE("the shipped instance catalogs load cleanly and map every row to gpus.yaml") {
    const Catalogs catalogs = Catalogs::load(kCatalogDir);
    CHECK(catalogs.instances.notes().empty());
    std::map<std::string, int> rows_per_provider;
    for (const auto& row : catalogs.instances.rows()) {
      CAPTURE(row.provider + "/" + row.instance_type + " " + row.zone);
      ++rows_per_provider[row.provider];
      const auto* gpu = catalogs.gpus.find(row.gpu);
      REQUIRE(gpu != nullptr);
      CHECK(gpu->name == row.gpu);
      CHECK(catalogs.storage.find(row.storage) != nullptr);
      CHECK_FALSE(row.interconnect.empty());
      CHECK_FALSE(row.source.empty());
      CHECK(row.retrieved == "2026-11-29");
      CHECK(row.price_usd_per_s > 0.0);
      CHECK(row.spot_price_usd_per_s <= row.price_usd_per_s);
      CHECK(row.accelerator_count >= 1);
      CHECK(row.billing_granularity_s > 0.0);
    }
    CHECK(rows_per_provider == std::map<std::string, int>{{"aws", 109}, {"azure", 16}, {"gcp", 14}, {"lambda", 14}});

    // The shipped GCP row equals the import of the SkyPilot excerpt: 5.91582 + 23.47126 $/h.
    InstanceCatalog excerpt;
    excerpt.add_csv(kGcpExcerpt, "gcp", catalogs.gpus);
    const auto* shipped = catalogs.instances.find("gcp/a2-highgpu-8g");
    REQUIRE(shipped != nullptr);
    CHECK(shipped->price_usd_per_s == doctest::Approx(excerpt.find("gcp/a2-highgpu-8g")->price_usd_per_s));
    CHECK(shipped->spot_price_usd_per_s ==
          doctest::Approx(excerpt.find("gcp/a2-highgpu-8g")->spot_price_usd_per_s));
    CHECK(shipped->interconnect == "nvlink3");

    // Rows the brief names resolve to the intended parts.
    CHECK(catalogs.instances.find("aws/p4d.24xlarge")->gpu == "a100-40gb");
    CHECK(catalogs.instances.find("azure/Standard_NC24ads_A100_v4")->gpu == "a100-80gb-pcie");
    CHECK(catalogs.instances.find("azure/Standard_ND96isr_H100_v5")->accelerator_count == 8);
    CHECK(catalogs.instances.find("lambda/gpu_1x_a100")->gpu == "a100-40gb-pcie");
    CHECK(catalogs.instances.find("lambda/gpu_1x_a10")->gpu == "a10");
    CHECK(catalogs.instances.find("gcp/g2-standard-96")->gpu == "l4");
  }

  TEST_CASE("load_directory reports an unreadable directory") {
    CHECK(error_of([] { InstanceCatalog::load_directory("/nonexistent/instances", shipped_gpus()); }) ==
          "cannot read directory '/nonexistent/instances': No such file or directory");
  }
}

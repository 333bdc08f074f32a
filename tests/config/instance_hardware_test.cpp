// config/instance_hardware.h: the one rule from an instance catalog row to hardware, shared
// by `gpuplan run` (cloud.instance) and `gpuplan plan`.
#include "config/instance_hardware.h"

#include <doctest/doctest.h>

#include "config_fixture.h"
#include "core/units.h"

using namespace gpuplan;
using config::testing::shipped_catalogs;

namespace {
/// p4d.24xlarge as a plain SkyPilot vms.csv gives it (shared/data/catalogs/
/// skypilot-v7-aws-vms-excerpt.csv line 16), in a region the shipped catalog lacks: no
/// Interconnect, Network or Storage column.
models::InstanceSpec plain_p4d() {
  models::InstanceSpec row;
  row.provider = "aws";
  row.instance_type = "p4d.24xlarge";
  row.accelerator_name = "A100";
  row.gpu = "a100-40gb";
  row.accelerator_count = 8;
  row.vcpus = 96.0;
  row.memory_bytes = core::gibibytes(1152.0);
  row.region = "eu-central-1";
  row.zone = "euc1-az2";
  return row;
}
}  // namespace

TEST_SUITE("config.instance_hardware") {
  TEST_CASE("a plain SkyPilot row: the GPU's NVLink board, half the vCPUs as cores, no network") {
    const config::InstanceFacts f = config::instance_facts(plain_p4d(), shipped_catalogs());
    REQUIRE(f.gpu != nullptr);
    CHECK(f.gpu->name == "a100-40gb");
    CHECK(f.problems.empty());
    CHECK(f.gpus_per_node == 8);
    CHECK(f.cpu_cores == 48);  // 96 vCPUs, 2 hardware threads per core
    CHECK(f.host_memory_bytes == doctest::Approx(core::gibibytes(1152.0)));
    CHECK(f.gpu_interconnect == "nvlink3");  // A100 SXM (compute capability 8.0): HGX board
    CHECK_FALSE(f.interconnect_from_row);
    CHECK_FALSE(f.network.has_value());
    CHECK(f.storage == nullptr);
  }

  TEST_CASE("one node of the plain row: NVSwitch topology; two nodes: an error naming the row") {
    models::HardwareSpec scenario;
    scenario.storage = *shipped_catalogs().storage.find("nvme_ssd");
    const models::HardwareSpec h = config::instance_hardware(plain_p4d(), 1, shipped_catalogs(), scenario);
    CHECK(h.gpu_interconnect == "nvlink3");
    CHECK(h.gpus_per_node == 8);
    CHECK(h.nodes == 1);
    CHECK(h.cpu_cores == 48);
    CHECK(h.gpus_per_pcie_switch == 2);   // NVSwitch board with >= 2 GPUs (default_gpus_per_pcie_switch)
    CHECK(h.storage.name == "nvme_ssd");  // the row gives none: the scenario's
    CHECK(h.network_bytes_per_s == 0.0);
    CHECK_THROWS_WITH_AS(config::instance_hardware(plain_p4d(), 2, shipped_catalogs(), scenario),
                         "aws/p4d.24xlarge in eu-central-1 (euc1-az2) gives no Network in the catalog, needed with 2 "
                         "nodes; add a Network column (the node's total, e.g. \"400 Gbit/s\")",
                         config::InstanceRowError);
  }

  TEST_CASE("the row's own columns win; 400 Gbit/s is an RDMA-class fabric") {
    models::InstanceSpec row = plain_p4d();
    row.interconnect = "pcie4";
    row.network_bytes_per_s = core::gigabits_per_s(400.0);
    row.storage = "nvme_ssd";
    const config::InstanceFacts f = config::instance_facts(row, shipped_catalogs());
    CHECK(f.gpu_interconnect == "pcie4");
    CHECK(f.interconnect_from_row);
    REQUIRE(f.network.has_value());
    CHECK(f.network->kind == models::NetworkKind::kInfiniband);
    CHECK(f.network->node_bytes_per_s() == doctest::Approx(50e9));  // 400 Gbit/s = 50 GB/s
    REQUIRE(f.storage != nullptr);
    CHECK(f.storage->name == "nvme_ssd");
    const models::HardwareSpec h = config::instance_hardware(row, 2, shipped_catalogs(), models::HardwareSpec{});
    CHECK(h.network_bytes_per_s == doctest::Approx(50e9));
    CHECK(h.nodes == 2);
  }

  TEST_CASE("problems: an unknown GPU, no GPU, an unknown storage class; the error names the row") {
    models::InstanceSpec row = plain_p4d();
    row.gpu = "tpu-v5";
    row.accelerator_count = 0;
    row.storage = "tape";
    const config::InstanceFacts f = config::instance_facts(row, shipped_catalogs());
    REQUIRE(f.problems.size() == 3);
    CHECK(f.problems[0].problem == "has GPU 'tpu-v5', which the GPU catalog lacks");
    CHECK(f.problems[0].fix == "; add it to catalogs/gpus.yaml");
    CHECK(f.problems[1].problem == "has no GPU");
    CHECK(f.problems[2].problem == "has storage 'tape', which the storage catalog lacks");
    CHECK_THROWS_WITH_AS(config::instance_hardware(row, 1, shipped_catalogs(), models::HardwareSpec{}),
                         "aws/p4d.24xlarge in eu-central-1 (euc1-az2) has GPU 'tpu-v5', which the GPU catalog "
                         "lacks; add it to catalogs/gpus.yaml",
                         config::InstanceRowError);
  }
}

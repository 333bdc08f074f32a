#include "config/gpu_catalog.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "config/config_error.h"
#include "config/input_text.h"
#include "config_fixture.h"
#include "core/units.h"
#include "models/gpu/gpu_efficiency.h"
#include "models/gpu/op_time.h"
#include "models/workload/layer_ops.h"

namespace {

using namespace gpuplan::config::testing;

using gpuplan::config::ConfigError;
using gpuplan::config::GpuCatalog;
namespace core = gpuplan::core;

const std::string kGpusYaml = std::string(GPUPLAN_SOURCE_DIR) + "/catalogs/gpus.yaml";

/// A valid catalog with one Volta-like GPU; tests replace one line to break it. Lines:
/// 1 format, 2 gpus, 3 name, 4 form_factor, 5 compute_capability, 6 sms, 7 peak_dense,
/// 8 fp32, 9 fp16, 10 memory, 11 memory_bandwidth, 12 pcie, 13 tdp, 14 idle_power,
/// 15 source, 16 retrieved, 17 memory_type, 18 l2_cache, 19 boost_clock, 20 accuracy.
std::string volta_yaml(const std::string& replace, const std::string& with) {
  std::string text =
      "format: gpuplan/v1\n"
      "gpus:\n"
      "  test-gpu:\n"
      "    form_factor: sxm\n"
      "    compute_capability: \"7.0\"\n"
      "    sms: 80\n"
      "    peak_dense:\n"
      "      fp32: \"15.7 TFLOP/s\"\n"
      "      fp16: \"125 TFLOP/s\"\n"
      "    memory: \"16 GiB\"\n"
      "    memory_bandwidth: \"900 GB/s\"\n"
      "    pcie: {generation: 3, lanes: 16}\n"
      "    tdp: \"300 W\"\n"
      "    idle_power: \"50 W\"\n"
      "    source: \"https://example.com/datasheet.pdf\"\n"
      "    retrieved: 2026-11-29\n"
      "    memory_type: hbm2\n"
      "    l2_cache: \"6 MiB\"\n"
      "    boost_clock: \"1530 MHz\"\n"
      "    accuracy: measured\n";
  return with_replaced(text, replace, with);
}

/// A valid AMD entry (MI300X figures); tests replace one line to break it. Lines: 1 format,
/// 2 gpus, 3 name, 4 vendor, 5 form_factor, 6 gfx_target, 7 compute_units, 8 peak_dense,
/// 9 memory, 10 memory_bandwidth, 11 pcie, 12 infinity_fabric, 13 tdp, 14 idle_power,
/// 15 memory_type, 16 l2_cache, 17 boost_clock, 18 accuracy, 19 source, 20 retrieved.
std::string amd_yaml(const std::string& replace, const std::string& with) {
  std::string text =
      "format: gpuplan/v1\n"
      "gpus:\n"
      "  test-amd:\n"
      "    vendor: amd\n"
      "    form_factor: oam\n"
      "    gfx_target: gfx942\n"
      "    compute_units: 304\n"
      "    peak_dense: {fp32: \"163.4 TFLOP/s\", fp16: \"1307.4 TFLOP/s\", bf16: \"1307.4 TFLOP/s\", fp8: \"2614.9 TFLOP/s\"}\n"
      "    memory: \"192 GiB\"\n"
      "    memory_bandwidth: \"5300 GB/s\"\n"
      "    pcie: {generation: 5, lanes: 16}\n"
      "    infinity_fabric: {links: 7, per_link_per_direction: \"64 GB/s\"}\n"
      "    tdp: \"750 W\"\n"
      "    idle_power: \"130 W\"\n"
      "    memory_type: hbm3\n"
      "    l2_cache: \"32 MiB\"\n"
      "    boost_clock: \"2100 MHz\"\n"
      "    accuracy: prediction-only\n"
      "    source: \"https://example.com/datasheet.pdf\"\n"
      "    retrieved: 2026-12-01\n";
  return with_replaced(text, replace, with);
}

}  // namespace

TEST_SUITE("config.gpu_catalog") {
  TEST_CASE("AMD entries: the shipped MI300X and MI325X, read from their CDNA 3 facts") {
    const GpuCatalog gpus = GpuCatalog::load(kGpusYaml);
    const auto* mi300x = gpus.find("AMD Instinct MI300X");
    REQUIRE(mi300x != nullptr);
    CHECK(mi300x->name == "mi300x");
    CHECK(mi300x->vendor == gpuplan::models::GpuVendor::kAmd);
    CHECK(mi300x->gfx_target == "gfx942");
    CHECK(mi300x->cdna_generation == 3);
    CHECK(mi300x->architecture_text() == "gfx942 (CDNA 3)");
    CHECK(mi300x->compute_capability_major == 0);
    // 304 CUs x 2,048 bf16 FLOP per CU and clock x 2.1 GHz = 1,307.4 TFLOP/s dense.
    CHECK(mi300x->sm_count == 304);
    CHECK(mi300x->peak_bf16_flop_per_s == doctest::Approx(304 * 2048 * 2.1e9).epsilon(1e-4));
    CHECK(mi300x->peak_fp8_flop_per_s == doctest::Approx(2 * mi300x->peak_bf16_flop_per_s).epsilon(1e-4));
    CHECK(mi300x->peak_fp32_flop_per_s == doctest::Approx(core::teraflop_per_s(163.4)));
    CHECK(mi300x->peak_tf32_flop_per_s == 0.0);
    CHECK(mi300x->has_tf32_bf16());
    CHECK(mi300x->has_fp8());
    CHECK(mi300x->efficiency_generation() == 9);
    // Infinity Fabric: 7 links of "128 GB/s" both directions -> 64 GB/s each way; no NVLink.
    CHECK(mi300x->infinity_fabric_links == 7);
    CHECK(mi300x->infinity_fabric_link_bytes_per_s_per_direction == doctest::Approx(core::gigabytes_per_s(64)));
    CHECK(mi300x->nvlink_bytes_per_s_per_direction == 0.0);
    CHECK(mi300x->form_factor == "oam");
    CHECK(mi300x->memory_bytes == doctest::Approx(core::gibibytes(192)));
    CHECK(mi300x->prediction_only);
    const auto* mi325x = gpus.find("MI325X");
    REQUIRE(mi325x != nullptr);
    CHECK(mi325x->memory_bytes == doctest::Approx(core::gibibytes(256)));
    CHECK(mi325x->memory_bytes_per_s == doctest::Approx(core::gigabytes_per_s(6000)));
    CHECK(mi325x->tdp_w == doctest::Approx(1000));
    CHECK(mi325x->peak_bf16_flop_per_s == mi300x->peak_bf16_flop_per_s);
    CHECK(mi325x->prediction_only);
    // NVIDIA entries stay NVIDIA.
    CHECK(gpus.find("h100-sxm")->vendor == gpuplan::models::GpuVendor::kNvidia);
  }

  TEST_CASE("the MI300X's predicted time of one linear layer's GEMM, by hand") {
    const GpuCatalog gpus = GpuCatalog::load(kGpusYaml);
    const gpuplan::models::GpuSpec& mi300x = *gpus.find("mi300x");
    // The fractions pinned to round values, so that a refit does not move this case.
    gpuplan::models::GpuEfficiency e = gpuplan::models::GpuEfficiency::defaults();
    e.matmul_tensor_core_cc9 = 0.80;   // the Hopper tier CDNA 3 takes (GpuSpec::efficiency_generation)
    e.matmul_relative_to_gemm = 0.75;  // a model's linear layers vs the best-shape GEMM
    e.memory_bandwidth = 0.80;
    e.kernel_fixed_s = 3e-6;
    gpuplan::models::TrainingSpec training;
    training.batch_size = 2;
    training.precision = gpuplan::models::Precision::kBf16;
    // 1024 tokens per sample x batch 2 = m 2048, 1024 -> 4096 features (n 4096, k 1024).
    const gpuplan::models::Op up = gpuplan::models::linear_op("mlp.up", 1024, 1024, 4096, false, true);
    const gpuplan::models::OpWork w = gpuplan::models::op_work(up, 2, mi300x, training, e);
    // FLOP: 2 x 2048 x 4096 x 1024 = 17,179,869,184.
    CHECK(w.forward.flop == doctest::Approx(17'179'869'184.0));
    // Tiles of 256 x 128 over the 2048 x 4096 output: 8 x 32 = 256, one wave on 304 CUs (no
    // split-K: floor(304 / 256) = 1): 256 / 304 of the GPU busy. Rate: 1,307.4 TFLOP/s x 0.80
    // x 0.75 x 256 / 304 = 660.6 TFLOP/s -> 26.01 us; memory: (2048 x 1024 + 2048 x 4096) x 2 B
    // of activations + 4096 x 1024 x 2 B of weight = 29.4 MB at 5,300 GB/s x 0.80 = 6.9 us,
    // hidden under the math; + one kernel of 3 us = 29.01 us.
    const double rate = 1307.4e12 * 0.80 * 0.75 * 256.0 / 304.0;
    CHECK(w.forward.gpu_time_s == doctest::Approx(17'179'869'184.0 / rate + 3e-6).epsilon(1e-4));
    CHECK(w.forward.gpu_time_s == doctest::Approx(29.01e-6).epsilon(1e-3));
  }

  TEST_CASE("meant(): an alias as tools print it, and a plural's family; nothing for a near spelling") {
    const GpuCatalog gpus = GpuCatalog::load(kGpusYaml);
    // "h100s" is 2 edits from h200 and p100 but 4 from h100-sxm: the plural names the family.
    CHECK(gpus.meant("h100s") == std::vector<std::string>{"h100-sxm", "h100-pcie", "h100-nvl"});
    CHECK(gpus.suggestions("h100s") == std::vector<std::string>{"h100-sxm", "h100-pcie", "h100-nvl"});
    CHECK(gpus.meant("H100 80GB HBM3") == std::vector<std::string>{"h100-sxm"});
    CHECK(gpus.meant("l4s") == std::vector<std::string>{"l4", "l40", "l40s"});  // or a misspelt l40(s)
    CHECK(gpus.meant("h200") == std::vector<std::string>{"h200"});              // a catalog name is found, too
    CHECK(gpus.meant("h10").empty());
    CHECK(gpus.meant("tpus").empty());
  }

  TEST_CASE("meant(): a name with a memory size the catalog name lacks, in any case and spacing") {
    const GpuCatalog gpus = GpuCatalog::load(kGpusYaml);
    CHECK(gpus.meant("RTX 4090 24GB") == std::vector<std::string>{"rtx4090"});
    CHECK(gpus.meant("rtx-4090-24gb") == std::vector<std::string>{"rtx4090"});
    CHECK(gpus.meant("GeForce RTX 4090 24 GiB") == std::vector<std::string>{"rtx4090"});
    // Without the size "H100" is h100-sxm's alias, which also covers the PCIe and NVL cards.
    CHECK(gpus.meant("H100 96GB") == std::vector<std::string>{"h100-sxm", "h100-pcie", "h100-nvl"});
    // A size the catalog name has is matched whole, as before.
    CHECK(gpus.meant("A100 80GB") == std::vector<std::string>{"a100-80gb"});
    CHECK(gpus.suggestions("RTX 4090 24GB") == std::vector<std::string>{"rtx4090"});
    // A size alone, or a size after no known name, means nothing.
    CHECK(gpus.meant("24GB").empty());
    CHECK(gpus.meant("TPU 16GB").empty());
  }

  TEST_CASE("every shipped entry writes its vendor") {
    // The loader takes nvidia when vendor is absent (older catalogs); the shipped file must
    // not rely on it: one "    vendor: " line per entry.
    const GpuCatalog gpus = GpuCatalog::load(kGpusYaml);
    const std::string text = gpuplan::config::read_text_file(kGpusYaml);
    std::size_t written = 0;
    for (std::size_t at = text.find("\n    vendor: "); at != std::string::npos; at = text.find("\n    vendor: ", at + 1)) {
      ++written;
    }
    CHECK(written == gpus.all().size());
    const GpuCatalog old = GpuCatalog::parse(volta_yaml("", ""), "inline.yaml");
    CHECK(old.find("test-gpu")->vendor == gpuplan::models::GpuVendor::kNvidia);
  }

  TEST_CASE("a valid AMD entry loads") {
    const GpuCatalog gpus = GpuCatalog::parse(amd_yaml("", ""), "inline.yaml");
    const auto* gpu = gpus.find("test-amd");
    REQUIRE(gpu != nullptr);
    CHECK(gpu->is_amd());
    CHECK(gpu->sm_count == 304);
    CHECK(gpu->infinity_fabric_links == 7);
  }

  TEST_CASE("a vendor other than nvidia or amd is refused with the choices") {
    CHECK(error_of([] { GpuCatalog::parse(amd_yaml("vendor: amd", "vendor: intel"), "inline.yaml"); }) ==
          "unknown value 'intel', expected one of nvidia or amd at inline.yaml:4:13 (gpus.test-amd.vendor)");
    CHECK(error_of([] { GpuCatalog::parse(amd_yaml("vendor: amd", "vendor: AMD"), "inline.yaml"); }) ==
          "unknown value 'AMD', expected one of nvidia or amd at inline.yaml:4:13 (gpus.test-amd.vendor); "
          "did you mean amd?");
  }

  TEST_CASE("an AMD entry must carry its gfx target and compute units") {
    CHECK(error_of([] { GpuCatalog::parse(amd_yaml("    compute_units: 304\n", ""), "inline.yaml"); }) ==
          "missing key 'compute_units' at inline.yaml:4:5 (gpus.test-amd.compute_units); add compute_units: "
          "a whole number from 1 to 1000");
    CHECK(error_of([] { GpuCatalog::parse(amd_yaml("gfx_target: gfx942", "gfx_target: gfx1100"), "inline.yaml"); }) ==
          "unknown value 'gfx1100', expected one of gfx90a or gfx942 at inline.yaml:6:17 "
          "(gpus.test-amd.gfx_target)");
  }

  TEST_CASE("a key of the other vendor is refused with the one to write") {
    CHECK(error_of([] {
            GpuCatalog::parse(amd_yaml("compute_units: 304", "sms: 304"), "inline.yaml");
          }) ==
          "sms is a key of nvidia entries, and this one is vendor: amd at inline.yaml:7:10 (gpus.test-amd.sms); "
          "write compute_units instead, or correct vendor\n"
          "missing key 'compute_units' at inline.yaml:4:5 (gpus.test-amd.compute_units); add compute_units: "
          "a whole number from 1 to 1000");
    CHECK(error_of([] {
            GpuCatalog::parse(volta_yaml("    sms: 80\n", "    sms: 80\n    infinity_fabric: {links: 7}\n"),
                              "inline.yaml");
          }) ==
          "infinity_fabric is a key of amd entries, and this one is vendor: nvidia at inline.yaml:7:22 "
          "(gpus.test-gpu.infinity_fabric); write nvlink_per_direction instead, or correct vendor");
  }

  TEST_CASE("an AMD entry has no tf32 peak, and fp8 needs CDNA 3") {
    CHECK(error_of([] {
            GpuCatalog::parse(amd_yaml("fp8: \"2614.9 TFLOP/s\"", "fp8: \"2614.9 TFLOP/s\", tf32: \"653.7 TFLOP/s\""),
                              "inline.yaml");
          }) ==
          "tf32 peak on a GPU of gfx942 (CDNA 3) at inline.yaml:8:118 (gpus.test-amd.peak_dense.tf32); gpuplan "
          "models no TF32 path on AMD CDNA (tf32 runs as fp32 there; CDNA 3's xf32 is not modelled): remove tf32");
    CHECK(error_of([] { GpuCatalog::parse(amd_yaml("gfx942", "gfx90a"), "inline.yaml"); }) ==
          "fp8 peak on a GPU of gfx90a (CDNA 2) at inline.yaml:8:94 (gpus.test-amd.peak_dense.fp8); FP8 Matrix "
          "Cores start at CDNA 3 (gfx942): remove fp8 or correct gfx_target");
  }

  TEST_CASE("the shipped catalog loads and has the names of scenario-format.md") {
    const GpuCatalog gpus = GpuCatalog::load(kGpusYaml);
    const std::vector<std::string> required = {
        "v100-16gb", "v100-32gb", "t4",        "a10g",          "l4",        "l40s",
        "a100-40gb", "a100-80gb", "a100-40gb-pcie", "a100-80gb-pcie", "h100-sxm", "h100-pcie",
        "h200",      "rtx3090",   "rtx4090",   "rtx-a6000",     "titan-rtx", "gtx1080ti",
        "titan-xp",  "p100",
        // issue 14
        "a30",       "a40",       "l40",       "h100-nvl",      "h20",       "b200",
        "gb200",     "rtx5090",   "rtx-6000-ada", "mi300x",   "mi325x",
        // workstation and GeForce cards people train on
        "rtx2080ti", "quadro-rtx-6000", "quadro-rtx-8000", "rtx-a4000", "rtx-a5000", "rtx-5000-ada",
        "rtx3080",   "rtx3090ti", "rtx3070",   "rtx3060",       "rtx4080",   "rtx4080super",
        "rtx4070ti", "rtx4070",   "rtx5080",   "titan-v",       "rtx3080ti"};
    for (const auto& name : required) {
      CAPTURE(name);
      const auto* gpu = gpus.find(name);
      REQUIRE(gpu != nullptr);
      CHECK(gpu->name == name);
    }
    const auto names = gpus.names();
    CHECK(std::is_sorted(names.begin(), names.end()));
    CHECK(names.size() == gpus.all().size());
  }

  TEST_CASE("aliases resolve: nvidia-smi names and SkyPilot AcceleratorName") {
    const GpuCatalog gpus = GpuCatalog::load(kGpusYaml);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"A100-SXM4-80GB", "a100-80gb"},       {"NVIDIA H100 80GB HBM3", "h100-sxm"},
        {"A100-80GB", "a100-80gb"},            {"a100-sxm4-80gb", "a100-80gb"},  // case-insensitive
        {"V100", "v100-16gb"},                 {"V100-32GB", "v100-32gb"},
        {"A100", "a100-40gb"},                 {"H100", "h100-sxm"},
        {"H200", "h200"},                      {"T4", "t4"},
        {"A10G", "a10g"},                      {"L4", "l4"},
        {"L40S", "l40s"},                      {"A6000", "rtx-a6000"},
        {"H100-MEGA", "h100-sxm"},             {"NVIDIA GeForce RTX 3090", "rtx3090"},
        {"Tesla V100-SXM2-16GB", "v100-16gb"}, {"A100-PCIE-40GB", "a100-40gb-pcie"},
        {"NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada"}, {"NVIDIA H20", "h20"},
        {"NVIDIA GeForce RTX 2080 Ti", "rtx2080ti"},         {"Quadro RTX 8000", "quadro-rtx-8000"},
        {"NVIDIA Quadro RTX 6000", "quadro-rtx-6000"},       {"A4000", "rtx-a4000"},
        {"NVIDIA RTX A5000", "rtx-a5000"},                   {"NVIDIA RTX 5000 Ada Generation", "rtx-5000-ada"},
        {"NVIDIA GeForce RTX 3080", "rtx3080"},              {"RTX 3090 Ti", "rtx3090ti"},
        {"NVIDIA GeForce RTX 3070", "rtx3070"},              {"NVIDIA GeForce RTX 3060", "rtx3060"},
        {"NVIDIA GeForce RTX 4080", "rtx4080"},              {"NVIDIA GeForce RTX 4080 SUPER", "rtx4080super"},
        {"NVIDIA GeForce RTX 4070 Ti", "rtx4070ti"},         {"GeForce RTX 4070", "rtx4070"},
        {"NVIDIA GeForce RTX 5080", "rtx5080"},              {"NVIDIA TITAN V", "titan-v"},
        {"NVIDIA GeForce RTX 3080 Ti", "rtx3080ti"},
    };
    for (const auto& entry : cases) {
      // Not a structured binding: CAPTURE's lambda cannot capture one under clang 14.
      const auto& alias = entry.first;
      const auto& name = entry.second;
      CAPTURE(alias);
      const auto* gpu = gpus.find(alias);
      REQUIRE(gpu != nullptr);
      CHECK(gpu->name == name);
    }
    CHECK(gpus.find("A100-80") == nullptr);
    // core::closest: edit distance <= 2 or a shared prefix of 3+ characters ("a10").
    CHECK(gpus.suggestions("a100-80") ==
          std::vector<std::string>{"a10", "a100-80gb", "a100-80gb-pcie"});
  }

  TEST_CASE("spelled_alike: a name as a tool prints it, without its vendor word or with other separators") {
    const GpuCatalog gpus = GpuCatalog::load(kGpusYaml);
    // nvidia-smi prints "NVIDIA H100 80GB HBM3" (an alias); people drop the vendor word.
    CHECK(gpus.find("H100 80GB HBM3") == nullptr);
    CHECK(gpus.spelled_alike("H100 80GB HBM3") == "h100-sxm");
    CHECK(gpus.suggestions("H100 80GB HBM3") == std::vector<std::string>{"h100-sxm"});
    CHECK(gpus.spelled_alike("geforce rtx-4090") == "rtx4090");
    CHECK(gpus.spelled_alike("AMD MI300X") == "mi300x");
    CHECK(gpus.spelled_alike("h100_pcie") == "h100-pcie");
    CHECK(gpus.spelled_alike("tpu-v5e") == std::nullopt);
    CHECK(gpus.spelled_alike("NVIDIA") == std::nullopt);  // folds to nothing
  }

  TEST_CASE("shipped figures are dense, per direction and in SI units") {
    const GpuCatalog gpus = GpuCatalog::load(kGpusYaml);
    const auto* a100 = gpus.find("a100-80gb");
    REQUIRE(a100 != nullptr);
    // Datasheet: BF16 312 | 624* TFLOP/s (* sparse): the dense 312 TFLOP/s is stored.
    CHECK(a100->peak_bf16_flop_per_s == doctest::Approx(core::teraflop_per_s(312)));
    CHECK(a100->peak_tf32_flop_per_s == doctest::Approx(core::teraflop_per_s(156)));
    CHECK(a100->peak_fp8_flop_per_s == 0.0);
    // "80 GiB" = 80 x 2^30 B; "2039 GB/s" = 2039 x 10^9 B/s.
    CHECK(a100->memory_bytes == doctest::Approx(core::gibibytes(80)));
    CHECK(a100->memory_bytes_per_s == doctest::Approx(core::gigabytes_per_s(2039)));
    // NVLink "600 GB/s" marketed = both directions: 300 GB/s per direction.
    CHECK(a100->nvlink_bytes_per_s_per_direction == doctest::Approx(core::gigabytes_per_s(300)));
    CHECK(a100->compute_capability_major == 8);
    CHECK(a100->compute_capability_minor == 0);
    CHECK(a100->pcie_generation == 4);
    CHECK(a100->pcie_lanes == 16);
    CHECK(a100->tdp_w == doctest::Approx(400));

    const auto* h100 = gpus.find("h100-sxm");
    REQUIRE(h100 != nullptr);
    // NVLink "900 GB/s" marketed (18 links x 25 GB/s x 2) -> 450 GB/s per direction.
    CHECK(h100->nvlink_bytes_per_s_per_direction == doctest::Approx(core::gigabytes_per_s(450)));
    // FP8 3958 TFLOP/s sparse -> 1979 TFLOP/s dense.
    CHECK(h100->peak_fp8_flop_per_s == doctest::Approx(core::teraflop_per_s(1979)));

    // GeForce: FP32-accumulate tensor rate (PyTorch AMP), half of the 142 FP16-accumulate one.
    const auto* rtx3090 = gpus.find("rtx3090");
    REQUIRE(rtx3090 != nullptr);
    CHECK(rtx3090->peak_fp16_flop_per_s == doctest::Approx(core::teraflop_per_s(71)));

    // B200, NVIDIA's per-GPU table for HGX B200: TF32 2.2 PFLOP/s sparse -> 1100 TFLOP/s dense;
    // "7.7TB/s" -> 7.7 x 10^12 B/s; NVLink 5 "1.8TB/s" both directions -> 900 GB/s each way.
    const auto* b200 = gpus.find("b200");
    REQUIRE(b200 != nullptr);
    CHECK(b200->peak_tf32_flop_per_s == doctest::Approx(core::teraflop_per_s(1100)));
    CHECK(b200->peak_bf16_flop_per_s == doctest::Approx(core::teraflop_per_s(2250)));
    CHECK(b200->memory_bytes_per_s == doctest::Approx(core::gigabytes_per_s(7700)));
    CHECK(b200->nvlink_bytes_per_s_per_direction == doctest::Approx(core::gigabytes_per_s(900)));
    CHECK(b200->compute_capability_major == 10);

    // RTX 6000 Ada: the datasheet's single "1,457 TFLOPS" read as FP8 sparse at boost,
    // 142 SMs x 2.505 GHz x 4096 FLOP/clk = 1457.0; dense fp8 = 728.5 and fp16 = 364.2 (a
    // quarter; full-rate FP32 accumulate); 960 GB/s GDDR6; no NVLink.
    const auto* ada6000 = gpus.find("rtx-6000-ada");
    REQUIRE(ada6000 != nullptr);
    CHECK(ada6000->peak_fp8_flop_per_s == doctest::Approx(142 * 2.505e9 * 4096 / 2).epsilon(1e-4));
    CHECK(ada6000->peak_fp16_flop_per_s == doctest::Approx(core::teraflop_per_s(364.2)));
    CHECK(ada6000->peak_fp32_flop_per_s == doctest::Approx(core::teraflop_per_s(91.1)));
    CHECK(ada6000->memory_bytes_per_s == doctest::Approx(core::gigabytes_per_s(960)));
    CHECK(ada6000->nvlink_bytes_per_s_per_direction == 0.0);
    CHECK(ada6000->sm_count == 142);

    // Pascal GeForce: no fp16 tensor cores; fp16 = the effective rate of the converting
    // fp32-compute path, half the fp32 rate (practitioner report R15).
    const auto* pascal = gpus.find("gtx1080ti");
    REQUIRE(pascal != nullptr);
    CHECK(pascal->peak_fp16_flop_per_s == doctest::Approx(pascal->peak_fp32_flop_per_s / 2));
    CHECK_FALSE(pascal->has_tensor_cores_fp16());

    // Turing whitepaper Table 1: the GeForce RTX 2080 Ti runs FP16 tensor math with FP32
    // accumulate at half rate (53.8 of 107.6 TFLOP/s, reference board), the Quadro RTX 6000 at
    // full rate (130.5); the 2080 Ti's 11 of 12 memory controllers keep 11 x 512 KB of L2.
    const auto* rtx2080ti = gpus.find("rtx2080ti");
    REQUIRE(rtx2080ti != nullptr);
    CHECK(rtx2080ti->peak_fp16_flop_per_s == doctest::Approx(core::teraflop_per_s(53.8)));
    CHECK(rtx2080ti->l2_cache_bytes == 5632.0 * 1024);
    CHECK(rtx2080ti->nvlink_bytes_per_s_per_direction == doctest::Approx(core::gigabytes_per_s(50)));
    CHECK(gpus.find("quadro-rtx-6000")->peak_fp16_flop_per_s == doctest::Approx(core::teraflop_per_s(130.5)));
    CHECK(gpus.find("quadro-rtx-8000")->memory_bytes == doctest::Approx(core::gibibytes(48)));
    // RTX A4000: the datasheet's 153.4 TFLOPS is FP16 with sparsity at 48 SMs x 1.56 GHz.
    const auto* a4000 = gpus.find("rtx-a4000");
    REQUIRE(a4000 != nullptr);
    CHECK(a4000->peak_fp16_flop_per_s == doctest::Approx(48 * 1.56e9 * 1024).epsilon(1e-3));
    CHECK(a4000->nvlink_bytes_per_s_per_direction == 0.0);
    // RTX A5000: 222.2 TFLOPS sparse = 64 SMs x 1.695 GHz x 1024 x 2; NVLink bridge 112.5 GB/s.
    const auto* a5000 = gpus.find("rtx-a5000");
    REQUIRE(a5000 != nullptr);
    CHECK(a5000->peak_fp16_flop_per_s * 2 == doctest::Approx(core::teraflop_per_s(222.2)).epsilon(1e-3));
    CHECK(a5000->nvlink_bytes_per_s_per_direction == doctest::Approx(core::gigabytes_per_s(56.25)));
    // RTX 5000 Ada: "1044.4 TFLOPS" is FP8 with sparsity (datasheet footnote); dense fp8 half.
    const auto* ada5000 = gpus.find("rtx-5000-ada");
    REQUIRE(ada5000 != nullptr);
    CHECK(ada5000->peak_fp8_flop_per_s * 2 == doctest::Approx(core::teraflop_per_s(1044.4)));
    CHECK(ada5000->peak_fp8_flop_per_s == doctest::Approx(100 * 2.55e9 * 4096 / 2).epsilon(1e-3));

    // GeForce cards whose tensor peaks are derived: SMs x boost clock x the per-SM rate that
    // the whitepaper columns of rtx3090 (71 = 82 x 1.695 GHz x 512) and rtx4090 (330.3 = 128 x
    // 2.52 GHz x 1024 for fp8) imply, FP32 accumulate. Each is checked against the catalog
    // figure to 0.1 % (0.2 % for a FP32 figure NVIDIA rounds up), and the per-SM rate against
    // the entry that documents it.
    const auto* rtx4090 = gpus.find("rtx4090");
    REQUIRE(rtx4090 != nullptr);
    const auto per_sm_clock = [](const auto& gpu, double peak_flop_per_s) {
      return peak_flop_per_s / (gpu.sm_count * gpu.boost_clock_hz);
    };
    CHECK(per_sm_clock(*rtx3090, rtx3090->peak_fp16_flop_per_s) == doctest::Approx(512).epsilon(3e-3));
    CHECK(per_sm_clock(*rtx4090, rtx4090->peak_fp8_flop_per_s) == doctest::Approx(1024).epsilon(1e-3));
    // RTX 3080: 68 SMs x 1.71 GHz x 512 = 59.54 TFLOP/s fp16 (stored 59.5), a quarter of
    // NVIDIA's 238 tensor TFLOPS (FP16 accumulate, sparse); fp32 68 x 1.71 GHz x 256 = 29.77
    // (NVIDIA's 29.8).
    const auto* rtx3080 = gpus.find("rtx3080");
    REQUIRE(rtx3080 != nullptr);
    CHECK(rtx3080->sm_count == 68);
    CHECK(rtx3080->boost_clock_hz == doctest::Approx(1.71e9));
    CHECK(rtx3080->peak_fp16_flop_per_s == doctest::Approx(68 * 1.71e9 * 512).epsilon(1e-3));
    CHECK(rtx3080->peak_fp32_flop_per_s == doctest::Approx(68 * 1.71e9 * 256).epsilon(2e-3));
    CHECK(rtx3080->peak_fp16_flop_per_s * 4 == doctest::Approx(core::teraflop_per_s(238)).epsilon(1e-3));
    CHECK(rtx3080->peak_fp8_flop_per_s == 0.0);
    // RTX 3090 Ti: NVIDIA's "320 tensor TFLOPS" is FP16 accumulate with sparsity, four times
    // the stored FP32-accumulate dense rate: 84 x 1.86 GHz x 512 = 80.0.
    const auto* rtx3090ti = gpus.find("rtx3090ti");
    REQUIRE(rtx3090ti != nullptr);
    CHECK(rtx3090ti->peak_fp16_flop_per_s * 4 == doctest::Approx(core::teraflop_per_s(320)).epsilon(1e-3));
    CHECK(rtx3090ti->nvlink_bytes_per_s_per_direction == 0.0);
    // RTX 4080: 76 SMs x 2.505 GHz x 1024 = 194.95 TFLOP/s fp8 (stored 195), a quarter of
    // NVIDIA's 780 (FP16 accumulate, sparse).
    const auto* rtx4080 = gpus.find("rtx4080");
    REQUIRE(rtx4080 != nullptr);
    CHECK(rtx4080->peak_fp8_flop_per_s == doctest::Approx(76 * 2.505e9 * 1024).epsilon(1e-3));
    CHECK(rtx4080->peak_fp8_flop_per_s * 4 == doctest::Approx(core::teraflop_per_s(780)).epsilon(1e-3));
    CHECK(rtx4080->l2_cache_bytes == doctest::Approx(core::mebibytes(64)));
    // RTX 5080: NVIDIA's 1,801 AI TOPS (FP4, sparse) = 84 SMs x 2.617 GHz x 8192; fp16 with
    // FP32 accumulate is a sixteenth of it, 112.6 TFLOP/s, the rtx5090's per-SM ratio.
    const auto* rtx5080 = gpus.find("rtx5080");
    REQUIRE(rtx5080 != nullptr);
    CHECK(rtx5080->peak_fp16_flop_per_s * 16 == doctest::Approx(core::teraflop_per_s(1801)).epsilon(1e-3));
    const auto* rtx5090 = gpus.find("rtx5090");
    REQUIRE(rtx5090 != nullptr);
    CHECK(per_sm_clock(*rtx5080, rtx5080->peak_fp16_flop_per_s) ==
          doctest::Approx(per_sm_clock(*rtx5090, rtx5090->peak_fp16_flop_per_s)).epsilon(1e-3));
    // TITAN V: NVIDIA's 110 TFLOPS at the clock it implies, 80 SMs x 1.345 GHz x 1024 =
    // 110.2, the V100's per-SM rate (125 = 80 x 1.53 GHz x 1024); no fp16 halving (a TITAN).
    const auto* titan_v = gpus.find("titan-v");
    const auto* v100 = gpus.find("v100-16gb");
    REQUIRE(titan_v != nullptr);
    REQUIRE(v100 != nullptr);
    CHECK(titan_v->peak_fp16_flop_per_s == doctest::Approx(80 * 1.345e9 * 1024).epsilon(2e-3));
    CHECK(per_sm_clock(*titan_v, titan_v->peak_fp16_flop_per_s) ==
          doctest::Approx(per_sm_clock(*v100, v100->peak_fp16_flop_per_s)).epsilon(2e-3));
    CHECK(titan_v->memory_bytes == doctest::Approx(core::gibibytes(12)));
  }

  TEST_CASE("every shipped entry is consistent with its compute capability") {
    const GpuCatalog gpus = GpuCatalog::load(kGpusYaml);
    for (const auto& gpu : gpus.all()) {
      CAPTURE(gpu.name);
      // AMD: bf16 Matrix Cores, no TF32 path (the loader refuses a tf32 peak there)
      CHECK((gpu.has_tf32_bf16() && !gpu.is_amd()) == (gpu.peak_tf32_flop_per_s > 0.0));
      CHECK(gpu.has_tf32_bf16() == (gpu.peak_bf16_flop_per_s > 0.0));
      CHECK(gpu.has_fp8() == (gpu.peak_fp8_flop_per_s > 0.0));
      // fp16 is at least the fp32 rate wherever tensor cores or fast fp16 exist (all but the
      // GeForce Pascal cards, whose fp16 path is slower than fp32)
      if (gpu.has_tensor_cores_fp16() || gpu.compute_capability_minor == 0) {
        CHECK(gpu.peak_fp16_flop_per_s >= gpu.peak_fp32_flop_per_s);
      } else {
        CHECK(gpu.peak_fp16_flop_per_s < gpu.peak_fp32_flop_per_s);
      }
      CHECK(gpu.idle_w > 0.0);
      CHECK(gpu.idle_w < gpu.tdp_w);
      CHECK_FALSE(gpu.source.empty());
      // read on 2026-11-29, the entries added for issue 14 on 2026-12-01, b300 and gb300 on
      // 2026-12-02, the workstation and GeForce additions (rtx2080ti ...) on 2026-12-07
      CHECK((gpu.retrieved == "2026-11-29" || gpu.retrieved == "2026-12-01" || gpu.retrieved == "2026-12-02" ||
             gpu.retrieved == "2026-12-07"));
    }
  }

  TEST_CASE("a valid inline entry loads") {
    const GpuCatalog gpus = GpuCatalog::parse(volta_yaml("", ""), "inline.yaml");
    const auto* gpu = gpus.find("test-gpu");
    REQUIRE(gpu != nullptr);
    CHECK(gpu->form_factor == "sxm");
    CHECK(gpu->sm_count == 80);
    CHECK(gpu->peak_fp16_flop_per_s == doctest::Approx(core::teraflop_per_s(125)));
    CHECK(gpu->nvlink_bytes_per_s_per_direction == 0.0);
  }

  TEST_CASE("a bare number where a unit is needed") {
    CHECK(error_of([] { GpuCatalog::parse(volta_yaml("tdp: \"300 W\"", "tdp: 300"), "inline.yaml"); }) ==
          "a bare number is not a power: found '300' at inline.yaml:13:10 (gpus.test-gpu.tdp); "
          "write it with a unit, e.g. \"300 W\"");
  }

  TEST_CASE("an unknown key suggests the closest one") {
    CHECK(error_of([] {
            GpuCatalog::parse(volta_yaml("    tdp:", "    nvlink_per_directon: \"150 GB/s\"\n    tdp:"),
                              "inline.yaml");
          }) ==
          "unknown key 'nvlink_per_directon' at inline.yaml:13:5 (gpus.test-gpu.nvlink_per_directon); "
          "did you mean nvlink_per_direction?");
  }

  TEST_CASE("a tf32 peak on a compute capability 7.0 GPU") {
    CHECK(error_of([] {
            GpuCatalog::parse(volta_yaml("      fp16:", "      tf32: \"125 TFLOP/s\"\n      fp16:"),
                              "inline.yaml");
          }) ==
          "tf32 peak on a GPU of compute capability 7.0 at inline.yaml:9:13 "
          "(gpus.test-gpu.peak_dense.tf32); TF32 tensor cores start at compute capability 8.0 "
          "(Ampere): remove tf32 or correct compute_capability");
  }

  TEST_CASE("a compute capability 8.0 GPU must list its tf32 and bf16 peaks") {
    CHECK(error_of([] {
            GpuCatalog::parse(volta_yaml("\"7.0\"", "\"8.0\""), "inline.yaml");
          }) ==
          "missing tf32 peak for compute capability 8.0 at inline.yaml:8:7 "
          "(gpus.test-gpu.peak_dense.tf32); TF32 tensor cores start at compute capability 8.0 "
          "(Ampere): add tf32: \"<dense rate> TFLOP/s\" from the datasheet\n"
          "missing bf16 peak for compute capability 8.0 at inline.yaml:8:7 "
          "(gpus.test-gpu.peak_dense.bf16); BF16 tensor cores start at compute capability 8.0 "
          "(Ampere): add bf16: \"<dense rate> TFLOP/s\" from the datasheet");
  }

  TEST_CASE("all errors of a file are reported together") {
    try {
      GpuCatalog::parse(volta_yaml("sms: 80", "sms: 0\n    tdpp: \"1 W\""), "inline.yaml");
      FAIL("expected a ConfigError");
    } catch (const ConfigError& e) {
      REQUIRE(e.messages().size() == 2);
      CHECK(e.messages()[0] ==
            "out-of-range value 0 at inline.yaml:6:10 (gpus.test-gpu.sms); expected a whole "
            "number from 1 to 1000");
      CHECK(e.messages()[1] ==
            "unknown key 'tdpp' at inline.yaml:7:5 (gpus.test-gpu.tdpp); did you mean tdp?");
    }
  }

  TEST_CASE("idle power must be below the TDP") {
    CHECK(error_of([] {
            GpuCatalog::parse(volta_yaml("idle_power: \"50 W\"", "idle_power: \"300 W\""), "inline.yaml");
          }) ==
          "idle power is not below the TDP at inline.yaml:14:17 (gpus.test-gpu.idle_power); "
          "idle_power is the draw with no kernel running, a fraction of tdp");
  }

  TEST_CASE("clocks: read in Hz; the boost clock is required") {
    const GpuCatalog both = GpuCatalog::parse(
        volta_yaml("    boost_clock: \"1530 MHz\"\n",
                   "    boost_clock: \"1695 MHz\"\n    observed_load_clock: \"1.965 GHz\"\n"),
        "inline.yaml");
    CHECK(both.find("test-gpu")->boost_clock_hz == doctest::Approx(1.695e9));
    CHECK(both.find("test-gpu")->observed_load_clock_hz == doctest::Approx(1.965e9));
    CHECK(error_of([] {
            GpuCatalog::parse(volta_yaml("    boost_clock: \"1530 MHz\"\n", "    observed_load_clock: \"1965 MHz\"\n"),
                              "inline.yaml");
          }) == "missing key 'boost_clock' at inline.yaml:4:5 (gpus.test-gpu.boost_clock); add boost_clock: a clock "
             "frequency with its unit, such as \"1695 MHz\"");
    // the shipped GeForce entries carry both; datacenter parts only the boost clock (they cap at it)
    const GpuCatalog shipped = GpuCatalog::load(kGpusYaml);
    CHECK(shipped.find("rtx3090")->observed_load_clock_hz == doctest::Approx(1.965e9));
    CHECK(shipped.find("a100-80gb")->observed_load_clock_hz == 0.0);
    // A100: 19.5 TFLOP/s fp32 = 6912 cores x 2 x 1.41 GHz (GA100 whitepaper)
    CHECK(shipped.find("a100-80gb")->boost_clock_hz == doctest::Approx(1.41e9));
  }

  TEST_CASE("memory type, L2 and accuracy: read, and a misspelt memory type is refused with the choices") {
    const GpuCatalog shipped = GpuCatalog::load(kGpusYaml);
    CHECK(shipped.find("a100-80gb")->memory_type == gpuplan::models::MemoryType::kHbm2e);
    CHECK(shipped.find("rtx3090")->memory_type == gpuplan::models::MemoryType::kGddr6x);
    CHECK(shipped.find("h100-sxm")->l2_cache_bytes == 50.0 * 1024 * 1024);
    CHECK_FALSE(shipped.find("v100-16gb")->prediction_only);
    CHECK_FALSE(shipped.find("b200")->prediction_only);  // F022 measures it
    CHECK(shipped.find("rtx4090")->prediction_only);
    CHECK(error_of([] { GpuCatalog::parse(volta_yaml("memory_type: hbm2", "memory_type: hmb2"), "inline.yaml"); }) ==
          "unknown value 'hmb2', expected one of hbm2, hbm2e, hbm3, hbm3e, gddr5x, gddr6, gddr6x or gddr7 at "
          "inline.yaml:17:18 (gpus.test-gpu.memory_type); did you mean hbm2, hbm2e or hbm3?");  // the swap first
    CHECK(error_of([] {
            GpuCatalog::parse(volta_yaml("accuracy: measured", "accuracy: guessed"), "inline.yaml");
          }) == "unknown value 'guessed', expected one of measured or prediction-only at inline.yaml:20:15 "
             "(gpus.test-gpu.accuracy)");
  }

  TEST_CASE("inline ECC: a GDDR part that runs with it on allocates 15/16 of its memory; refused on HBM") {
    const GpuCatalog shipped = GpuCatalog::load(kGpusYaml);
    // 24 GiB x 15/16 = 22.5 GiB = 23,040 MiB (nvidia-smi shows 23,034 MiB on a GCP L4).
    CHECK(shipped.find("l4")->memory_bytes == doctest::Approx(core::gibibytes(22.5)));
    CHECK(shipped.find("l4")->marketed_memory_bytes == doctest::Approx(core::gibibytes(24)));
    CHECK(shipped.find("t4")->memory_bytes == doctest::Approx(core::mebibytes(15360)));  // nvidia-smi's figure
    CHECK(shipped.find("a40")->memory_bytes == doctest::Approx(core::gibibytes(45)));
    // GeForce and HBM parts: all of it.
    CHECK(shipped.find("rtx4090")->memory_bytes == doctest::Approx(core::gibibytes(24)));
    CHECK(shipped.find("h100-sxm")->memory_bytes == shipped.find("h100-sxm")->marketed_memory_bytes);
    CHECK(error_of([] {
            GpuCatalog::parse(volta_yaml("memory_type: hbm2", "memory_type: hbm2\n    inline_ecc: true"), "inline.yaml");
          }) == "inline ECC is a GDDR part's: HBM keeps its check bits beside the data at inline.yaml:18:17 "
                "(gpus.test-gpu.inline_ecc); remove inline_ecc (the capacity stays as written)");
  }

  TEST_CASE("an alias may name one GPU only") {
    std::string text = volta_yaml("    form_factor:", "    aliases: [\"V100\"]\n    form_factor:");
    const std::string second = text.substr(text.find("  test-gpu:"));
    text += std::string(second).replace(second.find("test-gpu"), 8, "other-gpu");
    CHECK(error_of([&] { GpuCatalog::parse(text, "inline.yaml"); }) ==
          "alias 'V100' is already a name or alias of test-gpu at inline.yaml:23:15 "
          "(gpus.other-gpu.aliases[0]); a name or alias must identify one GPU (case-insensitive): "
          "remove it here or there");
  }

  TEST_CASE("catalog names are lower-case and hyphenated") {
    CHECK(error_of([] { GpuCatalog::parse(volta_yaml("test-gpu:", "Test_GPU:"), "inline.yaml"); }) ==
          "invalid GPU name 'Test_GPU' at inline.yaml:3:3 (gpus.Test_GPU); catalog names are "
          "lower-case letters, digits and single hyphens, e.g. a100-80gb");
  }

  TEST_CASE("the file format is checked") {
    CHECK(error_of([] {
            GpuCatalog::parse(volta_yaml("gpuplan/v1", "gpuplan/v2"), "inline.yaml");
          }) ==
          "unsupported format 'gpuplan/v2' at inline.yaml:1:9 (format); this version of gpuplan "
          "reads format: gpuplan/v1");
  }

  TEST_CASE("from_specs refuses a shared alias") {
    gpuplan::models::GpuSpec a;
    a.name = "gpu-a";
    a.aliases = {"X"};
    gpuplan::models::GpuSpec b;
    b.name = "gpu-b";
    b.aliases = {"x"};
    CHECK(error_of([&] { GpuCatalog::from_specs({a, b}); }) ==
          "alias 'x' of gpu-b is already a name or alias of gpu-a; names and aliases must identify "
          "one GPU (case-insensitive)");
    const GpuCatalog ok = GpuCatalog::from_specs({a});
    REQUIRE(ok.find("x") != nullptr);
    CHECK(ok.find("x")->name == "gpu-a");
  }

  TEST_CASE("an unreadable file is an error") {
    CHECK(error_of([] { GpuCatalog::load("/nonexistent/gpus.yaml"); }) ==
          "cannot read file '/nonexistent/gpus.yaml': No such file or directory");
  }
}

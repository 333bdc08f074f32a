// The scenario loader on valid input: SI values, documented defaults, catalog expansion,
// strategies, sweeps, the seed override, the expected block and --print-resolved.
// Inline YAML (STYLE.md T7); catalogs are the shipped ones.

#include <algorithm>
#include "config/scenario_loader.h"
#include "config_fixture.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/overrides.h"
#include "core/units.h"
#include "models/job/hardware_failures.h"

namespace gpuplan::config {
namespace {

using namespace testing;

Scenario parse(const std::string& text, const LoadOptions& options = {}) {
  return parse_scenario(text, "s.yaml", shipped_catalogs(), builtin_families(), options);
}

/// The first error message, or "" when the text is valid.
std::string first_error(const std::string& text) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    return e.messages().front();
  }
  return "";
}

const char* const kMinimal = kMinimalScenario;

}  // namespace

TEST_SUITE("config.scenario_loader") {
  TEST_CASE("a minimal scenario resolves to SI values with the documented defaults") {
    const Scenario s = parse(kMinimal);
    CHECK(s.path == "s.yaml");
    CHECK(s.name == "ResNet-50 on ImageNet-1k, one RTX 3090");
    CHECK(s.seed == 42);
    CHECK_FALSE(s.expected);
    REQUIRE(s.variants.size() == 1);
    const Variant& v = s.variants.front();
    CHECK(v.strategy == "baseline");
    CHECK(v.sweep_point.empty());
    const models::JobSpec& job = v.job;
    CHECK(job.scenario_name == s.name);
    CHECK(job.seed == 42);

    CHECK(job.workload.name == "resnet50");
    CHECK(job.workload.family == "resnet");
    CHECK(job.workload.parameters == 25'557'032.0);  // torchvision's count (resnet_family.h)
    CHECK_FALSE(job.workload.is_language_model);

    CHECK(job.dataset.samples == 1'281'167.0);
    CHECK(job.dataset.sample_bytes == core::kibibytes(110));  // 112640 B
    CHECK(job.dataset.decode_time_s == doctest::Approx(0.006));
    CHECK(job.dataset.layout == models::DatasetLayout::kFiles);
    CHECK(job.dataset.eval_samples == 0.0);
    CHECK(job.dataset.eval_every_steps == 0.0);
    CHECK_FALSE(job.dataset.eval_first_rank_only);
    CHECK_FALSE(job.dataset.synthetic);
    CHECK(job.duration.epochs == 90.0);
    CHECK(job.duration.tokens == 0.0);

    CHECK(job.training.batch_size == 32);
    CHECK(job.training.gradient_accumulation == 1);
    CHECK(job.training.precision == models::Precision::kFp32);
    CHECK(job.training.optimizer == models::Optimizer::kSgdMomentum);
    CHECK_FALSE(job.training.activation_checkpointing);
    CHECK(job.training.memory_format == models::MemoryFormat::kChannelsFirst);
    CHECK(job.training.framework_overhead == models::FrameworkOverhead::kEager);
    CHECK(job.training.framework == models::Framework::kPytorch);

    CHECK(job.data_loader.num_workers == 0);
    CHECK(job.data_loader.prefetch_factor == 2);
    CHECK_FALSE(job.data_loader.pin_memory);
    CHECK_FALSE(job.data_loader.persistent_workers);
    CHECK(job.data_loader.preprocess_on == models::PreprocessOn::kCpu);

    CHECK(job.hardware.gpu.name == "rtx3090");
    CHECK(job.hardware.gpu.compute_capability_major == 8);
    CHECK(job.hardware.gpus_per_node == 1);
    CHECK(job.hardware.nodes == 1);
    CHECK(job.hardware.gpu_interconnect == "pcie4");  // the GPU catalog's PCIe generation
    CHECK(job.hardware.cpu_cores == 8);
    CHECK(job.hardware.host_memory_bytes == core::gibibytes(64));
    CHECK(job.hardware.storage.name == "nvme_ssd");
    CHECK(job.hardware.storage.read_bytes_per_s == core::gigabytes_per_s(7));  // catalogs/storage.yaml
    CHECK(job.hardware.network_bytes_per_s == 0.0);

    CHECK(job.parallelism.strategy == models::ParallelStrategy::kNone);
    CHECK(job.parallelism.bucket_bytes == core::mebibytes(25));
    CHECK_FALSE(job.checkpointing.enabled);
    CHECK_FALSE(job.cloud);
    CHECK_FALSE(job.on_premises);
    CHECK(job.trials == 1);
    CHECK(v.preemption_source == PreemptionSource::kNone);
  }

  TEST_CASE("every key written: units are converted to SI") {
    const Scenario s = parse(R"(format: gpuplan/v1
name: all keys
workload:
  model: resnet50
  dataset:
    samples: 1.28e6
    sample_size: "0.5 MB"
    layout: shards
    decode_time: "250 us"
    eval_samples: 50000
    eval_every_steps: 500
    eval_first_rank_only: true
    synthetic: false
  epochs: 0.5
training:
  batch_size: 64
  gradient_accumulation: 2
  precision: bf16_amp
  optimizer: adamw
  activation_checkpointing: true
  memory_format: channels_last
  framework_overhead: cuda_graphs
data_loader:
  num_workers: 6
  prefetch_factor: 4
  pin_memory: true
  persistent_workers: true
  preprocess_on: gpu
hardware:
  gpu: A100-SXM4-80GB
  gpus_per_node: 4
  nodes: 2
  gpu_interconnect: nvlink3
  cpu_cores: 32
  host_memory: "512 GiB"
  storage:
    read_bandwidth: "2.5 GB/s"
    random_read_bandwidth: "1 GB/s"
    write_bandwidth: "1 GB/s"
    latency: "100 us"
    queue_depth: 32
  network: "100 Gbit/s"
parallelism:
  strategy: ddp
  bucket_size: "50 MiB"
checkpointing:
  interval: "30 min"
  async: true
on_premises:
  purchase_price: "$150000"
  amortization: "3 years"
  electricity: "$0.15/kWh"
simulation:
  trials: 200
)");
    REQUIRE(s.variants.size() == 1);
    const models::JobSpec& job = s.variants.front().job;
    CHECK(s.name == "all keys");
    CHECK(s.seed == 0);  // documented default
    CHECK(job.dataset.samples == 1'280'000.0);
    CHECK(job.dataset.sample_bytes == 500'000.0);
    CHECK(job.dataset.layout == models::DatasetLayout::kShards);
    CHECK(job.dataset.decode_time_s == doctest::Approx(core::microseconds(250)));
    CHECK(job.dataset.eval_samples == 50'000.0);
    CHECK(job.dataset.eval_every_steps == 500.0);
    CHECK(job.dataset.eval_first_rank_only);
    CHECK(job.duration.epochs == 0.5);
    CHECK(job.training.gradient_accumulation == 2);
    CHECK(job.training.precision == models::Precision::kBf16Amp);
    CHECK(job.training.optimizer == models::Optimizer::kAdamW);
    CHECK(job.training.activation_checkpointing);
    CHECK(job.training.memory_format == models::MemoryFormat::kChannelsLast);
    CHECK(job.training.framework_overhead == models::FrameworkOverhead::kCudaGraphs);
    CHECK(job.data_loader.num_workers == 6);
    CHECK(job.data_loader.prefetch_factor == 4);
    CHECK(job.data_loader.pin_memory);
    CHECK(job.data_loader.persistent_workers);
    CHECK(job.data_loader.preprocess_on == models::PreprocessOn::kGpu);
    CHECK(job.hardware.gpu.name == "a100-80gb");  // found by its alias
    CHECK(job.hardware.gpus_per_node == 4);
    CHECK(job.hardware.nodes == 2);
    CHECK(job.hardware.gpu_interconnect == "nvlink3");
    CHECK(job.hardware.cpu_cores == 32);
    CHECK(job.hardware.host_memory_bytes == core::gibibytes(512));
    CHECK(job.hardware.storage.name == "inline");
    CHECK(job.hardware.storage.read_bytes_per_s == core::gigabytes_per_s(2.5));
    CHECK(job.hardware.storage.random_read_bytes_per_s == core::gigabytes_per_s(1));
    CHECK(job.hardware.storage.write_bytes_per_s == core::gigabytes_per_s(1));
    CHECK(job.hardware.storage.latency_s == doctest::Approx(core::microseconds(100)));
    CHECK(job.hardware.storage.queue_depth == 32);
    CHECK(job.hardware.network_bytes_per_s == core::gigabits_per_s(100));  // 12.5 GB/s
    CHECK(job.parallelism.strategy == models::ParallelStrategy::kDdp);
    CHECK(job.parallelism.bucket_bytes == core::mebibytes(50));
    CHECK(job.checkpointing.enabled);
    CHECK_FALSE(job.checkpointing.automatic);
    CHECK(job.checkpointing.interval_s == 1800.0);
    CHECK(job.checkpointing.async);
    REQUIRE(job.on_premises);
    CHECK(job.on_premises->purchase_usd == 150'000.0);
    CHECK(job.on_premises->amortization_s == 3 * core::kSecondsPerYear);
    CHECK(job.on_premises->electricity_usd_per_j == doctest::Approx(core::usd_per_kwh(0.15)));
    CHECK(job.trials == 200);
  }

  TEST_CASE("a cloud instance fills in the hardware") {
    const Scenario s = parse(R"(format: gpuplan/v1
workload:
  model: resnet50
  dataset: {samples: 1281167, sample_size: "110 KiB", decode_time: "6 ms"}
  epochs: 90
training: {batch_size: 256}
parallelism: {strategy: ddp}
checkpointing: {interval: auto}
cloud:
  instance: aws/p4d.24xlarge
  region: us-east-1
  market: spot
  preemption_rate: "0.05 /h"
  replacement_wait: "10 min"
)");
    CHECK(s.name == "s");  // the file name's stem
    REQUIRE(s.variants.size() == 1);
    const Variant& v = s.variants.front();
    const models::JobSpec& job = v.job;
    CHECK(job.hardware.gpu.name == "a100-40gb");
    CHECK(job.hardware.gpus_per_node == 8);
    CHECK(job.hardware.nodes == 1);
    CHECK(job.hardware.gpu_interconnect == "nvlink3");
    CHECK(job.hardware.cpu_cores == 48);  // 96 vCPUs ÷ 2 threads per core
    CHECK(job.hardware.host_memory_bytes == core::gibibytes(1152));
    CHECK(job.hardware.storage.name == "nvme_ssd");
    CHECK(job.hardware.network_bytes_per_s == core::gigabits_per_s(400));
    CHECK(job.checkpointing.automatic);
    REQUIRE(job.cloud);
    CHECK(job.cloud->instance.instance_type == "p4d.24xlarge");
    CHECK(job.cloud->instance.region == "us-east-1");
    CHECK(job.cloud->market == models::Market::kSpot);
    CHECK(job.cloud->preemption_rate_per_s == doctest::Approx(core::per_hour(0.05)));
    CHECK(job.cloud->replacement_wait_s == 600.0);
    CHECK(v.preemption_source == PreemptionSource::kRate);
    // Not written: Llama 3's hardware failure rate, 1.97e-5 per GPU-hour, named with its key.
    CHECK(job.hardware.gpu_failure_rate_per_s == models::kGpuFailureRatePerS);
    CHECK(job.hardware.gpu_failure_rate_source ==
          "Llama 3's 419 unexpected interruptions in 54 days on 16,384 H100s (Dubey et al. 2024); set "
          "hardware.gpu_failure_rate for your fleet");
  }

  TEST_CASE("hardware.gpu_failure_rate: a rate per GPU as written, 0 /h for none; with or without a cloud") {
    const auto hardware_of = [](const std::string& sections) {
      return parse("format: gpuplan/v1\nworkload: {model: resnet50, dataset: {samples: 1281167, synthetic: true}, "
                   "epochs: 1}\ntraining: {batch_size: 32}\n" + sections)
          .variants.front()
          .job.hardware;
    };
    const models::HardwareSpec written =
        hardware_of("cloud: {instance: aws/g5.8xlarge}\nhardware: {gpu_failure_rate: \"1 /day\"}\n");
    CHECK(written.gpu_failure_rate_per_s == doctest::Approx(1.0 / 86400.0));
    CHECK(written.gpu_failure_rate_source == "hardware.gpu_failure_rate as written");
    CHECK(hardware_of("hardware: {gpu: a100-80gb, gpu_failure_rate: 0 /h}\n").gpu_failure_rate_per_s == 0.0);
    // Own hardware without the key: the default, as with a cloud instance.
    CHECK(hardware_of("hardware: {gpu: a100-80gb}\n").gpu_failure_rate_per_s == models::kGpuFailureRatePerS);
  }

  TEST_CASE("an inline model with base: starts from that catalog model's structure (GPT-3 XL is 1.32 B)") {
    const auto parameters_of = [](const std::string& model) {
      return parse("format: gpuplan/v1\nworkload:\n  model: " + model +
                   "\n  dataset: {samples: 100000, synthetic: true}\n  epochs: 1\ntraining: {batch_size: 1}\n"
                   "hardware: {gpu: a100-80gb}\n")
          .variants.front()
          .job.workload.parameters;
    };
    // GPT-3 XL (Brown et al. 2020, table 2.1: 24 layers, d_model 2048, 16 heads, 2048 context,
    // "1.3B"): 12 x 24 x 2048^2 weights in the blocks + 50257 x 2048 token and 2048 x 2048
    // position embeddings, tied output, plus biases and norms = 1.3155e9.
    const std::string shape = "layers: 24, hidden: 2048, heads: 16, ffn_hidden: 8192, max_positions: 2048, "
                              "sequence_length: 2048";
    const double gpt = parameters_of("{base: gpt2, " + shape + "}");
    CHECK(gpt == doctest::Approx(1.3155e9).epsilon(0.001));
    // The family's own defaults are SwiGLU and untied embeddings: another, larger model.
    const double bare = parameters_of("{family: transformer_decoder, vocab: 50257, " + shape + "}");
    CHECK(bare > 1.7e9);
    // ... and the choices it took are named, not silent.
    const Scenario s = parse("format: gpuplan/v1\nworkload:\n  model: {family: transformer_decoder, vocab: 50257, " +
                             shape + "}\n  dataset: {samples: 100000, synthetic: true}\n  epochs: 1\n"
                             "training: {batch_size: 1}\nhardware: {gpu: a100-80gb}\n");
    REQUIRE_FALSE(s.variants.front().notes.empty());
    const std::string note = s.variants.front().notes.front();
    CAPTURE(note);
    CHECK(note.rfind("workload.model: ", 0) == 0);
    CHECK(note.find("mlp swiglu") != std::string::npos);
    CHECK(note.find("tied_embeddings false") != std::string::npos);
    CHECK(note.find("(the transformer_decoder defaults, not written)") != std::string::npos);
    const Scenario based = parse("format: gpuplan/v1\nworkload:\n  model: {base: gpt2, " + shape +
                                 "}\n  dataset: {samples: 100000, synthetic: true}\n  epochs: 1\n"
                                 "training: {batch_size: 1}\nhardware: {gpu: a100-80gb}\n");
    CHECK(based.variants.front().notes.front().rfind("synthetic data:", 0) == 0);  // no structural note
    const std::string unknown = error_of([&] { parameters_of("{base: gtp2, layers: 24}"); });
    CHECK(unknown.find("unknown model 'gtp2'") == 0);
    CHECK(unknown.find("did you mean gpt2") != std::string::npos);
  }

  TEST_CASE("the decoder's norm and loss choices (MPT's low-precision layer norm, fused cross-entropy) name the key and the values") {
    const auto error_with = [](const std::string& entry) {
      return error_of([&] {
        parse("format: gpuplan/v1\nworkload:\n  model: {base: mpt-760m, " + entry +
              "}\n  sequence_length: 2048\n  dataset: {samples: 1000, synthetic: true}\n  epochs: 1\n"
              "training: {batch_size: 1}\nhardware: {gpu: a100-80gb}\n");
      });
    };
    CHECK(error_with("loss: fused_crossentropy") ==
          "unknown loss 'fused_crossentropy' at s.yaml:3:33 (workload.model.loss); expected one of "
          "cross_entropy, fused_cross_entropy, fused_linear_cross_entropy; did you mean fused_cross_entropy?");
    CHECK(error_with("norm: low_precision_layer_norm") ==
          "unknown norm 'low_precision_layer_norm' at s.yaml:3:33 (workload.model.norm); expected one of "
          "layernorm, rmsnorm, low_precision_layernorm; did you mean low_precision_layernorm?");
    CHECK(error_with("mlp: relu_2") ==
          "unknown mlp 'relu_2' at s.yaml:3:32 (workload.model.mlp); expected one of "
          "gelu, swiglu, relu2, gelu_new; did you mean relu2?");
    // Nothing near: the list alone.
    CHECK(error_with("norm: batchnorm") ==
          "unknown norm 'batchnorm' at s.yaml:3:33 (workload.model.norm); expected one of "
          "layernorm, rmsnorm, low_precision_layernorm");
  }

  TEST_CASE("the ViT's attention_module (timm or torchvision) names the key and the values") {
    const auto scenario_with = [](const std::string& entry) {
      return "format: gpuplan/v1\nworkload:\n  model: {base: vit-b16, " + entry +
             "}\n  dataset: {samples: 1000, synthetic: true}\n  epochs: 1\n"
             "training: {batch_size: 1}\nhardware: {gpu: a100-80gb}\n";
    };
    const Scenario torchvision = parse(scenario_with("attention_module: torchvision"));
    bool has_layout = false;
    for (const models::Op& op : torchvision.variants.front().job.workload.ops) {
      has_layout = has_layout || op.name == "layers.0.attn.mha_layout";
    }
    CHECK(has_layout);
    CHECK(error_of([&] { parse(scenario_with("attention_module: torch_vision")); }) ==
          "unknown attention_module 'torch_vision' at s.yaml:3:44 (workload.model.attention_module); expected one "
          "of timm, torchvision; did you mean torchvision?");
  }

  TEST_CASE("training.framework: tensorflow is read; a misspelt framework names the key and the values") {
    const auto scenario = [](const std::string& framework) {
      return "format: gpuplan/v1\nworkload:\n  model: bert-large\n  sequence_length: 512\n"
             "  dataset: {samples: 1000, synthetic: true}\n  epochs: 1\n"
             "training: {batch_size: 4, framework: " +
             framework + "}\nhardware: {gpu: v100-16gb}\n";
    };
    CHECK(parse(scenario("tensorflow")).variants.front().job.training.framework == models::Framework::kTensorflow);
    CHECK(error_of([&] { parse(scenario("tensorfow")); }) ==
          "unknown value 'tensorfow', expected one of pytorch or tensorflow at s.yaml:7:38 (training.framework); did "
          "you mean tensorflow?");
  }

  TEST_CASE("a preemption rate or replacement wait on the on-demand market is named unused, unless a variant may use it") {
    const std::string one = R"(format: gpuplan/v1
workload: {model: gpt2, sequence_length: 1024, tokens: 1e9, dataset: {synthetic: true}}
training: {batch_size: 8}
cloud: {instance: aws/p5.48xlarge, market: on_demand, preemption_rate: 0.5 /h, replacement_wait: "10 min"}
parallelism: {strategy: ddp}
)";
    const std::string unused =
        "cloud.preemption_rate applies on the spot market only: this on-demand run has no preemptions (set "
        "cloud.market: spot, here or in a strategy, to use it)";
    const std::string ignored =
        "cloud.replacement_wait (line 4, column 98): applies on the spot market only and is ignored on the on-demand "
        "market (a node is never preempted there); remove it, or set cloud.market: spot (here or in a strategy) to use "
        "it (gpuplan plan reads it for its spot plans)";
    const auto has = [](const Variant& v, const std::string& note) {
      return std::find(v.notes.begin(), v.notes.end(), note) != v.notes.end();
    };
    const Scenario alone = parse(one);
    REQUIRE(alone.variants.size() == 1);
    CHECK(has(alone.variants[0], unused));
    CHECK(has(alone.variants[0], ignored));
    // With strategies, one of which sets the spot market, the on-demand one gets no note:
    // removing the keys would change the spot strategy.
    const Scenario s = parse(one + "strategies:\n  od: {}\n  spot: {cloud.market: spot}\n");
    REQUIRE(s.variants.size() == 2);
    CHECK_FALSE(has(s.variants[0], unused));
    CHECK_FALSE(has(s.variants[0], ignored));
    REQUIRE(s.variants[1].job.cloud);
    CHECK(s.variants[1].job.cloud->preemption_rate_per_s == doctest::Approx(0.5 / 3600.0));
    CHECK(s.variants[1].job.cloud->replacement_wait_s == 600.0);
  }

  TEST_CASE("synthetic data needs no cpu_cores, host_memory or storage: documented defaults, named in notes") {
    const Scenario s = parse(R"(format: gpuplan/v1
workload:
  model: resnet50
  dataset: {samples: 1281167, synthetic: true}
  epochs: 1
training: {batch_size: 64}
hardware: {gpu: a100-80gb, gpus_per_node: 4}
parallelism: {strategy: ddp}
)");
    const Variant& v = s.variants.front();
    CHECK(v.job.hardware.cpu_cores == 4);  // one per GPU
    CHECK(v.job.hardware.host_memory_bytes == 0.0);
    CHECK(v.job.hardware.storage.name == "nvme_ssd");
    CHECK(v.notes == Messages{"synthetic data: hardware.cpu_cores defaults to 4 (one per GPU)",
                              "synthetic data: hardware.host_memory defaults to 0 B (no loader batch or dataset is held)",
                              "synthetic data: hardware.storage defaults to nvme_ssd (it holds only the checkpoints)"});
    // Real data still needs them.
    const std::string real = error_of([] {
      parse("format: gpuplan/v1\nworkload: {model: resnet50, dataset: {samples: 1000, sample_size: \"110 KiB\", "
            "decode_time: \"6 ms\"}, epochs: 1}\ntraining: {batch_size: 64}\nhardware: {gpu: a100-80gb}\n");
    });
    CHECK(real.find("missing key 'cpu_cores'") == 0);
  }

  TEST_CASE("a language model left on the image recipes' optimizer and precision defaults is told so") {
    const auto notes_of = [](const std::string& training) {
      const Scenario s = parse("format: gpuplan/v1\nworkload: {model: gpt2, tokens: 1e9, dataset: {synthetic: true}}\n"
                               "training: " + training + "\nhardware: {gpu: a100-80gb}\n");
      std::vector<std::string> defaults;
      for (const std::string& n : s.variants.front().notes) {
        if (n.starts_with("training.")) defaults.push_back(n);
      }
      return defaults;
    };
    CHECK(notes_of("{batch_size: 8}") ==
          std::vector<std::string>{
              "training.optimizer defaults to sgd_momentum; language models mostly train with adamw: set "
              "training.optimizer",
              "training.precision defaults to fp32; language models mostly train in bf16_amp or bf16: set "
              "training.precision"});
    CHECK(notes_of("{batch_size: 8, optimizer: adamw, precision: bf16_amp}").empty());
  }

  TEST_CASE("checkpointing.destination: storage class bandwidths, and whether a preemption keeps them") {
    const auto with_destination = [](const std::string& destination) {
      return parse(std::string(kMinimal) + "checkpointing: {interval: \"30 min\", destination: " + destination + "}\n")
          .variants.front()
          .job.checkpointing;
    };
    const models::CheckpointSpec plain = parse(std::string(kMinimal) + "checkpointing: {interval: \"30 min\"}\n")
                                             .variants.front()
                                             .job.checkpointing;
    CHECK(plain.destination == "hardware_storage");
    CHECK(plain.write_bytes_per_s == 0.0);  // the node's hardware.storage
    CHECK(plain.survives_preemption);
    // catalogs/storage.yaml: nvme_ssd writes 4.2 GB/s, reads 7 GB/s; object_store_fuse 500 MB/s
    // and 1 GB/s; nfs 500 MiB/s and 1500 MiB/s.
    const models::CheckpointSpec local = with_destination("local_nvme");
    CHECK(local.write_bytes_per_s == doctest::Approx(4.2e9));
    CHECK(local.read_bytes_per_s == doctest::Approx(7e9));
    CHECK_FALSE(local.survives_preemption);
    const models::CheckpointSpec object = with_destination("object_store");
    CHECK(object.write_bytes_per_s == doctest::Approx(500e6));
    CHECK(object.read_bytes_per_s == doctest::Approx(1e9));
    CHECK(object.survives_preemption);
    const models::CheckpointSpec nfs = with_destination("network_fs");
    CHECK(nfs.write_bytes_per_s == doctest::Approx(500.0 * 1024 * 1024));
    CHECK(nfs.read_bytes_per_s == doctest::Approx(1500.0 * 1024 * 1024));
    const models::CheckpointSpec custom = with_destination("{write_bandwidth: \"2 GB/s\"}");
    CHECK(custom.destination == "custom");
    CHECK(custom.write_bytes_per_s == doctest::Approx(2e9));
    CHECK(custom.read_bytes_per_s == doctest::Approx(2e9));  // read defaults to the write bandwidth
    CHECK(custom.survives_preemption);
    CHECK_FALSE(with_destination("{write_bandwidth: \"2 GB/s\", survives_preemption: false}").survives_preemption);
    const std::string bad = error_of([&] { with_destination("object_stor"); });
    CHECK(bad.find("(checkpointing.destination)") != std::string::npos);
    CHECK(bad.find("object_store") != std::string::npos);
  }

  TEST_CASE("an alias resolves with a note naming the choice (and the others, where it names several)") {
    const auto notes_for = [](const std::string& gpu) {
      return parse(with_replaced(kMinimal, "gpu: rtx3090", "gpu: " + gpu)).variants.front().notes;
    };
    CHECK(notes_for("H100") == Messages{"hardware.gpu: H100 is taken as h100-sxm; it also names h100-pcie and "
                                        "h100-nvl (write the catalog name to choose one)"});
    CHECK(notes_for("A100") == Messages{"hardware.gpu: A100 is taken as a100-40gb; it also names a100-80gb, "
                                        "a100-40gb-pcie and a100-80gb-pcie (write the catalog name to choose one)"});
    CHECK(notes_for("h100-sxm").empty());
    CHECK(notes_for("a100-40gb").empty());  // the name itself, though a100-40gb-pcie starts with it
    // An alias of one GPU: what it was read as; the catalog name in capitals is no alias.
    CHECK(notes_for("NVIDIA H100 80GB HBM3") ==
          Messages{"hardware.gpu (line 14, column 8): gpu 'NVIDIA H100 80GB HBM3' read as h100-sxm; write gpu: "
                   "h100-sxm to name the catalog entry"});
    CHECK(notes_for("NVIDIA A100-SXM4-40GB") ==
          Messages{"hardware.gpu (line 14, column 8): gpu 'NVIDIA A100-SXM4-40GB' read as a100-40gb; write gpu: "
                   "a100-40gb to name the catalog entry"});
    CHECK(notes_for("L40").empty());  // l40s does not start with "l40-"
    CHECK(notes_for("H100-SXM").empty());
  }

  TEST_CASE("cloud.zone picks that zone's row and its spot price, as plan prices zones") {
    const std::string base = R"(format: gpuplan/v1
workload:
  model: resnet50
  dataset: {samples: 1281167, sample_size: "110 KiB", decode_time: "6 ms"}
  epochs: 90
training: {batch_size: 256}
parallelism: {strategy: ddp}
cloud:
  instance: aws/p4d.24xlarge
  region: us-east-1
  market: spot
  replacement_wait: "10 min"
)";
    // catalogs/instances/aws.csv: p4d.24xlarge spot $5.0933/h in use1-az6, $6.7915/h in use1-az1
    // (the first row, the default without a zone).
    const Scenario first = parse(base);
    REQUIRE(first.variants.front().job.cloud);
    CHECK(first.variants.front().job.cloud->instance.zone == "use1-az1");
    CHECK(first.variants.front().job.cloud->instance.spot_price_usd_per_s == doctest::Approx(6.7915 / 3600.0));
    const Scenario zoned = parse(base + "  zone: use1-az6\n");
    REQUIRE(zoned.variants.front().job.cloud);
    CHECK(zoned.variants.front().job.cloud->instance.zone == "use1-az6");
    CHECK(zoned.variants.front().job.cloud->instance.spot_price_usd_per_s == doctest::Approx(5.0933 / 3600.0));
    const std::string bad = error_of([&] { parse(base + "  zone: use1-az7\n"); });
    CHECK(bad.find("aws/p4d.24xlarge has no row for zone 'use1-az7' in region us-east-1 in the catalog at s.yaml:13:9 "
                   "(cloud.zone); did you mean use1-az1, use1-az2 or use1-az6?") == 0);
    const std::string far = error_of([&] { parse(base + "  zone: eu-central\n"); });
    CHECK(far.find("(cloud.zone); pick one of use1-az1, use1-az2, use1-az6") != std::string::npos);
  }

  TEST_CASE("a language model: catalog sequence length, its override, tokens") {
    const std::string llm = R"(format: gpuplan/v1
workload:
  model: llama2-7b
  dataset: {samples: 52002, sample_size: "2 KiB", decode_time: "50 us", layout: shards}
  tokens: 2e9
training: {batch_size: 1, precision: bf16_amp, optimizer: adamw}
hardware: {gpu: h100-sxm, cpu_cores: 16, host_memory: "256 GiB", storage: nvme_ssd}
)";
    const Scenario catalog_length = parse(llm);
    const models::JobSpec& job = catalog_length.variants.front().job;
    CHECK(job.workload.is_language_model);
    CHECK(job.workload.tokens_per_sample == 4096.0);  // catalogs/models.yaml
    CHECK(job.duration.tokens == 2e9);
    CHECK(job.duration.epochs == 0.0);
    const Scenario shorter =
        parse(llm + "strategies:\n  s2048: {workload.sequence_length: 2048}\n");
    CHECK(shorter.variants.front().job.workload.tokens_per_sample == 2048.0);
    CHECK(shorter.variants.front().notes.empty());
    // Longer than the context the model was trained at: run as written, with a note.
    const Scenario longer = parse(with_replaced(llm, "  tokens: 2e9", "  tokens: 2e9\n  sequence_length: 32768"));
    CHECK(longer.variants.front().job.workload.tokens_per_sample == 32768.0);
    CHECK(longer.variants.front().notes ==
          Messages{"workload.sequence_length (line 6, column 20): 32768 tokens per sequence, longer than the 4096 "
                   "llama2-7b was trained on (its catalog sequence_length); lower it to 4096 or less, or keep it to "
                   "plan a context extension (the model needs long-context training before it uses the length)"});
  }

  TEST_CASE("an inline model is built by its family") {
    const Scenario s = parse(R"(format: gpuplan/v1
workload:
  model: {family: transformer_decoder, layers: 2, hidden: 256, heads: 4, ffn_hidden: 1024, vocab: 1000,
          mlp: gelu, bias: true}
  sequence_length: 128
  dataset: {samples: 1000, synthetic: true}
  epochs: 1
training: {batch_size: 8}
hardware: {gpu: t4, cpu_cores: 4, host_memory: "16 GiB", storage: nvme_ssd}
)");
    const models::JobSpec& job = s.variants.front().job;
    CHECK(job.workload.name == "inline");
    CHECK(job.workload.family == "transformer_decoder");
    CHECK(job.workload.tokens_per_sample == 128.0);
    CHECK(job.dataset.synthetic);
    CHECK(job.dataset.sample_bytes == 0.0);  // not needed with synthetic data
  }

  TEST_CASE("strategies: one variant each, overrides applied to a copy of the base") {
    const Scenario s = parse(std::string(kMinimal) + R"(data_loader:
  num_workers: 2
strategies:
  baseline: {}
  workers_4: { data_loader.num_workers: 4 }
  amp: { training: { precision: fp16_amp } }
  amp_bs64_workers_4:
    training.precision: fp16_amp
    training.batch_size: 64
    data_loader.num_workers: 4
  no_loader_settings: { data_loader: ~ }
)");
    REQUIRE(s.variants.size() == 5);
    CHECK(s.variants[0].strategy == "baseline");
    CHECK(s.variants[0].job.data_loader.num_workers == 2);
    CHECK(s.variants[0].job.training.precision == models::Precision::kFp32);
    CHECK(s.variants[1].strategy == "workers_4");
    CHECK(s.variants[1].job.data_loader.num_workers == 4);
    CHECK(s.variants[1].job.training.batch_size == 32);
    CHECK(s.variants[2].strategy == "amp");
    CHECK(s.variants[2].job.training.precision == models::Precision::kFp16Amp);
    CHECK(s.variants[2].job.data_loader.num_workers == 2);
    CHECK(s.variants[3].job.training.precision == models::Precision::kFp16Amp);
    CHECK(s.variants[3].job.training.batch_size == 64);
    CHECK(s.variants[3].job.data_loader.num_workers == 4);
    CHECK(s.variants[4].job.data_loader.num_workers == 0);  // removed: back to the default
    for (const Variant& v : s.variants) {
      CHECK(v.sweep_point.empty());
    }
  }

  TEST_CASE("a key a strategy removes (~) is back for the strategies after it") {
    const Scenario s = parse(std::string(kMinimal) + R"(data_loader:
  num_workers: 2
strategies:
  baseline: {}
  no_workers: { data_loader.num_workers: ~ }
  no_loader: { data_loader: ~ }
  baseline_again: {}
)");
    REQUIRE(s.variants.size() == 4);
    CHECK(s.variants[0].job.data_loader.num_workers == 2);
    CHECK(s.variants[1].job.data_loader.num_workers == 0);
    CHECK(s.variants[2].job.data_loader.num_workers == 0);
    CHECK(s.variants[3].job.data_loader.num_workers == 2);
  }

  TEST_CASE("a sweep expands to the Cartesian product in the order written, for every strategy") {
    const Scenario s = parse(R"(format: gpuplan/v1
workload:
  model: resnet50
  dataset: {samples: 1281167, sample_size: "110 KiB", decode_time: "6 ms"}
  epochs: 90
training: {batch_size: 64}
parallelism: {strategy: ddp}
cloud:
  instance: aws/p4d.24xlarge
  preemption_rate: catalog
  replacement_wait: "10 min"
strategies:
  baseline: {}
  workers_4: {data_loader.num_workers: 4}
sweep:
  hardware.gpus_per_node: [1, 2, 8]
  cloud.market: [on_demand, spot]
)");
    REQUIRE(s.variants.size() == 12);
    const char* const points[] = {
        "hardware.gpus_per_node=1, cloud.market=on_demand", "hardware.gpus_per_node=1, cloud.market=spot",
        "hardware.gpus_per_node=2, cloud.market=on_demand", "hardware.gpus_per_node=2, cloud.market=spot",
        "hardware.gpus_per_node=8, cloud.market=on_demand", "hardware.gpus_per_node=8, cloud.market=spot",
    };
    const int gpus[] = {1, 1, 2, 2, 8, 8};
    for (std::size_t i = 0; i < 12; ++i) {
      const Variant& v = s.variants[i];
      CAPTURE(i);
      CHECK(v.strategy == (i < 6 ? "baseline" : "workers_4"));
      CHECK(v.sweep_point == points[i % 6]);
      CHECK(v.job.hardware.gpus_per_node == gpus[i % 6]);
      const bool spot = i % 2 == 1;
      CHECK(v.job.cloud->market == (spot ? models::Market::kSpot : models::Market::kOnDemand));
      CHECK(v.preemption_source == (spot ? PreemptionSource::kCatalog : PreemptionSource::kNone));
      CHECK(v.job.data_loader.num_workers == (i < 6 ? 0 : 4));
    }
  }

  TEST_CASE("a preemption trace is found relative to the scenario's folder") {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gpuplan_scenario_loader_test";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "trace.json") << R"({"metadata": {"gap_seconds": 600}, "data": [1, 1, 0, 1]})";
    const std::string text = R"(format: gpuplan/v1
workload: {model: resnet50, dataset: {samples: 1281167, sample_size: "110 KiB", decode_time: "6 ms"}, epochs: 90}
training: {batch_size: 32}
cloud:
  instance: aws/g5.8xlarge
  market: spot
  replacement_wait: "5 min"
  preemption_rate: {trace: trace.json}
)";
    const Scenario s = parse_scenario(text, (dir / "s.yaml").string(), shipped_catalogs(), builtin_families());
    REQUIRE(s.variants.size() == 1);
    CHECK(s.variants[0].preemption_source == PreemptionSource::kTrace);
    CHECK(s.variants[0].preemption_trace == (dir / "trace.json").string());
    CHECK(s.variants[0].job.hardware.gpu.name == "a10g");
    std::filesystem::remove_all(dir);
  }

  TEST_CASE("the seed override replaces the file's seed in every variant") {
    LoadOptions options;
    options.seed_override = 7;
    const Scenario s = parse(std::string(kMinimal) + "strategies: {a: {}, b: {training.batch_size: 16}}\n", options);
    CHECK(s.seed == 7);
    REQUIRE(s.variants.size() == 2);
    CHECK(s.variants[0].job.seed == 7);
    CHECK(s.variants[1].job.seed == 7);
  }

  TEST_CASE("the expected block keeps SI values, the text and the position") {
    const Scenario s = parse(std::string(kMinimal) + R"(expected:
  source: "DeepLearningExamples README"
  throughput: "2650 samples/s"
  peak_memory: "20 GiB"
  fits: true
  step_time: "12 ms"
  mfu: 0.41
)");
    REQUIRE(s.expected);
    CHECK(s.expected->source == "DeepLearningExamples README");
    REQUIRE(s.expected->values.size() == 5);
    CHECK(s.expected->values[0].metric == "throughput");
    CHECK(s.expected->values[0].value == 2650.0);
    CHECK(s.expected->values[0].text == "2650 samples/s");
    CHECK(s.expected->values[0].mark.line == 20);
    CHECK(s.expected->values[0].mark.column == 15);
    CHECK(s.expected->values[1].value == core::gibibytes(20));
    CHECK(s.expected->values[2].value == 1.0);
    CHECK(s.expected->values[3].value == doctest::Approx(0.012));
    CHECK(s.expected->values[4].metric == "mfu");
    CHECK(s.expected->values[4].value == 0.41);
  }

  TEST_CASE("fp16_amp is accepted on a GPU without tensor cores (it runs, slowly)") {
    std::string text = kMinimal;
    text.replace(text.find("rtx3090"), 7, "gtx1080ti");
    CHECK(first_error(text + "strategies: {amp: {training.precision: fp16_amp}}\n").empty());
  }

  TEST_CASE("print_resolved shows every variant with SI units, the same bytes every time") {
    const std::string yaml =
        std::string(kMinimal) + "strategies: {baseline: {}, amp: {training.precision: fp16_amp}}\n";
    const std::string text = print_resolved(parse(yaml));
    CHECK(text == print_resolved(parse(yaml)));
    CHECK(text.find("name: ResNet-50 on ImageNet-1k, one RTX 3090\n") != std::string::npos);
    CHECK(text.find("  - strategy: baseline\n") != std::string::npos);
    CHECK(text.find("  - strategy: amp\n") != std::string::npos);
    CHECK(text.find("      sample_size: 112640 B\n") != std::string::npos);
    CHECK(text.find("      decode_time: 0.006 s\n") != std::string::npos);
    CHECK(text.find("      precision: fp16_amp\n") != std::string::npos);
    CHECK(text.find("      bucket_size: 26214400 B\n") != std::string::npos);
    CHECK(text.find("        name: rtx3090\n") != std::string::npos);
    CHECK(text.find("        compute_capability: 8.6\n") != std::string::npos);
    // The printed text is YAML.
    CHECK_NOTHROW(YAML::Load(text));
  }

  TEST_CASE("every overridable path is read by the validator") {
    // A list is a wrong value for every leaf: each must give an error at the override,
    // never "unknown key" (which would mean that the validator does not read the key).
    for (const std::string& path : overridable_paths()) {
      if (path.find('<') != std::string::npos) {
        continue;
      }
      CAPTURE(path);
      std::vector<std::string> messages;
      try {
        parse(std::string(kMinimal) + "strategies:\n  s: {" + path + ": [1, 2]}\n");
      } catch (const ConfigError& e) {
        messages = e.messages();
      }
      REQUIRE_FALSE(messages.empty());
      bool at_override = false;
      for (const std::string& m : messages) {
        CHECK(m.find("unknown key") == std::string::npos);
        at_override = at_override || m.find("(strategies.s." + path) != std::string::npos;
      }
      CHECK(at_override);
    }
  }
}

}  // namespace gpuplan::config

// parallelism.strategy fsdp / zero, parallelism.sharding, parallelism.zero_stage and parallelism.offload: the
// values read, and every refused combination with its whole message (STYLE.md T4).

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config/scenario_loader.h"
#include "config_fixture.h"

namespace gpuplan::config {
namespace {

using namespace testing;

/// kMinimalScenario on 4 RTX 3090s (hardware.gpus_per_node at line 15), then `parallelism`
/// from line 19 on.
std::string on_four_gpus(const std::string& parallelism) {
  return with_replaced(kMinimalScenario, "  gpu: rtx3090", "  gpu: rtx3090\n  gpus_per_node: 4") + parallelism;
}

models::ParallelismSpec parallelism_of(const std::string& text) {
  return parse_text(text).variants.front().job.parallelism;
}

}  // namespace

TEST_SUITE("config.scenario_parallelism") {
  TEST_CASE("fsdp reads its sharding, full_shard by default") {
    const models::ParallelismSpec fsdp = parallelism_of(on_four_gpus("parallelism: {strategy: fsdp}\n"));
    CHECK(fsdp.strategy == models::ParallelStrategy::kFsdp);
    CHECK(fsdp.sharding == models::Sharding::kFullShard);
    CHECK(fsdp.zero_stage == 0);
    CHECK(parallelism_of(on_four_gpus("parallelism: {strategy: fsdp, sharding: shard_grad_op}\n")).sharding ==
          models::Sharding::kShardGradOp);
    CHECK(parallelism_of(on_four_gpus("parallelism: {strategy: fsdp, sharding: hybrid_shard}\n")).sharding ==
          models::Sharding::kHybridShard);
    CHECK(parallelism_of(on_four_gpus("parallelism: {strategy: fsdp, sharding: no_shard}\n")).sharding ==
          models::Sharding::kNoShard);
  }

  TEST_CASE("zero reads its stage") {
    const models::ParallelismSpec zero = parallelism_of(on_four_gpus("parallelism: {strategy: zero, zero_stage: 2}\n"));
    CHECK(zero.strategy == models::ParallelStrategy::kZero);
    CHECK(zero.zero_stage == 2);
  }

  TEST_CASE("zero needs its stage") {
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: zero\n")) ==
          Messages{"missing key 'zero_stage' at s.yaml:20:3 (parallelism.zero_stage); add zero_stage: 1 "
                   "(optimizer state), 2 (and gradients) or 3 (and parameters)"});
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: zero\n  zero_stage: 4\n")) ==
          Messages{"out-of-range value 4 at s.yaml:21:15 (parallelism.zero_stage); expected a whole number "
                   "from 1 to 3"});
  }

  TEST_CASE("zero_stage without strategy zero") {
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: ddp\n  zero_stage: 2\n")) ==
          Messages{"zero_stage applies to strategy zero, but the strategy is ddp at s.yaml:21:15 "
                   "(parallelism.zero_stage); set parallelism.strategy: zero, or remove zero_stage"});
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: data_parallel\n  zero_stage: 3\n")) ==
          Messages{"zero_stage 3 shards the parameters over the training processes, but data_parallel runs one "
                   "process at s.yaml:21:15 (parallelism.zero_stage); use strategy: zero (or fsdp, whose "
                   "full_shard is ZeRO-3)"});
  }

  TEST_CASE("fp8_all_gather: read with fp8 and per-layer gathers, refused elsewhere with the fix") {
    const std::string fp8 = "  gpu: rtx4090\n  gpus_per_node: 4";  // cc 8.9: fp8 runs
    const auto on_fp8 = [&fp8](const std::string& parallelism) {
      // precision at line 13: parallelism from line 20 on. ViT-B/16: its blocks' linears run
      // fp8 (ResNet-50 has none, and fp8 is refused on it).
      return with_replaced(with_replaced(with_replaced(kMinimalScenario, "  gpu: rtx3090", fp8), "  batch_size: 32",
                                         "  batch_size: 32\n  precision: fp8"),
                           "  model: resnet50", "  model: vit-b16") +
             parallelism;
    };
    CHECK(parallelism_of(on_fp8("parallelism: {strategy: fsdp, fp8_all_gather: true}\n")).fp8_all_gather);
    CHECK(parallelism_of(on_fp8("parallelism: {strategy: zero, zero_stage: 3, fp8_all_gather: true}\n")).fp8_all_gather);
    CHECK_FALSE(parallelism_of(on_fp8("parallelism: {strategy: fsdp}\n")).fp8_all_gather);
    CHECK(scenario_errors(on_fp8("parallelism:\n  strategy: ddp\n  fp8_all_gather: true\n")) ==
          Messages{"fp8_all_gather casts the per-layer parameter all-gathers, which strategy ddp does not run at "
                   "s.yaml:22:19 (parallelism.fp8_all_gather); use strategy: fsdp (full_shard, shard_grad_op or "
                   "hybrid_shard) or zero with zero_stage: 3, or remove fp8_all_gather"});
    CHECK(scenario_errors(on_fp8("parallelism:\n  strategy: zero\n  zero_stage: 2\n  fp8_all_gather: true\n")) ==
          Messages{"fp8_all_gather casts the per-layer parameter all-gathers, which zero with zero_stage 2 does not "
                   "run at s.yaml:23:19 (parallelism.fp8_all_gather); use strategy: fsdp (full_shard, shard_grad_op "
                   "or hybrid_shard) or zero with zero_stage: 3, or remove fp8_all_gather"});
    CHECK(scenario_errors(on_fp8("parallelism:\n  strategy: fsdp\n  sharding: no_shard\n  fp8_all_gather: true\n")) ==
          Messages{"fp8_all_gather casts the per-layer parameter all-gathers, which fsdp with sharding no_shard does "
                   "not run at s.yaml:23:19 (parallelism.fp8_all_gather); use strategy: fsdp (full_shard, "
                   "shard_grad_op or hybrid_shard) or zero with zero_stage: 3, or remove fp8_all_gather"});
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: fsdp\n  fp8_all_gather: true\n")) ==
          Messages{"fp8_all_gather gathers the float8 weights of precision fp8, but training.precision is fp32 at "
                   "s.yaml:21:19 (parallelism.fp8_all_gather); set training.precision: fp8, or remove "
                   "fp8_all_gather"});
  }

  TEST_CASE("offload: read with fsdp and zero, none by default") {
    const models::ParallelismSpec none = parallelism_of(on_four_gpus("parallelism: {strategy: zero, zero_stage: 3}\n"));
    CHECK(none.optimizer_offload == models::OffloadTarget::kNone);
    CHECK(none.parameter_offload == models::OffloadTarget::kNone);
    const models::ParallelismSpec zero = parallelism_of(
        on_four_gpus("parallelism: {strategy: zero, zero_stage: 3, offload: {optimizer: cpu, parameters: nvme}}\n"));
    CHECK(zero.optimizer_offload == models::OffloadTarget::kCpu);
    CHECK(zero.parameter_offload == models::OffloadTarget::kNvme);
    const models::ParallelismSpec zero2 =
        parallelism_of(on_four_gpus("parallelism: {strategy: zero, zero_stage: 2, offload: {optimizer: nvme}}\n"));
    CHECK(zero2.optimizer_offload == models::OffloadTarget::kNvme);
    CHECK(zero2.parameter_offload == models::OffloadTarget::kNone);
    const models::ParallelismSpec fsdp = parallelism_of(
        on_four_gpus("parallelism: {strategy: fsdp, sharding: hybrid_shard, offload: {optimizer: cpu, parameters: cpu}}\n"));
    CHECK(fsdp.optimizer_offload == models::OffloadTarget::kCpu);
    CHECK(fsdp.parameter_offload == models::OffloadTarget::kCpu);
  }

  TEST_CASE("offload to cpu: the states must fit the node's host memory, which synthetic data must then give") {
    // Llama-3-8B (8.03e9 parameters) under bf16 AMP with AdamW on 8 GPUs of one node, ZeRO-3
    // with the optimizer on the CPU: per node 8.03e9 x (4 B fp32 master + 4 B fp32 gradient +
    // 8 B moments) = 128.5 GB (the 16 B of DeepSpeed's estimate_zero3_model_states_mem_needs).
    const std::string base = "format: gpuplan/v1\nname: off\nworkload:\n  model: llama3-8b\n  sequence_length: 2048\n"
                             "  tokens: 1e9\n  dataset: {synthetic: true}\n"
                             "training: {batch_size: 1, precision: bf16_amp, optimizer: adamw}\n"
                             "parallelism: {strategy: zero, zero_stage: 3, offload: {optimizer: cpu}}\n";
    CHECK(scenario_errors(base + "hardware: {gpu: h100-sxm, gpus_per_node: 8}\n") ==
          Messages{"parallelism.offload keeps 128.5 GB of training state in host memory per node, but "
                   "hardware.host_memory is not given (synthetic data defaults it to 0 B) at s.yaml:10:11 "
                   "(hardware.host_memory); add hardware.host_memory: the node's real host memory (at least "
                   "128.5 GB)"});
    CHECK(scenario_errors(base + "hardware: {gpu: h100-sxm, gpus_per_node: 8, cpu_cores: 96, host_memory: \"100 GiB\"}\n") ==
          Messages{"host memory 107.4 GB per node is less than the 128.5 GB of states parallelism.offload keeps in "
                   "host memory (8 GPU(s) x their shards of the fp32 master weights, optimizer state and fp32 "
                   "gradients, and of the parameters where offload.parameters is cpu) at s.yaml:10:73 "
                   "(hardware.host_memory); give the node's real host memory (at least 128.5 GB), offload to nvme, "
                   "or add nodes to shard the states over"});
    // FSDP's CPUOffload has host memory only: no NVMe in the fix (a trial's FSDP case was told
    // to "offload to nvme", which FSDP refuses).
    const std::string zero3 = "{strategy: zero, zero_stage: 3, offload: {optimizer: cpu}}";
    std::string fsdp = base;
    fsdp.replace(fsdp.find(zero3), zero3.size(), "{strategy: fsdp, offload: {optimizer: cpu, parameters: cpu}}");
    CHECK(scenario_errors(fsdp + "hardware: {gpu: h100-sxm, gpus_per_node: 8, cpu_cores: 96, host_memory: \"100 GiB\"}\n") ==
          Messages{"host memory 107.4 GB per node is less than the 144.5 GB of states parallelism.offload keeps in "
                   "host memory (8 GPU(s) x their shards of the fp32 master weights, optimizer state and fp32 "
                   "gradients, and of the parameters where offload.parameters is cpu) at s.yaml:10:73 "
                   "(hardware.host_memory); give the node's real host memory (at least 144.5 GB), or add nodes to "
                   "shard the states over"});
    // Two nodes hold half each; 100 GiB is then enough.
    CHECK(parse_text(base + "hardware: {gpu: h100-sxm, gpus_per_node: 8, nodes: 2, network: \"400 Gbit/s\", "
                            "cpu_cores: 96, host_memory: \"100 GiB\"}\n")
              .variants.front()
              .job.hardware.nodes == 2);
    // 150 GiB (161.1 GB) holds the 128.5 GB but not DeepSpeed's 1.5 x 128.5 = 192.7 GB: a note at
    // the key; 180 GiB (193.3 GB) holds that too, and no note.
    const std::vector<std::string> tight =
        parse_text(base + "hardware: {gpu: h100-sxm, gpus_per_node: 8, cpu_cores: 96, host_memory: \"150 GiB\"}\n")
            .variants.front()
            .notes;
    CHECK(std::count(tight.begin(), tight.end(),
                     "hardware.host_memory (line 10, column 73): host memory 161.1 GB per node holds the 128.5 GB "
                     "of offloaded states and loader batches with less to spare than DeepSpeed's estimators allow "
                     "(192.7 GB with their additional_buffer_factor of 1.5 on the states); the ranks' processes and "
                     "pinned buffers use host memory too: check the node's free memory, or offload to nvme or add "
                     "nodes") == 1);
    const std::vector<std::string> roomy =
        parse_text(base + "hardware: {gpu: h100-sxm, gpus_per_node: 8, cpu_cores: 96, host_memory: \"180 GiB\"}\n")
            .variants.front()
            .notes;
    CHECK(std::none_of(roomy.begin(), roomy.end(),
                       [](const std::string& n) { return n.find("additional_buffer_factor") != std::string::npos; }));
  }

  TEST_CASE("offload: refused without sharded state, parameters without sharded parameters, nvme without NVMe") {
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: ddp\n  offload: {optimizer: cpu}\n")) ==
          Messages{"offload moves sharded training state off the GPU, which strategy ddp does not shard at "
                   "s.yaml:21:24 (parallelism.offload.optimizer); use strategy: zero (ZeRO-Offload) or fsdp "
                   "(CPUOffload), or remove parallelism.offload"});
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: data_parallel\n  offload: {parameters: cpu}\n")) ==
          Messages{"offload moves sharded training state off the GPU, which strategy data_parallel does not shard "
                   "at s.yaml:21:25 (parallelism.offload.parameters); use strategy: zero (ZeRO-Offload) or fsdp "
                   "(CPUOffload), or remove parallelism.offload"});
    CHECK(scenario_errors(
              on_four_gpus("parallelism:\n  strategy: zero\n  zero_stage: 2\n  offload: {parameters: cpu}\n")) ==
          Messages{"parameter offload keeps the parameter shards off the GPU between units, but zero with zero_stage "
                   "2 keeps whole parameters on the GPU at s.yaml:22:25 (parallelism.offload.parameters); use "
                   "sharding: full_shard or hybrid_shard (fsdp) or zero_stage: 3, or set parameters: none"});
    CHECK(scenario_errors(on_four_gpus(
              "parallelism:\n  strategy: fsdp\n  sharding: shard_grad_op\n  offload: {optimizer: cpu, parameters: cpu}\n")) ==
          Messages{"parameter offload keeps the parameter shards off the GPU between units, but fsdp with sharding "
                   "shard_grad_op keeps whole parameters on the GPU at s.yaml:22:41 (parallelism.offload.parameters); "
                   "use sharding: full_shard or hybrid_shard (fsdp) or zero_stage: 3, or set parameters: none"});
    const std::string sata = with_replaced(on_four_gpus("parallelism:\n  strategy: zero\n  zero_stage: 3\n  offload: "
                                                        "{optimizer: nvme, parameters: cpu}\n"),
                                           "storage: nvme_ssd", "storage: sata_ssd");
    CHECK(scenario_errors(sata) ==
          Messages{"offload to nvme needs an NVMe SSD in the node, but it has storage 'sata_ssd' at s.yaml:22:24 "
                   "(parallelism.offload.optimizer); set hardware.storage: nvme_ssd (the storage catalog's NVMe "
                   "class), or offload to cpu"});
    CHECK(scenario_errors(
              on_four_gpus("parallelism:\n  strategy: zero\n  zero_stage: 3\n  offload: {optimizer: disk}\n")) ==
          Messages{"unknown value 'disk', expected one of none, cpu or nvme at s.yaml:22:24 "
                   "(parallelism.offload.optimizer)"});
    CHECK(scenario_errors(
              on_four_gpus("parallelism:\n  strategy: zero\n  zero_stage: 3\n  offload: {optimiser: cpu}\n")) ==
          Messages{"unknown key 'optimiser' at s.yaml:22:13 (parallelism.offload.optimiser); did you mean "
                   "optimizer?"});
  }

  TEST_CASE("offload: fsdp offers CPUOffload(offload_params=True) only, parameters and optimizer together") {
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: fsdp\n  offload: {optimizer: cpu}\n")) ==
          Messages{"FSDP's CPUOffload(offload_params=True) moves the parameters, their gradients and the optimizer "
                   "step to the host together; it has no optimizer-only offload at s.yaml:21:24 "
                   "(parallelism.offload.optimizer); set both optimizer: cpu and parameters: cpu, or use strategy: "
                   "zero (ZeRO-Offload moves the optimizer alone)"});
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: fsdp\n  offload: {parameters: cpu}\n")) ==
          Messages{"FSDP's CPUOffload(offload_params=True) moves the parameters, their gradients and the optimizer "
                   "step to the host together; it has no parameter-only offload at s.yaml:21:25 "
                   "(parallelism.offload.parameters); set both optimizer: cpu and parameters: cpu, or use strategy: "
                   "zero (ZeRO-Offload moves the optimizer alone)"});
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: fsdp\n  offload: {optimizer: cpu, parameters: nvme}\n")) ==
          Messages{"FSDP offloads to host memory only (CPUOffload), not to NVMe at s.yaml:21:41 "
                   "(parallelism.offload.parameters); use cpu, or strategy: zero with zero_stage: 3 (ZeRO-Infinity "
                   "offloads to NVMe)"});
  }

  TEST_CASE("sharding without strategy fsdp") {
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: ddp\n  sharding: full_shard\n")) ==
          Messages{"sharding applies to strategy fsdp, but the strategy is ddp at s.yaml:21:13 "
                   "(parallelism.sharding); set parallelism.strategy: fsdp, or remove sharding"});
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: fsdp\n  sharding: full\n")) ==
          Messages{"unknown value 'full', expected one of full_shard, shard_grad_op, hybrid_shard or no_shard at "
                   "s.yaml:21:13 (parallelism.sharding); did you mean full_shard?"});
  }

  TEST_CASE("fsdp and zero on one GPU: refused unless they offload (ZeRO-Offload's one-GPU case)") {
    const std::string fix =
        "(parallelism.strategy); write parallelism.strategy: none (or remove parallelism) for one GPU, offload to the "
        "CPU (parallelism.offload, as ZeRO-Offload does on one GPU), or set hardware.gpus_per_node to the GPUs to "
        "shard over";
    CHECK(scenario_errors(std::string(kMinimalScenario) + "parallelism:\n  strategy: fsdp\n") ==
          Messages{"fsdp shards the training state over several GPUs, but the hardware has 1 GPU at s.yaml:19:13 " +
                   fix});
    CHECK(scenario_errors(std::string(kMinimalScenario) + "parallelism:\n  strategy: zero\n  zero_stage: 1\n") ==
          Messages{"zero shards the training state over several GPUs, but the hardware has 1 GPU at s.yaml:19:13 " +
                   fix});
    // With an offload it is accepted: the state leaves the one GPU (a 64 GiB host holds
    // ResNet-50's 25.6 M parameters' 16 B each).
    const Scenario zero = parse_text(std::string(kMinimalScenario) +
                                     "parallelism:\n  strategy: zero\n  zero_stage: 2\n  offload: {optimizer: cpu}\n");
    CHECK(zero.variants.front().job.parallelism.optimizer_offload == models::OffloadTarget::kCpu);
    const Scenario fsdp = parse_text(std::string(kMinimalScenario) +
                                     "parallelism:\n  strategy: fsdp\n  offload: {optimizer: cpu, parameters: cpu}\n");
    CHECK(fsdp.variants.front().job.parallelism.parameter_offload == models::OffloadTarget::kCpu);
  }
  TEST_CASE("distributed_optimizer: read with ddp, refused with other strategies and optimizers, with the fix") {
    CHECK(parallelism_of(on_four_gpus("parallelism: {strategy: ddp, distributed_optimizer: true}\n"))
              .distributed_optimizer);
    CHECK_FALSE(parallelism_of(on_four_gpus("parallelism: {strategy: ddp}\n")).distributed_optimizer);
    CHECK(scenario_errors(
              on_four_gpus("parallelism:\n  strategy: zero\n  zero_stage: 1\n  distributed_optimizer: true\n")) ==
          Messages{"distributed_optimizer is Megatron's sharding of the optimizer state over the ranks of strategy "
                   "ddp, but the strategy is zero at s.yaml:22:26 (parallelism.distributed_optimizer); set "
                   "parallelism.strategy: ddp, or remove distributed_optimizer (zero_stage 1 and fsdp shard the "
                   "optimizer state already)"});
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: ddp\n  distributed_optimiser: true\n")) ==
          Messages{"unknown key 'distributed_optimiser' at s.yaml:21:3 (parallelism.distributed_optimiser); did you "
                   "mean distributed_optimizer?"});
    const std::string adamw_8bit =
        with_replaced(on_four_gpus("parallelism:\n  strategy: ddp\n  distributed_optimizer: true\n"),
                      "  batch_size: 32", "  batch_size: 32\n  optimizer: adamw_8bit");
    CHECK(scenario_errors(adamw_8bit) ==
          Messages{"distributed_optimizer runs Megatron's Adam or SGD on fp32 main parameters, but "
                   "training.optimizer is adamw_8bit at s.yaml:22:26 (parallelism.distributed_optimizer); use "
                   "training.optimizer: adam, adamw, sgd or sgd_momentum, or remove distributed_optimizer"});
  }

  TEST_CASE("overlap_param_gather: read with the distributed optimizer, refused without it") {
    CHECK(parallelism_of(on_four_gpus("parallelism: {strategy: ddp, distributed_optimizer: true, "
                                      "overlap_param_gather: true}\n"))
              .overlap_param_gather);
    CHECK_FALSE(parallelism_of(on_four_gpus("parallelism: {strategy: ddp, distributed_optimizer: true}\n"))
                    .overlap_param_gather);
    CHECK(scenario_errors(on_four_gpus("parallelism:\n  strategy: ddp\n  overlap_param_gather: true\n")) ==
          Messages{"overlap_param_gather hides the distributed optimizer's parameter all-gather behind the next "
                   "forward, and distributed_optimizer is not set at s.yaml:21:25 (parallelism.overlap_param_gather); "
                   "add parallelism.distributed_optimizer: true (with strategy ddp), or remove overlap_param_gather"});
  }

  TEST_CASE("grad_reduce_in_fp32: read with the distributed optimizer, refused without it and on fp32 parameters") {
    const auto with_precision = [](const std::string& precision, const std::string& parallelism) {
      return with_replaced(on_four_gpus(parallelism), "  batch_size: 32", "  batch_size: 32\n  precision: " + precision);
    };
    const std::string megatron = "parallelism:\n  strategy: ddp\n  distributed_optimizer: true\n";
    CHECK(parallelism_of(with_precision("bf16_amp", megatron + "  grad_reduce_in_fp32: false\n")).grad_reduce_in_fp32 ==
          false);
    CHECK_FALSE(parallelism_of(with_precision("bf16_amp", megatron)).grad_reduce_in_fp32.has_value());
    CHECK(scenario_errors(with_precision("bf16_amp", "parallelism:\n  strategy: ddp\n  grad_reduce_in_fp32: false\n")) ==
          Messages{"grad_reduce_in_fp32 sets the width of Megatron's main grads, which gpuplan models with "
                   "distributed_optimizer only, which this scenario does not set at s.yaml:22:24 "
                   "(parallelism.grad_reduce_in_fp32); add parallelism.distributed_optimizer: true (with strategy "
                   "ddp), or remove grad_reduce_in_fp32"});
    CHECK(scenario_errors(with_precision("fp32", megatron + "  grad_reduce_in_fp32: false\n")) ==
          Messages{"grad_reduce_in_fp32: false keeps main grads in the parameters' 16 bit, but training.precision "
                   "fp32 trains fp32 parameters at s.yaml:23:24 (parallelism.grad_reduce_in_fp32); set "
                   "training.precision: bf16_amp (or bf16, fp16_amp, fp8), or remove grad_reduce_in_fp32"});
  }
}

}  // namespace gpuplan::config

/// \file model_parallel_scenario_test.cpp
/// parallelism.tensor_parallel, sequence_parallel, pipeline_parallel, pipeline_schedule and
/// virtual_stages through the loader: the values, the per-GPU memory they give, and every
/// refused combination with its whole message.

#include <doctest/doctest.h>

#include "config_fixture.h"
#include "models/memory/footprint.h"
#include "models/memory/parallel_memory.h"
#include "models/memory/sharding.h"

namespace gpuplan::config::testing {
namespace {

/// GPT-2 on one node of 8 A100-80GB; `parallelism` is the section's body (line 14 on).
std::string gpt2_on_node(const std::string& parallelism, const std::string& model = "gpt2") {
  return R"(format: gpuplan/v1
workload:
  model: )" + model + R"(
  sequence_length: 1024
  dataset: {samples: 1000000, synthetic: true}
  epochs: 1
training: {batch_size: 8, precision: bf16_amp, optimizer: adamw}
hardware:
  gpu: a100-80gb
  cpu_cores: 64
  host_memory: "512 GiB"
  storage: nvme_ssd
  gpus_per_node: 8
parallelism:
)" + parallelism;
}

models::JobSpec job_of(const std::string& text) { return parse_text(text).variants.front().job; }

}  // namespace

TEST_SUITE("config.model_parallel") {
  TEST_CASE("tensor_parallel and sequence_parallel are read; the defaults are 1 and false") {
    const models::JobSpec plain = job_of(gpt2_on_node("  strategy: ddp\n"));
    CHECK(plain.parallelism.tensor_parallel == 1);
    CHECK_FALSE(plain.parallelism.sequence_parallel);
    const models::JobSpec tp =
        job_of(gpt2_on_node("  strategy: ddp\n  tensor_parallel: 4\n  sequence_parallel: true\n"));
    CHECK(tp.parallelism.tensor_parallel == 4);
    CHECK(tp.parallelism.sequence_parallel);
    CHECK(tp.parallelism.data_parallel_size(8) == 2);
  }

  TEST_CASE("tensor parallelism over 4 GPUs holds a quarter of the split weights per GPU") {
    const models::JobSpec one = job_of(gpt2_on_node("  strategy: ddp\n"));
    const models::JobSpec tp = job_of(gpt2_on_node("  strategy: ddp\n  tensor_parallel: 4\n"));
    const auto defaults = models::MemoryModelParams::defaults();
    const models::MemoryBreakdown whole = models::training_memory(models::rank_workload(one), one.training, defaults);
    const models::MemoryBreakdown rank = models::training_memory(models::rank_workload(tp), tp.training, defaults);
    // GPT-2's 124,439,808 parameters; a rank holds 31,728,576 (models.workload.
    // tensor_parallel_shard): weights, gradients and AdamW's two moments scale alike.
    CHECK(rank.weights_bytes / whole.weights_bytes == doctest::Approx(31'728'576.0 / 124'439'808.0));
    CHECK(rank.activations_bytes < whole.activations_bytes);
  }

  TEST_CASE("refused: tensor_parallel across nodes, or not dividing the heads") {
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  tensor_parallel: 3\n")) ==
          Messages{"tensor_parallel 3 neither divides the 8 GPUs per node nor fills whole nodes (a tensor-parallel "
                   "group is inside a node or spans whole nodes) at s.yaml:16:20 (parallelism.tensor_parallel); use "
                   "tensor_parallel 1, 2 or 4, or a multiple of 8"});
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  tensor_parallel: 8\n")) ==
          Messages{"tensor_parallel 8 does not divide the 12 attention heads of gpt2 (each rank computes whole "
                   "heads) at s.yaml:16:20 (parallelism.tensor_parallel); use tensor_parallel 1, 2 or 4"});
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  tensor_parallel: 16\n")) ==
          Messages{"tensor_parallel 16 spans 2 whole nodes of 8 GPUs, and 1 node is not a multiple of 2 at "
                   "s.yaml:16:20 (parallelism.tensor_parallel); use tensor_parallel 1, 2 or 4 (inside a node), "
                   "hardware.nodes a multiple of 2, or hardware.gpus_per_node 16 (one group per node)"});
  }

  TEST_CASE("refused: tensor_parallel on a model that is not a transformer decoder, or without ddp") {
    std::string resnet = gpt2_on_node("  strategy: ddp\n  tensor_parallel: 2\n", "resnet50");
    resnet.replace(resnet.find("  sequence_length: 1024\n"), 24, "");
    CHECK(scenario_errors(resnet) ==
          Messages{"tensor_parallel 2 splits the blocks of a transformer decoder, and resnet50 is a resnet at "
                   "s.yaml:15:20 (parallelism.tensor_parallel); use tensor_parallel: 1 (data parallelism with "
                   "strategy ddp)"});
    CHECK(scenario_errors(gpt2_on_node("  strategy: data_parallel\n  tensor_parallel: 2\n")) ==
          Messages{"tensor_parallel 2 runs one process per GPU, and strategy is data_parallel at s.yaml:16:20 "
                   "(parallelism.tensor_parallel); set parallelism.strategy: ddp, fsdp or zero"});
  }

  TEST_CASE("tensor parallelism with fsdp or zero: sharded over the GPUs / tensor_parallel data-parallel ranks") {
    const models::JobSpec fsdp = job_of(gpt2_on_node("  strategy: fsdp\n  tensor_parallel: 2\n"));
    CHECK(fsdp.parallelism.tensor_parallel == 2);
    CHECK(models::sharding_layout(fsdp).shard_ranks == 4);  // 8 GPUs / 2
    CHECK(models::sharding_layout(fsdp).parameters);
    const models::JobSpec zero = job_of(gpt2_on_node("  strategy: zero\n  zero_stage: 1\n  tensor_parallel: 4\n"));
    CHECK(models::sharding_layout(zero).shard_ranks == 2);
    CHECK(models::sharding_layout(zero).optimizer_state);
    CHECK_FALSE(models::sharding_layout(zero).gradients);
  }

  TEST_CASE("refused: fsdp or zero with tensor parallelism that leaves one data-parallel rank (in a node)") {
    CHECK(scenario_errors(gpt2_on_node("  strategy: fsdp\n  tensor_parallel: 8\n", "llama3-8b")) ==
          Messages{"strategy fsdp shards over the data-parallel ranks, but tensor_parallel 8 on 8 GPUs leaves 1 at "
                   "s.yaml:16:20 (parallelism.tensor_parallel); use strategy: ddp, or a tensor_parallel that leaves 2 "
                   "or more data-parallel ranks (1, 2 or 4)"});
    std::string text = gpt2_on_node("  strategy: fsdp\n  sharding: hybrid_shard\n  tensor_parallel: 8\n", "llama3-8b");
    text.replace(text.find("  gpus_per_node: 8\n"), 19,
                 "  gpus_per_node: 8\n  nodes: 2\n  network: {bandwidth: \"200 Gbit/s\", transport: infiniband, nics: 1}\n");
    CHECK(scenario_errors(text) ==
          Messages{"sharding hybrid_shard shards within a node, but tensor_parallel 8 fills the node's 8 GPUs (one "
                   "data-parallel rank per node) at s.yaml:19:20 (parallelism.tensor_parallel); use sharding: "
                   "full_shard (shards across the nodes), or a smaller tensor_parallel"});
  }

  TEST_CASE("context_parallel is read; replicas count GPUs / CP, gradients reduce over DP x CP") {
    CHECK(job_of(gpt2_on_node("  strategy: ddp\n")).parallelism.context_parallel == 1);
    const models::JobSpec cp = job_of(gpt2_on_node("  strategy: ddp\n  context_parallel: 2\n"));
    CHECK(cp.parallelism.context_parallel == 2);
    CHECK(cp.parallelism.data_parallel_size(8) == 4);
    CHECK(cp.parallelism.gradient_ranks(8) == 8);
    CHECK(cp.training.attention == models::AttentionKernel::kFlash);  // sdpa on an A100 in bf16
  }

  TEST_CASE("refused: context_parallel with eager attention, a sequence not split in 2N; a pipeline is not") {
    std::string eager = gpt2_on_node("  strategy: ddp\n  context_parallel: 2\n");
    eager.replace(eager.find("optimizer: adamw}"), 17, "optimizer: adamw, attention: eager}");
    CHECK(scenario_errors(eager) ==
          Messages{"context_parallel 2 runs ring attention, which needs a fused attention kernel (flash, flash3, "
                   "memory_efficient or flash_triton), and training.attention is eager at s.yaml:16:21 "
                   "(parallelism.context_parallel); set training.attention: flash (or sdpa where it resolves to "
                   "flash), or context_parallel: 1"});
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  context_parallel: 3\n")) ==
          Messages{"context_parallel 3 splits each sequence into 6 chunks (two per rank, balancing the causal mask), "
                   "but sequence_length 1024 is not a multiple of 6 at s.yaml:16:21 (parallelism.context_parallel); "
                   "use a sequence_length that is a multiple of 6, or context_parallel 2, 4"});
    // With a pipeline it is accepted (each stage's attention runs its ring).
    const models::JobSpec both = job_of(gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 2\n  context_parallel: 2\n"));
    CHECK(both.parallelism.pipeline_parallel == 2);
    CHECK(both.parallelism.context_parallel == 2);
    // A fix names only the values that also fit the GPUs: with TP 2 x PP 2 on 8 GPUs, CP 4
    // would need 16 (a trial was told "context_parallel 3", which the GPU check then refused).
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  tensor_parallel: 2\n  pipeline_parallel: 2\n"
                                       "  context_parallel: 3\n")) ==
          Messages{"context_parallel 3 splits each sequence into 6 chunks (two per rank, balancing the causal mask), "
                   "but sequence_length 1024 is not a multiple of 6 at s.yaml:18:21 (parallelism.context_parallel); "
                   "use a sequence_length that is a multiple of 6, or context_parallel 2"});
    // ... but each of its stages holds tensor_parallel x context_parallel GPUs of a replica: a
    // trial's TP4 PP4 CP16 on 64 GPUs ended in an internal error before this check.
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 2\n  context_parallel: 8\n")) ==
          Messages{"tensor_parallel 1 x pipeline_parallel 2 x context_parallel 8 = 16 GPUs per model replica do not "
                   "divide the 8 GPUs (8 per node x 1 node) at s.yaml:17:21 (parallelism.context_parallel); use "
                   "context_parallel 1, 2, 4, or change hardware.nodes"});
  }

  TEST_CASE("refused: context_parallel on a model without attention blocks, without ddp/fsdp/zero, over too few GPUs") {
    std::string resnet = gpt2_on_node("  strategy: ddp\n  context_parallel: 2\n", "resnet50");
    resnet.replace(resnet.find("  sequence_length: 1024\n"), 24, "");
    CHECK(scenario_errors(resnet) ==
          Messages{"context_parallel 2 splits the sequence of a transformer decoder's attention, and resnet50 is a "
                   "resnet at s.yaml:15:21 (parallelism.context_parallel); use context_parallel: 1"});
    CHECK(scenario_errors(gpt2_on_node("  strategy: data_parallel\n  context_parallel: 2\n")) ==
          Messages{"context_parallel 2 runs one process per GPU, and strategy is data_parallel at s.yaml:16:21 "
                   "(parallelism.context_parallel); set parallelism.strategy: ddp, fsdp or zero"});
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  context_parallel: 16\n")) ==
          Messages{"tensor_parallel 1 x context_parallel 16 = 16 GPUs per sequence do not divide the 8 GPUs at "
                   "s.yaml:16:21 (parallelism.context_parallel); use a context_parallel that makes tensor_parallel x "
                   "context_parallel divide 8 or a multiple of it"});
  }

  TEST_CASE("tensor_parallel across whole nodes, and async_tensor_parallel, are read") {
    std::string text = gpt2_on_node("  strategy: ddp\n  tensor_parallel: 8\n  sequence_parallel: true\n"
                                    "  async_tensor_parallel: true\n",
                                    "llama3-8b");
    text.replace(text.find("  gpus_per_node: 8\n"), 19,
                 "  gpus_per_node: 4\n  nodes: 2\n  network: {bandwidth: \"200 Gbit/s\", transport: infiniband, nics: 1}\n");
    const models::JobSpec job = job_of(text);
    CHECK(job.parallelism.tensor_parallel == 8);
    CHECK(job.parallelism.async_tensor_parallel);
    CHECK_FALSE(job_of(gpt2_on_node("  strategy: ddp\n")).parallelism.async_tensor_parallel);
  }

  TEST_CASE("refused: async_tensor_parallel without sequence parallelism; TP across nodes with a pipeline") {
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  tensor_parallel: 2\n  async_tensor_parallel: true\n")) ==
          Messages{"async_tensor_parallel overlaps the all-gathers and reduce-scatters of sequence parallelism "
                   "with the GEMMs they feed, but sequence_parallel is false at s.yaml:17:26 "
                   "(parallelism.async_tensor_parallel); set sequence_parallel: true, or remove "
                   "async_tensor_parallel"});
    std::string text = gpt2_on_node("  strategy: ddp\n  tensor_parallel: 8\n  pipeline_parallel: 2\n", "llama3-8b");
    text.replace(text.find("  gpus_per_node: 8\n"), 19,
                 "  gpus_per_node: 4\n  nodes: 4\n  network: {bandwidth: \"200 Gbit/s\", transport: infiniband, nics: 1}\n");
    CHECK(scenario_errors(text) ==
          Messages{"tensor_parallel 8 across nodes with pipeline_parallel 2 is not modelled (stages are placed "
                   "across nodes) at s.yaml:18:20 (parallelism.tensor_parallel); use tensor_parallel 1, 2 or 4 "
                   "with pipeline stages, or pipeline_parallel: 1"});
  }

  TEST_CASE("refused: sequence_parallel without tensor parallelism") {
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  sequence_parallel: true\n")) ==
          Messages{"sequence_parallel splits the norms and dropouts of a tensor-parallel group along the "
                   "sequence, but tensor_parallel is 1 at s.yaml:16:22 (parallelism.sequence_parallel); set "
                   "tensor_parallel: 2 or more, or remove sequence_parallel"});
  }

  TEST_CASE("grouped-query attention: tensor_parallel divides the key/value heads too") {
    // Llama 3 8B: 32 query and 8 key/value heads, split over the 8 GPUs of the node.
    CHECK(job_of(gpt2_on_node("  strategy: ddp\n  tensor_parallel: 8\n", "llama3-8b")).parallelism.tensor_parallel ==
          8);
    // Qwen2.5-7B: 28 query and 4 key/value heads: 8 divides neither.
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  tensor_parallel: 8\n", "qwen2.5-7b")) ==
          Messages{"tensor_parallel 8 does not divide the 28 query and 4 key/value heads of qwen2.5-7b (each rank "
                   "computes whole heads) at s.yaml:16:20 (parallelism.tensor_parallel); use tensor_parallel 1, 2 "
                   "or 4"});
  }

  TEST_CASE("pipeline_parallel, pipeline_schedule and virtual_stages are read; the defaults are 1, 1f1b and 1") {
    const models::JobSpec plain = job_of(gpt2_on_node("  strategy: ddp\n"));
    CHECK(plain.parallelism.pipeline_parallel == 1);
    CHECK(plain.parallelism.pipeline_schedule == models::PipelineSchedule::kOneFOneB);
    CHECK(plain.parallelism.virtual_stages == 1);
    std::string text = gpt2_on_node(
        "  strategy: ddp\n  tensor_parallel: 2\n  pipeline_parallel: 2\n  pipeline_schedule: interleaved_1f1b\n"
        "  virtual_stages: 3\n");
    text.replace(text.find("batch_size: 8,"), 14, "batch_size: 8, gradient_accumulation: 4,");
    const models::JobSpec pp = job_of(text);
    CHECK(pp.parallelism.pipeline_parallel == 2);
    CHECK(pp.parallelism.pipeline_schedule == models::PipelineSchedule::kInterleavedOneFOneB);
    CHECK(pp.parallelism.virtual_stages == 3);
    CHECK(pp.parallelism.data_parallel_size(8) == 2);  // 8 GPUs / (TP 2 x PP 2)
  }

  TEST_CASE("refused: a misspelt schedule, and schedule keys without a pipeline") {
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 2\n  pipeline_schedule: 1f1f\n")) ==
          Messages{"unknown value '1f1f', expected one of gpipe, 1f1b or interleaved_1f1b at s.yaml:17:22 "
                   "(parallelism.pipeline_schedule); did you mean 1f1b?"});
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  pipeline_schedule: gpipe\n")) ==
          Messages{"pipeline_schedule applies to pipeline stages, but pipeline_parallel is 1 at s.yaml:16:22 "
                   "(parallelism.pipeline_schedule); set pipeline_parallel: 2 or more, or remove pipeline_schedule"});
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 2\n  virtual_stages: 2\n")) ==
          Messages{"virtual_stages 2 cuts each stage into chunks for the interleaved schedule, but "
                   "pipeline_schedule is 1f1b at s.yaml:17:19 (parallelism.virtual_stages); set pipeline_schedule: "
                   "interleaved_1f1b, or remove virtual_stages"});
    // interleaved_1f1b with one chunk per stage is 1f1b with more memory: refused at the key
    // that says so, virtual_stages when written, else pipeline_schedule.
    const std::string one_chunk =
        "pipeline_schedule interleaved_1f1b cuts each stage into virtual_stages chunks, but virtual_stages is 1 (the "
        "1f1b schedule, with more activation memory) at ";
    const std::string one_chunk_fix =
        "; set virtual_stages: 2 or more (dividing the layers per stage), or pipeline_schedule: 1f1b";
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 2\n  pipeline_schedule: interleaved_1f1b\n")) ==
          Messages{one_chunk + "s.yaml:17:22 (parallelism.pipeline_schedule)" + one_chunk_fix});
    CHECK(scenario_errors(gpt2_on_node(
              "  strategy: ddp\n  pipeline_parallel: 2\n  pipeline_schedule: interleaved_1f1b\n  virtual_stages: 1\n")) ==
          Messages{one_chunk + "s.yaml:18:19 (parallelism.virtual_stages)" + one_chunk_fix});
  }

  TEST_CASE("refused: layers not a multiple of the stages or chunks, GPUs not a multiple of TP x PP") {
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 8\n")) == Messages{"pipeline_parallel 8 does not divide the 12 layers of gpt2 (each stage holds whole layers) at "
                   "s.yaml:16:22 (parallelism.pipeline_parallel); use pipeline_parallel 1, 2 or 4"});
    CHECK(scenario_errors(gpt2_on_node(
              "  strategy: ddp\n  pipeline_parallel: 2\n  pipeline_schedule: interleaved_1f1b\n  virtual_stages: 4\n")) ==
          Messages{"pipeline_parallel 2 x virtual_stages 4 = 8 chunks do not divide the 12 layers of gpt2 (each "
                   "stage holds whole layers) at s.yaml:18:19 (parallelism.virtual_stages); use virtual_stages "
                   "2, 3 or 6"});
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  tensor_parallel: 4\n  pipeline_parallel: 3\n")) ==
          Messages{"tensor_parallel 4 x pipeline_parallel 3 = 12 GPUs per model replica do not divide the 8 GPUs (8 "
                   "per node x 1 node) at s.yaml:17:22 (parallelism.pipeline_parallel); use pipeline_parallel 1 or "
                   "2, or change hardware.nodes"});
  }

  TEST_CASE("FSDP (full_shard, shard_grad_op) and ZeRO-1 under a pipeline are read; the rest refused at its key") {
    const models::JobSpec fsdp = job_of(gpt2_on_node("  strategy: fsdp\n  pipeline_parallel: 2\n"));
    CHECK(fsdp.parallelism.strategy == models::ParallelStrategy::kFsdp);
    CHECK(fsdp.parallelism.pipeline_parallel == 2);
    CHECK(job_of(gpt2_on_node("  strategy: fsdp\n  sharding: shard_grad_op\n  pipeline_parallel: 2\n"))
              .parallelism.sharding == models::Sharding::kShardGradOp);
    CHECK(job_of(gpt2_on_node("  strategy: zero\n  zero_stage: 1\n  pipeline_parallel: 2\n")).parallelism.zero_stage ==
          1);
    CHECK(scenario_errors(gpt2_on_node("  strategy: fsdp\n  sharding: hybrid_shard\n  pipeline_parallel: 2\n")) ==
          Messages{"pipeline_parallel 2 with fsdp sharding hybrid_shard is not modelled (under a pipeline FSDP keeps "
                   "each stage's parameters gathered across its micro-batches and shards gradients and optimizer "
                   "state over the stage's data-parallel ranks) at s.yaml:16:13 (parallelism.sharding); set "
                   "sharding: full_shard"});
    CHECK(scenario_errors(gpt2_on_node("  strategy: zero\n  zero_stage: 3\n  pipeline_parallel: 2\n")) ==
          Messages{"pipeline_parallel 2 with zero_stage 3: DeepSpeed's pipeline engine runs ZeRO stage 1 only (\"ZeRO-2 "
                   "and ZeRO-3 are incompatible with pipeline parallelism\") at s.yaml:16:15 (parallelism.zero_stage); "
                   "set zero_stage: 1, or strategy: fsdp (torchtitan's FSDP with pipeline parallelism)"});
    // The distributed optimizer's bytes are Adam's or SGD's (a trial's adafactor ended in an internal error).
    std::string adafactor = gpt2_on_node("  strategy: fsdp\n  pipeline_parallel: 2\n");
    adafactor.replace(adafactor.find("optimizer: adamw"), 16, "optimizer: adafactor");
    CHECK(scenario_errors(adafactor) ==
          Messages{"pipeline_parallel 2 with strategy fsdp is modelled with Adam or SGD state sharded over the stage's "
                   "data-parallel ranks, and training.optimizer is adafactor at s.yaml:16:22 "
                   "(parallelism.pipeline_parallel); use training.optimizer: adam, adamw, sgd or sgd_momentum, or "
                   "strategy: ddp"});
    CHECK(scenario_errors(gpt2_on_node("  strategy: fsdp\n  pipeline_parallel: 2\n  offload: {optimizer: cpu, "
                                       "parameters: cpu}\n")) ==
          Messages{"pipeline_parallel 2 with strategy fsdp and offload is not modelled at s.yaml:17:12 "
                   "(parallelism.offload); remove parallelism.offload, or set pipeline_parallel: 1"});
  }

  TEST_CASE("the embedding and the loss as pipeline layers: read, named by the fix where they make the split") {
    const models::JobSpec both = job_of(gpt2_on_node(
        "  strategy: ddp\n  pipeline_parallel: 2\n  account_for_embedding_in_pipeline_split: true\n"
        "  account_for_loss_in_pipeline_split: true\n"));
    CHECK(both.parallelism.embedding_in_pipeline_split);
    CHECK(both.parallelism.loss_in_pipeline_split);
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 7\n")) ==
          Messages{"pipeline_parallel 7 does not divide the 12 layers of gpt2 (each stage holds whole layers) at "
                   "s.yaml:16:22 (parallelism.pipeline_parallel); use pipeline_parallel 1, 2 or 4; or set "
                   "account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split: true (14 "
                   "pipeline layers, as Megatron-Core splits them)"});
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 2\n"
                                       "  account_for_loss_in_pipeline_split: true\n")) ==
          Messages{"pipeline_parallel 2 does not divide the 13 pipeline layers of gpt2 (12 decoder layers, the loss) "
                   "(each stage holds whole layers) at s.yaml:16:22 (parallelism.pipeline_parallel); remove "
                   "account_for_loss_in_pipeline_split (the 12 decoder layers alone); or set "
                   "account_for_embedding_in_pipeline_split: true (14 pipeline layers, as Megatron-Core splits "
                   "them)"});
    // Both flags with a chunk per layer: 14 over 7 x 2 chunks would leave the embedding's and
    // the loss's chunks without a decoder layer.
    std::string seven = gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 7\n  pipeline_schedule: interleaved_1f1b\n"
                                     "  virtual_stages: 2\n  account_for_embedding_in_pipeline_split: true\n"
                                     "  account_for_loss_in_pipeline_split: true\n");
    seven.replace(seven.find("gpus_per_node: 8"), 16, "gpus_per_node: 7");
    seven.replace(seven.find("batch_size: 8,"), 14, "batch_size: 8, gradient_accumulation: 7,");
    CHECK(scenario_errors(seven) ==
          Messages{"pipeline_parallel 7 x virtual_stages 2 = 14 chunks split the 14 pipeline layers of gpt2 (12 "
                   "decoder layers, the embedding and the loss) one per chunk, leaving the embedding's and the "
                   "loss's chunks without a decoder layer at s.yaml:18:19 (parallelism.virtual_stages); use "
                   "pipeline_schedule: 1f1b (a stage of 2 layers has nothing to interleave)"});
    // pipeline_parallel 1: each flag that is true is refused; false is the default.
    CHECK_FALSE(job_of(gpt2_on_node("  strategy: ddp\n  account_for_embedding_in_pipeline_split: false\n"))
                    .parallelism.embedding_in_pipeline_split);
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  account_for_loss_in_pipeline_split: true\n")) ==
          Messages{"account_for_loss_in_pipeline_split applies to pipeline stages, but pipeline_parallel is 1 at "
                   "s.yaml:16:39 (parallelism.account_for_loss_in_pipeline_split); set pipeline_parallel: 2 or "
                   "more, or remove account_for_loss_in_pipeline_split"});
  }

  TEST_CASE("refused: pipeline without a process per GPU, on a model that is not a decoder, interleaved micro-batches") {
    CHECK(scenario_errors(gpt2_on_node("  strategy: data_parallel\n  pipeline_parallel: 2\n")) ==
          Messages{"pipeline_parallel 2 runs one process per GPU, and strategy is data_parallel (supported: tensor x "
                   "pipeline x DDP, FSDP or ZeRO-1 data parallelism) at s.yaml:16:22 (parallelism.pipeline_parallel); "
                   "set parallelism.strategy: ddp, fsdp or zero"});
    std::string resnet = gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 2\n", "resnet50");
    resnet.replace(resnet.find("  sequence_length: 1024\n"), 24, "");
    CHECK(scenario_errors(resnet) == Messages{"pipeline_parallel 2 splits the layers of a transformer decoder, and resnet50 is a resnet at "
                   "s.yaml:15:22 (parallelism.pipeline_parallel); use pipeline_parallel: 1 (data parallelism with "
                   "strategy ddp)"});
    CHECK(scenario_errors(gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 2\n  pipeline_schedule: interleaved_1f1b\n"
                                       "  virtual_stages: 2\n")) == Messages{"interleaved_1f1b needs the micro-batches (training.gradient_accumulation 1) to be a multiple of "
                   "pipeline_parallel 2 at s.yaml:17:22 (parallelism.pipeline_schedule); set "
                   "training.gradient_accumulation to a multiple of 2, or pipeline_schedule: 1f1b"});
  }

  TEST_CASE("refused: more micro-batches than a pipeline's schedule is played with") {
    std::string text = gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 2\n");
    text.replace(text.find("batch_size: 8,"), 14, "batch_size: 8, gradient_accumulation: 4097,");
    CHECK(scenario_errors(text) ==
          Messages{"pipeline_parallel 2 plays training.gradient_accumulation 4097 micro-batches per step through its "
                   "schedule, more than the 4096 gpuplan simulates at s.yaml:16:22 (parallelism.pipeline_parallel); "
                   "lower training.gradient_accumulation to at most 4096 (a larger training.batch_size keeps the "
                   "global batch)"});
    text.replace(text.find("4097"), 4, "4096");
    CHECK(job_of(text).training.gradient_accumulation == 4096);
  }

  TEST_CASE("refused: stages that cannot be spread evenly over the nodes") {
    std::string text = gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 3\n");
    text.replace(text.find("  gpus_per_node: 8\n"), 19,
                 "  gpus_per_node: 6\n  nodes: 2\n  network: {bandwidth: \"200 Gbit/s\", transport: infiniband, nics: 1}\n");
    CHECK(scenario_errors(text) == Messages{"pipeline_parallel 3: 3 stages cannot be spread evenly over 2 nodes (stage s runs on node s mod "
                   "nodes) at s.yaml:18:22 (parallelism.pipeline_parallel); use a pipeline_parallel that divides or "
                   "is a multiple of 2"});
  }

  TEST_CASE("pipeline memory: the worst stage's, with p - s micro-batches of activations on stage s") {
    std::string text = gpt2_on_node("  strategy: ddp\n  pipeline_parallel: 4\n");
    text.replace(text.find("batch_size: 8,"), 14, "batch_size: 8, gradient_accumulation: 8,");
    const models::JobSpec job = job_of(text);
    const auto defaults = models::MemoryModelParams::defaults();
    int stage = -1;
    const models::MemoryBreakdown m = models::rank_memory(job, defaults, &stage);
    const models::Workload first = models::pipeline_stage_workload(models::rank_workload(job), job.parallelism, 0);
    const models::MemoryBreakdown one = models::training_memory(first, job.training, defaults);
    CHECK(stage == 0);
    CHECK(m.activations_bytes == doctest::Approx(4.0 * one.activations_bytes));
    // 8 GPUs / 4 stages: DDP over 2 ranks keeps the stage's fp32 gradient buckets.
    CHECK(m.data_parallel_bytes == doctest::Approx(first.parameters * 4.0));
  }
}

}  // namespace gpuplan::config::testing

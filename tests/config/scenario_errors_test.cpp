// The scenario loader's errors, one test per kind of mistake. Each message is asserted
// whole, with file:line:column, key path and fix (STYLE.md T4): they are the specification
// of what a user sees. Inline YAML (T7); the shipped catalogs.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "config/scenario_loader.h"
#include "config_fixture.h"

namespace gpuplan::config {
namespace {

using namespace testing;

Messages errors_of(const std::string& text) { return scenario_errors(text); }

/// The fix of an unknown training key with nothing close: the section's first keys.
const std::string kTrainingKeys =
    "; remove it, or use a key of training: batch_size, gradient_accumulation, precision, optimizer, "
    "optimizer_state_precision, optimizer_implementation, activation_checkpointing, activation_offloading, "
    "memory_format, framework_overhead, framework, attention, ...";

// A valid scenario, so that each test changes one thing. Line numbers matter below.
const char* const kValid = kMinimalScenario;

/// `text` with the first occurrence of `from` replaced by `to`.

/// A language model on two nodes of 8 A100s: pythia-1b (its catalog sequence_length 2048) on a
/// budget of 1e9 tokens. Line numbers matter below.
const char* const kPythiaScenario = R"(format: gpuplan/v1
workload:
  model: pythia-1b
  sequence_length: 2048
  tokens: 1e9
  dataset: {synthetic: true}
training: {batch_size: 8, precision: bf16_amp, optimizer: adamw}
parallelism: {strategy: ddp}
hardware:
  gpu: a100-80gb
  gpus_per_node: 8
  nodes: 2
  network: {bandwidth: "100 Gbit/s"}
)";

/// kValid with the first occurrence of `from` replaced by `to`.
std::string with(const std::string& from, const std::string& to) { return with_replaced(kValid, from, to); }

}  // namespace

TEST_SUITE("config.scenario_errors") {
  TEST_CASE("the base scenario of these tests is valid") {
    CHECK_NOTHROW(parse_scenario(kValid, "s.yaml", shipped_catalogs(), builtin_families()));
  }

  TEST_CASE("YAML syntax error") {
    CHECK(errors_of(with("  model: resnet50", "  model: [resnet50")) ==
          Messages{"YAML syntax error: end of sequence flow not found at s.yaml:6:10; the '[' at s.yaml:5:10 is not "
                   "closed: add its ']'"});
  }

  TEST_CASE("an unclosed quote is named where it opens, not where YAML gives up or as missing sections") {
    // YAML reads a quoted value on across lines: this one took in every key after it, and the
    // file parsed with workload, training and hardware missing.
    CHECK(errors_of(with("name: ResNet-50 on ImageNet-1k, one RTX 3090", "name: \"ResNet-50 on ImageNet-1k")) ==
          Messages{"unclosed double quote (YAML reads the value on across lines, taking in the 'seed:' of line 3) at "
                   "s.yaml:2:7; close it on line 2 (a double quote inside the value is written \\\")"});
    // Inside a flow mapping it swallows the closing brace: named before the brace.
    CHECK(errors_of(with("  storage: nvme_ssd", "  storage: nvme_ssd\n  network: {bandwidth: '100 Gbit/s}")) ==
          Messages{"YAML syntax error: end of map flow not found at s.yaml:19:1; the single quote at s.yaml:18:24 is "
                   "not closed: close it on its line"});
  }

  TEST_CASE("unknown key, with did-you-mean") {
    CHECK(errors_of(with("  epochs: 90", "  epochs: 90\n  epoch: 90")) ==
          Messages{"unknown key 'epoch' at s.yaml:11:3 (workload.epoch); did you mean epochs?"});
    CHECK(errors_of(std::string(kValid) + "dataloader:\n  num_workers: 4\n") ==
          Messages{"unknown key 'dataloader' at s.yaml:18:1 (dataloader); did you mean data_loader?"});
  }

  TEST_CASE("an architecture key beside model, not in it, says where it goes") {
    CHECK(errors_of(with("  model: resnet50", "  model: gpt2\n  loss: fused_linear_cross_entropy")) ==
          Messages{"'loss' is an architecture key of transformer_decoder models, read inside workload.model at "
                   "s.yaml:6:9 (workload.loss); write workload.model: {base: gpt2, loss: <value>}"});
    // Under training too, where a loss looks at home.
    CHECK(errors_of(with_replaced(with("  model: resnet50", "  model: gpt2"), "  batch_size: 32",
                                  "  batch_size: 32\n  loss: fused_linear_cross_entropy")) ==
          Messages{"'loss' is an architecture key of transformer_decoder models, read inside workload.model at "
                   "s.yaml:13:9 (training.loss); write workload.model: {base: gpt2, loss: <value>}"});
    // sequence_length is the workload section's own key.
    CHECK(errors_of(with_replaced(with("  model: resnet50", "  model: gpt2"), "  batch_size: 32",
                                  "  batch_size: 32\n  sequence_length: 512")) ==
          Messages{"'sequence_length' is read in the workload section at s.yaml:13:20 (training.sequence_length); "
                   "write workload.sequence_length: <tokens>"});
  }

  TEST_CASE("another program's name for an architecture key is answered with gpuplan's key and the value") {
    // Copied from a Hugging Face config.json or nanoGPT: inside the model, the value repeated
    // under gpuplan's name, and no second error for the required key it stands for.
    CHECK(errors_of(with("  model: resnet50",
                         "  model: {family: transformer_decoder, num_hidden_layers: 12, hidden: 768, n_head: 12,\n"
                         "          ffn_hidden: 3072, vocab: 50257, sequence_length: 1024}")) ==
          Messages{"'num_hidden_layers' is the Hugging Face config.json name for layers at s.yaml:5:59 "
                   "(workload.model.num_hidden_layers); write layers: 12",
                   "'n_head' is the nanoGPT name for heads at s.yaml:5:84 (workload.model.n_head); write heads: 12"});
    // Under training: where it goes, with the base model.
    CHECK(errors_of(with_replaced(with("  model: resnet50", "  model: gpt2"), "  batch_size: 32",
                                  "  batch_size: 32\n  num_layers: 24")) ==
          Messages{"'num_layers' is the Megatron-LM name for layers, an architecture key read inside workload.model "
                   "at s.yaml:13:15 (training.num_layers); write workload.model: {base: gpt2, layers: 24}"});
    // A sequence length belongs to the workload section.
    CHECK(errors_of(with("  model: resnet50", "  model: gpt2\n  block_size: 512")) ==
          Messages{"'block_size' is the nanoGPT name for sequence_length at s.yaml:6:15 (workload.block_size); "
                   "write workload.sequence_length: 512"});
    // The alias of a key the family lacks stays an unknown key (ResNet has no vocabulary).
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32\n  vocab_size: 50257")) ==
          Messages{"unknown key 'vocab_size' at s.yaml:13:3 (training.vocab_size)" + kTrainingKeys});
  }

  TEST_CASE("another tool's precision or optimizer name is answered with gpuplan's, not the nearest spelling") {
    // Lightning's bf16-mixed is autocast over fp32 weights: bf16_amp, not pure bf16 (one edit away).
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32\n  precision: bf16-mixed")) ==
          Messages{"unknown value 'bf16-mixed', expected one of fp32, tf32, fp16_amp, bf16_amp, bf16 or fp8 at "
                   "s.yaml:13:14 (training.precision); did you mean bf16_amp?"});
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32\n  precision: 16-mixed")) ==
          Messages{"unknown value '16-mixed', expected one of fp32, tf32, fp16_amp, bf16_amp, bf16 or fp8 at "
                   "s.yaml:13:14 (training.precision); did you mean fp16_amp?"});
    // HF Trainer's optim names.
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32\n  optimizer: adamw_torch_fused")) ==
          Messages{"unknown value 'adamw_torch_fused', expected one of sgd, sgd_momentum, adam, adamw, adamw_8bit, "
                   "paged_adamw_8bit or adafactor at s.yaml:13:14 (training.optimizer); did you mean adamw?"});
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32\n  optimizer: adamw_bnb_8bit")) ==
          Messages{"unknown value 'adamw_bnb_8bit', expected one of sgd, sgd_momentum, adam, adamw, adamw_8bit, "
                   "paged_adamw_8bit or adafactor at s.yaml:13:14 (training.optimizer); did you mean adamw_8bit?"});
  }

  TEST_CASE("a whole number written with an exponent or a decimal point is refused with its digits") {
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 1e3")) ==
          Messages{"expected a whole number from 1 to 1000000, found '1e3' at s.yaml:12:15 (training.batch_size); "
                   "write 1000 (a whole number is written in digits, without an exponent or a decimal point)"});
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32.0")) ==
          Messages{"expected a whole number from 1 to 1000000, found '32.0' at s.yaml:12:15 (training.batch_size); "
                   "write 32 (a whole number is written in digits, without an exponent or a decimal point)"});
    // Not a whole number: no digits to offer.
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32.5")) ==
          Messages{"expected a whole number from 1 to 1000000, found '32.5' at s.yaml:12:15 (training.batch_size)"});
  }

  TEST_CASE("the large counts (dataset samples, tokens) take an exponent that names a whole number (docs/units.md)") {
    // tokens: 1e9, as `gpuplan init --template llm` writes it, is read as 1000000000.
    CHECK(parse_scenario(kPythiaScenario, "s.yaml", shipped_catalogs(), builtin_families()).variants.front()
              .job.duration.tokens == 1e9);
    CHECK(parse_scenario(with("samples: 1281167", "samples: 1.28e6"), "s.yaml", shipped_catalogs(), builtin_families())
              .variants.front().job.dataset.samples == 1280000.0);
    CHECK(errors_of(with("samples: 1281167", "samples: 1.5e0")) ==
          Messages{"expected a whole number, found '1.5e0' at s.yaml:7:14 (workload.dataset.samples)"});
  }

  TEST_CASE("a misspelt or misplaced required key is one error, at the key written, with the fix") {
    // It was two: "missing key 'batch_size'" at the mapping, and the unknown key beside it.
    CHECK(errors_of(with("  batch_size: 32", "  batch_sze: 32")) ==
          Messages{"unknown key 'batch_sze' at s.yaml:12:3 (training.batch_sze); did you mean batch_size?"});
    // parallelism reports its unknown keys before it finds zero_stage missing.
    const std::string zero =
        with("  gpu: rtx3090", "  gpu: rtx3090\n  gpus_per_node: 2") + "parallelism:\n  strategy: zero\n";
    CHECK(errors_of(zero + "  zero_stge: 2\n") ==
          Messages{"unknown key 'zero_stge' at s.yaml:21:3 (parallelism.zero_stge); did you mean zero_stage?"});
    // Under training, the key of another section: one error, naming where it belongs.
    CHECK(errors_of(with_replaced(zero, "  batch_size: 32", "  batch_size: 32\n  zero_stge: 2")) ==
          Messages{"unknown key 'zero_stge' at s.yaml:13:3 (training.zero_stge); did you mean "
                   "parallelism.zero_stage?"});
    // An unknown key that is no required key misspelt leaves the missing key reported too.
    CHECK(errors_of(with("  batch_size: 32", "  micro_batch: 32")) ==
          Messages{"missing key 'batch_size' at s.yaml:12:3 (training.batch_size); add batch_size: a whole number "
                   "from 1 to 1000000",
                   "unknown key 'micro_batch' at s.yaml:12:3 (training.micro_batch)" + kTrainingKeys});
  }

  TEST_CASE("another tool's name for a key is answered with gpuplan's key, not the nearest spelling") {
    // torchrun's and HF's GPU counts are gpus_per_node, though 'gpu' is spelt nearer.
    CHECK(errors_of(with("  gpu: rtx3090", "  gpu: rtx3090\n  gpu_count: 2")) ==
          Messages{"unknown key 'gpu_count' at s.yaml:15:3 (hardware.gpu_count); did you mean gpus_per_node?"});
    // DeepSpeed's and Megatron's micro-batch is batch_size: one error, as for a misspelling.
    CHECK(errors_of(with("  batch_size: 32", "  micro_batch_size: 32")) ==
          Messages{"unknown key 'micro_batch_size' at s.yaml:12:3 (training.micro_batch_size); did you mean "
                   "batch_size?"});
    // HF Trainer's epoch count.
    CHECK(errors_of(with("  epochs: 90", "  num_train_epochs: 90")) ==
          Messages{"unknown key 'num_train_epochs' at s.yaml:10:3 (workload.num_train_epochs); did you mean epochs?"});
    // HF's num_train_epochs where HF users write it, under training: workload.epochs, one error.
    CHECK(errors_of(with_replaced(with("  epochs: 90\n", ""), "  batch_size: 32", "  batch_size: 32\n  num_train_epochs: 90")) ==
          Messages{"unknown key 'num_train_epochs' at s.yaml:12:3 (training.num_train_epochs); did you mean "
                   "workload.epochs?"});
    // Short names (Megatron's tp) and DeepSpeed's stage, under parallelism.
    const std::string ddp = with("  gpu: rtx3090", "  gpu: rtx3090\n  gpus_per_node: 2") + "parallelism:\n  strategy: ddp\n";
    CHECK(errors_of(ddp + "  tp: 2\n") ==
          Messages{"unknown key 'tp' at s.yaml:21:3 (parallelism.tp); did you mean tensor_parallel?"});
    CHECK(errors_of(ddp + "  stage: 3\n") ==
          Messages{"unknown key 'stage' at s.yaml:21:3 (parallelism.stage); did you mean zero_stage?"});
    // A global batch is not batch_size (per GPU and micro-step): the fix says how it is made,
    // and the batch_size it replaced is still missing.
    CHECK(errors_of(with("  batch_size: 32", "  global_batch_size: 256")) ==
          Messages{"missing key 'batch_size' at s.yaml:12:3 (training.batch_size); add batch_size: a whole number "
                   "from 1 to 1000000",
                   "unknown key 'global_batch_size' at s.yaml:12:3 (training.global_batch_size); gpuplan derives the "
                   "global batch: batch_size (per GPU, per micro-step) x gradient_accumulation x the data-parallel "
                   "ranks, so set batch_size and gradient_accumulation"});
  }

  TEST_CASE("other tools' settings that a scenario says another way, and a missing dataset: the fix names the keys to set") {
    // HF's bf16 flag is a precision; its step count and torchrun's world size are derived.
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32\n  bf16: true")) ==
          Messages{"unknown key 'bf16' at s.yaml:13:3 (training.bf16); set training.precision: bf16_amp (autocast to "
                   "bf16, HF's bf16: true) or bf16 (bf16 weights too)"});
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32\n  max_steps: 1000")) ==
          Messages{"unknown key 'max_steps' at s.yaml:13:3 (training.max_steps); gpuplan sizes the job by "
                   "workload.tokens (a language model: optimizer steps x global batch x sequence_length) or "
                   "workload.epochs: set one of them"});
    CHECK(errors_of(with("  gpu: rtx3090", "  gpu: rtx3090\n  world_size: 8")) ==
          Messages{"unknown key 'world_size' at s.yaml:15:3 (hardware.world_size); gpuplan counts the GPUs as "
                   "hardware.gpus_per_node x hardware.nodes: set those"});
    // An instance under hardware is the cloud's; a model at the top is the workload's.
    CHECK(errors_of(with("  gpu: rtx3090", "  gpu: rtx3090\n  instance_type: p5.48xlarge")) ==
          Messages{"unknown key 'instance_type' at s.yaml:15:3 (hardware.instance_type); did you mean "
                   "cloud.instance?"});
    CHECK(errors_of(with("seed: 42", "seed: 42\nmodel: resnet50")) ==
          Messages{"unknown key 'model' at s.yaml:4:1 (model); did you mean workload.model?"});
    // No dataset: the fix names both kinds of data.
    CHECK(errors_of(with("  dataset:\n    samples: 1281167\n    sample_size: \"110 KiB\"\n    decode_time: \"6 ms\"\n", "")) ==
          Messages{"missing key 'dataset' at s.yaml:5:3 (workload.dataset); add dataset: {synthetic: true} (batches "
                   "made in memory, as benchmarks run), or {samples, sample_size, decode_time} for data read from "
                   "hardware.storage"});
    // A dotted path outside strategies: and sweep: is a literal key: nest it. Its key path is
    // quoted, so that a strategy overriding training.batch_size does not claim it (a trial got
    // a second error at "strategies.bs4.training.batch_size").
    CHECK(errors_of(with("seed: 42", "seed: 42\ntraining.batch_size: 4\nstrategies:\n  bs4: {training.batch_size: 4}")) ==
          Messages{"unknown key 'training.batch_size' at s.yaml:4:1 (\"training.batch_size\"); a dotted key path is "
                   "read under strategies: and sweep: only; here nest it: training: {batch_size: 4}"});
    // peft's LoRA keys at the top are training.fine_tuning's; its module names are the targets'.
    CHECK(errors_of(with("seed: 42", "seed: 42\nlora_r: 16")) ==
          Messages{"unknown key 'lora_r' at s.yaml:4:1 (lora_r); did you mean training.fine_tuning.rank?"});
    // A DeepSpeed config block, HF's fsdp string and SkyPilot's use_spot; a cloud without its instance.
    CHECK(errors_of(with("seed: 42", "seed: 42\ndeepspeed: {zero_optimization: {stage: 3}}")) ==
          Messages{"unknown key 'deepspeed' at s.yaml:4:1 (deepspeed); set parallelism.strategy: zero with "
                   "parallelism.zero_stage (and parallelism.offload for ZeRO-Offload)"});
    CHECK(errors_of(with("  gpu: rtx3090", "  gpu: rtx3090\n  gpus_per_node: 2") +
                    "parallelism:\n  strategy: fsdp\n  fsdp: full_shard\n") ==
          Messages{"unknown key 'fsdp' at s.yaml:21:3 (parallelism.fsdp); did you mean sharding?"});
    CHECK(errors_of(with("  gpu: rtx3090", "  gpu: rtx3090\n  gpus_per_node: 2") + "parallelism:\n  strategy: deepspeed\n") ==
          Messages{"unknown value 'deepspeed', expected one of none, data_parallel, ddp, fsdp or zero at s.yaml:20:13 "
                   "(parallelism.strategy); did you mean zero?"});
    CHECK(errors_of(std::string(kValid) + "cloud:\n  use_spot: true\n") ==
          Messages{"missing key 'instance' at s.yaml:19:3 (cloud.instance); add instance: provider/instance_type, such "
                   "as aws/p4d.24xlarge (gpuplan list instances)",
                   "unknown key 'use_spot' at s.yaml:19:3 (cloud.use_spot); set cloud.market: spot"});
    // HF's hidden_act in an inline decoder is its mlp (silu is swiglu's gate).
    CHECK(errors_of(with("  model: resnet50", "  model: {base: gpt2, hidden_act: silu}")) ==
          Messages{"unknown key 'hidden_act' at s.yaml:5:23 (workload.model.hidden_act); did you mean mlp?"});
  }

  TEST_CASE("duplicate key") {
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32\n  batch_size: 64")) ==
          Messages{"duplicate key 'batch_size' at s.yaml:13:3 (training.batch_size); the first one is on line 12, "
                   "remove one of them"});
  }

  TEST_CASE("wrong type: a mapping where a number is expected") {
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: {per_gpu: 32}")) ==
          Messages{"expected a whole number from 1 to 1000000, found a mapping at s.yaml:12:15 "
                   "(training.batch_size); write batch_size: a whole number from 1 to 1000000 (one value, not a mapping)"});
  }

  TEST_CASE("PyTorch's layout names and a list of models get a fix (from a helper's trial)") {
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32\n  memory_format: nhwc")) ==
          Messages{"unknown value 'nhwc', expected one of channels_last or channels_first at s.yaml:13:18 "
                   "(training.memory_format); did you mean channels_last?"});
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32\n  memory_format: NCHW")) ==
          Messages{"unknown value 'NCHW', expected one of channels_last or channels_first at s.yaml:13:18 "
                   "(training.memory_format); did you mean channels_first?"});
    CHECK(errors_of(with("  model: resnet50", "  model: [resnet50]")) ==
          Messages{"expected a catalog model name or an inline mapping, found a sequence at s.yaml:5:10 "
                   "(workload.model); write model: <one catalog name such as resnet50> (gpuplan list models) or "
                   "model: {family: ..., <architecture keys>} (gpuplan list families)"});
  }

  TEST_CASE("a number in quotes is text: refused at the value, with the fix") {
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: \"32\"")) ==
          Messages{"expected a whole number from 1 to 1000000, found the quoted text \"32\" at s.yaml:12:15 "
                   "(training.batch_size); write 32 without quotes (quotes make it text in YAML)"});
    CHECK(errors_of(std::string(kValid) + "parallelism:\n  strategy: ddp\n  pipeline_parallel: \"4\"\n") ==
          Messages{"expected a whole number from 1 to 4096, found the quoted text \"4\" at s.yaml:20:22 "
                   "(parallelism.pipeline_parallel); write 4 without quotes (quotes make it text in YAML)"});
    CHECK(errors_of(with("  epochs: 90", "  epochs: '90'")) ==
          Messages{"expected a number above 0, at most 1e+06, found the quoted text \"90\" at s.yaml:10:11 "
                   "(workload.epochs); write 90 without quotes (quotes make it text in YAML)"});
  }

  TEST_CASE("missing unit, with the fix") {
    CHECK(errors_of(with("\"110 KiB\"", "\"110\"")) ==
          Messages{"a bare number is not a size: found '110' at s.yaml:8:18 (workload.dataset.sample_size); "
                   "write it with a unit, e.g. \"110 KiB\""});
  }

  TEST_CASE("bad unit: Gb is neither bits nor bytes") {
    CHECK(errors_of(std::string(kValid) + "  network: \"2.5 Gb/s\"\n") ==
          Messages{"bad unit in '2.5 Gb/s': 'Gb' is ambiguous between bits and bytes at s.yaml:18:12 "
                   "(hardware.network); write 'Gbit' for bits or 'GB' for bytes"});
  }

  TEST_CASE("a positive number says the same range for a negative value and for 0") {
    CHECK(errors_of(with("  epochs: 90", "  epochs: -3")) ==
          Messages{"out-of-range value -3 at s.yaml:10:11 (workload.epochs); expected a number above 0, at most 1e+06"});
    CHECK(errors_of(with("  epochs: 90", "  epochs: 0")) ==
          Messages{"out-of-range value 0 at s.yaml:10:11 (workload.epochs); expected a number above 0, at most 1e+06"});
  }

  TEST_CASE("out-of-range values") {
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 0")) ==
          Messages{"out-of-range value 0 at s.yaml:12:15 (training.batch_size); expected a whole number from 1 to "
                   "1000000"});
    CHECK(errors_of(with("\"6 ms\"", "\"-4 ms\"")) ==
          Messages{"out-of-range duration '-4 ms' at s.yaml:9:18 (workload.dataset.decode_time); expected zero or "
                   "more"});
  }

  TEST_CASE("a job shorter than one optimizer step is refused where its length is written") {
    // 1e-5 of 1,281,167 samples is 12.8 samples, fewer than the 32 of one step: its time to
    // train would be a fraction of one step.
    CHECK(errors_of(with("  epochs: 90", "  epochs: 0.00001")) ==
          Messages{"epochs 1e-05 of 1281167 samples train 12.8117 samples, fewer than one global batch of 32 "
                   "(batch_size 32 x gradient_accumulation 1 x 1 GPU): the job ends before its first optimizer step at "
                   "s.yaml:10:11 (workload.epochs); raise epochs to at least 2.49772e-05, or lower batch_size or "
                   "gradient_accumulation"});
    CHECK_NOTHROW(parse_scenario(with("  epochs: 90", "  epochs: 0.0001"), "s.yaml", shipped_catalogs(),
                                 builtin_families()));  // 128 samples: 4 steps
    // A token budget sizes the dataset: the budget is what to raise.
    const std::string lm = with_replaced(
        with_replaced(with_replaced(kValid, "  model: resnet50", "  model: gpt2\n  sequence_length: 1024"),
                      "    samples: 1281167\n    sample_size: \"110 KiB\"\n    decode_time: \"6 ms\"\n",
                      "    synthetic: true\n"),
        "  epochs: 90", "  tokens: 1000");
    CHECK(errors_of(lm) ==
          Messages{"tokens 1000 make 1 sequence(s), fewer than one global batch of 32 (batch_size 32 x "
                   "gradient_accumulation 1 x 1 GPU): the job ends before its first optimizer step at s.yaml:11:15 "
                   "(training.batch_size); raise tokens to at least 32768 (32 sequences of 1024 tokens), or lower "
                   "batch_size or gradient_accumulation"});
  }

  TEST_CASE("a global batch above the budget is refused at the key that makes it so: nodes, sequence_length") {
    // 8 A100s a node, pythia-1b (its catalog sequence_length 2048) on a budget of 1e9 tokens.
    const std::string lm = kPythiaScenario;
    // 100000 nodes: 8 x 1 x 800000 = 6400000 sequences of 2048 tokens = 13107200000 tokens, above
    // the 1e9 written; one node's 64 sequences fit 7629 times into the 488282 of the budget.
    CHECK(errors_of(with_replaced(lm, "nodes: 2", "nodes: 100000")) ==
          Messages{"nodes 100000 x gpus_per_node 8 give 800000 GPUs: one global batch of 6400000 (batch_size 8 x "
                   "gradient_accumulation 1 x 800000 GPUs) x sequence_length 2048 = 13107200000 tokens, more than "
                   "workload.tokens 1000000000: the job ends before its first optimizer step at s.yaml:12:10 "
                   "(hardware.nodes); lower nodes to at most 7629, or raise workload.tokens to at least 13107200000"});
    // A sequence_length far above the model's own: 128 sequences of 10000000 tokens = 1.28e9 tokens.
    CHECK(errors_of(with_replaced(lm, "sequence_length: 2048", "sequence_length: 10000000")) ==
          Messages{"one global batch of 128 (batch_size 8 x gradient_accumulation 1 x 16 GPUs) x sequence_length "
                   "10000000 = 1280000000 tokens, more than workload.tokens 1000000000: the job ends before its first "
                   "optimizer step at s.yaml:4:20 (workload.sequence_length); lower sequence_length to at most 7812500 "
                   "(the model's own is 2048), or raise workload.tokens to at least 1280000000"});
    // Dataset samples: the nodes, where one node's batch fits.
    CHECK(errors_of(with_replaced(lm, "  tokens: 1e9\n  dataset: {synthetic: true}",
                                  "  epochs: 1\n  dataset: {samples: 100, synthetic: true}")) ==
          Messages{"nodes 2 x gpus_per_node 8 give 16 GPUs: global batch 128 (batch_size 8 x gradient_accumulation 1 x "
                   "16 GPUs) exceeds the dataset's 100 samples at s.yaml:12:10 (hardware.nodes); lower nodes to at "
                   "most 1, or lower batch_size or gradient_accumulation"});
  }

  TEST_CASE("unknown catalog names suggest the closest") {
    CHECK(errors_of(with("gpu: rtx3090", "gpu: a100-80")) ==
          Messages{"unknown gpu 'a100-80' at s.yaml:14:8 (hardware.gpu); did you mean a100-80gb or "
                   "a100-80gb-pcie?"});
    // nvidia-smi's name without its "NVIDIA"; a name near nothing points to the catalog.
    CHECK(errors_of(with("gpu: rtx3090", "gpu: H100 80GB HBM3")) ==
          Messages{"unknown gpu 'H100 80GB HBM3' at s.yaml:14:8 (hardware.gpu); did you mean h100-sxm?"});
    // A memory size after the name, which the catalog name lacks.
    CHECK(errors_of(with("gpu: rtx3090", "gpu: \"RTX 4090 24GB\"")) ==
          Messages{"unknown gpu 'RTX 4090 24GB' at s.yaml:14:8 (hardware.gpu); did you mean rtx4090?"});
    CHECK(errors_of(with("gpu: rtx3090", "gpu: tpu-v5e")) ==
          Messages{"unknown gpu 'tpu-v5e' at s.yaml:14:8 (hardware.gpu); `gpuplan list gpus` prints the "
                   "catalog's GPUs"});
    CHECK(errors_of(with("model: resnet50", "model: resnet-50")) ==
          Messages{"unknown model 'resnet-50' at s.yaml:5:10 (workload.model); did you mean resnet50?"});
    // Hugging Face ids and spellings of the model cards find the catalog's name.
    CHECK(errors_of(with("model: resnet50", "model: meta-llama/Meta-Llama-3-8B")) ==
          Messages{"unknown model 'meta-llama/Meta-Llama-3-8B' at s.yaml:5:10 (workload.model); did you mean "
                   "llama3-8b?"});
    CHECK(errors_of(with("model: resnet50", "model: Llama-3.1-8B")) ==
          Messages{"unknown model 'Llama-3.1-8B' at s.yaml:5:10 (workload.model); did you mean llama3.1-8b?"});
    CHECK(errors_of(with("model: resnet50", "model: mistralai/Mistral-7B-v0.1")) ==
          Messages{"unknown model 'mistralai/Mistral-7B-v0.1' at s.yaml:5:10 (workload.model); did you mean "
                   "mistral-7b?"});
    // A letter O typed for a zero after a digit.
    CHECK(errors_of(with("model: resnet50", "model: resnet5O")) ==
          Messages{"unknown model 'resnet5O' at s.yaml:5:10 (workload.model); did you mean resnet50?"});
    // Another size is not the same model: pythia-12b is not pythia-1b.
    CHECK(errors_of(with("model: resnet50", "model: pythia-12b"))[0].find("did you mean pythia-1b") ==
          std::string::npos);
    CHECK(errors_of(with("model: resnet50", "model: foo-bar-9b")) ==
          Messages{"unknown model 'foo-bar-9b' at s.yaml:5:10 (workload.model); `gpuplan list models` lists the "
                   "catalog's models"});
    CHECK(errors_of(with("storage: nvme_ssd", "storage: nvme")) ==
          Messages{"unknown storage 'nvme' at s.yaml:17:12 (hardware.storage); did you mean nvme_ssd?"});
    CHECK(errors_of(std::string(kValid) + "cloud: {instance: aws/p4d.24xlarg}\n") ==
          Messages{"unknown instance 'aws/p4d.24xlarg' at s.yaml:18:19 (cloud.instance); did you mean "
                   "aws/p4d.24xlarge?"});
    // The instance type of another provider: the provider that has it.
    CHECK(errors_of(std::string(kValid) + "cloud: {instance: gcp/p4d.24xlarge}\n") ==
          Messages{"unknown instance 'gcp/p4d.24xlarge' at s.yaml:18:19 (cloud.instance); p4d.24xlarge is an aws "
                   "instance: write aws/p4d.24xlarge"});
    CHECK(errors_of(std::string(kValid) + "cloud: {instance: p4d.24xlarge}\n") ==
          Messages{"expected provider/instance_type such as aws/p4d.24xlarge, found 'p4d.24xlarge' at "
                   "s.yaml:18:19 (cloud.instance); did you mean aws/p4d.24xlarge?"});
  }

  TEST_CASE("wrong or missing format version") {
    CHECK(errors_of(with("format: gpuplan/v1", "format: gpuplan/v2\nfuture_key: 1")) ==
          Messages{"unsupported format 'gpuplan/v2' at s.yaml:1:9 (format); expected gpuplan/v1, the version "
                   "this gpuplan reads"});
    CHECK(errors_of(with("format: gpuplan/v1\n", "")) ==
          Messages{"missing key 'format' at s.yaml:1:1 (format); add format: gpuplan/v1 as the first line"});
  }

  TEST_CASE("unreadable file") {
    try {
      load_scenario("/nonexistent/scenario.yaml", shipped_catalogs(), builtin_families());
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(e.messages() == Messages{"cannot read file '/nonexistent/scenario.yaml': No such file or directory"});
    }
  }

  TEST_CASE("an unknown strategy override path") {
    CHECK(errors_of(std::string(kValid) +
                    "strategies:\n  baseline: {}\n  workers_4: { data_loader.num_wrokers: 4 }\n") ==
          Messages{"unknown key 'data_loader.num_wrokers' at s.yaml:20:16 "
                   "(strategies.workers_4.data_loader.num_wrokers); did you mean data_loader.num_workers?"});
  }

  TEST_CASE("an override key misspelt under another section, and one near nothing: a fix for each") {
    CHECK(errors_of(std::string(kValid) + "strategies:\n  z3: { training.zero_stge: 3 }\n  zz: { training.qqqqqqqq: 3 }\n") ==
          Messages{"unknown key 'training.zero_stge' at s.yaml:19:9 (strategies.z3.training.zero_stge); "
                   "did you mean parallelism.zero_stage?",
                   "unknown key 'training.qqqqqqqq' at s.yaml:20:9 (strategies.zz.training.qqqqqqqq); a strategy or "
                   "sweep sets schema key paths such as training.batch_size (every one: `gpuplan schema`, or "
                   "docs/scenario-format.md)"});
  }

  TEST_CASE("an error inside an override points at the override; base errors appear once") {
    const std::string text = with("  batch_size: 32", "  batch_size: 32\n  optimizer: adamm") +
                             "strategies:\n"
                             "  a: {}\n"
                             "  b: {training.batch_size: 0}\n"
                             "  c: {training: {precision: fp17}}\n";
    CHECK(errors_of(text) ==
          Messages{
              "unknown value 'adamm', expected one of sgd, sgd_momentum, adam, adamw, adamw_8bit, paged_adamw_8bit or "
              "adafactor at s.yaml:13:14 "
              "(training.optimizer); did you mean adam or adamw?",
              "out-of-range value 0 at s.yaml:21:28 (strategies.b.training.batch_size); expected a whole number "
              "from 1 to 1000000",
              "unknown value 'fp17', expected one of fp32, tf32, fp16_amp, bf16_amp, bf16 or fp8 at s.yaml:22:29 "
              "(strategies.c.training.precision); did you mean fp32 or fp8?",
          });
  }

  TEST_CASE("a contradiction between hardware.gpu and cloud.instance, at the hardware key") {
    CHECK(errors_of(std::string(kValid) + "parallelism: {strategy: ddp}\ncloud: {instance: aws/p4d.24xlarge}\n") ==
          Messages{"gpu 'rtx3090' contradicts cloud.instance aws/p4d.24xlarge, which has 8 x a100-40gb at "
                   "s.yaml:14:8 (hardware.gpu); remove hardware.gpu (the instance sets it) or choose an instance "
                   "with rtx3090"});
    CHECK(errors_of(with("  gpu: rtx3090", "  gpus_per_node: 16") +
                    "parallelism: {strategy: ddp}\ncloud: {instance: aws/p4d.24xlarge}\n") ==
          Messages{"gpus_per_node 16 exceeds the 8 GPUs of aws/p4d.24xlarge at s.yaml:14:18 "
                   "(hardware.gpus_per_node); use at most 8, or remove gpus_per_node (the instance sets it)"});
  }

  TEST_CASE("precisions the GPU cannot run, at training.precision") {
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32\n  precision: fp8")) ==
          Messages{"fp8 needs a GPU of compute capability 8.9 or newer, and rtx3090 has 8.6 at s.yaml:13:14 "
                   "(training.precision); use bf16_amp or fp16_amp"});
    CHECK(errors_of(with_replaced(with("  batch_size: 32", "  batch_size: 32\n  precision: bf16_amp"), "rtx3090",
                             "v100-16gb")) ==
          Messages{"bf16_amp needs a GPU of compute capability 8.0 or newer, and v100-16gb has 7.0 at "
                   "s.yaml:13:14 (training.precision); use fp16_amp or fp32"});
    CHECK(errors_of(with_replaced(with("  batch_size: 32", "  batch_size: 32\n  precision: bf16"), "rtx3090",
                                  "v100-16gb")) ==
          Messages{"bf16 needs a GPU of compute capability 8.0 or newer, and v100-16gb has 7.0 at "
                   "s.yaml:13:14 (training.precision); use fp16_amp or fp32"});
  }

  TEST_CASE("several GPUs need a parallel strategy") {
    CHECK(errors_of(with("  gpu: rtx3090", "  gpu: rtx3090\n  gpus_per_node: 4")) ==
          Messages{"4 GPUs (4 per node x 1 node) need a parallel strategy at s.yaml:15:18 "
                   "(hardware.gpus_per_node); add parallelism.strategy: ddp (or data_parallel on one node)"});
    CHECK(errors_of(with("  gpu: rtx3090", "  gpu: rtx3090\n  gpus_per_node: 4") +
                    "parallelism:\n  strategy: none\n") ==
          Messages{"strategy none trains on one GPU, but the hardware has 4 GPUs (4 per node x 1 node) at "
                   "s.yaml:20:13 (parallelism.strategy); use ddp, or set hardware.gpus_per_node: 1"});
    // One GPU per node on two nodes: the fix names the key that is not already 1.
    CHECK(errors_of(with("  gpu: rtx3090", "  gpu: rtx3090\n  nodes: 2\n  network: \"100 Gbit/s\"") +
                    "parallelism:\n  strategy: none\n") ==
          Messages{"strategy none trains on one GPU, but the hardware has 2 GPUs (1 per node x 2 nodes) at "
                   "s.yaml:21:13 (parallelism.strategy); use ddp, or set hardware.nodes: 1"});
  }

  TEST_CASE("epochs and tokens: exactly one") {
    CHECK(errors_of(with("  epochs: 90", "  epochs: 90\n  tokens: 2e12")) ==
          Messages{"epochs and tokens are both given at s.yaml:11:11 (workload.tokens); keep one: epochs for a "
                   "number of passes over the dataset, tokens for a language model's token budget"});
    CHECK(errors_of(with("  epochs: 90\n", "")) ==
          Messages{"missing key 'epochs' at s.yaml:5:3 (workload.epochs); add epochs: <passes over the dataset> "
                   "(e.g. 90)"});
  }

  TEST_CASE("inline models: unknown family, unknown and inconsistent architecture keys") {
    CHECK(errors_of(with("model: resnet50", "model: {family: resnett, depth: 50}")) ==
          Messages{"unknown model family 'resnett' at s.yaml:5:19 (workload.model.family); did you mean resnet?"});
    // The misspelt depth is one error (it was also "missing key 'depth'").
    CHECK(errors_of(with("model: resnet50", "model: {family: resnet, depht: 50}")) ==
          Messages{"unknown key 'depht' at s.yaml:5:27 (workload.model.depht); did you mean depth?"});
    CHECK(errors_of(with("model: resnet50", "model: {family: resnet, depth: 51}")) ==
          Messages{"depth 51 is not a ResNet depth at s.yaml:5:34 (workload.model.depth); use one of 18, 34, 50, "
                   "101, 152 (He et al. 2016, table 1)"});
  }

  TEST_CASE("inline encoder: an unknown head and more masked positions than tokens") {
    const std::string encoder =
        "model: {family: transformer_encoder, layers: 2, hidden: 64, heads: 4, ffn_hidden: 256, "
        "vocab: 1000, sequence_length: 128, ";
    CHECK(errors_of(with("model: resnet50", encoder + "head: pretraining_maskd}")) ==
          Messages{"unknown head 'pretraining_maskd' at s.yaml:5:131 (workload.model.head); expected one of "
                   "pretraining, pretraining_masked, question_answering, sequence_classification; did you mean "
                   "pretraining_masked or pretraining?"});
    CHECK(errors_of(with("model: resnet50",
                         encoder + "head: pretraining_masked, max_predictions: 200}")) ==
          Messages{"max_predictions 200 exceeds sequence_length 128 (a sequence cannot have more masked "
                   "positions than tokens) at s.yaml:5:168 (workload.model.max_predictions); use "
                   "max_predictions at most 128"});
  }

  TEST_CASE("a calibration profile that does not exist") {
    // More profile errors: tests/config/calibration_profile_test.cpp.
    CHECK(errors_of(with("gpu: rtx3090", "gpu: {profile: catalogs/calibrations/x.json}")) ==
          Messages{"cannot read calibration profile 'catalogs/calibrations/x.json': No such file or directory at "
                   "s.yaml:14:18 (hardware.gpu.profile); paths are relative to the scenario's folder; write a "
                   "profile with gpuplan calibrate"});
  }

  TEST_CASE("hardware facts have no defaults") {
    CHECK(errors_of(with("  cpu_cores: 8\n  host_memory: \"64 GiB\"\n", "")) ==
          Messages{"missing key 'cpu_cores' at s.yaml:14:3 (hardware.cpu_cores); add cpu_cores: <physical cores "
                   "per node available to the job>, e.g. 8",
                   "missing key 'host_memory' at s.yaml:14:3 (hardware.host_memory); add host_memory: \"64 GiB\" "
                   "(per node)"});
  }

  TEST_CASE("an error that only some sweep points have is at the sweep value that causes it") {
    CHECK(errors_of(with("  batch_size: 32", "  batch_size: 32\n  precision: bf16_amp") +
                    "sweep:\n  hardware.gpu: [rtx3090, v100-16gb]\n  data_loader.num_workers: [0, 4]\n") ==
          Messages{"bf16_amp needs a GPU of compute capability 8.0 or newer, and v100-16gb has 7.0 at s.yaml:20:27 "
                   "(sweep.hardware.gpu[1]); use fp16_amp or fp32"});
  }

  TEST_CASE("cloud: the spot market needs a replacement wait and a spot price; traces must exist") {
    const std::string cloud = R"(format: gpuplan/v1
workload: {model: resnet50, dataset: {samples: 1281167, sample_size: "110 KiB", decode_time: "6 ms"}, epochs: 90}
training: {batch_size: 32}
cloud:
  instance: aws/g5.8xlarge
)";
    CHECK(errors_of(cloud + "hardware: {gpu_failure_rate: \"-1 /h\"}\n") ==
          Messages{"out-of-range event rate '-1 /h' at s.yaml:6:30 (hardware.gpu_failure_rate); expected zero or "
                   "more"});
    CHECK(errors_of(cloud + "  market: spot\n") ==
          Messages{"missing key 'replacement_wait' at s.yaml:5:3 (cloud.replacement_wait); add replacement_wait: "
                   "\"10 min\" (how long a preempted spot node takes to come back; the spot market needs it)"});
    CHECK(errors_of(with_replaced(cloud, "aws/g5.8xlarge", "lambda/gpu_1x_a10") +
                    "  market: spot\n  replacement_wait: \"10 min\"\n") ==
          Messages{"lambda/gpu_1x_a10 has no spot price in the catalog for region us-east-1 at s.yaml:6:11 "
                   "(cloud.market); use market: on_demand, or another region or instance"});
    // AWS prices spot per availability zone: the region's default row (use1-az1) has none,
    // two zones of the region have one.
    CHECK(errors_of(with_replaced(cloud, "aws/g5.8xlarge", "aws/p4de.24xlarge") +
                    "  market: spot\n  replacement_wait: \"10 min\"\nparallelism: {strategy: ddp}\n") ==
          Messages{"aws/p4de.24xlarge has no spot price in the catalog for zone use1-az1 of us-east-1 at s.yaml:6:11 "
                   "(cloud.market); pick a zone that has one (cloud.zone: use1-az4, use1-az6), or use market: "
                   "on_demand"});
    CHECK(errors_of(cloud + "  market: spot\n  replacement_wait: \"10 min\"\n"
                            "  preemption_rate: {trace: /nonexistent/trace.json}\n") ==
          Messages{"cannot read preemption trace '/nonexistent/trace.json': No such file or directory at "
                   "s.yaml:8:28 (cloud.preemption_rate.trace); paths are relative to the scenario's folder"});
    CHECK(errors_of(cloud + "hardware: {gpu: rtx3090, cpu_cores: 32, host_memory: \"64 GiB\"}\n"
                            "on_premises: {purchase_price: \"$1500\", amortization: \"3 years\", "
                            "electricity: \"$0.15/kWh\"}\n") ==
          Messages{
              "gpu 'rtx3090' contradicts cloud.instance aws/g5.8xlarge, which has 1 x a10g at s.yaml:6:17 "
              "(hardware.gpu); remove hardware.gpu (the instance sets it) or choose an instance with rtx3090",
              "cpu_cores 32 exceeds the 16 physical cores of aws/g5.8xlarge (32 vCPUs, 2 per core) at s.yaml:6:37 "
              "(hardware.cpu_cores); use at most 16, or remove cpu_cores (the instance sets it)",
              "cloud and on_premises are both given at s.yaml:7:14 (on_premises); keep one: cloud prices rented "
              "instances, on_premises bought hardware"});
  }

  TEST_CASE("sequence length and token budgets belong to language models") {
    CHECK(errors_of(with("  epochs: 90", "  epochs: 90\n  sequence_length: 512")) ==
          Messages{"resnet50 (family resnet) takes no sequence length at s.yaml:11:20 (workload.sequence_length); "
                   "remove sequence_length"});
    CHECK(errors_of(with("  epochs: 90", "  tokens: 2e12")) ==
          Messages{"a token budget needs a language model, and resnet50 (family resnet) is not one at s.yaml:10:11 "
                   "(workload.tokens); give epochs instead"});
  }

  TEST_CASE("several errors in one file are reported together, in file order") {
    const Messages got = errors_of(R"(format: gpuplan/v1
workload:
  model: resnet50
  dataset:
    samples: 1281167
    sample_size: "110"
    decode_time: "6 ms"
  epochs: 90
training:
  batch_size: 0
  precision: fp16
hardware:
  gpu: a100-80
  cpu_cores: 8
  host_memory: "64 GiB"
  storage: nvme_ssd
strategies:
  workers: {data_loader.num_wrokers: 4}
)");
    REQUIRE(got.size() == 5);
    CHECK(got[0] ==
          "a bare number is not a size: found '110' at s.yaml:6:18 (workload.dataset.sample_size); write it with a "
          "unit, e.g. \"110 KiB\"");
    CHECK(got[1] == "out-of-range value 0 at s.yaml:10:15 (training.batch_size); expected a whole number from 1 to "
                    "1000000");
    CHECK(got[2] == "unknown value 'fp16', expected one of fp32, tf32, fp16_amp, bf16_amp, bf16 or fp8 at "
                    "s.yaml:11:14 (training.precision); did you mean fp16_amp?");
    CHECK(got[3] == "unknown gpu 'a100-80' at s.yaml:13:8 (hardware.gpu); did you mean a100-80gb or a100-80gb-pcie?");
    CHECK(got[4] == "unknown key 'data_loader.num_wrokers' at s.yaml:18:13 "
                    "(strategies.workers.data_loader.num_wrokers); did you mean data_loader.num_workers?");
  }

  // Each fix below is applied and accepted: a fix that is refused in turn sends the user round.
  TEST_CASE("a checkpoint interval: 0, Auto, 10 minutes and 10m get fixes that hold") {
    const std::string base = std::string(kValid) + "checkpointing:\n  interval: ";
    CHECK(errors_of(base + "0\n") ==
          Messages{"a bare number is not a duration: found '0' at s.yaml:19:13 (checkpointing.interval); write a "
                   "duration more than zero, with its unit, e.g. \"30 min\", or auto (Young/Daly)"});
    CHECK(errors_of(base + "Auto\n") ==
          Messages{"expected a duration such as \"30 min\" or auto, found 'Auto' at s.yaml:19:13 "
                   "(checkpointing.interval); write auto (in lower case)"});
    CHECK(errors_of(base + "10 minutes\n") ==
          Messages{"unknown unit 'minutes' in '10 minutes' at s.yaml:19:13 (checkpointing.interval); write \"10 "
                   "min\""});
    CHECK(errors_of(base + "10m\n") ==
          Messages{"unknown unit 'm' in '10m' at s.yaml:19:13 (checkpointing.interval); write \"10 min\""});
    CHECK_NOTHROW(parse_text(base + "\"30 min\"\n"));
    CHECK_NOTHROW(parse_text(base + "auto\n"));
    CHECK_NOTHROW(parse_text(base + "\"10 min\"\n"));
  }

  TEST_CASE("workload.tokens, hardware.nodes and sequence_length: digits out of range get the range") {
    const std::string lm = kPythiaScenario;
    CHECK(errors_of(with_replaced(lm, "tokens: 1e9", "tokens: -0x10")) ==
          Messages{"expected a number from 1 to 1e+18, found '-0x10' at s.yaml:5:11 (workload.tokens); -0x10 is -16, "
                   "out of range: write a number from 1 to 1e+18 (numbers are written in decimal digits, without _ "
                   "or a 0x, 0o or 0b prefix)"});
    CHECK(errors_of(with_replaced(lm, "nodes: 2", "nodes: 1e9")) ==
          Messages{"expected a whole number from 1 to 100000, found '1e9' at s.yaml:12:10 (hardware.nodes); 1e9 is "
                   "1000000000, out of range: write a whole number from 1 to 100000 (a whole number is written in "
                   "digits, without an exponent or a decimal point)"});
    // YAML 1.1 reads 0100 as 64, YAML 1.2 as 100: refused rather than read as either.
    CHECK(errors_of(with_replaced(lm, "tokens: 1e9", "tokens: 01000000000")) ==
          Messages{"expected a number from 1 to 1e+18, found '01000000000' at s.yaml:5:11 (workload.tokens); write "
                   "1000000000 (a leading zero is ambiguous: YAML 1.1 reads 01000000000 as octal 134217728, YAML "
                   "1.2 as 1000000000; write numbers without leading zeros)"});
    // A "4k" sequence is 4096 tokens.
    CHECK(errors_of(with_replaced(lm, "sequence_length: 2048", "sequence_length: \"4k\"")) ==
          Messages{"expected a whole number from 1 to 100000000, found '4k' at s.yaml:4:20 (workload.sequence_length); "
                   "write 4096 (in a token length k is 1024, as a 4k context is 4096 tokens; write 4000 if that was "
                   "meant; numbers take no k or M suffix)"});
    CHECK_NOTHROW(parse_text(with_replaced(lm, "tokens: 1e9", "tokens: 1000000000")));
    CHECK_NOTHROW(parse_text(with_replaced(lm, "sequence_length: 2048", "sequence_length: 4096")));
    CHECK_NOTHROW(parse_text(with_replaced(lm, "sequence_length: 2048", "sequence_length: 4000")));
  }

  TEST_CASE("a GPU written as a plural suggests its family; an unknown provider lists the providers") {
    CHECK(errors_of(with("gpu: rtx3090", "gpu: h100s")) ==
          Messages{"unknown gpu 'h100s' at s.yaml:14:8 (hardware.gpu); did you mean h100-sxm, h100-pcie or "
                   "h100-nvl?"});
    CHECK_NOTHROW(parse_text(with("gpu: rtx3090", "gpu: h100-sxm")));
    CHECK(errors_of(std::string(kValid) + "cloud: {instance: foo/bar}\n") ==
          Messages{"unknown instance 'foo/bar' at s.yaml:18:19 (cloud.instance); foo is not a provider; providers: "
                   "aws, azure, gcp or lambda (`gpuplan list instances` prints the types)"});
    CHECK(errors_of(std::string(kValid) + "cloud: {instance: aws/zzzzzzzzzzzz}\n") ==
          Messages{"unknown instance 'aws/zzzzzzzzzzzz' at s.yaml:18:19 (cloud.instance); the catalog has no aws "
                   "instance of that type: `gpuplan list instances` prints them"});
  }
}

}  // namespace gpuplan::config

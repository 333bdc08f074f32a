/// \file fine_tuning_scenario_test.cpp
/// training.fine_tuning through the loader: defaults, the op table it produces, strategy
/// overrides, and every refused value and combination as the whole message.

#include <doctest/doctest.h>

#include "config_fixture.h"
#include "models/memory/footprint.h"

namespace gpuplan::config::testing {
namespace {

/// A QLoRA fine-tune of Llama-2-7B on one A100-80GB (line 12 is the fine_tuning line).
std::string qlora_scenario(const std::string& fine_tuning, const std::string& tail = "") {
  return R"(format: gpuplan/v1
name: QLoRA Llama-2-7B
workload:
  model: llama2-7b
  sequence_length: 2048
  dataset: {samples: 10000, synthetic: true}
  epochs: 1
training:
  batch_size: 4
  precision: bf16_amp
  optimizer: paged_adamw_8bit
  fine_tuning: )" + fine_tuning +
         R"(
hardware:
  gpu: a100-80gb
  cpu_cores: 8
  host_memory: "64 GiB"
  storage: nvme_ssd
)" + tail;
}

models::JobSpec job_of(const std::string& text) { return parse_text(text).variants.front().job; }

}  // namespace

TEST_SUITE("config.fine_tuning") {
  TEST_CASE("defaults: peft's r 8 and alpha 8, all projections, bf16 base for lora and nf4 for qlora") {
    const models::JobSpec lora = job_of(qlora_scenario("{method: lora}"));
    CHECK(lora.training.fine_tuning.method == models::FineTuningMethod::kLora);
    CHECK(lora.training.fine_tuning.rank == 8);
    CHECK(lora.training.fine_tuning.alpha == 8.0);
    CHECK(lora.training.fine_tuning.targets.empty());
    CHECK(lora.training.fine_tuning.base_precision == models::BasePrecision::kBf16);
    // r = 8 on all seven projections: half of r = 16's 39,976,960.
    CHECK(lora.workload.parameters == doctest::Approx(19'988'480.0));
    CHECK(lora.workload.frozen_parameters == doctest::Approx(6'738'415'616.0));
    const models::JobSpec qlora = job_of(qlora_scenario("{method: qlora, rank: 16, alpha: 32, targets: [q, v]}"));
    CHECK(qlora.training.fine_tuning.base_precision == models::BasePrecision::kNf4);
    CHECK(qlora.training.fine_tuning.alpha == 32.0);
    // q and v, 16 x (4096 + 4096) each, 32 layers.
    CHECK(qlora.workload.parameters == doctest::Approx(8'388'608.0));
    CHECK(qlora.training.fine_tuning.double_quantization);
    // litgpt's bnb.nf4: no double quantization, 4.5 bits instead of 4.127 on the
    // 32 x (4·4096² + 3·4096·11008) = 6,476,005,376 projection weights.
    const models::JobSpec single = job_of(qlora_scenario("{method: qlora, targets: [q, v], double_quantization: false}"));
    CHECK_FALSE(single.training.fine_tuning.double_quantization);
    CHECK(single.workload.frozen_weight_bytes() - qlora.workload.frozen_weight_bytes() ==
          doctest::Approx(6'476'005'376.0 * (4.5 - models::kNf4BitsPerWeight) / 8.0));
    // Without the key the job trains every parameter.
    const std::string full_text = with_replaced(qlora_scenario("{method: full}"), "  fine_tuning: {method: full}\n", "");
    CHECK(job_of(full_text).workload.parameters == doctest::Approx(6'738'415'616.0));
    CHECK(job_of(qlora_scenario("{method: full}")).workload.frozen_parameters == 0.0);
  }

  TEST_CASE("a QLoRA 7 B run fits where the full fine-tune does not") {
    const models::JobSpec qlora = job_of(qlora_scenario("{method: qlora, rank: 16}"));
    const models::MemoryBreakdown m =
        models::training_memory(qlora.workload, qlora.training, models::MemoryModelParams::defaults());
    // 3.34 GB of NF4 layer weights + 0.52 GB of bf16 embeddings, head and norms + 0.24 GB
    // of fp32 adapters with autocast's 16-bit copies (fine_tuning_test.cpp has the figures).
    CHECK(m.weights_bytes / 1e9 == doctest::Approx(4.11).epsilon(0.005));
    const models::JobSpec full = job_of(qlora_scenario("{method: full}"));
    const models::MemoryBreakdown f =
        models::training_memory(full.workload, full.training, models::MemoryModelParams::defaults());
    CHECK(f.weights_bytes == doctest::Approx(6'738'415'616.0 * (4 + 2)));  // fp32 + autocast's copies
    CHECK(f.weights_bytes > 6.0 * m.weights_bytes);
  }

  TEST_CASE("strategies override the fine-tuning keys") {
    const Scenario s = parse_text(qlora_scenario(
        "{method: qlora, rank: 16}",
        "strategies:\n  r16: {}\n  r64: {training.fine_tuning.rank: 64}\n  lora: {training.fine_tuning: {method: "
        "lora}}\n"));
    REQUIRE(s.variants.size() == 3);
    CHECK(s.variants[0].job.workload.parameters == doctest::Approx(39'976'960.0));
    CHECK(s.variants[1].job.workload.parameters == doctest::Approx(4.0 * 39'976'960.0));
    // The override merges into the section: rank 16 stays, method becomes lora with a bf16 base.
    CHECK(s.variants[2].job.training.fine_tuning.base_precision == models::BasePrecision::kBf16);
    CHECK(s.variants[2].job.workload.parameters == doctest::Approx(39'976'960.0));
  }

  TEST_CASE("a strategy's fine_tuning mapping merges into the base's: a conflict says where the base sets the key") {
    // The base sets base_precision: nf4 (line 12, column 58); the strategy's mapping sets
    // method: lora (line 19, column 41) and keeps the base's nf4, which lora refuses.
    const std::string strategy = "strategies:\n  lora: {training.fine_tuning: {method: lora, rank: 16}}\n";
    CHECK(scenario_errors(qlora_scenario("{method: qlora, rank: 16, base_precision: nf4}", strategy)) ==
          Messages{"lora keeps its base in bf16, and nf4 is a quantized base at s.yaml:19:41 "
                   "(strategies.lora.training.fine_tuning.method); training.fine_tuning.base_precision is the base's, "
                   "set at s.yaml:12:58: a strategy's training.fine_tuning merges into the base's mapping, keeping the "
                   "keys it does not set, so set base_precision in the strategy's training.fine_tuning too (use "
                   "method: qlora for an int8 or nf4 base, or base_precision: bf16)"});
    // The fix as the message gives it: the strategy sets base_precision too.
    const Scenario fixed = parse_text(qlora_scenario(
        "{method: qlora, rank: 16, base_precision: nf4}",
        "strategies:\n  lora: {training.fine_tuning: {method: lora, rank: 16, base_precision: bf16}}\n"));
    CHECK(fixed.variants.front().job.training.fine_tuning.base_precision == models::BasePrecision::kBf16);
    // A dotted path sets one key and says nothing of a mapping: the message stays as it was.
    CHECK(scenario_errors(qlora_scenario("{method: qlora, rank: 16, base_precision: nf4}",
                                         "strategies:\n  lora: {training.fine_tuning.method: lora}\n")) ==
          Messages{"lora keeps its base in bf16, and nf4 is a quantized base at s.yaml:19:39 "
                   "(strategies.lora.training.fine_tuning.method); use method: qlora for an int8 or nf4 base, or "
                   "base_precision: bf16"});
  }

  TEST_CASE("a strategy back to full fine-tuning: the fix says how a strategy removes the base's rank") {
    // The base sets rank: 16 (line 12, column 37); the strategy sets method: full, by a dotted path
    // (line 19, column 39) or in a mapping (column 41). A strategy removes a key with null.
    CHECK(scenario_errors(qlora_scenario("{method: lora, rank: 16}",
                                         "strategies:\n  full: {training.fine_tuning.method: full}\n")) ==
          Messages{"rank applies to lora and qlora adapters, and method is full at s.yaml:19:39 "
                   "(strategies.full.training.fine_tuning.method); remove rank, or use method: lora; the base sets "
                   "training.fine_tuning.rank at s.yaml:12:37: write training.fine_tuning.rank: null in the strategy "
                   "to remove it there"});
    CHECK(scenario_errors(qlora_scenario("{method: lora, rank: 16}",
                                         "strategies:\n  full: {training.fine_tuning: {method: full}}\n")) ==
          Messages{"rank applies to lora and qlora adapters, and method is full at s.yaml:19:41 "
                   "(strategies.full.training.fine_tuning.method); training.fine_tuning.rank is the base's, set at "
                   "s.yaml:12:37: a strategy's training.fine_tuning merges into the base's mapping, keeping the keys it "
                   "does not set, so set rank in the strategy's training.fine_tuning too, or write rank: null there to "
                   "remove it (remove rank, or use method: lora)"});
    // The fix as the message gives it.
    const Scenario fixed = parse_text(qlora_scenario(
        "{method: lora, rank: 16}",
        "strategies:\n  full: {training.fine_tuning.method: full, training.fine_tuning.rank: null}\n"));
    CHECK(fixed.variants.front().job.training.fine_tuning.method == models::FineTuningMethod::kFull);
  }

  TEST_CASE("dropout: peft's 0 by default; above 0 each adapted projection keeps the dropped input and mask") {
    const models::JobSpec none = job_of(qlora_scenario("{method: qlora, targets: [q, v]}"));
    CHECK(none.training.fine_tuning.dropout == 0.0);
    const models::JobSpec dropped = job_of(qlora_scenario("{method: qlora, targets: [q, v], dropout: 0.05}"));
    CHECK(dropped.training.fine_tuning.dropout == doctest::Approx(0.05));
    // One dropout on the fused qkv input per layer (litgpt's LoRAQKVLinear): the 1-byte mask
    // and the dropped bf16 input, 3 B x 4096 x 2048 tokens x 4 samples x 32 layers.
    const auto memory = [](const models::JobSpec& job) {
      return models::training_memory(job.workload, job.training, models::MemoryModelParams::defaults());
    };
    CHECK(memory(dropped).activations_bytes - memory(none).activations_bytes ==
          doctest::Approx(3.0 * 4096 * 2048 * 4 * 32));
    CHECK(scenario_errors(qlora_scenario("{method: full, dropout: 0.1}")) ==
          Messages{"dropout applies to lora and qlora adapters, and method is full at s.yaml:12:40 "
                   "(training.fine_tuning.dropout); remove dropout, or use method: lora"});
  }

  TEST_CASE("refused values, each at its key with a fix") {
    CHECK(scenario_errors(qlora_scenario("{method: qlora, base_precision: int8, double_quantization: true}")) ==
          Messages{"double_quantization applies to an nf4 base, and base_precision is int8 at s.yaml:12:75 "
                   "(training.fine_tuning.double_quantization); remove double_quantization, or use base_precision: "
                   "nf4"});
    CHECK(scenario_errors(qlora_scenario("{method: qlora, base_precision: bf16}")) ==
          Messages{"qlora trains adapters on a quantized base, and bf16 is not quantized at s.yaml:12:48 "
                   "(training.fine_tuning.base_precision); use base_precision: nf4 (or int8), or method: lora"});
    CHECK(scenario_errors(qlora_scenario("{method: lora, base_precision: nf4}")) ==
          Messages{"lora keeps its base in bf16, and nf4 is a quantized base at s.yaml:12:47 "
                   "(training.fine_tuning.base_precision); use method: qlora for an int8 or nf4 base, or "
                   "base_precision: bf16"});
    CHECK(scenario_errors(qlora_scenario("{method: lora, rank: 0}")) ==
          Messages{"out-of-range value 0 at s.yaml:12:37 (training.fine_tuning.rank); expected a whole number from 1 "
                   "to 1000000"});
    CHECK(scenario_errors(qlora_scenario("{method: lora, rank: 5000}")) ==
          Messages{"rank 5000 exceeds 4096, the narrowest targeted projection of llama2-7b (a rank-r adapter is "
                   "low-rank only below the matrix's width) at s.yaml:12:37 (training.fine_tuning.rank); use rank "
                   "4096 or less (8 to 64 is usual)"});
    CHECK(scenario_errors(qlora_scenario("{method: lora, targets: [q, kk, gate, q]}")) ==
          Messages{"unknown target 'kk', expected one of q, k, v, o, gate, up, down at s.yaml:12:44 "
                   "(training.fine_tuning.targets[1]); did you mean k?",
                   "target 'q' is listed twice at s.yaml:12:54 (training.fine_tuning.targets[3]); remove the repeat"});
    // peft's module names (target_modules: [q_proj, ...]) are answered with the target.
    CHECK(scenario_errors(qlora_scenario("{method: lora, targets: [q_proj, gate]}")) ==
          Messages{"unknown target 'q_proj', expected one of q, k, v, o, gate, up, down at s.yaml:12:41 "
                   "(training.fine_tuning.targets[0]); write q (peft's target_modules name q_proj)"});
    CHECK(scenario_errors(qlora_scenario("{method: lora, targets: all}")) ==
          Messages{"unknown value 'all', expected all_linear or a list such as [q, k, v, o, gate, up, down] at "
                   "s.yaml:12:40 (training.fine_tuning.targets); did you mean all_linear?"});
    CHECK(scenario_errors(qlora_scenario("{method: lora, targets: []}")) ==
          Messages{"expected all_linear or a list such as [q, k, v, o, gate, up, down], found an empty list at "
                   "s.yaml:12:40 (training.fine_tuning.targets); write targets: all_linear, or list the projections "
                   "to adapt"});
    CHECK(scenario_errors(qlora_scenario("{method: full, rank: 8}")) ==
          Messages{"rank applies to lora and qlora adapters, and method is full at s.yaml:12:37 "
                   "(training.fine_tuning.rank); remove rank, or use method: lora"});
    CHECK(scenario_errors(qlora_scenario("{rank: 8}")) ==
          Messages{"missing key 'method' at s.yaml:12:16 (training.fine_tuning.method); add method: one of full, lora "
                   "or qlora"});
    CHECK(scenario_errors(qlora_scenario("{method: lorra}")) ==
          Messages{"unknown value 'lorra', expected one of full, lora or qlora at s.yaml:12:25 "
                   "(training.fine_tuning.method); did you mean lora or qlora?"});
    CHECK(scenario_errors(qlora_scenario("{method: lora, rnk: 4}")) ==
          Messages{"unknown key 'rnk' at s.yaml:12:31 (training.fine_tuning.rnk); did you mean rank?"});
    CHECK(scenario_errors(qlora_scenario("qlora")) ==
          Messages{"expected a mapping, found 'qlora' at s.yaml:12:16 (training.fine_tuning); write the keys of "
                   "training.fine_tuning indented below it"});
  }

  TEST_CASE("refused combinations with the precision and the model") {
    CHECK(scenario_errors(with_replaced(qlora_scenario("{method: qlora}"), "bf16_amp", "fp32")) ==
          Messages{"qlora computes with 16-bit base weights, and training.precision is fp32 at s.yaml:12:25 "
                   "(training.fine_tuning.method); use training.precision: bf16_amp (or bf16, fp16_amp)"});
    // A refused precision is one error: the check above does not run on the default (fp32)
    // that stands in for the refused value.
    CHECK(scenario_errors(with_replaced(qlora_scenario("{method: qlora}"), "bf16_amp", "bf16-amp")) ==
          Messages{"unknown value 'bf16-amp', expected one of fp32, tf32, fp16_amp, bf16_amp, bf16 or fp8 at "
                   "s.yaml:10:14 (training.precision); did you mean bf16_amp or bf16?"});
    CHECK(scenario_errors(with_replaced(with_replaced(qlora_scenario("{method: lora}"), "model: llama2-7b",
                                                      "model: resnet50"),
                                        "  sequence_length: 2048\n", "")) ==
          Messages{"resnet50 (family resnet) has no transformer projections for LoRA adapters at s.yaml:11:25 "
                   "(training.fine_tuning.method); use method: full"});
    CHECK(scenario_errors(with_replaced(with_replaced(qlora_scenario("{method: lora, targets: [gate]}"),
                                                      "model: llama2-7b", "model: gpt2"),
                                        "sequence_length: 2048", "sequence_length: 1024")) ==
          Messages{"gpt2 has no gate projection at s.yaml:12:41 (training.fine_tuning.targets[0]); its projections "
                   "are q, k, v, o, up, down"});
  }
}

}  // namespace gpuplan::config::testing

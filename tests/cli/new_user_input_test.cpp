// Defects a tester found as a new user of main (86ad818): bad input accepted silently,
// messages at the wrong key or with two hints, missing did-you-means. Each case asserts the
// whole message of `gpuplan run`/`plan`/`validate` on scenario S (GPT-2 on one H100,
// 1,048,576 tokens, 128 steps) changed in one place.

#include <doctest/doctest.h>

#include <unistd.h>

#include <fstream>
#include <string>

#include "run_command.h"

using gpuplan::testing::run_gpuplan;
using gpuplan::testing::TempDir;

namespace {

const std::string kS =
    "format: gpuplan/v1\n"
    "name: small\n"
    "workload: {model: gpt2, sequence_length: 1024, tokens: 1048576, dataset: {synthetic: true}}\n"
    "training: {batch_size: 8, precision: bf16_amp, optimizer: adamw}\n"
    "hardware: {gpu: h100-sxm}\n";

/// `from` replaced by `to` in `text` (which must hold it).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

/// `gpuplan <command> FILE <args>` on `yaml` written to FILE: the exit code must be 2 and
/// stderr is returned with the file's path written as "@".
std::string refused(const std::string& yaml, const std::string& command = "run", const std::string& args = "") {
  TempDir dir("new-user");
  const std::string path = dir / "s.yaml";
  std::ofstream(path) << yaml;
  const auto r = run_gpuplan(command + " " + path + args);
  CHECK(r.exit_code == 2);
  std::string err = r.err;
  for (auto at = err.find(path); at != std::string::npos; at = err.find(path)) err.replace(at, path.size(), "@");
  return err;
}

}  // namespace

TEST_SUITE("cli.new_user_input") {
  TEST_CASE("a sweep value listed twice is refused at the repeat; an empty list is called one") {
    CHECK(refused(kS + "sweep: {training.batch_size: [2, 2]}\n") ==
          "gpuplan: 1 error:\n  sweep lists '2' twice at @:6:34 (sweep.training.batch_size[1]); item 0 is the same "
          "value, remove one\n");
    CHECK(refused(kS + "sweep: {training.batch_size: []}\n") ==
          "gpuplan: 1 error:\n  expected a non-empty list of values, found an empty list at @:6:30 "
          "(sweep.training.batch_size); write e.g. training.batch_size: [a, b]\n");
  }

  TEST_CASE("plan: a non-positive budget or deadline is refused; a bare number gets one hint") {
    CHECK(refused(kS, "plan", " --deadline 72h --budget '$-5'") ==
          "gpuplan: --budget '$-5': expected a positive value; write dollars such as '$5000' (in single quotes: a shell "
          "expands \"$5\" inside double quotes) or \"5000 USD\" (see gpuplan --help)\n");
    CHECK(refused(kS, "plan", " --deadline 0h") ==
          "gpuplan: --deadline '0h': expected a positive value; write a duration such as 72h or \"3 d\" (see gpuplan "
          "--help)\n");
    CHECK(refused(kS, "plan", " --deadline 72") ==
          "gpuplan: --deadline '72': a bare number is not a duration: found '72'; write a duration such as 72h or "
          "\"3 d\" (see gpuplan --help)\n");
  }

  TEST_CASE("a checkpoint interval shorter than one checkpoint write is refused at checkpointing.interval") {
    // GPT-2 124M with AdamW: fp32 weights + two fp32 moments = 124.4e6 x 12 B = 1.49 GB,
    // written at the Lambda instance's 4.2 GB/s local NVMe: 0.356 s per write.
    const std::string yaml = replaced(kS, "hardware: {gpu: h100-sxm}\n",
                                      "cloud: {instance: lambda/gpu_1x_h100_sxm5}\ncheckpointing: {interval: \"1 ns\"}\n");
    CHECK(refused(yaml) ==
          "gpuplan: 1 error:\n  a checkpoint interval of 1e-09 s is shorter than one checkpoint write (1.49 GB at "
          "4.2 GB/s: 0.356 s) at @:6:27 (checkpointing.interval); raise it well above the write, e.g. \"30 min\", or "
          "write auto (Young/Daly)\n");
  }

  TEST_CASE("a control character written as a YAML escape is refused; it would reach tables and CSV raw") {
    CHECK(refused(replaced(kS, "name: small", "name: \"a \\u0000 b\"")) ==
          "gpuplan: 1 error:\n  a control character (U+0000) in a value at @:2:7; names and values reach tables and "
          "CSV files: remove it (a YAML escape such as \"\\u0000\" writes one)\n");
    CHECK(refused(replaced(kS, "name: small", "name: \"bell \\a\"")) ==
          "gpuplan: 1 error:\n  a control character (U+0007) in a value at @:2:7; names and values reach tables and "
          "CSV files: remove it (a YAML escape such as \"\\u0000\" writes one)\n");
  }

  TEST_CASE("a 1 MB unknown model name is echoed as its first 80 bytes and its size") {
    const std::string err = refused(replaced(kS, "model: gpt2", "model: " + std::string(1000000, 'x')));
    CHECK(err == "gpuplan: 1 error:\n  unknown model '" + std::string(80, 'x') +
                     "... (1,000,000 bytes)' at @:3:19 (workload.model); `gpuplan list models` lists the catalog's "
                     "models\n");
  }

  TEST_CASE("syntax errors name the tab, the unclosed brace, the merge key; an empty file says so") {
    CHECK(refused("format: gpuplan/v1\nname: small\nworkload:\n\tmodel: gpt2\n") ==
          "gpuplan: 1 error:\n  YAML syntax error: illegal map value at @:4:7; line 4 is indented with a tab: YAML "
          "indents with spaces only, replace the tab with spaces\n");
    CHECK(refused("format: gpuplan/v1\nworkload: {model: gpt2, sequence_length: 1024\ntraining: {batch_size: 8}\n") ==
          "gpuplan: 1 error:\n  YAML syntax error: end of map flow not found at @:3:9; the '{' at @:2:11 is not "
          "closed: add its '}'\n");
    CHECK(refused("format: gpuplan/v1\nbase: &b {batch_size: 8}\ntraining:\n  <<: *b\n") ==
          "gpuplan: 1 error:\n  a YAML merge key '<<' at @:4:3; merge keys are not supported: write the keys of the "
          "anchored mapping out here\n");
    CHECK(refused("# only a comment\n\n") ==
          "gpuplan: 1 error:\n  the file is empty at @:1:1; a scenario starts with format: gpuplan/v1, then e.g. "
          "workload: {model: gpt2, sequence_length: 1024, tokens: 1e9, dataset: {synthetic: true}}, training: "
          "{batch_size: 8, precision: bf16_amp, optimizer: adamw} and hardware: {gpu: h100-sxm} (gpuplan init FILE "
          "writes a commented one)\n");
  }

  TEST_CASE("did you mean: peft's lora_alpha, a section under the wrong parent, a mistyped option") {
    CHECK(refused(replaced(kS, "optimizer: adamw}", "optimizer: adamw, fine_tuning: {method: lora, lora_alpha: 16}}")) ==
          "gpuplan: 1 error:\n  unknown key 'lora_alpha' at @:4:94 (training.fine_tuning.lora_alpha); did you mean "
          "alpha?\n");
    CHECK(refused(replaced(kS, "{gpu: h100-sxm}", "{gpu: h100-sxm, fine_tuning: {method: lora}}")) ==
          "gpuplan: 1 error:\n  unknown key 'fine_tuning' at @:5:27 (hardware.fine_tuning); did you mean "
          "training.fine_tuning?\n");
    CHECK(refused(kS, "run", " --sead 3") == "gpuplan: unknown option '--sead'; did you mean --seed? (see gpuplan --help)\n");
    CHECK(refused(kS, "plan", " --deadlin 3h") ==
          "gpuplan: unknown option '--deadlin' of gpuplan plan; did you mean --deadline? (see gpuplan --help)\n");
  }

  TEST_CASE("synthetic: yes is one error, not six") {
    CHECK(refused(replaced(kS, "synthetic: true", "synthetic: yes")) ==
          "gpuplan: 1 error:\n  expected true or false, found 'yes' at @:3:86 (workload.dataset.synthetic); write true or "
          "false\n");
  }

  TEST_CASE("plan --gpus h100 takes the alias as hardware.gpu does, with the same note") {
    TempDir dir("new-user-gpus");
    const std::string path = dir / "s.yaml";
    std::ofstream(path) << kS;
    const auto r = run_gpuplan("plan " + path + " --deadline 72h --gpus h100 --format csv");
    CHECK(r.exit_code == 0);
    CHECK(r.err ==
          "note: --gpus: h100 is taken as h100-sxm; it also names h100-pcie and h100-nvl (write the catalog name to "
          "choose one)\n");
    CHECK(r.out.find("h100-sxm") != std::string::npos);
  }

  TEST_CASE("validate names a folder that does not exist as such") {
    const auto r = run_gpuplan("validate /nonexistent-gpuplan-folder");
    CHECK(r.exit_code == 2);
    CHECK(r.err == "gpuplan: 1 error:\n  cannot read folder '/nonexistent-gpuplan-folder': it does not exist\n");
  }

  // Five more from a later new-user test (finding numbers of that report).
  TEST_CASE("plan: when validation refuses every candidate, it says so with the reasons, not 'no plan meets'") {
    // 1,352 candidates: GPT-2's 12 layers are also tried in pipeline stages under fsdp
    // full_shard (cli/layout_search.h), 214 more than under ddp alone (1,138).
    const std::string yaml = replaced(kS, "optimizer: adamw}", "optimizer: adamw, attention: flash3}");
    CHECK(refused(yaml, "plan", " --deadline 72h --gpus a100-80gb") ==
          "gpuplan: 1 error:\n  all 1,352 plan candidates (variant x layout x instance x nodes) were refused by "
          "validation, for this reason:\n    flash3 attention (FlashAttention-3, cuDNN fused attention) needs an "
          "NVIDIA GPU of compute capability 9.0 or newer (Hopper, Blackwell), and a100-80gb has 8.0 at @:4:77 "
          "(training.attention); use attention: sdpa (PyTorch picks a kernel that runs) or eager [1,352 "
          "candidates]\n  fix the scenario at the keys named (a strategy may set them), or plan other GPUs (--gpus, "
          "--providers)\n");
  }

  TEST_CASE("an invisible or bidi character in a value is shown escaped, and the message says it is there") {
    const auto with = [](const std::string& value) {
      return refused(replaced(kS, "optimizer: adamw}", "optimizer: adamw, attention: \"" + value + "\"}"));
    };
    CHECK(with("flash\\u200b") ==
          "gpuplan: 1 error:\n  unknown value 'flash<U+200B>' (it contains the invisible character U+200B, shown as "
          "<U+200B>), expected one of eager, sdpa, flash, flash3, memory_efficient or flash_triton at @:4:77 (training.attention); "
          "did you mean flash?\n");
    CHECK(with("flash\\u00a0") ==
          "gpuplan: 1 error:\n  unknown value 'flash<U+00A0>' (it contains the invisible character U+00A0, shown as "
          "<U+00A0>), expected one of eager, sdpa, flash, flash3, memory_efficient or flash_triton at @:4:77 (training.attention); "
          "did you mean flash or flash3?\n");
    CHECK(with("fl\\u202eash") ==
          "gpuplan: 1 error:\n  unknown value 'fl<U+202E>ash' (it contains the invisible character U+202E, shown as "
          "<U+202E>), expected one of eager, sdpa, flash, flash3, memory_efficient or flash_triton at @:4:77 "
          "(training.attention)\n");
  }

  TEST_CASE("other tools' names of the attention kernels suggest gpuplan's, and are still refused") {
    const auto with = [](const std::string& value) {
      return refused(replaced(kS, "optimizer: adamw}", "optimizer: adamw, attention: " + value + "}"));
    };
    const std::string expected = "gpuplan: 1 error:\n  unknown value '{}', expected one of eager, sdpa, flash, "
                                 "flash3, memory_efficient or flash_triton at @:4:77 (training.attention); did you mean {}?\n";
    const auto message = [&expected](const std::string& value, const std::string& meant) {
      std::string m = replaced(expected, "{}", value);
      return replaced(m, "{}", meant);
    };
    CHECK(with("fa3") == message("fa3", "flash3"));
    CHECK(with("flash-attention-3") == message("flash-attention-3", "flash3"));  // was "did you mean flash?"
    CHECK(with("fa2") == message("fa2", "flash"));
    CHECK(with("flash_attn") == message("flash_attn", "flash"));
    CHECK(with("flash_attention_2") == message("flash_attention_2", "flash"));
    CHECK(with("xformers") == message("xformers", "memory_efficient"));
    CHECK(with("math") == message("math", "eager"));
  }

  TEST_CASE("precision fp8 on a model with no linear layer in a repeated block is refused at the key") {
    const std::string yaml =
        "format: gpuplan/v1\nname: r\nworkload: {model: resnet50, dataset: {synthetic: true, samples: 12800}, "
        "epochs: 1}\ntraining: {batch_size: 128, precision: fp8, optimizer: sgd_momentum}\nhardware: {gpu: h100-sxm}\n";
    CHECK(refused(yaml) ==
          "gpuplan: 1 error:\n  fp8 runs only the linear layers of a model's repeated blocks in fp8 (Transformer "
          "Engine's fp8 Linear), and resnet50 (family resnet) has none: no op would run in fp8, and the rest runs in "
          "bf16 at @:4:40 (training.precision); use bf16_amp\n");
  }

  TEST_CASE("an error that only a strategy or sweep value causes points at that override, not at the base's line") {
    const std::string yaml = kS +
                             "strategies:\n"
                             "  a: {}\n"
                             "  ga:\n"
                             "    training.gradient_accumulation: 1000\n"
                             "  v100:\n"
                             "    hardware.gpu: v100-32gb\n"
                             "sweep:\n"
                             "  hardware.gpus_per_node: [1, 2]\n";
    CHECK(refused(yaml) ==
          "gpuplan: 4 errors:\n"
          "  tokens 1048576 make 1024 sequence(s), fewer than one global batch of 8000 (batch_size 8 x "
          "gradient_accumulation 1000 x 1 GPU): the job ends before its first optimizer step at @:9:37 "
          "(strategies.ga.training.gradient_accumulation); raise tokens to at least 8192000 (8000 sequences of 1024 "
          "tokens), or lower batch_size or gradient_accumulation\n"
          "  [hardware.gpus_per_node=2] tokens 1048576 make 1024 sequence(s), fewer than one global batch of 16000 "
          "(batch_size 8 x gradient_accumulation 1000 x 2 GPUs): the job ends before its first optimizer step at "
          "@:9:37 (strategies.ga.training.gradient_accumulation); raise tokens to at least 16384000 (16000 "
          "sequences of 1024 tokens), or lower batch_size or gradient_accumulation\n"
          "  bf16_amp needs a GPU of compute capability 8.0 or newer, and v100-32gb has 7.0 at @:11:19 "
          "(strategies.v100.hardware.gpu); use fp16_amp or fp32\n"
          "  2 GPUs (2 per node x 1 node) need a parallel strategy at @:13:31 (sweep.hardware.gpus_per_node[1]); add "
          "parallelism.strategy: ddp (or data_parallel on one node)\n");
  }

  TEST_CASE("session 35's trial: extra arguments, list filters and misspellings, init into a folder, catalog folders") {
    TempDir dir("new-user-args");
    const std::string a = dir / "a.yaml";
    std::ofstream(a) << kS;
    // Two scenarios: Boost said "too many positional options have been specified".
    const auto two = run_gpuplan("run " + a + " " + a);
    CHECK(two.exit_code == 2);
    CHECK(two.err.find("gpuplan: too many arguments: this command takes SCENARIO and options; run it once per file") ==
          0);
    // list instances GPU filters by the catalog name or an alias; other lists take no filter.
    const auto l4 = run_gpuplan("list instances L4");
    REQUIRE(l4.exit_code == 0);
    CHECK(l4.out.find("gcp/g2-standard-8") != std::string::npos);
    CHECK(l4.out.find("p5.48xlarge") == std::string::npos);
    CHECK(run_gpuplan("list instances l5").err.find("unknown GPU 'l5'; did you mean") != std::string::npos);
    CHECK(run_gpuplan("list gpus l4").err ==
          "gpuplan: gpuplan list gpus takes no filter ('l4'); only list instances GPU does (see gpuplan --help)\n");
    CHECK(run_gpuplan("list gpu").err ==
          "gpuplan: unknown list 'gpu'; expected gpus, instances, models, families or storage; did you mean gpus? "
          "(see gpuplan --help)\n");
    // init into a folder: said so, not "exists ... never replaces a file".
    const auto folder = run_gpuplan("init " + dir.path.string());
    CHECK(folder.exit_code == 2);
    CHECK(folder.err.find("is a folder; name the FILE to write, such as ") != std::string::npos);
    // A catalog folder that does not exist is one error, not one per file it lacks.
    const auto missing = run_gpuplan("run " + a + " --catalogs /nonexistent");
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.find("the catalog folder '/nonexistent' (--catalogs, or GPUPLAN_CATALOG_DIR) does not exist; "
                           "name the folder that holds gpus.yaml") != std::string::npos);
    CHECK(missing.err.find("storage.yaml': No such file") == std::string::npos);
    const auto csv_folder = run_gpuplan("run " + a + " --catalog " + dir.path.string());
    CHECK(csv_folder.err.find("is a folder; name its vms.csv") != std::string::npos);
  }

  TEST_CASE("session 35's second trial: own hardware past its amortization, GPUs no instance has, on_premises keys") {
    TempDir dir("new-user-onprem");
    const std::string own = dir / "own.yaml";
    // GPT-2 on one H100 bought for $30,000 and amortized over 1 s: the 10 s run outlasts it.
    std::ofstream(own) << kS << "on_premises: {purchase_price: \"$30000\", amortization: \"1 s\", "
                                "electricity: \"$0.15/kWh\"}\n";
    const auto r = run_gpuplan("run " + own);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.out.find("note: on premises: the run (") != std::string::npos);
    CHECK(r.out.find(") outlasts on_premises.amortization (0.0 h), so its hardware share is ") != std::string::npos);
    // A GPU no cloud instance has: said so, not an empty table.
    CHECK(run_gpuplan("list instances rtx4090").out ==
          "No instance of the catalogs has a rtx4090 (own hardware: write hardware.gpu: rtx4090 in the scenario, with "
          "on_premises for its dollars).\n");
    // A missing amortization's fix gives a service life, not "4 ms".
    CHECK(refused(kS + "on_premises: {purchase_price: \"$30000\", electricity: \"$0.15/kWh\"}\n")
              .find("\"3 years\"") != std::string::npos);
  }
}

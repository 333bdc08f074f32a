/// \file activation_checkpointing_test.cpp
/// training.activation_checkpointing: false | true | full | selective | {every: N} through
/// the loader: the op table each produces, and the refused values as whole messages.

#include <doctest/doctest.h>

#include "config_fixture.h"
#include "gpt2_training_scenario.h"

namespace gpuplan::config::testing {
namespace {

/// GPT-2 124M with `attention` (eager by default) on line 12; line 13 holds the key under test.
std::string gpt2_scenario(const std::string& value, const std::string& attention = "eager") {
  return gpt2_training_scenario("  attention: " + attention + "\n  activation_checkpointing: " + value + "\n");
}

models::JobSpec job_of(const std::string& text) { return parse_text(text).variants.front().job; }

int marked(const models::Workload& w, bool models::Op::*flag) {
  int n = 0;
  for (const models::Op& op : w.ops) {
    n += (op.*flag) ? 1 : 0;
  }
  return n;
}

}  // namespace

TEST_SUITE("config.activation_checkpointing") {
  TEST_CASE("each value and what it does to the job") {
    const models::JobSpec none = job_of(gpt2_scenario("false"));
    CHECK(none.training.activation_recompute == models::ActivationRecompute::kNone);
    CHECK_FALSE(none.training.activation_checkpointing);
    for (const char* full_name : {"true", "full"}) {
      const models::JobSpec full = job_of(gpt2_scenario(full_name));
      CHECK(full.training.activation_recompute == models::ActivationRecompute::kFull);
      CHECK(full.training.activation_checkpointing);  // the step plan replays every op
      CHECK(marked(full.workload, &models::Op::recompute_in_backward) == 0);
    }
    const models::JobSpec selective = job_of(gpt2_scenario("selective"));
    CHECK_FALSE(selective.training.activation_checkpointing);
    // scores, scale, mask, softmax, dropout in each of 12 layers.
    CHECK(marked(selective.workload, &models::Op::recompute_in_backward) == 12 * 5);
    CHECK(marked(selective.workload, &models::Op::checkpointed) == 0);
    const models::JobSpec every = job_of(gpt2_scenario("{every: 4}"));
    CHECK(every.training.checkpoint_every == 4);
    // Blocks 0, 4 and 8 of 12.
    const int per_block = marked(job_of(gpt2_scenario("{every: 12}")).workload, &models::Op::checkpointed);
    CHECK(per_block > 0);
    CHECK(marked(every.workload, &models::Op::checkpointed) == 3 * per_block);
  }

  TEST_CASE("refused values and combinations, at the key with a fix") {
    CHECK(scenario_errors(gpt2_scenario("{every: 13}")) ==
          Messages{"every 13 checkpoints one block in 13, and gpt2 has 12 blocks at s.yaml:13:29 "
                   "(training.activation_checkpointing); use every: 12 or less (every: 1 checkpoints every block)"});
    CHECK(scenario_errors(gpt2_scenario("{every: 0}")) ==
          Messages{"out-of-range value 0 at s.yaml:13:37 (training.activation_checkpointing.every); expected a whole "
                   "number from 1 to 1000000"});
    // The misspelt every is one error, not also "missing key 'every'".
    CHECK(scenario_errors(gpt2_scenario("{evry: 2}")) ==
          Messages{"unknown key 'evry' at s.yaml:13:30 (training.activation_checkpointing.evry); did you mean every?"});
    CHECK(scenario_errors(gpt2_scenario("selectve")) ==
          Messages{"unknown value 'selectve', expected false, full (or true), selective or {every: N} at s.yaml:13:29 "
                   "(training.activation_checkpointing); did you mean selective?"});
    // YAML 1.1's yes and off: text in YAML 1.2; the fix names the boolean (a trial wrote yes).
    CHECK(scenario_errors(gpt2_scenario("yes")) ==
          Messages{"unknown value 'yes', expected false, full (or true), selective or {every: N} at s.yaml:13:29 "
                   "(training.activation_checkpointing); write true (full recomputation): YAML 1.2 reads 'yes' as text"});
    CHECK(scenario_errors(gpt2_scenario("off")) ==
          Messages{"unknown value 'off', expected false, full (or true), selective or {every: N} at s.yaml:13:29 "
                   "(training.activation_checkpointing); write false: YAML 1.2 reads 'off' as text"});
    CHECK(job_of(gpt2_scenario("True")).training.activation_recompute == models::ActivationRecompute::kFull);
    CHECK(scenario_errors(gpt2_scenario("[full]")) ==
          Messages{"expected false, full (or true), selective or {every: N}, found a sequence at s.yaml:13:29 "
                   "(training.activation_checkpointing); write activation_checkpointing: full, for example"});
    CHECK(scenario_errors(gpt2_scenario("selective", "flash")) ==
          Messages{"selective recomputes the attention scores, and flash attention saves none (its backward "
                   "recomputes them already) at s.yaml:13:29 (training.activation_checkpointing); use attention: "
                   "eager with selective, or activation_checkpointing: full or {every: N}"});
    CHECK(scenario_errors(with_replaced(kMinimalScenario, "  batch_size: 32\n",
                                        "  batch_size: 32\n  activation_checkpointing: selective\n")) ==
          Messages{"resnet50 (family resnet) has no attention to recompute at s.yaml:13:29 "
                   "(training.activation_checkpointing); use activation_checkpointing: full or {every: N}"});
  }
}

}  // namespace gpuplan::config::testing

// workload.dataset's evaluation keys (eval_every_steps, eval_first_rank_only) shape a pass of
// eval_samples samples: without eval_samples they were silently ignored (a tester's report).
// And an error inside a synthetic dataset block must not add the follow-on "missing key"
// errors of the hardware keys that synthetic data makes optional.
#include <doctest/doctest.h>

#include <string>

#include "config_fixture.h"

namespace gpuplan::config {
namespace {

using testing::Messages;
using testing::scenario_errors;

/// One GPU, synthetic data, the dataset's keys on lines 4.. as `dataset_lines` gives them.
std::string synthetic_with(const std::string& dataset_lines) {
  return "format: gpuplan/v1\n"
         "workload:\n"
         "  model: gpt2\n"
         "  dataset:\n"
         "    samples: 1000\n"
         "    synthetic: true\n" +
         dataset_lines +
         "  epochs: 1\n"
         "training: {batch_size: 8}\n"
         "hardware: {gpu: a100-80gb}\n";
}

TEST_SUITE("config.dataset_eval_keys") {
  TEST_CASE("eval_every_steps or eval_first_rank_only without eval_samples: an error naming it, with the fix") {
    CHECK(scenario_errors(synthetic_with("    eval_every_steps: 100\n")) ==
          Messages{"eval_every_steps shapes the evaluation passes, but eval_samples is missing at s.yaml:7:23 "
                   "(workload.dataset.eval_every_steps); add eval_samples: <validation samples per pass>, e.g. 1000, "
                   "or remove eval_every_steps"});
    CHECK(scenario_errors(synthetic_with("    eval_first_rank_only: true\n")) ==
          Messages{"eval_first_rank_only shapes the evaluation passes, but eval_samples is missing at s.yaml:7:27 "
                   "(workload.dataset.eval_first_rank_only); add eval_samples: <validation samples per pass>, e.g. "
                   "1000, or remove eval_first_rank_only"});
    CHECK(scenario_errors(synthetic_with("    eval_samples: 0\n    eval_every_steps: 100\n")) ==
          Messages{"eval_every_steps shapes the evaluation passes, but eval_samples is 0 (no evaluation) at "
                   "s.yaml:8:23 (workload.dataset.eval_every_steps); set eval_samples: <validation samples per "
                   "pass>, e.g. 1000, or remove eval_every_steps"});
    // With eval_samples both are read.
    const Scenario s = testing::parse_text(
        synthetic_with("    eval_samples: 500\n    eval_every_steps: 100\n    eval_first_rank_only: true\n"));
    CHECK(s.variants.front().job.dataset.eval_samples == 500.0);
    CHECK(s.variants.front().job.dataset.eval_every_steps == 100.0);
    CHECK(s.variants.front().job.dataset.eval_first_rank_only);
  }

  TEST_CASE("an error in a synthetic dataset block is the only error: no follow-on missing hardware keys") {
    CHECK(scenario_errors(synthetic_with("    eval_samples: 100\n    eval_every_steps: -1\n")) ==
          Messages{"out-of-range value -1 at s.yaml:8:23 (workload.dataset.eval_every_steps); expected a number "
                   "from 0 to 1e+09"});
    CHECK(scenario_errors(synthetic_with("    eval_samples: 100\n    eval_first_rank_only: 1\n")) ==
          Messages{"expected true or false, found '1' at s.yaml:8:27 (workload.dataset.eval_first_rank_only); write "
                   "true or false"});
  }
}

}  // namespace
}  // namespace gpuplan::config

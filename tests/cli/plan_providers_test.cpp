// gpuplan plan --providers: a provider the catalogs do not hold is an error, not ignored.
#include <doctest/doctest.h>

#include <string>

#include "run_command.h"

using gpuplan::testing::run_gpuplan;

TEST_SUITE("cli.plan_providers") {
  TEST_CASE("--providers aws,foo names foo and the providers the catalogs hold") {
    const auto r = run_gpuplan("plan " + std::string(GPUPLAN_SOURCE_DIR) +
                               "/scenarios/capacity-plan-llm-finetune.yaml --deadline 48h --providers aws,foo");
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "gpuplan: unknown provider 'foo' in --providers; the catalogs hold aws, azure, gcp, lambda (see "
                   "gpuplan --help)\n");
  }
}

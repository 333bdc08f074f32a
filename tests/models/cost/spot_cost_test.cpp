// Spot billing arithmetic against practitioner report R42.
#include <doctest/doctest.h>

#include <stdexcept>

#include "models/cost/cost.h"

using namespace gpuplan::models;

TEST_SUITE("models.cost.spot") {
  TEST_CASE("R42: a SageMaker spot run of 874 s bills 262 on-demand seconds at a 70 % discount") {
    // ../shared/data/logs/R42-sagemaker-spot-billing.txt: "Training seconds: 874",
    // "Billable seconds: 262", "Managed Spot Training savings: 70.0%".
    InstanceSpec i;
    i.provider = "aws";
    i.instance_type = "ml.p3.2xlarge";
    i.price_usd_per_s = 3.825 / 3600.0;
    i.spot_price_usd_per_s = 0.30 * i.price_usd_per_s;
    i.billing_granularity_s = 1.0;
    CHECK(spot_billable_on_demand_seconds(i, 874.0) == 262.0);
    CHECK(spot_cost_usd(i, 1, 874.0) == doctest::Approx(0.30 * on_demand_cost_usd(i, 1, 874.0)));
    i.spot_price_usd_per_s = 0.0;
    CHECK_THROWS_AS(spot_cost_usd(i, 1, 874.0), std::invalid_argument);
  }
}

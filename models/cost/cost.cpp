#include "models/cost/cost.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace gpuplan::models {

double billed_seconds(double wall_s, double granularity_s) {
  if (granularity_s <= 0.0) {
    return wall_s;
  }
  // Per-second billing (the common case) needs no division: x / 1 is x exactly.
  const double units = granularity_s == 1.0 ? wall_s : wall_s / granularity_s;
  // std::ceil without libm's call (x86-64's baseline has no rounding instruction; the spot
  // Monte Carlo bills a period per preemption): exact for 0 <= units < 2^52, where the
  // integer part converts back exactly.
  if (units >= 0.0 && units < 0x1.0p52) {
    const double whole = static_cast<double>(static_cast<std::int64_t>(units));
    return (whole < units ? whole + 1.0 : whole) * granularity_s;
  }
  return std::ceil(units) * granularity_s;
}

double on_demand_cost_usd(const InstanceSpec& instance, int nodes, double wall_s) {
  return instance.price_usd_per_s * nodes * billed_seconds(wall_s, instance.billing_granularity_s);
}

double on_premises_cost_usd(const OnPremisesSpec& p, int nodes, double wall_s, double energy_j) {
  const double amortized = p.amortization_s > 0.0 ? p.purchase_usd * nodes * wall_s / p.amortization_s : 0.0;
  return amortized + energy_j * p.electricity_usd_per_j;
}

}  // namespace gpuplan::models

namespace gpuplan::models {

double spot_cost_usd(const InstanceSpec& instance, int nodes, double wall_s) {
  if (!(instance.spot_price_usd_per_s > 0.0)) {
    throw std::invalid_argument(instance.provider + "/" + instance.instance_type + " has no spot price");
  }
  return instance.spot_price_usd_per_s * nodes * billed_seconds(wall_s, instance.billing_granularity_s);
}

double spot_billable_on_demand_seconds(const InstanceSpec& instance, double wall_s) {
  return std::round(spot_cost_usd(instance, 1, wall_s) / instance.price_usd_per_s);
}

}  // namespace gpuplan::models

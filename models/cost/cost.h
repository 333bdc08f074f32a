#pragma once
/// \file cost.h
/// Tier-1 dollars: instance price x nodes x billed time, rounded up to the provider's billing
/// granularity (AWS/GCP/Azure Linux bill per second, after a 60 s minimum on AWS: EC2 pricing
/// docs); on-premises: purchase amortized linearly over its period plus electricity.

#include "models/job_spec.h"

namespace gpuplan::models {

/// Billed seconds for `wall_s` of use at `granularity_s` (ceil to a whole unit).
double billed_seconds(double wall_s, double granularity_s);

/// On-demand dollars of `wall_s` on `nodes` instances.
double on_demand_cost_usd(const InstanceSpec& instance, int nodes, double wall_s);

/// On-premises dollars: nodes x purchase x wall / amortization + energy x electricity.
double on_premises_cost_usd(const OnPremisesSpec& on_premises, int nodes, double wall_s, double energy_j);

}  // namespace gpuplan::models

namespace gpuplan::models {

/// Spot dollars of `wall_s` on `nodes` instances at the catalog's spot price of the row's
/// zone, billed at the provider's granularity. Throws std::invalid_argument when the row
/// has no spot price.
double spot_cost_usd(const InstanceSpec& instance, int nodes, double wall_s);

/// Billed spot seconds of one instance expressed in on-demand seconds (what SageMaker
/// prints as "Billable seconds": billed seconds x spot price / on-demand price, rounded to
/// the nearest second). Practitioner report R42: 874 s at a 70 % discount bills 262 s.
double spot_billable_on_demand_seconds(const InstanceSpec& instance, double wall_s);

}  // namespace gpuplan::models

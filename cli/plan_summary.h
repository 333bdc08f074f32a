#pragma once
/// \file plan_summary.h
/// The answer of `gpuplan plan` in words, printed before its tables: the cheapest plan that
/// meets the deadline (and budget) at p90, and the fastest plan simulated, each with its
/// time and dollars at p90; or, when none meets them, that none does, and when nothing fits
/// in memory (nothing simulated), that, with what to change.

#include <string>

#include "cli/plan.h"

namespace gpuplan::cli {

/// One or two sentences, each ending with a newline. The second names the fastest plan
/// simulated whenever one fits, "Fastest plan: the same ..." when it is the cheapest one.
std::string plan_summary(const PlanResult& plan);

}  // namespace gpuplan::cli

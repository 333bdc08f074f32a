#pragma once
/// \file plan_html.h
/// `gpuplan plan --format html`: the answer in words, the time/dollar chart of every plan
/// simulated with the Pareto front and the deadline and budget lines, and the cheapest plans
/// that meet the deadline.

#include <string>

#include "cli/plan.h"

namespace gpuplan::cli {

/// The page (report/html_page.h).
std::string render_plan_html(const PlanResult& plan);

}  // namespace gpuplan::cli

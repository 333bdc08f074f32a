#include "report/suggestion_fields.h"

#include <fmt/format.h>

#include <cmath>

#include "report/human_units.h"

namespace gpuplan::report {
namespace {

std::string signed_percent(double change) { return fmt::format("{:+.0f} %", change * 100.0); }

}  // namespace

std::string suggestion_effect(const models::SuggestedChange& c) {
  std::string out = signed_percent(c.throughput_change) + " samples/s, time to train " + signed_percent(c.time_change);
  if (c.cost_change_usd) {
    out += ", " + std::string(*c.cost_change_usd < 0.0 ? "-" : "+") + human_usd(std::abs(*c.cost_change_usd)) +
           " per run";
  }
  if (c.goal == "cost") out += ", ranked on cost";
  return out;
}

}  // namespace gpuplan::report

#include "report/suggestion_fields.h"

#include <fmt/format.h>

#include <cmath>

#include "report/human_units.h"

namespace gpuplan::report {
namespace {

std::string signed_percent(double change) { return fmt::format("{:+.0f} %", change * 100.0); }

}  // namespace

std::string suggestion_effect(const models::SuggestedChange& c) {
  if (std::isinf(c.gain)) {
    return "the job finishes: " + human_duration(c.time_to_train_s) +
           (c.cost_usd ? ", " + human_usd(*c.cost_usd) + " per run" : std::string()) +
           (c.goal == "cost" ? ", ranked on cost" : "");
  }
  // A change that moves samples/s by less than half a percent (a cost remedy: spot,
  // checkpoints) names only what it moves.
  std::string out = std::abs(c.throughput_change) < 0.005
                        ? "time to train " + signed_percent(c.time_change)
                        : signed_percent(c.throughput_change) + " samples/s, time to train " +
                              signed_percent(c.time_change);
  if (c.cost_change_usd) {
    out += ", " + std::string(*c.cost_change_usd < 0.0 ? "-" : "+") + human_usd(std::abs(*c.cost_change_usd)) +
           " per run";
  }
  if (c.goal == "cost") out += ", ranked on cost";
  return out;
}

}  // namespace gpuplan::report

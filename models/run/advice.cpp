#include "models/run/advice.h"

#include "models/run/critical_path.h"
#include "models/run/run_variant.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

namespace gpuplan::models {

bool does_not_finish(const VariantResult& row) {
  // Spot trials, or hardware failures on demand or on own hardware.
  return row.fits && (!row.market.empty() || row.expected_failures) && !row.time_p50_s;
}

std::optional<double> run_cost_usd(const VariantResult& row) {
  if (row.cost_p50_usd) return row.cost_p50_usd;
  if (does_not_finish(row)) return std::nullopt;
  if (row.cost_on_premises_usd) return row.cost_on_premises_usd;
  return row.cost_on_demand_usd;
}

double run_time_s(const VariantResult& row) {
  if (does_not_finish(row)) return std::numeric_limits<double>::infinity();
  return row.time_p50_s.value_or(row.time_to_train_s);
}

double goal_value(const VariantResult& row, RemedyGoal goal) {
  if (does_not_finish(row)) return std::numeric_limits<double>::infinity();
  if (goal == RemedyGoal::kCost) {
    if (const std::optional<double> usd = run_cost_usd(row)) return *usd;
  }
  return run_time_s(row);
}

std::string overrides_text(const std::vector<ScenarioOverride>& overrides) {
  std::string out;
  for (const ScenarioOverride& o : overrides) out += (out.empty() ? "" : ", ") + o.path + ": " + o.value;
  return out;
}

std::string global_batch_change(const VariantResult& row, const VariantResult& after) {
  if (row.global_batch_samples == after.global_batch_samples) return "";
  return fmt::format("global batch {} -> {} {}: retune the learning rate", row.global_batch_samples,
                     after.global_batch_samples, row.samples_are_sequences ? "sequences" : "samples");
}

namespace {

/// Gain of `o` over `row` on its goal; NaN when it does not fit, has no positive goal value
/// or does not finish either; +infinity when it makes a row that does not finish finish.
double gain_of(const VariantResult& row, const RemedyOutcome& o) {
  if (!o.result.fits) return std::numeric_limits<double>::quiet_NaN();
  const double after = goal_value(o.result, o.remedy.goal);
  if (!(after > 0.0) || !std::isfinite(after)) return std::numeric_limits<double>::quiet_NaN();
  return goal_value(row, o.remedy.goal) / after - 1.0;
}

/// Seconds per sample that `row`'s critical path spends on `resource` (its share of the step
/// over the samples/s); 0 when absent.
double seconds_per_sample(const VariantResult& row, const std::string& resource) {
  if (!(row.throughput_samples_per_s > 0.0)) return 0.0;
  for (const CriticalPathPart& p : row.critical_path) {
    if (p.resource == resource) return p.share / row.throughput_samples_per_s;
  }
  return 0.0;
}

}  // namespace

std::string relieved_resource(const VariantResult& row, const RemedyOutcome& o) {
  // A row that does not finish is limited by its interruptions, whatever the remedy shortens.
  if (does_not_finish(row)) return row.bottleneck;
  if (o.remedy.goal != RemedyGoal::kTimeToTrain || !o.result.fits) return o.remedy.relieves;
  // A row the loader limits (binding_part): a change that shortens the wait for data relieves
  // the loader, whatever else it also saves.
  const std::string binding = binding_part(row.critical_path);
  if (is_loader_part(binding) &&
      seconds_per_sample(row, binding) - seconds_per_sample(o.result, binding) > 0.0) {
    return binding;
  }
  std::string best = o.remedy.relieves;
  double best_saved_s = 0.0;
  for (const CriticalPathPart& p : row.critical_path) {
    const double saved_s = seconds_per_sample(row, p.resource) - seconds_per_sample(o.result, p.resource);
    if (saved_s > best_saved_s) {
      best_saved_s = saved_s;
      best = p.resource;
    }
  }
  return best;
}

std::string unfinished_hint(const VariantResult& row, bool checkpoints_survive_preemption) {
  const bool checkpoints = row.checkpoint_interval_s > 0.0;
  if (row.market != "spot") {
    // Hardware failures resume from the last checkpoint wherever it is (cloud_job.h): with
    // checkpoints, the failures come faster than a checkpoint and a restart.
    return checkpoints ? "fewer GPUs (hardware.nodes, hardware.gpus_per_node): failures come faster than the job "
                         "saves and resumes; or a faster checkpoint destination (checkpointing.destination)"
                       : "checkpointing.interval: auto (resume after a hardware failure)";
  }
  if (!checkpoints) return "checkpointing.interval: auto (resume after a preemption), or cloud.market: on_demand";
  if (!checkpoints_survive_preemption) {
    return "checkpoints that outlive a preempted node (checkpointing.destination: object_store or network_fs)";
  }
  return "cloud.market: on_demand, or a zone with fewer preemptions (cloud.preemption_rate)";
}

std::vector<std::size_t> pair_starts(const VariantResult& row, const std::vector<RemedyOutcome>& outcomes) {
  if (!row.fits) {
    // Out of memory: when no single change fits, the ones that leave the least memory.
    std::vector<std::pair<double, std::size_t>> nearest;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      if (outcomes[i].result.fits) return {};
      nearest.emplace_back(outcomes[i].result.peak_memory_bytes, i);
    }
    std::stable_sort(nearest.begin(), nearest.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < nearest.size() && i < kPairStarts; ++i) starts.push_back(nearest[i].second);
    return starts;
  }
  std::vector<std::pair<double, std::size_t>> ranked;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const double gain = gain_of(row, outcomes[i]);
    if (std::isnan(gain)) continue;
    if (gain >= kMinimumRemedyGain) return {};
    ranked.emplace_back(gain, i);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < ranked.size() && i < kPairStarts; ++i) starts.push_back(ranked[i].second);
  return starts;
}

std::optional<Remedy> combined_remedy(const Remedy& first, const Remedy& second) {
  if (first.goal != second.goal) return std::nullopt;
  for (const ScenarioOverride& x : first.overrides) {
    for (const ScenarioOverride& y : second.overrides) {
      if (x.path == y.path) return std::nullopt;
    }
  }
  Remedy pair = first;
  pair.overrides.insert(pair.overrides.end(), second.overrides.begin(), second.overrides.end());
  if (!second.numerics_change.empty()) {
    pair.numerics_change += (pair.numerics_change.empty() ? "" : ", ") + second.numerics_change;
  }
  return pair;
}

namespace {
/// Whether `r`'s peak leaves the margin kTightMemoryShare asks for (run_variant.h).
bool roomy(const VariantResult& r) { return r.peak_memory_bytes <= kTightMemoryShare * r.memory_capacity_bytes; }

/// "12.3 GB of 80.0 GB" (decimal gigabytes, as the memory columns).
std::string memory_of(const VariantResult& r) {
  return fmt::format("{:.1f} GB of {:.1f} GB", r.peak_memory_bytes / 1e9, r.memory_capacity_bytes / 1e9);
}

/// ", within 5 % of capacity" for a fitting peak above kTightMemoryShare of the memory, else "".
std::string tight_margin(const VariantResult& r) {
  return roomy(r) ? std::string() : fmt::format(", within {:.0f} % of capacity", 100.0 * (1.0 - kTightMemoryShare));
}

/// "; changes the numerics: ..." for a remedy that alters what training computes, else "";
/// then "; global batch ..." for one that changes the global batch (global_batch_change).
std::string caveats_of(const VariantResult& row, const RemedyOutcome& o) {
  const std::string batch = global_batch_change(row, o.result);
  return (o.remedy.numerics_change.empty() ? "" : "; changes the numerics: " + o.remedy.numerics_change) +
         (batch.empty() ? "" : "; " + batch);
}

/// Whether `o` trains what `row` trains: the same numerics and the same global batch.
bool keeps_training(const VariantResult& row, const RemedyOutcome& o) {
  return o.remedy.numerics_change.empty() && o.result.global_batch_samples == row.global_batch_samples;
}

/// A row out of memory: the fastest checked change that fits and keeps the training numerics
/// and the global batch (context parallelism on the same GPUs halves the data-parallel ranks),
/// else the fastest that fits with its caveats (8-bit moments, pure bf16, another global
/// batch: the user's call), else the one that leaves the least memory, named as such; the
/// unchecked hint when nothing was checked. Among changes alike in that, one whose peak leaves
/// the kTightMemoryShare margin goes before a faster one within it (which is said).
void apply_memory_advice(VariantResult& row, const std::vector<RemedyOutcome>& outcomes) {
  const RemedyOutcome* fastest = nullptr;
  const RemedyOutcome* nearest = nullptr;
  const auto better_fit = [&row](const RemedyOutcome& o, const RemedyOutcome* than) {
    if (than == nullptr) return true;
    const bool keeps = keeps_training(row, o);
    const bool than_keeps = keeps_training(row, *than);
    if (keeps != than_keeps) return keeps;
    if (roomy(o.result) != roomy(than->result)) return roomy(o.result);
    return run_time_s(o.result) < run_time_s(than->result);
  };
  for (const RemedyOutcome& o : outcomes) {
    if (o.result.fits && better_fit(o, fastest)) fastest = &o;
    const bool lower = o.result.peak_memory_bytes < row.peak_memory_bytes;
    if (lower && (nearest == nullptr || o.result.peak_memory_bytes < nearest->result.peak_memory_bytes)) nearest = &o;
  }
  if (fastest != nullptr) {
    row.suggestion = overrides_text(fastest->remedy.overrides) + " (checked: fits, " + memory_of(fastest->result) +
                     tight_margin(fastest->result) + caveats_of(row, *fastest) + ")";
  } else if (nearest != nullptr) {
    row.suggestion = "none of the checked changes fits; nearest: " + overrides_text(nearest->remedy.overrides) +
                     " (" + memory_of(nearest->result) + caveats_of(row, *nearest) +
                     "); a GPU with more memory, or more GPUs";
  }
}
}  // namespace

void apply_advice(VariantResult& row, const std::vector<RemedyOutcome>& outcomes) {
  if (!row.fits) {
    apply_memory_advice(row, outcomes);
    return;
  }
  const RemedyOutcome* best = nullptr;
  double best_gain = kMinimumRemedyGain;
  for (const RemedyOutcome& o : outcomes) {
    const double gain = gain_of(row, o);
    if (gain >= best_gain && (best == nullptr || gain > best_gain)) {
      best = &o;
      best_gain = gain;
    }
  }
  if (best == nullptr) return;
  // A change that trains the same thing (numerics and global batch) goes before a faster one
  // that does not, where it gains at least kKeepTrainingGainShare of that one's gain.
  if (!keeps_training(row, *best) && std::isfinite(best_gain)) {
    const RemedyOutcome* keeping = nullptr;
    double keeping_gain = kKeepTrainingGainShare * best_gain;
    for (const RemedyOutcome& o : outcomes) {
      const double gain = gain_of(row, o);
      if (keeps_training(row, o) && gain >= std::max(keeping_gain, kMinimumRemedyGain) &&
          (keeping == nullptr || gain > keeping_gain)) {
        keeping = &o;
        keeping_gain = gain;
      }
    }
    if (keeping != nullptr) {
      best = keeping;
      best_gain = keeping_gain;
    }
  }
  SuggestedChange s;
  s.overrides = best->remedy.overrides;
  s.relieves = relieved_resource(row, *best);
  s.goal = name_of(best->remedy.goal);
  s.gain = best_gain;
  s.throughput_samples_per_s = best->result.throughput_samples_per_s;
  s.throughput_change =
      row.throughput_samples_per_s > 0.0 ? best->result.throughput_samples_per_s / row.throughput_samples_per_s - 1.0 : 0.0;
  s.time_to_train_s = run_time_s(best->result);
  // Against a row that does not finish: all of its (unbounded) time saved.
  s.time_change = std::isinf(run_time_s(row))  ? -1.0
                  : run_time_s(row) > 0.0 ? s.time_to_train_s / run_time_s(row) - 1.0
                                          : 0.0;
  s.cost_usd = run_cost_usd(best->result);
  const std::optional<double> before = run_cost_usd(row);
  if (s.cost_usd && before) s.cost_change_usd = *s.cost_usd - *before;
  row.bottleneck = s.relieves;
  const std::string batch = global_batch_change(row, best->result);
  row.suggestion = overrides_text(s.overrides) + (batch.empty() ? "" : " (" + batch + ")");
  row.suggested = std::move(s);
}

}  // namespace gpuplan::models

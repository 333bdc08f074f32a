#pragma once
/// \file advice.h
/// The limiter and the suggestion of a row, from remedies that were simulated
/// (models/run/remedies.h): each remedy's gain is its goal before / after - 1 (time to
/// train, or dollars for a cost remedy); the remedy with the largest gain among those whose
/// variant fits in memory is the suggestion, and the resource it relieves is the bottleneck.
/// Without a remedy that gains at least kMinimumRemedyGain (remedies.h), the row keeps the largest part
/// of its critical path and an unchecked hint (models/run/bottleneck.h).

#include <optional>
#include <string>
#include <vector>

#include "models/results.h"
#include "models/run/remedies.h"

namespace gpuplan::models {

/// A remedy and the row its variant produced.
struct RemedyOutcome {
  Remedy remedy;
  VariantResult result;
};

/// A row that fits but does not finish within the cap at p50: spot trials, or hardware
/// failures on demand or on own hardware (models/run/run_variant.h: no p50 time or dollars).
bool does_not_finish(const VariantResult& row);

/// Dollars of a run: p50 on its cloud market, else on premises; absent without either, and
/// for a row that does not finish.
std::optional<double> run_cost_usd(const VariantResult& row);

/// Time of a run: wall time p50 where preemptions or hardware failures interrupt it, else
/// time to train; +infinity for a row that does not finish. Seconds.
double run_time_s(const VariantResult& row);

/// The resource that outcome `o` relieved on `row`: for a time remedy, the part of the
/// critical path whose seconds per sample (share / samples/s) fell most between the row and
/// the remedy's simulated result (compiled mode on a row held by its host dispatch relieves
/// host_dispatch, whatever the remedy's list says); on a row its loader limits
/// (critical_path.h, binding_part), the loader's part whenever the remedy shortens the wait for
/// data; the remedy's own `relieves` for a cost remedy or when no part fell; on a row that
/// does not finish, its own bottleneck (preemptions or hardware_failures). Throws nothing.
std::string relieved_resource(const VariantResult& row, const RemedyOutcome& o);

/// The unchecked advice for a row that does not finish: resume from checkpoints when it has
/// none; on demand with checkpoints, fewer GPUs or faster checkpoints (hardware failures
/// resume from any destination); on spot, checkpoints that outlive a preempted node when
/// `checkpoints_survive_preemption` is false (checkpointing.destination: local_nvme), else
/// leave the spot market.
std::string unfinished_hint(const VariantResult& row, bool checkpoints_survive_preemption);

/// What `goal` measures on `row`: run_time_s, or run_cost_usd (run_time_s without dollars).
double goal_value(const VariantResult& row, RemedyGoal goal);

/// "path: value, path: value", in order.
std::string overrides_text(const std::vector<ScenarioOverride>& overrides);

/// What a remedy does to the optimization when it changes the global batch (micro-batch x
/// gradient accumulation x data-parallel ranks): "global batch 256 -> 512 samples: retune the
/// learning rate" ("sequences" for a language model) between `row` and `after`, the remedy's
/// simulated row; "" when the two train on the same global batch (batch 1 x 8 accumulated in
/// place of 8 x 1). A different global batch changes the learning rate that converges, not
/// only the speed (Goyal et al. 2017, "Accurate, Large Minibatch SGD", sec. 2.1: scale the
/// rate with the batch). Throws nothing.
std::string global_batch_change(const VariantResult& row, const VariantResult& after);

/// How many of a row's best single remedies a second remedy is tried on top of.
inline constexpr std::size_t kPairStarts = 2;

/// Where to look for a pair of remedies when no single one gains kMinimumRemedyGain: the
/// indexes in `outcomes` of the (at most kPairStarts) fitting outcomes with the largest
/// gains, best first, equal gains in the candidates' order. Relieving one limiter often
/// moves the limit to another (compiled mode on a row that the loader holds too gains
/// nothing until decoding moves to the GPU), so the caller tries each start's own remedies
/// on top of it. Empty when a single remedy already gains enough. For a row out of memory:
/// empty when some outcome fits, else the (at most kPairStarts) outcomes with the least peak
/// memory, least first. Throws nothing.
std::vector<std::size_t> pair_starts(const VariantResult& row, const std::vector<RemedyOutcome>& outcomes);

/// `first` then `second` as one remedy: first's overrides followed by second's, relieving
/// first's resource (the one the pair starts from) with first's goal. Absent when the two
/// change a key in common or rank on different goals. Throws nothing.
std::optional<Remedy> combined_remedy(const Remedy& first, const Remedy& second);

/// Sets row.bottleneck, row.suggestion and row.suggested from the best of `outcomes`
/// (strictly largest gain; the first of equal ones; one that keeps the numerics and the global
/// batch instead where it gains kKeepTrainingGainShare of that); leaves the row as it is when none
/// fits and gains kMinimumRemedyGain (a row that does not finish keeps preemptions and
/// unfinished_hint, models/run/run_variant.h). A remedy that makes such a row finish has an
/// infinite gain (machine outputs carry no gain) and time_change -1. A row out of memory
/// keeps bottleneck "memory" and gets as suggestion the fastest outcome that fits (first one
/// that keeps the numerics and the global batch, then one that leaves 5 % free), with its
/// checked peak ("... (checked: fits, 82.9 GB of 151.4 GB)"), else the outcome with the least
/// peak memory below the row's own, said to be the nearest (none: the unchecked hint stays);
/// row.suggested stays empty. A suggestion that changes the global batch says so
/// (global_batch_change): "training.batch_size: 64 (global batch 256 -> 512 samples: retune
/// the learning rate)", or inside the checked parentheses of a row out of memory. Throws nothing.
void apply_advice(VariantResult& row, const std::vector<RemedyOutcome>& outcomes);

}  // namespace gpuplan::models

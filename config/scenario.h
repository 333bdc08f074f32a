#pragma once
/// \file scenario.h
/// A validated scenario (docs: /work/shared/design/scenario-format.md): the plain structs
/// config/ hands to the simulator (STYLE.md C1). Every value is in SI units; no YAML type
/// escapes config/. Built by load_scenario() / parse_scenario() (config/scenario_loader.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config_error.h"
#include "models/job_spec.h"

namespace gpuplan::config {

/// One published measurement of a validation case (the `expected:` block).
struct ExpectedValue {
  /// throughput | tokens_per_s | peak_memory | fits | step_time | time_to_train | mfu |
  /// gpu_utilization
  std::string metric;
  /// SI: samples/s for throughput, tokens/s for tokens_per_s, B for peak_memory, s for
  /// step_time and time_to_train, a fraction in [0, 1] for mfu and gpu_utilization, 1 or 0
  /// for fits.
  double value = 0.0;
  std::string text;  ///< the value as written in the file ("2650 samples/s")
  SourceMark mark;   ///< where it was written
};

/// The `expected:` block: what a validation case compares the prediction with.
struct Expected {
  std::string source;  ///< where the numbers were published
  std::vector<ExpectedValue> values;  ///< in the order written
};

/// Where a variant's spot preemptions come from (cloud.preemption_rate).
enum class PreemptionSource {
  kNone,     ///< no cloud section, or on-demand market
  kCatalog,  ///< `catalog`: the instance catalog's rate (filled in by the cloud-economics code)
  kRate,     ///< a rate written in the scenario: JobSpec::cloud->preemption_rate_per_s
  kTrace,    ///< `{trace: path}`: a SkyPilot spot trace, see Variant::preemption_trace
};

/// One row of the comparison: a strategy at one sweep point, fully resolved.
struct Variant {
  std::string strategy;     ///< name under `strategies:`, or "baseline" when there are none
  /// "" without a sweep, else "hardware.gpus_per_node=4, cloud.market=spot" (values as
  /// written, keys in the order of the `sweep:` block).
  std::string sweep_point;
  /// The sweep point key by key: (path, value as written), in the order of `sweep:`.
  std::vector<std::pair<std::string, std::string>> sweep_settings;
  models::JobSpec job;      ///< every value resolved, defaults applied, SI units
  PreemptionSource preemption_source = PreemptionSource::kNone;
  /// The trace file of `cloud.preemption_rate: {trace: path}`, resolved against the
  /// scenario's folder; empty otherwise.
  std::string preemption_trace;
  /// The key that sizes the job (workload.epochs or workload.tokens) and where its value was
  /// written (a strategy's or sweep's override included): what a time to train past the
  /// engine's range is reported at.
  std::string duration_key;
  SourceMark duration_mark;
  /// Choices the loader made that the scenario did not spell out ("hardware.gpu: H100 is
  /// taken as h100-sxm; ..."), shown as notes of the variant's row.
  std::vector<std::string> notes;
  /// Which overrides built it, for re-validating it with more (config/variant_overrides.h):
  /// the index under `strategies:` (-1 without the key) and one value index per sweep key.
  int strategy_index = -1;
  std::vector<int> sweep_values;
};

/// A whole scenario file: its variants in order (strategies as written; for each, the
/// sweep points with the first sweep key varying slowest).
struct Scenario {
  std::string path;          ///< the file name given to the loader
  std::string name;          ///< `name:`, or the file name's stem when absent
  std::uint64_t seed = 0;    ///< `seed:` (default 0), or LoadOptions::seed_override
  std::vector<Variant> variants;
  std::optional<Expected> expected;
  std::string text;          ///< the YAML source, for re-validating a variant with more overrides
};

/// Options of the loader that the command line sets.
struct LoadOptions {
  /// Replaces the file's `seed:` (gpuplan run --seed).
  std::optional<std::uint64_t> seed_override;
};

}  // namespace gpuplan::config

#pragma once
/// \file diagnose_result.h
/// What `gpuplan diagnose` reports (report/ renders it; plain structs, SI units): the
/// diagnosis of the logs and, with a scenario, the simulated job beside the measured one
/// and the scenario's other strategies ranked by simulated gain.

#include <optional>
#include <string>
#include <vector>

#include "models/diagnosis/log_diagnosis.h"

namespace gpuplan::models {

/// The simulated figures of the strategy that describes the logged job (the scenario's first).
struct SimulatedJob {
  std::string strategy;
  bool fits = true;
  double gpu_utilization = kNotMeasured;  ///< [0, 1]
  double gpu_power_w = kNotMeasured;      ///< per GPU, models/energy gpu_power_w
  double step_time_s = kNotMeasured;
  double peak_memory_bytes = kNotMeasured;
  double gpu_memory_bytes = kNotMeasured;  ///< the scenario GPU's capacity, for "does not fit"
  double throughput_samples_per_s = kNotMeasured;
  std::string bottleneck;
  std::string suggestion;
  /// The suggestion's simulated samples/s change (0.37 = +37 %), when the advisor checked one.
  std::optional<double> suggestion_throughput_change;
  std::vector<double> timeline_time_s;  ///< simulated GPU busy share over the first steps: bin starts
  std::vector<double> timeline_busy;    ///< and the busy share of each bin, [0, 1]
};

/// A strategy of the scenario as a remedy: its simulated throughput against the baseline.
struct RankedRemedy {
  std::string strategy;
  double throughput_samples_per_s = 0.0;
  double gain = 0.0;                  ///< throughput / the baseline's (DiagnoseResult::baseline) - 1
  std::optional<double> cost_usd;     ///< dollars of the whole run (models::run_cost_usd: cloud p50, on premises, or on demand), when priced
  std::string bottleneck;             ///< what still limits it
};

/// The whole answer of `gpuplan diagnose`.
struct DiagnoseResult {
  std::vector<std::string> logs;             ///< "path (format)" per log, in the order given
  LogDiagnosis diagnosis;
  std::vector<GpuSeries> measured;           ///< the GPU readings as read, for the HTML timeline
  std::string scenario_name;                 ///< empty without --scenario
  std::optional<SimulatedJob> simulated;
  std::vector<RankedRemedy> remedies;        ///< by gain, largest first; OOM strategies left out
  std::vector<std::string> left_out;         ///< strategies that do not fit, by name
  /// The strategy the gains are measured against: the first (the job as it ran) when it fits
  /// in the simulator, else the fastest that fits; empty when none fits.
  std::string baseline;
  /// Where the logs and the scenario describe different jobs (GPU model, GPU count), in words.
  std::vector<std::string> warnings;
};

}  // namespace gpuplan::models

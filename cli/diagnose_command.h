#pragma once
/// \file diagnose_command.h
/// The `gpuplan diagnose` command: reads monitoring logs (config/monitoring_log.h), finds
/// what holds each GPU back (models/diagnosis), and with --scenario simulates the job beside
/// the logs and ranks the scenario's strategies by simulated gain.

#include <string>
#include <vector>

#include "cli/app_context.h"
#include "config/monitoring_log.h"
#include "models/diagnosis/diagnose_result.h"

namespace gpuplan::cli {

/// Usage text of `gpuplan diagnose`.
extern const char* const kDiagnoseUsage;

/// What `diagnose` was asked.
struct DiagnoseOptions {
  std::vector<std::string> logs;
  std::string scenario;           ///< empty: logs only
  std::string gpu;                ///< catalog GPU of the logs; empty: from the logs' names, else the scenario's
  config::MonitoringLogOptions log_options;
};

/// The diagnosis of `options.logs`, with the simulated job when a scenario is named. Throws
/// config::ConfigError for a malformed log or scenario, std::invalid_argument for an unknown
/// --gpu.
models::DiagnoseResult diagnose(const DiagnoseOptions& options, const AppContext& context);

/// Runs `gpuplan diagnose ARGS...` (ARGS without "diagnose"); writes to standard output or
/// -o FILE. Returns the exit code. Throws std::invalid_argument for a bad command line and
/// config::ConfigError for invalid input.
int diagnose_main(const std::vector<std::string>& args);

}  // namespace gpuplan::cli

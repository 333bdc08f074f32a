#pragma once
/// \file monitoring_log.h
/// Reads the monitoring logs of one training job, whatever tool wrote each: the format is
/// told from the file's own header (config/*_log.h name the layouts).

#include <string>
#include <vector>

#include "models/diagnosis/monitor_trace.h"

namespace gpuplan::config {

/// How to read the logs.
struct MonitoringLogOptions {
  /// The --query-gpu list of headerless nvidia-smi CSV logs (`--format=csv,noheader`).
  std::vector<std::string> query_fields;
  /// The sampling interval, seconds, for logs without times (replaces dmon's and dcgmi's 1 s
  /// default); 0 = use the times in the log or the tool's default.
  double interval_s = 0.0;
};

/// The name of the format of `content` (named `path` in messages): nvidia_smi_query,
/// nvidia_smi_dmon, dcgmi_dmon, nvidia_smi_table, torch_profiler, mpstat, vmstat, iostat.
/// Throws ConfigError "cannot tell the format of <path>:<line>:1 ..." listing the formats.
std::string monitoring_log_format(const std::string& content, const std::string& path,
                                  const MonitoringLogOptions& options);

/// Reads every log of `paths` into one trace (GPU series in file order). Throws ConfigError
/// with file:line:column for an unreadable file, an unknown format, or a malformed line
/// (a last line cut short is skipped, with a note in the trace).
models::MonitorTrace read_monitoring_logs(const std::vector<std::string>& paths, const MonitoringLogOptions& options);

/// As read_monitoring_logs, from in-memory logs: (path used in messages, content) pairs.
models::MonitorTrace parse_monitoring_logs(const std::vector<std::pair<std::string, std::string>>& logs,
                                           const MonitoringLogOptions& options);

}  // namespace gpuplan::config

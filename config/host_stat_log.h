#pragma once
/// \file host_stat_log.h
/// Readers of the sysstat and procps host monitors practitioners run beside nvidia-smi:
/// `mpstat [-P ALL] S` (the "all" rows: %usr, %nice, %sys, %iowait, %irq, %soft, %steal,
/// %idle), `vmstat S` (r, us, sy, id, wa) and `iostat -x [-m] [-t] S` (avg-cpu and per-device
/// rkB/s or rMB/s, %util). Columns are found by their header names, so older and newer
/// sysstat layouts and 12- or 24-hour clocks read alike. vmstat's and iostat's first report
/// is the average since boot (vmstat(8), iostat(1)) and is skipped when later reports
/// follow. sysstat's kB and MB are 1024 and 1024^2 bytes (sysstat documentation).

#include <string>
#include <vector>

#include "config/log_text.h"
#include "models/diagnosis/monitor_trace.h"

namespace gpuplan::config {

/// Which host monitor wrote `log`: "mpstat", "vmstat", "iostat", or "" for none of them.
std::string host_stat_format(const LogText& log);

/// Reads a log of `format` (from host_stat_format). Throws ConfigError at file:line:column
/// for a row with another number of cells than its header or a cell that is not a number;
/// a last line cut short is skipped with a note.
models::HostSeries read_host_stat(const LogText& log, const std::string& format, std::vector<std::string>& notes);

}  // namespace gpuplan::config

#pragma once
/// \file nvidia_smi_table_log.h
/// Reader of the plain `nvidia-smi` table, one or many (`nvidia-smi -l S > log`): each
/// snapshot starts with the time ("Mon Jan 15 10:23:45 2024"), then per GPU a line with its
/// index and name ("|   0  NVIDIA A100-SXM4-80GB  On  | 00000000:07:00.0 Off | ... |") and
/// one with fan, temperature, performance state, power usage/cap, memory usage and GPU-Util
/// ("| N/A 34C P0 61W / 400W | 40536MiB / 81920MiB | 98% Default |"), in the layouts of
/// drivers before and after 535. "N/A" reads as not measured. The process list is skipped.

#include <string>
#include <vector>

#include "config/log_text.h"
#include "models/diagnosis/monitor_trace.h"

namespace gpuplan::config {

/// True when `text` holds an nvidia-smi table ("| NVIDIA-SMI " banner).
bool looks_like_nvidia_smi_table(const LogText& log);

/// Reads the log; a snapshot cut short at the end is skipped with a note. Throws ConfigError
/// at file:line:column when a GPU's index line is not followed by its figures line, or a
/// figure is not a number.
std::vector<models::GpuSeries> read_nvidia_smi_table(const LogText& log, std::vector<std::string>& notes);

}  // namespace gpuplan::config

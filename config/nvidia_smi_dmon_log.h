#pragma once
/// \file nvidia_smi_dmon_log.h
/// Reader of `nvidia-smi dmon [-s pucvmet] [-o DT] [-d S]` output (nvidia-smi(1), "Device
/// Monitoring"): a `#` line of column names ("# gpu pwr gtemp mtemp sm mem ... rxpci txpci"),
/// a `#` line of units ("# Idx W C C % % ... MB/s MB/s"), then one row per GPU per sample,
/// cells separated by blanks, "-" for a value the GPU does not report. The header may
/// repeat. Columns read: Date and Time (-o DT) or Time (-o T), gpu, pwr (W), sm and mem (%),
/// fb (MB: nvidia-smi's MB are MiB, as in memory.used), pclk (MHz), rxpci and txpci (MB/s,
/// read as 10^6 B/s); the others are accepted and not used.

#include <string>
#include <vector>

#include "config/log_text.h"
#include "models/diagnosis/monitor_trace.h"

namespace gpuplan::config {

/// dmon's sampling interval when the log carries no times: `-d` defaults to 1 s (nvidia-smi(1)).
inline constexpr double kDmonDefaultInterval_s = 1.0;

/// True when `first_line` is a dmon header ("# gpu ...", "#Date Time gpu ...", "#Time gpu ...").
bool looks_like_nvidia_smi_dmon(const std::string& first_line);

/// Reads the log. The last line may be cut short (skipped, with a note in `notes`); anything
/// else malformed throws ConfigError at file:line:column (a row with another number of cells
/// than its header, a cell that is not a number, a row before any header).
std::vector<models::GpuSeries> read_nvidia_smi_dmon(const LogText& log, std::vector<std::string>& notes);

}  // namespace gpuplan::config

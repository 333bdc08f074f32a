#pragma once
/// \file dcgmi_dmon_log.h
/// Reader of DCGM `dcgmi dmon -e FIELD_IDS [-d MS]` output (DCGM user guide, "Feature
/// Overview: dmon"): a `#Entity` line of field tags, an "ID" line, then rows "GPU 0 ...", one
/// per GPU per sample, "N/A" for a value not available. dcgmi prints no times. Field tags
/// read (DCGM field ids): GPUTL (203, %), MCUTL (204, %), POWER (155, W), FBUSD (252, MiB),
/// FBTTL (250, MiB), SMCLK (100, MHz), SMACT (1002), TENSO (1004), DRAMA (1005) as ratios in
/// [0, 1], PCITX/PCIRX (1009/1010) and NVLTX/NVLRX (1011/1012) in B/s; other tags are
/// accepted and not used. Rows of other entities (GPU-I, GPU-CI) are skipped with a note.

#include <string>
#include <vector>

#include "config/log_text.h"
#include "models/diagnosis/monitor_trace.h"

namespace gpuplan::config {

/// dcgmi dmon's interval without -d: 1000 ms (dcgmi dmon --help).
inline constexpr double kDcgmiDefaultInterval_s = 1.0;

/// True when `first_line` is a dcgmi dmon header ("#Entity ..." or "# Entity ...").
bool looks_like_dcgmi_dmon(const std::string& first_line);

/// Reads the log; the last line may be cut short (skipped, with a note). Throws ConfigError
/// at file:line:column for a row before the header, another number of cells, or a cell that
/// is not a number.
std::vector<models::GpuSeries> read_dcgmi_dmon(const LogText& log, std::vector<std::string>& notes);

}  // namespace gpuplan::config

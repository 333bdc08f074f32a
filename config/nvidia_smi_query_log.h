#pragma once
/// \file nvidia_smi_query_log.h
/// Reader of `nvidia-smi --query-gpu=FIELDS --format=csv[,noheader][,nounits] [-l S | -lms MS]`
/// output (nvidia-smi(1), `nvidia-smi --help-query-gpu`). One row per GPU per sample, cells
/// separated by ", ". The header names the fields ("utilization.gpu [%]"); with `noheader` the
/// caller passes the --query-gpu list. Cells may carry their unit ("98 %", "40536 MiB",
/// "312.45 W", "1410 MHz") or not (`nounits`); "[N/A]" and "[Not Supported]" read as not
/// measured. Fields read: timestamp, index, name, pci.bus_id, uuid, utilization.gpu,
/// utilization.memory, memory.used, memory.total, power.draw (or power.draw.average,
/// power.draw.instant), power.limit (or enforced.power.limit), clocks.sm (or
/// clocks.current.sm); other fields are accepted and not used. GPUs are told apart by index,
/// else pci.bus_id, else uuid, else their position among rows of one timestamp.

#include <string>
#include <vector>

#include "config/log_text.h"
#include "models/diagnosis/monitor_trace.h"

namespace gpuplan::config {

/// True when `first_line` is a --query-gpu CSV header (its first cell is a known field name).
bool looks_like_nvidia_smi_query(const std::string& first_line);

/// Reads the log. `fields`: the --query-gpu list of a headerless log (empty: the first line
/// is the header). A header repeated later (several runs appended) is skipped. The last line
/// may be cut short (the logger was stopped): it is skipped with a note in `notes`. Throws
/// ConfigError at file:line:column for anything else: a row with another number of cells, a
/// cell that is not a number or has another unit, a bad timestamp, a headerless log without
/// `fields`, an unknown field name in the header.
std::vector<models::GpuSeries> read_nvidia_smi_query(const LogText& log, const std::vector<std::string>& fields,
                                                     std::vector<std::string>& notes);

}  // namespace gpuplan::config

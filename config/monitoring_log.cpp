#include "config/monitoring_log.h"

#include <cmath>

#include "config/config_error.h"
#include "config/dcgmi_dmon_log.h"
#include "config/host_stat_log.h"
#include "config/log_text.h"
#include "config/nvidia_smi_dmon_log.h"
#include "config/nvidia_smi_query_log.h"
#include "config/nvidia_smi_table_log.h"
#include "config/torch_profiler_log.h"

namespace gpuplan::config {

namespace {

std::string format_of(const LogText& log, const MonitoringLogOptions& options) {
  const LogLine* first = nullptr;
  for (const auto& l : log.lines) {
    if (!trim_view(l.text).empty()) {
      first = &l;
      break;
    }
  }
  if (first == nullptr) throw_log_error(log, 1, 1, "", "the log is empty", kEmptyLogFix);
  if (looks_like_torch_profiler(log)) return "torch_profiler";
  if (looks_like_nvidia_smi_table(log)) return "nvidia_smi_table";
  if (looks_like_dcgmi_dmon(first->text)) return "dcgmi_dmon";
  if (looks_like_nvidia_smi_dmon(first->text)) return "nvidia_smi_dmon";
  if (looks_like_nvidia_smi_query(first->text)) return "nvidia_smi_query";
  const std::string host = host_stat_format(log);
  if (!host.empty()) return host;
  // A headerless --query-gpu CSV: cells separated by commas, the first a timestamp or a number.
  const auto cells = split_on(first->text, ',');
  if (cells.size() > 1 && (!options.query_fields.empty() || timestamp_seconds(cells[0].text) || split_number(cells[0].text))) {
    return "nvidia_smi_query";
  }
  throw_log_error(log, first->number, 1, "",
                  "cannot tell the format of the log",
                  "; gpuplan diagnose reads nvidia-smi --query-gpu=... --format=csv (with its header, or pass --fields "
                  "for noheader), nvidia-smi dmon, the nvidia-smi table, dcgmi dmon, a torch profiler "
                  "key_averages().table(), mpstat, vmstat and iostat -x output");
}

void read_one(const LogText& log, const MonitoringLogOptions& options, models::MonitorTrace& trace) {
  const std::string format = format_of(log, options);
  std::vector<models::GpuSeries> gpus;
  if (format == "torch_profiler") {
    trace.profiles.push_back(read_torch_profiler(log, trace.notes));
    return;
  }
  if (format == "mpstat" || format == "vmstat" || format == "iostat") {
    trace.hosts.push_back(read_host_stat(log, format, trace.notes));
    return;
  }
  if (format == "nvidia_smi_table") gpus = read_nvidia_smi_table(log, trace.notes);
  if (format == "dcgmi_dmon") gpus = read_dcgmi_dmon(log, trace.notes);
  if (format == "nvidia_smi_dmon") gpus = read_nvidia_smi_dmon(log, trace.notes);
  if (format == "nvidia_smi_query") gpus = read_nvidia_smi_query(log, options.query_fields, trace.notes);
  if (gpus.empty()) throw_log_error(log, 0, 0, "", "the " + format + " log holds no GPU readings");
  const bool has_times = !gpus.front().readings.empty() && !std::isnan(gpus.front().readings.front().time_s);
  if (!has_times && options.interval_s > 0.0) {
    for (auto& g : gpus) g.interval_s = options.interval_s;
  } else if (!has_times) {
    trace.notes.push_back(std::isnan(gpus.front().interval_s)
                              ? log.path + ": no times in the log; periods are in readings (--interval S gives seconds)"
                              : log.path + ": no times in the log; the tool's default interval of 1 s assumed "
                                           "(--interval S to say otherwise)");
  }
  for (auto& g : gpus) trace.gpus.push_back(std::move(g));
}

}  // namespace

std::string monitoring_log_format(const std::string& content, const std::string& path,
                                  const MonitoringLogOptions& options) {
  return format_of(log_text_of(content, path), options);
}

models::MonitorTrace read_monitoring_logs(const std::vector<std::string>& paths, const MonitoringLogOptions& options) {
  models::MonitorTrace trace;
  for (const auto& p : paths) read_one(read_log_text(p), options, trace);
  return trace;
}

models::MonitorTrace parse_monitoring_logs(const std::vector<std::pair<std::string, std::string>>& logs,
                                           const MonitoringLogOptions& options) {
  models::MonitorTrace trace;
  for (const auto& [path, content] : logs) read_one(log_text_of(content, path), options, trace);
  return trace;
}

}  // namespace gpuplan::config

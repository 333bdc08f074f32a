/// \file fuzz_monitoring_log.cpp
/// libFuzzer target: one monitoring log through the `diagnose` readers (config/*_log.cpp:
/// nvidia-smi query CSV, dmon and table, dcgmi dmon, iostat, mpstat, vmstat, the torch
/// profiler table), the format told from the log's own header. The first byte picks the
/// options: bit 0 passes a --fields list for headerless query CSVs, bit 1 an interval.
/// Reads or throws ConfigError.
#include "config/config_error.h"
#include "config/monitoring_log.h"
#include "fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  gpuplan::config::MonitoringLogOptions options;
  if (data[0] & 1) options.query_fields = {"timestamp", "index", "utilization.gpu", "memory.used", "power.draw"};
  if (data[0] & 2) options.interval_s = 0.5;
  try {
    gpuplan::config::parse_monitoring_logs({{"fuzz.log", gpuplan::fuzz::as_text(data + 1, size - 1)}}, options);
  } catch (const gpuplan::config::ConfigError&) {
  }
  return 0;
}

#include "config/probe_provenance.h"

#include <string_view>

#include "config/catalog_file.h"

namespace gpuplan::config {

models::ProbeProvenance read_probe_provenance(JsonObjectReader& r) {
  models::ProbeProvenance pv;
  pv.gpu_name = r.string("gpu_name", true).value_or("");
  pv.compute_capability = r.string("compute_capability", false).value_or("");
  pv.gpu_count = static_cast<int>(r.integer("gpu_count", false, 0).value_or(0));
  pv.driver_version = r.string("driver_version", false).value_or("");
  pv.cuda_runtime_version = r.string("cuda_runtime_version", false).value_or("");
  pv.cuda_driver_version = r.string("cuda_driver_version", false).value_or("");
  pv.sm_clock_hz = r.number("sm_clock_hz", false, false).value_or(0.0);
  pv.memory_clock_hz = r.number("memory_clock_hz", false, false).value_or(0.0);
  pv.memory_bytes = r.number("memory_bytes", false, false).value_or(0.0);
  pv.date = r.string("date", true).value_or("");
  // The date names the profile file (cli/calibrate.cpp): only a date is accepted, so that a
  // probe file cannot steer where the profile is written.
  if (!pv.date.empty() && (!is_iso_date(std::string_view(pv.date).substr(0, 10)) ||
                           (pv.date.size() > 10 && pv.date[10] != 'T'))) {
    r.error("date", "expected a date such as 2026-11-29 or 2026-11-29T10:00:00Z, found '" + pv.date + "'");
  }
  pv.probe_git_sha = r.string("probe_git_sha", false).value_or("");
  pv.repeats = static_cast<int>(r.integer("repeats", false, 0).value_or(0));
  pv.warmup = static_cast<int>(r.integer("warmup", false, 0).value_or(0));
  r.finish();
  return pv;
}

}  // namespace gpuplan::config

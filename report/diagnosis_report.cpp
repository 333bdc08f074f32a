#include "report/diagnosis_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>
#include <nlohmann/json.hpp>

#include "report/human_units.h"
#include "report/text_table.h"
#include "report/text_wrap.h"

namespace gpuplan::report {

namespace {

using models::DiagnoseResult;
using models::Finding;
using models::GpuUsage;

bool known(double v) { return !std::isnan(v); }
std::string or_dash(double v, std::string (*format)(double)) { return known(v) ? format(v) : "-"; }
std::string watts(double w) { return fmt::format("{:.0f} W", w); }

const GpuUsage* usage_of(const DiagnoseResult& r, int index) {
  for (const auto& u : r.diagnosis.gpus) {
    if (u.index == index) return &u;
  }
  return nullptr;
}

std::string gpu_title(const DiagnoseResult& r, const Finding& f) {
  const GpuUsage* u = usage_of(r, f.gpu_index);
  if (u == nullptr) return "The job";
  std::string t = fmt::format("GPU {}", u->index);
  std::string what = u->name;
  if (!u->facts.catalog_name.empty()) what += (what.empty() ? "" : ", ") + u->facts.catalog_name;
  if (!what.empty()) t += " (" + what + ")";
  return t + ", " + u->source;
}

std::string remedy_gain(const models::RankedRemedy& m) { return fmt::format("{:+.0f} %", m.gain * 100.0); }

TextTable beside_table(const DiagnoseResult& r) {
  const models::SimulatedJob& s = *r.simulated;
  const GpuUsage* u = r.diagnosis.gpus.empty() ? nullptr : &r.diagnosis.gpus.front();
  TextTable t({"", "measured", "simulated (" + s.strategy + ")"});
  const double mu = u != nullptr ? u->utilization_mean : models::kNotMeasured;
  t.add_row({"GPU utilization", or_dash(mu, human_percent), or_dash(s.gpu_utilization, human_percent)});
  t.add_row({"GPU power", or_dash(u != nullptr ? u->power_mean_w : models::kNotMeasured, watts), or_dash(s.gpu_power_w, watts)});
  t.add_row({"memory used", or_dash(u != nullptr ? u->memory_used_peak_bytes : models::kNotMeasured, human_bytes),
             or_dash(s.peak_memory_bytes, human_bytes)});
  t.add_row({"step time", "-", or_dash(s.step_time_s, human_duration)});
  t.add_row({"samples/s", "-", or_dash(s.throughput_samples_per_s, human_rate)});
  t.add_row({"bottleneck", r.diagnosis.findings.empty() ? "-" : r.diagnosis.findings.front().bottleneck, s.bottleneck});
  return t;
}

TextTable remedies_table(const DiagnoseResult& r) {
  TextTable t({"strategy", "samples/s", "gain", "cost per run", "still limited by"});
  for (const auto& m : r.remedies) {
    t.add_row({m.strategy, human_rate(m.throughput_samples_per_s), remedy_gain(m),
               m.cost_usd ? human_usd(*m.cost_usd) : "-", m.bottleneck});
  }
  return t;
}

/// Why the baseline is not the job as it ran, for the heading of the remedies; empty when it is.
std::string baseline_why(const DiagnoseResult& r) {
  if (!r.simulated || r.baseline == r.simulated->strategy) return "";
  return " (the fastest that fits; '" + r.simulated->strategy + "' does not)";
}

std::string logs_line(const DiagnoseResult& r) {
  std::string out;
  for (const auto& l : r.logs) out += (out.empty() ? "" : ", ") + l;
  return out;
}

nlohmann::json number_or_null(double v) { return known(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

std::string diagnosis_summary(const DiagnoseResult& r) {
  std::string out;
  for (const auto& w : r.warnings) out += "Warning: " + w + ".\n";
  std::vector<std::string> seen;
  for (const auto& f : r.diagnosis.findings) {
    if (std::find(seen.begin(), seen.end(), f.bottleneck) != seen.end()) continue;
    seen.push_back(f.bottleneck);
    std::vector<int> others;
    for (const auto& g : r.diagnosis.findings) {
      if (g.bottleneck == f.bottleneck && g.gpu_index != f.gpu_index) others.push_back(g.gpu_index);
    }
    std::string also;
    if (!others.empty()) {
      also = fmt::format(" (so {} {})", others.size() == 1 ? "does GPU" : "do GPUs", fmt::join(others, ", "));
    }
    std::string headline = f.headline;
    if (!headline.empty() && headline[0] >= 'a' && headline[0] <= 'z') headline[0] = static_cast<char>(headline[0] - 'a' + 'A');
    out += headline + also + (f.supported || f.bottleneck == "unknown" ? "" : " (inferred from GPU utilization: no host log shows the cause)") + ". Try: " + f.remedy + ".\n";
  }
  if (r.simulated && !r.simulated->fits) {
    const models::SimulatedJob& s = *r.simulated;
    out += fmt::format("Simulated: '{}', the job as it ran, does not fit in memory in the simulator ({} of {})", s.strategy,
                       or_dash(s.peak_memory_bytes, human_bytes), or_dash(s.gpu_memory_bytes, human_bytes));
    const GpuUsage* u = r.diagnosis.gpus.empty() ? nullptr : &r.diagnosis.gpus.front();
    if (u != nullptr && known(u->memory_used_peak_bytes)) {
      out += fmt::format(", while the logs show {} used: if they are of this configuration, the memory model overestimates it",
                         human_bytes(u->memory_used_peak_bytes));
    }
    out += r.baseline.empty() ? "; none of the scenario's strategies fits.\n"
                              : fmt::format("; the others are ranked against '{}', the fastest that fits.\n", r.baseline);
  }
  if (r.simulated && !r.remedies.empty() && r.remedies.front().gain > 0.0) {
    const auto& best = r.remedies.front();
    out += fmt::format("Simulated: '{}' gains {} samples/s over '{}'", best.strategy, remedy_gain(best), r.baseline);
    if (best.cost_usd) out += fmt::format(" and costs {} per run", human_usd(*best.cost_usd));
    out += ".\n";
  } else if (r.simulated && r.simulated->fits) {
    out += "Simulated: none of the scenario's other strategies is faster than '" + r.baseline + "'.\n";
  }
  return out;
}

namespace {

/// The simulated critical-path parts (models/run/critical_path.h) that a measured finding
/// (models/diagnosis/log_diagnosis.h) agrees with; empty for a finding that names no part.
std::vector<std::string_view> simulated_parts_of(std::string_view measured) {
  if (measured == "compute" || measured == "memory_bound") return {"gpu_compute"};
  if (measured == "input_pipeline") return {"data_loading_cpu", "storage_io", "h2d_copy"};
  if (measured == "storage") return {"storage_io"};
  if (measured == "host_dispatch") return {"host_dispatch"};
  if (measured == "communication") return {"communication", "pipeline_bubble"};
  return {};
}

/// A sentence when the logs and the simulated job name different bottlenecks, else "": which
/// to read, and what in the scenario may not describe the machine.
std::string bottleneck_disagreement(const DiagnoseResult& r) {
  if (!r.simulated || !r.simulated->fits || r.diagnosis.findings.empty()) return "";
  const std::string& measured = r.diagnosis.findings.front().bottleneck;
  const std::string& simulated = r.simulated->bottleneck;
  const std::vector<std::string_view> agreeing = simulated_parts_of(measured);
  if (agreeing.empty() || simulated.empty() ||
      std::find(agreeing.begin(), agreeing.end(), simulated) != agreeing.end()) {
    return "";
  }
  return "The logs show " + measured + " and the simulation " + simulated +
         ": the logs are what ran; the scenario may not describe that machine (its storage class, decode_time, "
         "cpu_cores or num_workers), so check those before trusting its remedies.";
}

}  // namespace

std::string render_diagnosis_text(const DiagnoseResult& r) {
  std::string out = wrap_text(diagnosis_summary(r), kTerminalColumns) + "\n";
  out += wrap_text("Logs: " + logs_line(r) + "\n", kTerminalColumns);
  for (const auto& f : r.diagnosis.findings) {
    out += "\n" + gpu_title(r, f) + ": " + f.bottleneck + (f.supported ? "" : " (likely)") + "\n";
    for (const auto& e : f.evidence) out += wrap_text("  - " + e + "\n", kTerminalColumns, 4);
    out += wrap_text("  remedy: " + f.remedy + "\n", kTerminalColumns, 4);
  }
  if (r.simulated) {
    out += "\nMeasured beside simulated (scenario " + r.scenario_name + "):\n" + beside_table(r).to_text(kTerminalColumns);
    if (!r.simulated->suggestion.empty()) {
      const auto& change = r.simulated->suggestion_throughput_change;
      out += wrap_text("Simulator's suggestion: " + r.simulated->suggestion +
                           (change ? fmt::format(" (simulated: {:+.0f} % samples/s)", 100.0 * *change) : std::string()) +
                           "\n",
                       kTerminalColumns, 2);
    }
    const std::string disagreement = bottleneck_disagreement(r);
    if (!disagreement.empty()) out += wrap_text(disagreement + "\n", kTerminalColumns);
    if (!r.remedies.empty()) out += "\nRemedies ranked by simulated gain over '" + r.baseline + "'" + baseline_why(r) + ":\n" + remedies_table(r).to_text(kTerminalColumns);
    if (!r.left_out.empty()) out += "Left out (out of memory): " + fmt::format("{}", fmt::join(r.left_out, ", ")) + "\n";
  }
  if (!r.diagnosis.notes.empty()) {
    out += "\nNotes:\n";
    for (const auto& n : r.diagnosis.notes) out += wrap_text("  " + n + "\n", kTerminalColumns, 4);
  }
  out += "GPU utilization is nvidia-smi's: the share of time a kernel runs, not MFU. GB = 10^9 B.\n";
  return out;
}

std::string render_diagnosis_markdown(const DiagnoseResult& r) {
  std::string out = "# Diagnosis\n\n" + diagnosis_summary(r) + "\nLogs: " + logs_line(r) + "\n";
  for (const auto& f : r.diagnosis.findings) {
    out += "\n## " + gpu_title(r, f) + ": " + f.bottleneck + (f.supported ? "" : " (likely)") + "\n\n";
    for (const auto& e : f.evidence) out += "- " + e + "\n";
    out += "\nRemedy: " + f.remedy + "\n";
  }
  if (r.simulated) {
    out += "\n## Measured beside simulated (scenario " + r.scenario_name + ")\n\n" + beside_table(r).to_markdown();
    if (!r.remedies.empty()) {
      out += "\n## Remedies ranked by simulated gain over '" + r.baseline + "'" + baseline_why(r) + "\n\n" + remedies_table(r).to_markdown();
    }
  }
  if (!r.diagnosis.notes.empty()) {
    out += "\n## Notes\n\n";
    for (const auto& n : r.diagnosis.notes) out += "- " + n + "\n";
  }
  return out;
}

std::string render_diagnosis_json(const DiagnoseResult& r) {
  nlohmann::json j;
  j["summary"] = diagnosis_summary(r);
  j["logs"] = r.logs;
  j["gpus"] = nlohmann::json::array();
  for (const auto& u : r.diagnosis.gpus) {
    nlohmann::json g = {{"index", u.index},
                        {"name", u.name},
                        {"catalog_gpu", u.facts.catalog_name},
                        {"source", u.source},
                        {"format", u.format},
                        {"samples", u.samples},
                        {"interval_s", number_or_null(u.interval_s)},
                        {"utilization_mean", number_or_null(u.utilization_mean)},
                        {"utilization_p10", number_or_null(u.utilization_p10)},
                        {"utilization_p50", number_or_null(u.utilization_p50)},
                        {"utilization_p90", number_or_null(u.utilization_p90)},
                        {"idle_share", number_or_null(u.idle_share)},
                        {"period_samples", u.period_samples},
                        {"period_s", number_or_null(u.period_s)},
                        {"memory_used_peak_bytes", number_or_null(u.memory_used_peak_bytes)},
                        {"memory_capacity_bytes", number_or_null(u.memory_capacity_bytes)},
                        {"power_mean_w", number_or_null(u.power_mean_w)},
                        {"power_limit_w", number_or_null(u.power_limit_w)},
                        {"pcie_rx_mean_bytes_per_s", number_or_null(u.pcie_rx_mean_bytes_per_s)},
                        {"pcie_tx_mean_bytes_per_s", number_or_null(u.pcie_tx_mean_bytes_per_s)},
                        {"sm_active_mean", number_or_null(u.sm_active_mean)}};
    j["gpus"].push_back(g);
  }
  j["findings"] = nlohmann::json::array();
  for (const auto& f : r.diagnosis.findings) {
    j["findings"].push_back({{"gpu_index", f.gpu_index}, {"bottleneck", f.bottleneck}, {"supported", f.supported},
                             {"headline", f.headline}, {"evidence", f.evidence}, {"remedy", f.remedy}});
  }
  const auto& h = r.diagnosis.host;
  j["host"] = {{"cpu_busy_mean", number_or_null(h.cpu_busy_mean)}, {"iowait_mean", number_or_null(h.iowait_mean)},
               {"run_queue_mean", number_or_null(h.run_queue_mean)}, {"cpus", h.cpus},
               {"busiest_disk", h.busiest_disk}, {"busiest_disk_utilization", number_or_null(h.busiest_disk_utilization)}};
  const auto& p = r.diagnosis.profile;
  j["profile"] = {{"data_loader_cpu_share", number_or_null(p.data_loader_cpu_share)},
                  {"single_process_loader", p.single_process_loader},
                  {"kernel_launch_cpu_share", number_or_null(p.kernel_launch_cpu_share)},
                  {"nccl_cuda_share", number_or_null(p.nccl_cuda_share)}};
  if (r.simulated) {
    const auto& s = *r.simulated;
    j["baseline"] = r.baseline;
    j["simulated"] = {{"scenario", r.scenario_name}, {"strategy", s.strategy}, {"fits", s.fits},
                      {"gpu_utilization", number_or_null(s.gpu_utilization)}, {"gpu_power_w", number_or_null(s.gpu_power_w)},
                      {"step_time_s", number_or_null(s.step_time_s)}, {"peak_memory_bytes", number_or_null(s.peak_memory_bytes)},
                      {"throughput_samples_per_s", number_or_null(s.throughput_samples_per_s)},
                      {"bottleneck", s.bottleneck}, {"suggestion", s.suggestion},
                      {"suggestion_throughput_change", s.suggestion_throughput_change
                                                           ? nlohmann::json(*s.suggestion_throughput_change)
                                                           : nlohmann::json(nullptr)}};
    j["remedies"] = nlohmann::json::array();
    for (const auto& m : r.remedies) {
      j["remedies"].push_back({{"strategy", m.strategy}, {"throughput_samples_per_s", m.throughput_samples_per_s},
                               {"gain", m.gain}, {"cost_usd", m.cost_usd ? nlohmann::json(*m.cost_usd) : nlohmann::json(nullptr)},
                               {"bottleneck", m.bottleneck}});
    }
    j["left_out"] = r.left_out;
  }
  j["notes"] = r.diagnosis.notes;
  j["warnings"] = r.warnings;
  return j.dump(2) + "\n";
}

}  // namespace gpuplan::report

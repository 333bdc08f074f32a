#include "report/report_format.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/units.h"
#include "report/human_units.h"
#include "report/run_summary.h"
#include "report/text_table.h"
#include "report/text_wrap.h"

namespace gpuplan::report {
namespace {

using models::ScenarioResult;
using models::VariantResult;

TextTable comparison_table(const ScenarioResult& result) {
  bool any_tokens = false;
  bool any_cost = false;
  bool any_on_prem = false;
  bool any_spot = false;  // spot columns only when a variant is on spot
  bool any_multi = false; // GPU count, exposed communication and scaling only with several GPUs
  for (const auto& v : result.variants) {
    any_multi |= v.gpus > 1;
    any_tokens |= v.throughput_tokens_per_s.has_value();
    any_cost |= v.cost_on_demand_usd.has_value();
    any_on_prem |= v.cost_on_premises_usd.has_value();
    any_spot |= v.market == "spot";
  }
  std::vector<std::string> header = {"strategy"};
  if (any_multi) header.push_back("GPUs");
  header.push_back("samples/s");
  if (any_tokens) header.push_back("tokens/s");
  header.push_back("step");
  if (any_multi) {
    header.push_back("comm");
    header.push_back("scaling");
  }
  for (const char* h : {"GPU util", "MFU", "peak mem", "epoch", "time to train"}) header.push_back(h);
  if (any_cost) header.push_back("on-demand");
  if (any_on_prem) header.push_back("on-prem");
  if (any_spot) {
    for (const char* h : {"market", "time p50", "time p90", "$ p50", "$ p90", "preempt.", "lost"}) header.push_back(h);
  }
  header.push_back("energy");
  header.push_back("bottleneck");
  TextTable table(header);
  for (const VariantResult& v : result.variants) {
    std::vector<std::string> row = {v.strategy};
    if (any_multi) row.push_back(std::to_string(v.gpus));
    const std::string mem = human_bytes(v.peak_memory_bytes) + " / " + human_bytes(v.memory_capacity_bytes);
    if (!v.fits) {
      row.push_back("OOM");
      if (any_tokens) row.push_back("-");
      for (int i = 0; i < (any_multi ? 5 : 3); ++i) row.push_back("-");
      row.push_back(mem + " OOM");
      row.push_back("-");
      row.push_back("-");
      if (any_cost) row.push_back("-");
      if (any_on_prem) row.push_back("-");
      if (any_spot) row.insert(row.end(), 7, "-");
      row.push_back("-");
      row.push_back(v.bottleneck);
      table.add_row(row);
      continue;
    }
    row.push_back(human_rate(v.throughput_samples_per_s));
    if (any_tokens) row.push_back(v.throughput_tokens_per_s ? human_rate(*v.throughput_tokens_per_s) : "-");
    row.push_back(human_duration(v.step.step_time_s));
    if (any_multi) {
      row.push_back(v.gpus > 1 ? human_duration(v.step.communication_exposed_s) : "-");
      row.push_back(v.scaling_efficiency ? human_percent(*v.scaling_efficiency) : "-");
    }
    row.push_back(human_percent(v.gpu_utilization));
    row.push_back(human_percent(v.mfu));
    row.push_back(mem);
    row.push_back(human_duration(v.epoch_time_s));
    row.push_back(human_duration(v.time_to_train_s));
    if (any_cost) row.push_back(v.cost_on_demand_usd ? human_usd(*v.cost_on_demand_usd) : "-");
    if (any_on_prem) row.push_back(v.cost_on_premises_usd ? human_usd(*v.cost_on_premises_usd) : "-");
    if (any_spot) {
      const auto dur = [](const std::optional<double>& x) { return x ? human_duration(*x) : std::string("-"); };
      const auto usd = [](const std::optional<double>& x) { return x ? human_usd(*x) : std::string("-"); };
      row.push_back(v.market.empty() ? "-" : v.market);
      row.push_back(dur(v.time_p50_s));
      row.push_back(dur(v.time_p90_s));
      row.push_back(usd(v.cost_p50_usd));
      row.push_back(usd(v.cost_p90_usd));
      row.push_back(v.expected_preemptions ? fmt::format("{:.1f}", *v.expected_preemptions) : "-");
      row.push_back(v.lost_time_share ? human_percent(*v.lost_time_share) : "-");
    }
    row.push_back(fmt::format("{:.1f} kWh", core::to_kwh(v.energy_j)));
    row.push_back(v.bottleneck);
    table.add_row(row);
  }
  return table;
}

std::string notes(const ScenarioResult& result, bool markdown) {
  const std::string bullet = markdown ? "- " : "  ";
  std::string out = markdown ? "\n**Next step per strategy**\n\n" : "\nNext step per strategy:\n";
  for (const VariantResult& v : result.variants) {
    out += bullet + v.strategy + ": " + v.bottleneck + " -> " + v.suggestion;
    if (!v.fits) {
      out += " (needs " + human_bytes(v.peak_memory_bytes) + ", has " + human_bytes(v.memory_capacity_bytes) + ")";
    }
    out += "\n";
    for (const auto& n : v.notes) out += bullet + "  note: " + n + "\n";
  }
  bool calibrated = false;
  for (const auto& v : result.variants) calibrated |= v.calibrated;
  out += markdown ? "\n" : "\n";
  out += (markdown ? "" : "") + std::string(
      "Times are simulated. GPU util = share of time a kernel runs (nvidia-smi); MFU = model "
      "FLOP/s / dense peak of the precision. GB = 10^9 B. ");
  out += calibrated ? "Calibrated GPU profile.\n" : "GPU figures from the datasheet catalog (uncalibrated).\n";
  bool any_multi = false;
  for (const auto& v : result.variants) any_multi |= v.gpus > 1;
  if (any_multi) {
    out += "comm = communication per step not hidden behind compute; scaling = samples/s / (GPUs x samples/s "
           "of one such GPU alone on the node, same per-GPU batch). step = one optimizer step, all accumulation "
           "micro-steps included. Links and network per row: --format csv or json.\n";
  }
  return out;
}

std::string number(double v) { return fmt::format("{:.6g}", v); }

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

Format format_from_name(std::string_view name) {
  if (name == "table") return Format::kTable;
  if (name == "markdown") return Format::kMarkdown;
  if (name == "csv") return Format::kCsv;
  if (name == "json") return Format::kJson;
  throw std::invalid_argument("unknown format '" + std::string(name) + "'; expected table, markdown, csv or json");
}

std::string render_table(const ScenarioResult& result) {
  return result.scenario_name + "\n\n" + wrap_text(run_summary(result), kTerminalColumns) + "\n" +
         comparison_table(result).to_text(kTerminalColumns) +
         notes(result, false);
}

std::string render_markdown(const ScenarioResult& result) {
  return "## " + result.scenario_name + "\n\n" + run_summary(result) + "\n" + comparison_table(result).to_markdown() + notes(result, true);
}

std::string render_csv(const ScenarioResult& result) {
  std::string out =
      "strategy,throughput_samples_per_s,step_time_s,data_wait_s,h2d_s,gpu_compute_s,optimizer_s,"
      "gpu_utilization,mfu,peak_memory_bytes,memory_capacity_bytes,fits,epoch_time_s,time_to_train_s,"
      "cost_on_demand_usd,energy_kwh,bottleneck,suggestion,throughput_tokens_per_s,host_dispatch_s,"
      "cost_on_premises_usd,gpus,global_batch_samples,gpu,market,time_p50_s,time_p90_s,cost_p50_usd,"
      "cost_p90_usd,expected_preemptions,lost_time_share,finished_share,checkpoint_interval_s,trials,"
      "communication_exposed_s,scaling_efficiency,parallelism,collective,nodes,interconnect,network,"
      "network_bytes_per_s,single_gpu_throughput_samples_per_s\n";
  for (const VariantResult& v : result.variants) {
    std::vector<std::string> cells = {csv_cell(v.strategy)};
    auto fitted = [&](double x) { return v.fits ? number(x) : std::string(); };
    cells.push_back(fitted(v.throughput_samples_per_s));
    cells.push_back(fitted(v.step.step_time_s));
    cells.push_back(fitted(v.step.data_wait_s));
    cells.push_back(fitted(v.step.h2d_s));
    cells.push_back(fitted(v.step.gpu_compute_s));
    cells.push_back(fitted(v.step.optimizer_s));
    cells.push_back(fitted(v.gpu_utilization));
    cells.push_back(fitted(v.mfu));
    cells.push_back(number(v.peak_memory_bytes));
    cells.push_back(number(v.memory_capacity_bytes));
    cells.push_back(v.fits ? "true" : "false");
    cells.push_back(fitted(v.epoch_time_s));
    cells.push_back(fitted(v.time_to_train_s));
    cells.push_back(v.fits && v.cost_on_demand_usd ? number(*v.cost_on_demand_usd) : "");
    cells.push_back(fitted(core::to_kwh(v.energy_j)));
    cells.push_back(csv_cell(v.bottleneck));
    cells.push_back(csv_cell(v.suggestion));
    cells.push_back(v.fits && v.throughput_tokens_per_s ? number(*v.throughput_tokens_per_s) : "");
    cells.push_back(fitted(v.step.host_dispatch_wait_s));
    cells.push_back(v.fits && v.cost_on_premises_usd ? number(*v.cost_on_premises_usd) : "");
    cells.push_back(std::to_string(v.gpus));
    cells.push_back(std::to_string(v.global_batch_samples));
    cells.push_back(csv_cell(v.gpu));
    const auto optional_cell = [&](const std::optional<double>& x) { return v.fits && x ? number(*x) : std::string(); };
    cells.push_back(csv_cell(v.market));
    cells.push_back(optional_cell(v.time_p50_s));
    cells.push_back(optional_cell(v.time_p90_s));
    cells.push_back(optional_cell(v.cost_p50_usd));
    cells.push_back(optional_cell(v.cost_p90_usd));
    cells.push_back(optional_cell(v.expected_preemptions));
    cells.push_back(optional_cell(v.lost_time_share));
    cells.push_back(optional_cell(v.finished_share));
    cells.push_back(v.fits && v.checkpoint_interval_s > 0.0 ? number(v.checkpoint_interval_s) : "");
    cells.push_back(v.trials > 0 ? std::to_string(v.trials) : "");
    cells.push_back(fitted(v.step.communication_exposed_s));
    cells.push_back(optional_cell(v.scaling_efficiency));
    cells.push_back(csv_cell(v.parallelism));
    cells.push_back(csv_cell(v.collective));
    cells.push_back(std::to_string(v.nodes));
    cells.push_back(csv_cell(v.interconnect));
    cells.push_back(csv_cell(v.network));
    cells.push_back(v.network_bytes_per_s > 0.0 ? number(v.network_bytes_per_s) : "");
    cells.push_back(optional_cell(v.single_gpu_throughput_samples_per_s));
    for (std::size_t i = 0; i < cells.size(); ++i) {
      out += (i == 0 ? "" : ",") + cells[i];
    }
    out += "\n";
  }
  return out;
}

std::string render_json(const ScenarioResult& result) {
  nlohmann::ordered_json root;
  root["scenario"] = result.scenario_name;
  root["scenario_path"] = result.scenario_path;
  root["summary"] = run_summary(result);
  root["variants"] = nlohmann::ordered_json::array();
  for (const VariantResult& v : result.variants) {
    nlohmann::ordered_json j;
    j["strategy"] = v.strategy;
    j["gpu"] = v.gpu;
    j["gpus"] = v.gpus;
    j["global_batch_samples"] = v.global_batch_samples;
    j["parallelism"] = v.parallelism;
    j["nodes"] = v.nodes;
    if (!v.interconnect.empty()) j["interconnect"] = v.interconnect;
    if (!v.network.empty()) {
      j["network"] = v.network;
      j["network_bytes_per_s"] = v.network_bytes_per_s;
    }
    j["fits"] = v.fits;
    j["peak_memory_bytes"] = v.peak_memory_bytes;
    j["memory_capacity_bytes"] = v.memory_capacity_bytes;
    j["memory_breakdown_bytes"] = {
        {"weights", v.memory.weights_bytes},          {"gradients", v.memory.gradients_bytes},
        {"optimizer_state", v.memory.optimizer_state_bytes}, {"activations", v.memory.activations_bytes},
        {"workspace", v.memory.workspace_bytes},      {"cuda_context", v.memory.cuda_context_bytes},
        {"allocator_slack", v.memory.allocator_slack_bytes}, {"data_parallel", v.memory.data_parallel_bytes}};
    if (v.fits) {
      j["throughput_samples_per_s"] = v.throughput_samples_per_s;
      if (v.throughput_tokens_per_s) j["throughput_tokens_per_s"] = *v.throughput_tokens_per_s;
      j["step_time_s"] = v.step.step_time_s;
      j["step_breakdown_s"] = {{"gpu_compute", v.step.gpu_compute_s},
                               {"optimizer", v.step.optimizer_s},
                               {"data_wait", v.step.data_wait_s},
                               {"h2d", v.step.h2d_s},
                               {"host_dispatch", v.step.host_dispatch_wait_s},
                               {"communication_exposed", v.step.communication_exposed_s}};
      if (v.scaling_efficiency) j["scaling_efficiency"] = *v.scaling_efficiency;
      if (v.single_gpu_throughput_samples_per_s) j["single_gpu_throughput_samples_per_s"] = *v.single_gpu_throughput_samples_per_s;
      if (!v.collective.empty()) j["collective"] = v.collective;
      j["gpu_utilization"] = v.gpu_utilization;
      j["mfu"] = v.mfu;
      j["epoch_time_s"] = v.epoch_time_s;
      j["time_to_train_s"] = v.time_to_train_s;
      if (v.cost_on_demand_usd) j["cost_on_demand_usd"] = *v.cost_on_demand_usd;
      if (v.cost_on_premises_usd) j["cost_on_premises_usd"] = *v.cost_on_premises_usd;
      j["energy_j"] = v.energy_j;
      if (!v.market.empty()) {
        nlohmann::ordered_json job;
        job["market"] = v.market;
        if (v.time_p50_s) job["time_p50_s"] = *v.time_p50_s;
        if (v.time_p90_s) job["time_p90_s"] = *v.time_p90_s;
        if (v.cost_p50_usd) job["cost_p50_usd"] = *v.cost_p50_usd;
        if (v.cost_p90_usd) job["cost_p90_usd"] = *v.cost_p90_usd;
        if (v.expected_preemptions) job["expected_preemptions"] = *v.expected_preemptions;
        if (v.lost_time_share) job["lost_time_share"] = *v.lost_time_share;
        if (v.finished_share) job["finished_share"] = *v.finished_share;
        job["checkpoint_interval_s"] = v.checkpoint_interval_s;
        job["checkpoint_interval_reason"] = v.checkpoint_interval_reason;
        if (v.trials > 0) job["trials"] = v.trials;
        j["job_level"] = job;
      }
    }
    j["bottleneck"] = v.bottleneck;
    j["suggestion"] = v.suggestion;
    j["notes"] = v.notes;
    j["calibrated"] = v.calibrated;
    root["variants"].push_back(j);
  }
  return root.dump(2) + "\n";
}

std::string render(const ScenarioResult& result, Format format) {
  switch (format) {
    case Format::kTable: return render_table(result);
    case Format::kMarkdown: return render_markdown(result);
    case Format::kCsv: return render_csv(result);
    case Format::kJson: return render_json(result);
  }
  return render_table(result);
}

}  // namespace gpuplan::report

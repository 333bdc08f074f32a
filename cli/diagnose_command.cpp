#include "cli/diagnose_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>

#include "cli/output_file.h"
#include "cli/output_format.h"
#include "cli/progress_bar.h"
#include "cli/advisor.h"
#include "cli/scenario_runner.h"
#include "cli/utilization_timeline.h"
#include "config/log_text.h"
#include "config/scenario_loader.h"
#include "core/unit_parse.h"
#include "models/energy/energy.h"
#include "models/gpu/pcie_link.h"
#include "report/diagnosis_html.h"
#include "report/diagnosis_report.h"

namespace gpuplan::cli {

const char* const kDiagnoseUsage =
    "gpuplan diagnose LOG... [--scenario FILE] [--gpu NAME] [--fields LIST] [--interval S]\n"
    "                 [--format table|markdown|json|html] [-o FILE] [--catalogs DIR] [--catalog FILE]\n"
    "  Reads what a running job's monitors wrote (nvidia-smi --query-gpu=... --format=csv [-l S | -lms MS],\n"
    "  nvidia-smi dmon [-s pucvmet] [-o DT], the nvidia-smi table [-l S], dcgmi dmon -e ..., a torch profiler\n"
    "  key_averages().table(), mpstat, vmstat, iostat -x; the format is told from each file) and says per\n"
    "  GPU what holds it back, with the evidence line by line. With --scenario (the job as a scenario; its\n"
    "  first strategy is the job as it ran) it puts the simulated job beside the measured one and ranks the\n"
    "  other strategies by simulated gain over it (over the fastest that fits when it does not fit); it\n"
    "  warns when the logs show another GPU model or count than the scenario.\n"
    "  --gpu NAME      catalog GPU of the logs (default: matched from the logged name, else the scenario's)\n"
    "  --fields LIST   the --query-gpu list of a headerless CSV (--format=csv,noheader)\n"
    "  --interval S    sampling interval of logs without times (\"2 s\", \"500 ms\")\n";

namespace {

/// Optimizer steps of the simulated job whose GPU timeline the HTML report shows, and its bins.
constexpr int kSimulatedTraceSteps = 3;
constexpr std::size_t kTimelineBins = 300;

struct Args {
  DiagnoseOptions options;
  std::string format = "table";
  bool format_given = false;  ///< --format given; otherwise the extension of -o FILE decides
  std::string output;
  std::string catalogs = default_catalog_dir();
  std::vector<std::string> extra_catalogs;
  bool help = false;
};

Args parse_args(const std::vector<std::string>& args) {
  Args a;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& k = args[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument("option " + k + " needs a value");
      return args[++i];
    };
    if (k == "--help" || k == "-h") a.help = true;
    else if (k == "--scenario") a.options.scenario = value();
    else if (k == "--gpu") a.options.gpu = value();
    else if (k == "--fields") {
      for (const auto& cell : config::split_on(value(), ',')) {
        if (!cell.text.empty()) a.options.log_options.query_fields.push_back(cell.text);
      }
    }
    else if (k == "--interval") {
      const std::string v = value();
      try {
        a.options.log_options.interval_s = core::parse_quantity(v, core::Dimension::kSeconds);
      } catch (const std::exception& e) {
        throw std::invalid_argument("--interval '" + v + "': " + e.what() + "; write a duration such as \"2 s\"");
      }
      if (!(a.options.log_options.interval_s > 0.0)) throw std::invalid_argument("--interval must be above 0 s");
    } else if (k == "--format") {
      a.format = value();
      a.format_given = true;
    }
    else if (k == "-o" || k == "--output") a.output = value();
    else if (k == "--catalogs") a.catalogs = value();
    else if (k == "--catalog") a.extra_catalogs.push_back(value());
    else if (!k.empty() && k[0] == '-' && k != "-") throw std::invalid_argument("unknown option '" + k + "' of gpuplan diagnose");
    else a.options.logs.push_back(k);
  }
  return a;
}

models::GpuFacts facts_of(const models::GpuSpec& g) {
  models::GpuFacts f;
  f.catalog_name = g.name;
  f.memory_bytes = g.memory_bytes;
  f.tdp_w = g.tdp_w;
  f.idle_w = g.idle_w;
  f.pcie_bytes_per_s_per_direction = models::pcie_link_bytes_per_s(g);
  return f;
}

std::string format_label(const models::MonitorTrace& trace, const std::string& path) {
  for (const auto& g : trace.gpus) {
    if (g.source == path) return g.format;
  }
  for (const auto& h : trace.hosts) {
    if (h.source == path) return h.format;
  }
  for (const auto& p : trace.profiles) {
    if (p.source == path) return "torch_profiler";
  }
  return "?";
}

/// Where the logs show another job than the scenario describes, as one warning: GPUs the
/// catalog knows under another name than the scenario's GPU, or a GPU count that is neither
/// the scenario's total nor one node's (the logs of one node of a multi-node job are expected).
/// Empty when they agree.
std::vector<std::string> log_scenario_mismatches(const models::MonitorTrace& trace, const AppContext& context,
                                                 const config::Scenario& scenario) {
  const models::HardwareSpec& hw = scenario.variants.front().job.hardware;
  const int scenario_gpus = hw.gpus_per_node * hw.nodes;
  const std::string scenario_job = fmt::format("{} x {}{}", scenario_gpus, hw.gpu.name,
                                               hw.nodes > 1 ? fmt::format(" ({} nodes x {})", hw.nodes, hw.gpus_per_node) : "");
  std::vector<std::string> other_gpus;
  for (const auto& g : trace.gpus) {
    const models::GpuSpec* logged = g.name.empty() ? nullptr : context.catalogs.gpus.find(g.name);
    if (logged == nullptr || logged->name == hw.gpu.name) continue;
    const std::string what = logged->name + " ('" + g.name + "')";
    if (std::find(other_gpus.begin(), other_gpus.end(), what) == other_gpus.end()) other_gpus.push_back(what);
  }
  const int logged_gpus = static_cast<int>(trace.gpus.size());
  const bool other_count = logged_gpus > 0 && logged_gpus != scenario_gpus && logged_gpus != hw.gpus_per_node;
  std::vector<std::string> out;
  if (!other_gpus.empty() || other_count) {
    const std::string logged = other_gpus.empty()
                                   ? fmt::format("{} GPU{}", logged_gpus, logged_gpus == 1 ? "" : "s")
                                   : fmt::format("{} x {}", logged_gpus, fmt::join(other_gpus, ", "));
    out.push_back(fmt::format("the logs show {} where the scenario has {}: the simulated figures are of {}; check that "
                              "the logs and the scenario are the same job",
                              logged, scenario_job, other_gpus.empty() ? "another GPU count" : "another GPU"));
  }
  return out;
}

}  // namespace

models::DiagnoseResult diagnose(const DiagnoseOptions& options, const AppContext& context) {
  const models::GpuSpec* forced = nullptr;
  if (!options.gpu.empty()) {
    forced = context.catalogs.gpus.find(options.gpu);
    if (forced == nullptr) {
      std::string known;
      for (const auto& s : context.catalogs.gpus.suggestions(options.gpu)) known += (known.empty() ? "" : ", ") + s;
      throw std::invalid_argument("--gpu '" + options.gpu + "' is not in the GPU catalog" +
                                  (known.empty() ? std::string() : "; did you mean " + known + "?"));
    }
  }
  models::MonitorTrace trace = config::read_monitoring_logs(options.logs, options.log_options);
  std::optional<config::Scenario> scenario;
  if (!options.scenario.empty()) {
    scenario = config::load_scenario(options.scenario, context.catalogs, context.families);
  }
  const models::GpuSpec* scenario_gpu = scenario && !scenario->variants.empty() ? &scenario->variants.front().job.hardware.gpu : nullptr;
  std::vector<models::GpuFacts> facts;
  for (const auto& g : trace.gpus) {
    const models::GpuSpec* spec = forced;
    if (spec == nullptr && !g.name.empty()) spec = context.catalogs.gpus.find(g.name);
    if (spec == nullptr && scenario_gpu != nullptr) spec = scenario_gpu;
    if (spec == nullptr && !g.name.empty()) {
      trace.notes.push_back("GPU " + std::to_string(g.index) + " '" + g.name +
                            "' is not in the GPU catalog: no TDP or capacity beyond the log (--gpu NAME names it)");
    }
    if (forced != nullptr && !g.name.empty()) {
      // --gpu wins, but a log that names another catalog GPU says so: the catalog facts the
      // log lacks are then --gpu's, not the logged GPU's.
      const models::GpuSpec* logged = context.catalogs.gpus.find(g.name);
      if (logged != nullptr && logged->name != forced->name) {
        const std::string note = "--gpu " + forced->name + " differs from the " + logged->name +
                                 " the logs name; its catalog figures (TDP, idle power, PCIe link) are used where the "
                                 "log has none";
        if (std::find(trace.notes.begin(), trace.notes.end(), note) == trace.notes.end()) trace.notes.push_back(note);
      }
    }
    facts.push_back(spec != nullptr ? facts_of(*spec) : models::GpuFacts{});
  }

  models::DiagnoseResult result;
  if (scenario_gpu != nullptr) result.warnings = log_scenario_mismatches(trace, context, *scenario);
  for (const auto& p : options.logs) result.logs.push_back(p + " (" + format_label(trace, p) + ")");
  result.diagnosis = models::diagnose_logs(trace, facts);
  result.measured = trace.gpus;
  if (!scenario) return result;

  result.scenario_name = scenario->name;
  ProgressBar bar("diagnose");
  models::ModelParams params;
  params.step.trace_steps = kSimulatedTraceSteps;
  const ScenarioRun run = run_and_advise(*scenario, context, params,
                                         [&bar](std::size_t done, std::size_t total) { bar.update(done, total); });
  const models::VariantResult& first = run.result.variants.front();
  models::SimulatedJob s;
  s.strategy = first.strategy;
  s.fits = first.fits;
  s.peak_memory_bytes = first.peak_memory_bytes;
  s.gpu_memory_bytes = scenario->variants.front().job.hardware.gpu.memory_bytes;
  s.bottleneck = first.bottleneck;
  s.suggestion = first.suggestion;
  if (first.suggested) s.suggestion_throughput_change = first.suggested->throughput_change;
  if (first.fits) {
    s.gpu_utilization = first.gpu_utilization;
    s.gpu_power_w = models::gpu_power_w(scenario->variants.front().job.hardware.gpu, first.gpu_utilization);
    s.step_time_s = first.step.step_time_s;
    s.throughput_samples_per_s = first.throughput_samples_per_s;
  }
  const report::UtilizationTimeline timeline = gpu_busy_timeline(first.strategy, run.runs.front().trace, kTimelineBins);
  s.timeline_time_s = timeline.time_s;
  s.timeline_busy = timeline.busy;
  result.simulated = s;
  // The gains are measured against the job as it ran when it fits in the simulator; else
  // against the fastest strategy that fits, never against an out-of-memory row.
  const models::VariantResult* baseline = first.fits ? &first : nullptr;
  for (std::size_t i = 1; i < run.result.variants.size() && !first.fits; ++i) {
    const models::VariantResult& v = run.result.variants[i];
    if (v.fits && (baseline == nullptr || v.throughput_samples_per_s > baseline->throughput_samples_per_s)) baseline = &v;
  }
  if (baseline != nullptr) result.baseline = baseline->strategy;
  for (std::size_t i = 1; i < run.result.variants.size(); ++i) {
    const models::VariantResult& v = run.result.variants[i];
    if (!v.fits) {
      result.left_out.push_back(v.strategy);
      continue;
    }
    models::RankedRemedy m;
    m.strategy = v.strategy;
    m.throughput_samples_per_s = v.throughput_samples_per_s;
    m.gain = baseline->throughput_samples_per_s > 0.0 ? v.throughput_samples_per_s / baseline->throughput_samples_per_s - 1.0 : 0.0;
    m.cost_usd = models::run_cost_usd(v);
    m.bottleneck = v.bottleneck;
    result.remedies.push_back(m);
  }
  std::stable_sort(result.remedies.begin(), result.remedies.end(),
                   [](const models::RankedRemedy& a, const models::RankedRemedy& b) { return a.gain > b.gain; });
  return result;
}

int diagnose_main(const std::vector<std::string>& args) {
  Args a = parse_args(args);
  if (!a.format_given) a.format = output_format(std::nullopt, a.output, "table");
  if (a.help) {
    std::cout << kDiagnoseUsage
              << "\nExample: nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu,memory.used,memory.total,"
                 "power.draw --format=csv -l 1 > gpu.csv & mpstat 1 > cpu.log &\n"
                 "         gpuplan diagnose gpu.csv cpu.log --scenario my-job.yaml\n";
    return 0;
  }
  if (a.options.logs.empty()) throw std::invalid_argument("gpuplan diagnose needs at least one LOG file");
  if (a.format != "table" && a.format != "markdown" && a.format != "json" && a.format != "html") {
    throw std::invalid_argument("unknown --format '" + a.format + "' of gpuplan diagnose; expected table, markdown, json or html");
  }
  const AppContext context = load_context(a.catalogs, a.extra_catalogs);
  const models::DiagnoseResult result = diagnose(a.options, context);
  const std::string text = a.format == "html"       ? report::render_diagnosis_html(result)
                           : a.format == "json"     ? report::render_diagnosis_json(result)
                           : a.format == "markdown" ? report::render_diagnosis_markdown(result)
                                                    : report::render_diagnosis_text(result);
  if (!a.output.empty() && !is_stdout(a.output)) {
    try {
      std::vector<std::string> inputs = a.options.logs;
      if (!a.options.scenario.empty()) inputs.push_back(a.options.scenario);
      write_file_atomically(a.output, text, inputs);
    } catch (const std::runtime_error& e) {
      throw std::invalid_argument(e.what());
    }
  } else {
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return 0;
}

}  // namespace gpuplan::cli

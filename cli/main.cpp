/// \file main.cpp
/// The gpuplan command line. The only top-level catch (STYLE.md X2): input errors exit 2,
/// internal errors 1. Outputs are written whole, through a temporary file.

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli/shell_completion.h"
#include "config/scenario_schema_docs.h"
#include "cli/advisor.h"
#include "cli/app_context.h"
#include "cli/calibrate.h"
#include "cli/located_time_range_error.h"
#include "cli/diagnose_command.h"
#include "cli/model_fit.h"
#include "cli/init_command.h"
#include "cli/output_file.h"
#include "cli/output_format.h"
#include "cli/plan_command.h"
#include "cli/progress_bar.h"
#include "cli/scenario_runner.h"
#include "cli/trace_window.h"
#include "cli/utilization_timeline.h"
#include "cli/validation.h"
#include "config/config_error.h"
#include "config/scenario_loader.h"
#include "core/text_distance.h"
#include "core/units.h"
#include "models/workload/architecture_reader.h"
#include "report/human_units.h"
#include "report/report_format.h"
#include "report/run_html.h"
#include "report/text_table.h"
#include "report/text_wrap.h"
#include "sim/sim_time.h"
#include "report/trace_json.h"

namespace po = boost::program_options;
using namespace gpuplan;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitInternal = 1;
constexpr int kExitInput = 2;
/// Bins of the simulated utilization timeline of `run --format html`.
constexpr std::size_t kTimelineBins = 300;

/// A bad command line: printed with a hint to --help, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* kTopUsage =
    "gpuplan: predicts the time, dollars and bottleneck of deep-learning training before you rent GPUs.\n"
    "\n"
    "Usage:\n"
    "  gpuplan run SCENARIO [--format table|markdown|csv|json|html] [-o FILE] [--seed N] [--print-resolved]\n"
    "              [--trace FILE [--trace-steps FROM:TO]] [--exact]\n"
    "  gpuplan validate DIR [--format table|markdown|csv|json] [-o FILE] [--calibrations DIR]\n"
    "                       [--leave-one-gpu-out]\n"
    "  gpuplan fit DIR [--format table|json] [-o FILE]\n"
    "  gpuplan calibrate [--from FILE] [-o FILE] [--gpu NAME] [--probe FILE]\n"
    "  gpuplan plan SCENARIO --deadline 72h [--budget '$5000'] [--providers aws,gcp] [--format ...] [-o FILE]\n"
    "              [--gpus h100-sxm,...] [--threads N] [--exhaustive]\n"
    "  gpuplan diagnose LOG... [--scenario FILE] [--gpu NAME] [--format table|markdown|json] [-o FILE]\n"
    "  gpuplan init [--template resnet|llm] [FILE]   a commented starter scenario (default resnet, my-job.yaml)\n"
    "  gpuplan list gpus|instances|models|families|storage [--wide]   (list instances GPU: one GPU's)\n"
    "  gpuplan schema [--format markdown|json] [-o FILE]   every scenario key (docs/scenario-format.md)\n"
    "  gpuplan completion bash|zsh    a shell completion script (source it)\n"
    "  gpuplan help [--man]           this help, or as a man page (roff)\n"
    "  gpuplan --version\n"
    "\n"
    "Every command takes --help, --catalogs DIR (default: the repository's catalogs/, or\n"
    "$GPUPLAN_CATALOG_DIR) and --catalog FILE (a SkyPilot vms.csv to add; repeatable).\n"
    "Exit codes: 0 success, 2 invalid input, 1 internal error.\n";

po::options_description common_options() {
  po::options_description o("Common options");
  o.add_options()("help,h", "show this help")(
      "catalogs", po::value<std::string>()->default_value(cli::default_catalog_dir()), "catalog folder")(
      "catalog", po::value<std::vector<std::string>>()->composing(),
      "SkyPilot vms.csv to add (file name says the provider: aws, gcp, azure, lambda)");
  return o;
}

/// "SCENARIO" for "scenario": an argument's name as usage lines write it.
std::string upper(std::string name) {
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& options,
                        const po::positional_options_description& positional) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    // "--sead": did you mean --seed? Over the command's own long options.
    std::vector<std::string> names;
    for (const auto& option : options.options()) names.push_back("--" + option->long_name());
    const std::string given = e.get_option_name();
    throw UsageError("unknown option '" + given + "'" + core::did_you_mean(core::closest(given, names, 2, 1)));
  } catch (const po::too_many_positional_options_error&) {
    // Boost says "too many positional options have been specified": name what one is taken.
    std::string names;
    for (unsigned i = 0; i < positional.max_total_count() && i < 4; ++i) {
      names += (i == 0 ? "" : " ") + upper(positional.name_for_position(i));
    }
    throw UsageError("too many arguments: this command takes " + (names.empty() ? std::string("none") : names) +
                     " and options; run it once per file (see --help)");
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return vm;
}

/// The input files named on the command line (SCENARIO, --from), which no output may replace.
std::vector<std::string> inputs_of(const po::variables_map& vm) {
  std::vector<std::string> inputs;
  for (const char* key : {"scenario", "from"}) {
    if (vm.count(key) != 0U) inputs.push_back(vm[key].as<std::string>());
  }
  return inputs;
}

void emit(const std::string& content, const po::variables_map& vm) {
  if (vm.count("output") != 0U && !cli::is_stdout(vm["output"].as<std::string>())) {
    try {
      cli::write_file_atomically(vm["output"].as<std::string>(), content, inputs_of(vm));
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
  } else {
    std::fwrite(content.data(), 1, content.size(), stdout);
  }
}

cli::AppContext context_of(const po::variables_map& vm) {
  std::vector<std::string> extra;
  if (vm.count("catalog") != 0U) extra = vm["catalog"].as<std::vector<std::string>>();
  cli::AppContext context = cli::load_context(vm["catalogs"].as<std::string>(), extra);
  // A row of a --catalog file that is skipped (unknown GPU, no price, a GPU slice, ...) is
  // named with its file:line and why, not dropped silently; the shipped catalogs' are listed
  // by `gpuplan list instances --wide`.
  for (const std::string& note : cli::notes_of_files(context.catalogs.instances.notes(), extra)) {
    std::fprintf(stderr, "note: %s\n", note.c_str());
  }
  return context;
}

/// --format when given, else the extension of -o FILE (cli/output_format.h), else table.
std::string format_of(const po::variables_map& vm, bool html = false) {
  const bool given = !vm["format"].defaulted();
  const std::string output = vm.count("output") != 0U ? vm["output"].as<std::string>() : "";
  std::string f;
  try {
    f = cli::output_format(given ? std::optional<std::string>(vm["format"].as<std::string>()) : std::nullopt, output,
                           "table");
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (f != "table" && f != "markdown" && f != "csv" && f != "json" && (!html || f != "html")) {
    const std::string expected = std::string("table, markdown, csv, json") + (html ? ", html" : "");
    if (!given) throw UsageError("-o " + output + " asks for " + f + ", which this command does not write; pass --format " + expected);
    throw UsageError("unknown --format '" + f + "'; expected " + expected);
  }
  return f;
}

/// --seed: the range of the scenario's own `seed` key (0 to 2^63 - 1). Boost would read
/// "-1" as 18446744073709551615.
std::uint64_t seed_of(const std::string& text) {
  std::int64_t seed = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (ec != std::errc{} || ptr != text.data() + text.size() || seed < 0) {
    throw UsageError("--seed expects a whole number from 0 to 9223372036854775807, found '" + text + "'");
  }
  return static_cast<std::uint64_t>(seed);
}

int command_run(const std::vector<std::string>& args) {
  po::options_description o("gpuplan run SCENARIO: simulate every strategy of a scenario and compare them");
  o.add_options()("scenario", po::value<std::string>(), "scenario YAML file")(
      "format", po::value<std::string>()->default_value("table"), "table | markdown | csv | json | html")(
      "output,o", po::value<std::string>(), "write to FILE (\"-\": standard output); the format follows its extension unless --format is given")(
      "seed", po::value<std::string>(), "replace the scenario's seed (a whole number from 0 to 2^63 - 1)")(
      "print-resolved", "print every variant's resolved configuration instead of simulating")(
      "trace", po::value<std::string>(),
      "write the simulated timeline of every variant to FILE (Chrome trace JSON, opens in ui.perfetto.dev): "
      "every worker, copy, kernel and all-reduce of the traced steps")(
      "trace-steps", po::value<std::string>(),
      "optimizer steps FROM:TO that --trace records, counted from 0, TO excluded (default 0:3): inside the job, "
      "TO <= 10000, at most 1000 steps")(
      "exact", "simulate every batch of the job instead of a steady-state window per epoch kind (slow)");
  o.add(common_options());
  po::positional_options_description p;
  p.add("scenario", 1);
  const po::variables_map vm = parse(args, o, p);
  if (vm.count("help") != 0U) {
    std::cout << o << "\nExample: gpuplan run scenarios/dle-resnet50-a100.yaml --format markdown\n";
    return kExitOk;
  }
  if (vm.count("scenario") == 0U) throw UsageError("gpuplan run needs a SCENARIO file");
  if (vm.count("trace-steps") != 0U && vm.count("trace") == 0U) {
    throw UsageError("--trace-steps needs --trace FILE, the file to write the timeline to");
  }
  const bool window_given = vm.count("trace-steps") != 0U;
  const std::string window_text = window_given ? vm["trace-steps"].as<std::string>() : "";
  cli::TraceWindow traced;
  try {
    if (window_given) traced = cli::parse_trace_window(window_text);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // --print-resolved writes the scenario's YAML, whatever -o's extension.
  const std::string format = vm.count("print-resolved") != 0U ? "table" : format_of(vm, true);
  const cli::AppContext context = context_of(vm);
  config::LoadOptions load_options;
  if (vm.count("seed") != 0U) load_options.seed_override = seed_of(vm["seed"].as<std::string>());
  const config::Scenario scenario =
      config::load_scenario(vm["scenario"].as<std::string>(), context.catalogs, context.families, load_options);
  if (vm.count("print-resolved") != 0U) {
    emit(config::print_resolved(scenario), vm);
    return kExitOk;
  }
  if (vm.count("trace") != 0U || format == "html") {
    // Inside the shortest job: a window past its last step is refused, the default clipped.
    try {
      traced = cli::fit_trace_window(traced, window_given, window_text, scenario);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  // Both outputs are opened before the simulation and committed together after it, so a
  // bad -o or --trace fails at once and no output is left behind on any failure.
  std::optional<cli::OutputFile> output;
  std::optional<cli::OutputFile> trace;
  try {
    if (vm.count("output") != 0U && !cli::is_stdout(vm["output"].as<std::string>())) {
      output.emplace(vm["output"].as<std::string>(), inputs_of(vm));
    }
    if (vm.count("trace") != 0U) trace.emplace(vm["trace"].as<std::string>(), inputs_of(vm));
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  models::ModelParams params;
  params.step.exact = vm.count("exact") != 0U;
  if (vm.count("trace") != 0U || format == "html") {
    params.step.trace_first_step = traced.first_step;
    params.step.trace_steps = traced.end_step - traced.first_step;
  }
  cli::ProgressBar bar("run");
  const cli::ScenarioRun run = cli::run_and_advise(scenario, context, params,
                                                   [&bar](std::size_t done, std::size_t total) { bar.update(done, total); });
  std::string content;
  if (format == "html") {
    std::vector<report::UtilizationTimeline> timelines;
    for (std::size_t i = 0; i < run.runs.size(); ++i) {
      auto t = cli::gpu_busy_timeline(run.result.variants[i].strategy, run.runs[i].trace, kTimelineBins);
      if (!t.time_s.empty()) timelines.push_back(std::move(t));
    }
    content = report::render_run_html(run.result, timelines);
  } else {
    content = report::render(run.result, report::format_from_name(format));
  }
  try {
    if (trace) {
      std::vector<report::TraceProcess> processes;
      for (std::size_t i = 0; i < run.runs.size(); ++i) {
        processes.push_back({run.result.variants[i].strategy, run.runs[i].trace});
      }
      trace->write(report::render_chrome_trace(processes));
    }
    if (output) {
      output->write(content);
      output->commit();
    }
    if (trace) trace->commit();
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  if (!output) std::fwrite(content.data(), 1, content.size(), stdout);
  return kExitOk;
}

int command_validate(const std::vector<std::string>& args) {
  po::options_description o("gpuplan validate DIR: compare predictions with the published measurements of every case");
  o.add_options()("dir", po::value<std::string>(), "folder of validation scenarios")(
      "format", po::value<std::string>()->default_value("table"), "table | markdown | csv | json")(
      "output,o", po::value<std::string>(), "write to FILE (\"-\": standard output); the format follows its extension unless --format is given")(
      "calibrations", po::value<std::string>(),
      "folder of calibration profiles (default: <catalogs>/calibrations); cases whose GPU has one "
      "are also run calibrated")(
      "leave-one-gpu-out", po::bool_switch(),
      "for each GPU type, refit the global GPU-model parameters without its cases (as gpuplan fit) and "
      "print its throughput MAPE: how well gpuplan predicts a GPU it has not seen (one refit per GPU type: about 10 "
      "minutes on 2 cores; a progress bar on a terminal)");
  o.add(common_options());
  po::positional_options_description p;
  p.add("dir", 1);
  const po::variables_map vm = parse(args, o, p);
  if (vm.count("help") != 0U) {
    std::cout << o << "\nExample: gpuplan validate tests/validation\n";
    return kExitOk;
  }
  if (vm.count("dir") == 0U) throw UsageError("gpuplan validate needs a DIR of validation scenarios");
  const std::string format = format_of(vm);
  const cli::AppContext context = context_of(vm);
  if (vm["leave-one-gpu-out"].as<bool>()) {
    if (format != "table" && format != "json") {
      throw UsageError("--leave-one-gpu-out prints table or json, not '" + format + "'");
    }
    const auto cases = cli::load_validation_cases(vm["dir"].as<std::string>(), context);
    cli::ProgressBar bar("leave-one-gpu-out");
    const auto rows = cli::leave_one_gpu_out(cases, models::ModelParams{},
                                             [&bar](std::size_t done, std::size_t total) { bar.update(done, total); });
    emit(cli::render_leave_one_gpu_out(rows, format), vm);
    return kExitOk;
  }
  const std::string calibrations = vm.count("calibrations") != 0U
                                       ? vm["calibrations"].as<std::string>()
                                       : vm["catalogs"].as<std::string>() + "/calibrations";
  const cli::ValidationSummary summary =
      cli::validate_directory(vm["dir"].as<std::string>(), context, models::ModelParams{}, calibrations);
  emit(cli::render_validation(summary, format), vm);
  return kExitOk;
}

int command_fit(const std::vector<std::string>& args) {
  po::options_description o(
      "gpuplan fit DIR: fit the global GPU-model parameters over the throughput rows of the validation cases");
  o.add_options()("dir", po::value<std::string>(), "folder of validation scenarios")(
      "format", po::value<std::string>()->default_value("table"), "table | json")(
      "output,o", po::value<std::string>(), "write to FILE instead of standard output");
  o.add(common_options());
  po::positional_options_description p;
  p.add("dir", 1);
  const po::variables_map vm = parse(args, o, p);
  if (vm.count("help") != 0U) {
    std::cout << o << "\nExample: gpuplan fit tests/validation\n";
    return kExitOk;
  }
  if (vm.count("dir") == 0U) throw UsageError("gpuplan fit needs a DIR of validation scenarios");
  const std::string format = vm["format"].as<std::string>();
  if (format != "table" && format != "json") {
    throw UsageError("unknown --format '" + format + "'; expected table or json");
  }
  const auto cases = cli::load_validation_cases(vm["dir"].as<std::string>(), context_of(vm));
  const models::ModelParams start;
  emit(cli::render_fit(cli::fit_model(cases, start), start, format), vm);
  return kExitOk;
}

int command_calibrate(const std::vector<std::string>& args) {
  po::options_description o(
      "gpuplan calibrate: measure this machine's GPU with cuda_probe (or fit a recorded probe file) and write "
      "a calibration profile");
  o.add_options()("from", po::value<std::string>(), "fit this cuda_probe JSON instead of running the probe")(
      "output,o", po::value<std::string>(), "profile to write (default: <catalogs>/calibrations/<gpu>-<date>.json)")(
      "gpu", po::value<std::string>(), "catalog GPU the probe ran on (default: matched from its GPU name)")(
      "probe", po::value<std::string>(), "cuda_probe executable (default: beside gpuplan's build tree, or on PATH)");
  o.add(common_options());
  const po::variables_map vm = parse(args, o, po::positional_options_description{});
  if (vm.count("help") != 0U) {
    std::cout << o << "\nExample: gpuplan calibrate, then name the profile in a scenario:\n"
                      "  hardware: {gpu: {profile: ../catalogs/calibrations/a100-80gb-2026-11-30.json}, ...}\n";
    return kExitOk;
  }
  const cli::AppContext context = context_of(vm);
  cli::CalibrateOptions options;
  options.catalog_dir = vm["catalogs"].as<std::string>();
  if (vm.count("from") != 0U) options.from = vm["from"].as<std::string>();
  if (vm.count("output") != 0U) options.output = vm["output"].as<std::string>();
  if (vm.count("gpu") != 0U) options.gpu = vm["gpu"].as<std::string>();
  if (vm.count("probe") != 0U) options.probe = vm["probe"].as<std::string>();
  const cli::CalibrateResult result = cli::calibrate(options, context.catalogs);
  std::cout << "Calibration of " << result.profile.gpu << " (" << result.profile.provenance.gpu_name << ", "
            << result.profile.provenance.date << "):\n"
            << result.summary << "Profile written to " << result.profile_path
            << "\nName it in a scenario: hardware: {gpu: {profile: <path relative to the scenario>}}\n";
  return kExitOk;
}

int command_list(const std::vector<std::string>& args) {
  po::options_description o(
      "gpuplan list gpus|instances|models|families|storage: what the catalogs hold, and the model families' "
      "architecture keys");
  o.add_options()("what", po::value<std::string>(), "gpus | instances | models | families | storage")(
      "gpu", po::value<std::string>(), "list instances GPU: only the instances of that GPU (a catalog name or alias)")(
      "wide", "one line per row however wide (gpus: with the source of each entry); otherwise tables keep to 120 "
              "columns, wrapping further columns into panels");
  o.add(common_options());
  po::positional_options_description p;
  p.add("what", 1).add("gpu", 1);
  const po::variables_map vm = parse(args, o, p);
  if (vm.count("help") != 0U) {
    std::cout << o;
    return kExitOk;
  }
  if (vm.count("what") == 0U) throw UsageError("gpuplan list needs one of gpus, instances, models, families, storage");
  const std::string what = vm["what"].as<std::string>();
  const std::vector<std::string> kinds = {"gpus", "instances", "models", "families", "storage"};
  if (std::find(kinds.begin(), kinds.end(), what) == kinds.end()) {
    throw UsageError("unknown list '" + what + "'; expected gpus, instances, models, families or storage" +
                     core::did_you_mean(core::closest(what, kinds, 3, 3)));
  }
  if (vm.count("gpu") != 0U && what != "instances") {
    throw UsageError("gpuplan list " + what + " takes no filter ('" + vm["gpu"].as<std::string>() +
                     "'); only list instances GPU does");
  }
  const cli::AppContext context = context_of(vm);
  const bool wide = vm.count("wide") != 0U;
  auto text = [wide](const report::TextTable& t) { return wide ? t.to_text() : t.to_text(report::kTerminalColumns); };
  std::string out;
  if (what == "gpus") {
    std::vector<std::string> header = {"gpu", "arch", "memory", "bandwidth", "fp32", "tf32", "fp16", "bf16", "fp8", "TDP"};
    if (wide) header.emplace_back("source");
    report::TextTable t(header);
    auto tf = [](double v) { return v > 0 ? fmt::format("{:.1f}", core::to_teraflop_per_s(v)) : std::string("-"); };
    for (const auto& g : context.catalogs.gpus.all()) {
      std::vector<std::string> cells = {
          g.name, g.is_amd() ? g.gfx_target : fmt::format("{}.{}", g.compute_capability_major, g.compute_capability_minor),
          report::human_gibibytes(g.marketed_memory_bytes) + (g.memory_bytes < g.marketed_memory_bytes ? "*" : ""),
          fmt::format("{:.0f} GB/s", core::to_gigabytes_per_s(g.memory_bytes_per_s)),
          tf(g.peak_fp32_flop_per_s), tf(g.peak_tf32_flop_per_s), tf(g.peak_fp16_flop_per_s),
          tf(g.peak_bf16_flop_per_s), tf(g.peak_fp8_flop_per_s), fmt::format("{:.0f} W", g.tdp_w)};
      if (wide) cells.push_back(g.source);
      t.add_row(std::move(cells));
    }
    out = text(t) + "arch: CUDA compute capability, or AMD's gfx target. memory as marketed, in GiB (2^30 B; 80 GiB = "
                    "85.9 GB).\n* = ECC on as shipped: 15/16 of the memory allocatable. Dense peaks in TFLOP/s (no 2:4 sparsity).\n"
                    "GB = 10^9 B." +
          (wide ? "\n" : " Sources of each entry: gpuplan list gpus --wide.\n");
  } else if (what == "instances") {
    report::TextTable t({"instance", "gpu", "gpus", "vCPUs", "region", "zone", "on-demand $/h", "spot $/h"});
    std::string only;  // the catalog name of `list instances GPU`
    if (vm.count("gpu") != 0U) {
      const std::string asked = vm["gpu"].as<std::string>();
      const models::GpuSpec* gpu = context.catalogs.gpus.find(asked);
      if (gpu == nullptr) {
        throw UsageError("unknown GPU '" + asked + "'" + core::did_you_mean(context.catalogs.gpus.suggestions(asked)) +
                         " (gpuplan list gpus names them)");
      }
      only = gpu->name;
    }
    int listed = 0;
    for (const auto& i : context.catalogs.instances.rows()) {
      if (!only.empty() && i.gpu != only) continue;
      ++listed;
      t.add_row({i.provider + "/" + i.instance_type, i.gpu, std::to_string(i.accelerator_count),
                 fmt::format("{:.0f}", i.vcpus), i.region, i.zone,
                 fmt::format("{:.4f}", core::to_usd_per_hour(i.price_usd_per_s)),
                 i.spot_price_usd_per_s > 0 ? fmt::format("{:.4f}", core::to_usd_per_hour(i.spot_price_usd_per_s)) : "-"});
    }
    out = text(t);
    if (listed == 0 && !only.empty()) {
      out = "No instance of the catalogs has a " + only + " (own hardware: write hardware.gpu: " + only +
            " in the scenario, with on_premises for its dollars).\n";
    }
    const std::vector<std::string>& notes = context.catalogs.instances.notes();
    if (wide) {
      for (const std::string& note : notes) out += "note: " + note + "\n";
    } else if (!notes.empty()) {
      out += fmt::format("{} catalog rows were skipped or cleaned; gpuplan list instances --wide names each with its "
                         "file:line and why.\n", notes.size());
    }
  } else if (what == "models") {
    report::TextTable t({"model", "family", "summary"});
    for (const auto& name : context.catalogs.models.names()) {
      const auto* m = context.catalogs.models.find(name);
      t.add_row({name, m->family, m->summary});
    }
    out = text(t);
  } else if (what == "families") {
    // The architecture keys of an inline `model: {family: ..., ...}` (and of catalogs/models.yaml
    // entries), from the registered families themselves (models/workload/*_family.h): one
    // paragraph per family, one wrapped line per key.
    for (const std::string& name : context.families.names()) {
      const models::IWorkloadFamily* family = context.families.find(name);
      out += report::wrap_text(name + ": " + family->summary() + "\n", report::kTerminalColumns);
      for (const models::ArchitectureParameter& parameter : family->parameters()) {
        std::string default_text = "required";
        if (!parameter.choices.empty() && parameter.default_value) {
          default_text = "default " + parameter.choices.at(static_cast<std::size_t>(*parameter.default_value));
        } else if (parameter.default_value) {
          default_text = "default " + models::format_architecture_value(*parameter.default_value);
        } else if (!parameter.default_from.empty()) {
          default_text = "default: " + parameter.default_from;
        }
        const std::string line = fmt::format("  {} ({}): {}\n", parameter.name, default_text, parameter.summary);
        out += wide ? line : report::wrap_text(line, report::kTerminalColumns, 6);
      }
      out += "\n";
    }
    out += "Write them as model: {family: NAME, KEY: VALUE, ...}; catalog entries (gpuplan list models) use the same "
           "keys.\n";
  } else if (what == "storage") {
    report::TextTable t({"storage", "read", "random read", "write", "latency", "queue depth"});
    for (const auto& name : context.catalogs.storage.names()) {
      const auto* s = context.catalogs.storage.find(name);
      auto gbs = [](double v) { return fmt::format("{:.3g} GB/s", core::to_gigabytes_per_s(v)); };
      t.add_row({name, gbs(s->read_bytes_per_s), gbs(s->random_read_bytes_per_s), gbs(s->write_bytes_per_s),
                 report::human_duration(s->latency_s), std::to_string(s->queue_depth)});
    }
    out = text(t);
  } else {
    throw UsageError("unknown list '" + what + "'; expected gpus, instances, models, families or storage");
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

/// `gpuplan schema`: the scenario reference (markdown) or its JSON Schema, from the schema table.
int command_schema(const std::vector<std::string>& args) {
  po::options_description o("gpuplan schema [--format markdown|json] [-o FILE]");
  o.add_options()("help,h", "show this help")("format", po::value<std::string>(), "markdown (default) or json")(
      "output,o", po::value<std::string>(), "write to FILE (- = standard output)");
  const po::variables_map vm = parse(args, o, po::positional_options_description());
  if (vm.count("help") != 0U) {
    std::cout << o;
    return kExitOk;
  }
  const std::string output = vm.count("output") != 0U ? vm["output"].as<std::string>() : "";
  const std::optional<std::string> given =
      vm.count("format") != 0U ? std::optional<std::string>(vm["format"].as<std::string>()) : std::nullopt;
  std::string format = given ? *given : output.ends_with(".json") ? "json" : "markdown";
  if (format == "md") format = "markdown";
  if (format != "markdown" && format != "json") {
    throw UsageError("unknown --format '" + format + "' for gpuplan schema; expected markdown or json");
  }
  emit(format == "json" ? config::scenario_json_schema() : config::scenario_format_markdown(), vm);
  return kExitOk;
}

/// `gpuplan completion bash|zsh`.
int command_completion(const std::vector<std::string>& args) {
  if (args.size() != 1 || (args[0] != "bash" && args[0] != "zsh")) {
    throw UsageError("gpuplan completion needs one of bash, zsh");
  }
  const std::string script = args[0] == "bash" ? cli::bash_completion(kTopUsage) : cli::zsh_completion(kTopUsage);
  std::fwrite(script.data(), 1, script.size(), stdout);
  return kExitOk;
}

int dispatch(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "help" && args[1] == "--man") {
    std::cout << cli::man_page(kTopUsage, GPUPLAN_VERSION);
    return kExitOk;
  }
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kTopUsage;
    return args.empty() ? kExitInput : kExitOk;
  }
  if (args[0] == "--version") {
    std::cout << "gpuplan " << GPUPLAN_VERSION << "\n";
    return kExitOk;
  }
  const std::string command = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "run") return command_run(rest);
  if (command == "validate") return command_validate(rest);
  if (command == "fit") return command_fit(rest);
  if (command == "list") return command_list(rest);
  if (command == "schema") return command_schema(rest);
  if (command == "completion") return command_completion(rest);
  if (command == "plan") {
    try {
      return cli::plan_main(rest);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  if (command == "calibrate") return command_calibrate(rest);
  if (command == "init") {
    try {
      return cli::init_main(rest);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  if (command == "diagnose") {
    try {
      return cli::diagnose_main(rest);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  // The commands above, in the order the message names them; a near miss is suggested.
  const std::vector<std::string> commands = {"run",  "validate", "fit",    "calibrate",  "plan", "diagnose",
                                             "init", "list",     "schema", "completion", "help"};
  const std::string hint = core::did_you_mean(core::closest(command, commands));
  throw UsageError("unknown command '" + command + "'" + (hint.empty() ? "; expected" : hint + " Expected") +
                   " run, validate, fit, calibrate, plan, diagnose, init, list, schema, completion or help");
}

/// Flushes standard output and returns why what the command wrote there did not all arrive
/// (stdout closed, a full disk, a pipe gone): the C library's reason, or "" when it arrived.
std::string stdout_write_error() {
  errno = 0;
  if (std::fflush(stdout) != 0) return std::strerror(errno);
  if (std::ferror(stdout) != 0) return "a write failed";
  return "";
}

/// Runs the command; the only top-level catch (STYLE.md X2).
int run_command(int argc, char** argv) {
  try {
    return dispatch(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "gpuplan: " << e.what() << " (see gpuplan --help)\n";
    return kExitInput;
  } catch (const config::ConfigError& e) {
    std::cerr << "gpuplan: " << e.summary() << ":\n";
    for (const auto& m : e.messages()) std::cerr << "  " << m << "\n";
    return kExitInput;
  } catch (const cli::LocatedTimeRangeError& e) {
    std::cerr << "gpuplan: 1 error:\n  " << e.what() << "\n";
    return kExitInput;
  } catch (const sim::TimeRangeError& e) {
    // Valid keys whose combination asks for more than ~292 years of simulated time.
    std::cerr << "gpuplan: the scenario's job does not fit in the simulated-time range (about 292 years): "
              << e.what() << "; check the slowest rates and the longest times it gives (storage bandwidth and "
              << "latency, workload.dataset.decode_time, hardware.network)\n";
    return kExitInput;
  } catch (const std::exception& e) {
    std::cerr << "gpuplan: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace

/// Every subcommand's output to stdout is checked here, once: a write that failed exits 2
/// with the reason on stderr, as a failed -o FILE does, instead of losing the output silently.
int main(int argc, char** argv) {
  const int exit_code = run_command(argc, argv);
  if (const std::string reason = stdout_write_error(); !reason.empty()) {
    std::cerr << "gpuplan: cannot write to standard output: " << reason
              << "; the output is lost: run it again with standard output open, or write it to a file with -o FILE\n";
    return exit_code == kExitOk ? kExitInput : exit_code;
  }
  return exit_code;
}

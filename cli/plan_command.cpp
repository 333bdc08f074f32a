#include "cli/plan_command.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include "cli/app_context.h"
#include "cli/output_file.h"
#include "cli/output_format.h"
#include "cli/plan.h"
#include "cli/plan_summary.h"
#include "cli/progress_bar.h"
#include "config/scenario_loader.h"
#include "core/text_distance.h"
#include "core/unit_parse.h"

#ifdef GPUPLAN_HAVE_MPI
#include <mpi.h>
#endif

namespace gpuplan::cli {

const char* const kPlanUsage =
    "gpuplan plan SCENARIO --deadline 72h [--budget '$5000'] [--providers aws,gcp] [--gpus h100-sxm,...]\n"
    "             [--format table|markdown|csv|json|html] [-o FILE] [--threads N] [--exhaustive] [--catalogs DIR]\n"
    "             [--catalog FILE]\n"
    "  Searches parallel layouts (DDP / FSDP / ZeRO, tensor, pipeline and expert parallel, micro-batch x\n"
    "  accumulation, recomputation) and instances together: every instance type of the catalogs at 1, 2,\n"
    "  4, ... nodes, on-demand and spot, for the scenario's strategies; prunes by memory and by a lower\n"
    "  bound, then prints the cheapest plan that meets the deadline at p90, the fastest, and the Pareto\n"
    "  front of p90 time against p90 dollars. Runs on all cores; under mpirun (MPI build) across ranks.\n"
    "  --exhaustive simulates every layout that fits in memory, none pruned by the bound: each gets its\n"
    "  on-demand row in the CSV/JSON (a longer search; where the default finds a plan, the same fastest\n"
    "  and cheapest plans).\n";

namespace {

struct Args {
  std::string scenario;
  std::string deadline;
  std::string budget;
  std::string providers;
  bool providers_given = false;
  bool gpus_given = false;
  std::string gpus;
  std::string format = "table";
  bool format_given = false;  ///< --format given; otherwise the extension of -o FILE decides
  std::string output;
  std::string catalogs = default_catalog_dir();
  std::vector<std::string> extra_catalogs;
  unsigned threads = 0;
  bool exhaustive = false;
  bool help = false;
};

/// The options parse_args reads, the candidates of an unknown option's did-you-mean.
const std::vector<std::string> kPlanOptions = {"--help",     "--deadline", "--budget",  "--providers",
                                               "--gpus",     "--format",   "--output",  "--catalogs",
                                               "--catalog",  "--threads",  "--exhaustive"};

Args parse_args(const std::vector<std::string>& args) {
  Args a;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& k = args[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw std::invalid_argument("option " + k + " needs a value");
      return args[++i];
    };
    if (k == "--help" || k == "-h") a.help = true;
    else if (k == "--exhaustive") a.exhaustive = true;
    else if (k == "--deadline") a.deadline = value();
    else if (k == "--budget") a.budget = value();
    else if (k == "--providers") {
      a.providers = value();
      a.providers_given = true;
    } else if (k == "--gpus") {
      a.gpus = value();
      a.gpus_given = true;
    }
    else if (k == "--format") {
      a.format = value();
      a.format_given = true;
    }
    else if (k == "-o" || k == "--output") a.output = value();
    else if (k == "--catalogs") a.catalogs = value();
    else if (k == "--catalog") a.extra_catalogs.push_back(value());
    else if (k == "--threads") {
      // 1 to 1,024 threads (a bound on what one machine runs; std::stoul read "-3" as 2^64 - 3).
      const std::string v = value();
      unsigned n = 0;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc{} || end != v.data() + v.size() || n < 1 || n > 1024) {
        throw std::invalid_argument("--threads expects a whole number from 1 to 1024, found '" + v +
                                    "'; leave it out to use every core");
      }
      a.threads = n;
    } else if (!k.empty() && k[0] == '-') {
      throw std::invalid_argument("unknown option '" + k + "' of gpuplan plan" +
                                  core::did_you_mean(core::closest(k, kPlanOptions, 2, 1)));
    }
    else if (a.scenario.empty()) a.scenario = k;
    else throw std::invalid_argument("gpuplan plan takes one SCENARIO, found a second: '" + k + "'");
  }
  return a;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t s = 0;
  while (s <= text.size() && !text.empty()) {
    const std::size_t e = text.find(',', s);
    std::string item = text.substr(s, e == std::string::npos ? std::string::npos : e - s);
    if (!item.empty()) out.push_back(item);
    if (e == std::string::npos) break;
    s = e + 1;
  }
  return out;
}

/// "a", "a and b", "a, b and c".
std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return out;
}

/// `text`, the value of `option`, as a positive quantity of `dimension`. Throws
/// std::invalid_argument with one fix, "write <example>": the unit parser's own problem
/// without its hint (which would repeat the fix), or "expected a positive value".
double positive_quantity(const std::string& option, const std::string& text, core::Dimension dimension,
                         const std::string& example) {
  double value = 0.0;
  try {
    value = core::parse_quantity(text, dimension);
  } catch (const std::exception& e) {
    const std::string problem = e.what();
    throw std::invalid_argument(option + " '" + text + "': " + problem.substr(0, problem.find("; ")) + "; write " +
                                example);
  }
  if (!(value > 0.0)) {
    throw std::invalid_argument(option + " '" + text + "': expected a positive value; write " + example);
  }
  return value;
}

}  // namespace

int plan_main(const std::vector<std::string>& args) {
  Args a = parse_args(args);
  if (!a.format_given) a.format = output_format(std::nullopt, a.output, "table");
  if (a.help) {
    std::cout << kPlanUsage << "\nExample: gpuplan plan scenarios/capacity-plan-llm-finetune.yaml --deadline 48h\n";
    return 0;
  }
  if (a.scenario.empty()) throw std::invalid_argument("gpuplan plan needs a SCENARIO file");
  if (a.deadline.empty()) throw std::invalid_argument("gpuplan plan needs --deadline, e.g. --deadline 72h");
  if (a.format != "table" && a.format != "markdown" && a.format != "csv" && a.format != "json" && a.format != "html") {
    throw std::invalid_argument("unknown --format '" + a.format + "'; expected table, markdown, csv, json or html");
  }
  PlanOptions options;
  options.deadline_s = positive_quantity("--deadline", a.deadline, core::Dimension::kSeconds, "a duration such as 72h or \"3 d\"");
  if (!a.budget.empty()) {
    options.budget_usd = positive_quantity(
        "--budget", a.budget, core::Dimension::kUsd,
        "dollars such as '$5000' (in single quotes: a shell expands \"$5\" inside double quotes) or \"5000 USD\"");
  }
  options.providers = split_commas(a.providers);
  options.gpus = split_commas(a.gpus);
  // Given but naming nothing ("", ","): refused, not read as "every provider".
  if (a.providers_given && options.providers.empty()) {
    throw std::invalid_argument("--providers '" + a.providers +
                                "' names no provider; write them comma-separated (--providers aws,gcp), or leave the "
                                "option out to plan on every provider");
  }
  if (a.gpus_given && options.gpus.empty()) {
    throw std::invalid_argument("--gpus '" + a.gpus +
                                "' names no GPU; write them comma-separated (--gpus h100-sxm,a100-80gb), or leave the "
                                "option out to plan on every GPU");
  }
  options.threads = a.threads;
  options.exhaustive = a.exhaustive;

  int rank = 0;
  int ranks = 1;
#ifdef GPUPLAN_HAVE_MPI
  const bool under_mpi = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr;
  if (under_mpi) {
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  }
#endif
  ProgressBar bar("plan");
  if (rank == 0 && bar.enabled()) {
    options.progress = [&bar](std::size_t done, std::size_t total) { bar.update(done, total); };
  }
#ifdef GPUPLAN_HAVE_MPI
  if (under_mpi) {
    options.rank = rank;
    options.ranks = ranks;
    options.all_gather = [ranks](const std::string& mine) {
      int length = static_cast<int>(mine.size());
      std::vector<int> lengths(static_cast<std::size_t>(ranks));
      MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
      std::vector<int> displs(static_cast<std::size_t>(ranks), 0);
      int total = 0;
      for (int r = 0; r < ranks; ++r) {
        displs[static_cast<std::size_t>(r)] = total;
        total += lengths[static_cast<std::size_t>(r)];
      }
      std::string all(static_cast<std::size_t>(total), '\0');
      MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR,
                     MPI_COMM_WORLD);
      return all;
    };
  }
#endif
  const AppContext context = load_context(a.catalogs, a.extra_catalogs);
  // --gpus takes the names and aliases hardware.gpu takes, resolved the same way (an
  // alias of several GPUs is taken as the first, with a note naming the others).
  for (std::string& g : options.gpus) {
    const models::GpuSpec* gpu = context.catalogs.gpus.find(g);
    if (gpu == nullptr) continue;  // the planner names it unknown, with a did-you-mean
    const std::vector<std::string> covered = context.catalogs.gpus.also_covered(g, *gpu);
    if (!covered.empty() && rank == 0) {
      std::fprintf(stderr, "note: --gpus: %s is taken as %s; it also names %s (write the catalog name to choose one)\n",
                   g.c_str(), gpu->name.c_str(), join_names(covered).c_str());
    }
    g = gpu->name;
  }
  const config::Scenario scenario = config::load_scenario(a.scenario, context.catalogs, context.families);
  const Planner planner(scenario, context.catalogs, context.families, options);
  PlanSearch search = planner.evaluate();
#ifdef GPUPLAN_HAVE_MPI
  if (under_mpi) {
    MPI_Finalize();
    if (rank != 0) return 0;
  }
#endif
  const PlanResult result = planner.finish(std::move(search));
  const std::string text = render_plan(result, a.format);
  // CSV and JSON hold the points, not the summary: where no plan qualifies, stderr says so
  // (a header-only CSV read as an empty answer).
  const bool any_plan = std::any_of(result.points.begin(), result.points.end(),
                                    [](const PlanPoint& p) { return p.meets_deadline && p.within_budget; });
  if (!any_plan && (a.format == "csv" || a.format == "json")) {
    const std::string summary = plan_summary(result);
    std::fprintf(stderr, "note: %s\n", summary.substr(0, summary.find('\n')).c_str());
  }
  if (!a.output.empty() && !is_stdout(a.output)) {
    write_file_atomically(a.output, text, {a.scenario});
  } else {
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return 0;
}

}  // namespace gpuplan::cli

#include "cli/advisor.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "cli/parallel_for.h"
#include "cli/scenario_runner.h"
#include "config/variant_overrides.h"
#include "models/run/job_time_range_error.h"
#include "models/run/remedies.h"

namespace gpuplan::cli {

namespace {

models::RemedyOptions remedy_options(const AppContext& context) {
  models::RemedyOptions options;
  for (const std::string& name : context.catalogs.storage.names()) {
    options.storage_classes.push_back(*context.catalogs.storage.find(name));
  }
  return options;
}

/// "path=value;..." of `remedy`'s overrides, sorted: the same set of changes in any order.
std::string change_set(const models::Remedy& remedy) {
  std::vector<std::string> parts;
  for (const models::ScenarioOverride& o : remedy.overrides) parts.push_back(o.path + "=" + o.value);
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string& p : parts) out += p + ";";
  return out;
}

struct Task {
  std::size_t row;
  models::Remedy remedy;
  models::JobSpec job;
  std::string key;  ///< config::override_key of the row's variant with the remedy
};

/// Simulates each distinct job of `tasks` once (all cores, results independent of the thread
/// count), remembering results in `done` by override key across calls, and appends each
/// task's outcome to its row's list.
void simulate(std::vector<Task>& tasks, const ScenarioRun& run, const config::Scenario& scenario, const models::ModelParams& quiet, unsigned threads,
              std::map<std::string, models::VariantResult>& done,
              std::vector<std::vector<models::RemedyOutcome>>& outcomes, std::vector<std::vector<models::JobSpec>>& jobs) {
  std::vector<const Task*> fresh;  // the first task of each key not simulated yet
  std::set<std::string> seen;
  for (const Task& t : tasks) {
    if (done.count(t.key) == 0 && seen.insert(t.key).second) fresh.push_back(&t);
  }
  std::vector<models::VariantResult> results(fresh.size());
  std::vector<char> past_range(fresh.size(), 0);
  std::vector<std::string> range_errors(fresh.size());
  parallel_for(fresh.size(), threads, {}, 0, 0, [&](std::size_t k) {
    try {
      results[k] = models::run_variant(fresh[k]->job, run.result.variants[fresh[k]->row].strategy, quiet).result;
    } catch (const models::JobTimeRangeError& e) {
      // A remedy that makes a row that did not fit run, past simulated time's range: the
      // row's own budget is absurd (its time was never computed), and says so at its key.
      past_range[k] = 1;
      range_errors[k] = e.what();
    }
  });
  for (std::size_t k = 0; k < fresh.size(); ++k) {
    if (past_range[k] != 0) {
      throw_located_time_range_error(scenario.variants[fresh[k]->row], std::runtime_error(range_errors[k]));
    }
  }
  for (std::size_t k = 0; k < fresh.size(); ++k) done.emplace(fresh[k]->key, std::move(results[k]));
  for (Task& t : tasks) {
    models::VariantResult result = done.at(t.key);
    result.strategy = run.result.variants[t.row].strategy;  // as if run for this row
    outcomes[t.row].push_back({std::move(t.remedy), std::move(result)});
    jobs[t.row].push_back(std::move(t.job));
  }
  tasks.clear();
}

}  // namespace

std::vector<models::Remedy> valid_remedies(const ScenarioRun& run, std::size_t index, const config::Scenario& scenario,
                                           const AppContext& context, std::vector<models::JobSpec>& jobs) {
  const config::Variant& variant = scenario.variants[index];
  std::vector<models::Remedy> valid;
  for (models::Remedy& remedy :
       models::candidate_remedies(variant.job, run.result.variants[index], remedy_options(context))) {
    config::OverriddenJob changed =
        config::with_overrides(scenario, variant, remedy.overrides, context.catalogs, context.families);
    if (!changed.job) continue;
    jobs.push_back(std::move(*changed.job));
    valid.push_back(std::move(remedy));
  }
  return valid;
}

void advise(ScenarioRun& run, const config::Scenario& scenario, const AppContext& context,
            const models::ModelParams& params, unsigned threads) {
  const std::size_t rows = run.result.variants.size();
  std::vector<std::vector<models::RemedyOutcome>> outcomes(rows);
  std::vector<std::vector<models::JobSpec>> jobs(rows);  // outcome k of row i ran jobs[i][k]
  // By override key, each job simulated once. The rows are in already: a remedy that makes a
  // row into another row (files_on_hdd + layout: shards = shards_on_hdd) reads that row.
  std::map<std::string, models::VariantResult> done;
  for (std::size_t i = 0; i < rows; ++i) {
    done.emplace(config::override_key(scenario, scenario.variants[i], {}), run.result.variants[i]);
  }
  std::vector<Task> tasks;
  for (std::size_t i = 0; i < rows; ++i) {
    std::vector<models::JobSpec> row_jobs;
    std::vector<models::Remedy> remedies = valid_remedies(run, i, scenario, context, row_jobs);
    for (std::size_t k = 0; k < remedies.size(); ++k) {
      std::string key = config::override_key(scenario, scenario.variants[i], remedies[k].overrides);
      tasks.push_back({i, std::move(remedies[k]), std::move(row_jobs[k]), std::move(key)});
    }
  }
  models::ModelParams quiet = params;
  quiet.step.trace_steps = 0;
  quiet.scaling_reference = false;
  if (threads == 0) threads = std::max(1U, std::thread::hardware_concurrency());
  simulate(tasks, run, scenario, quiet, threads, done, outcomes, jobs);
  // Rows that no single remedy helps enough: each of the best starts (models::pair_starts)
  // with the remedies of its own result on top, validated and simulated like the others.
  const models::RemedyOptions options = remedy_options(context);
  for (std::size_t i = 0; i < rows; ++i) {
    std::set<std::string> tried;
    for (const models::RemedyOutcome& o : outcomes[i]) tried.insert(change_set(o.remedy));
    for (const std::size_t s : models::pair_starts(run.result.variants[i], outcomes[i])) {
      const models::RemedyOutcome& start = outcomes[i][s];
      for (const models::Remedy& next : models::candidate_remedies(jobs[i][s], start.result, options)) {
        std::optional<models::Remedy> pair = models::combined_remedy(start.remedy, next);
        if (!pair || !tried.insert(change_set(*pair)).second) continue;
        config::OverriddenJob changed = config::with_overrides(scenario, scenario.variants[i], pair->overrides,
                                                               context.catalogs, context.families);
        if (!changed.job) continue;
        std::string key = config::override_key(scenario, scenario.variants[i], pair->overrides);
        tasks.push_back({i, std::move(*pair), std::move(*changed.job), std::move(key)});
      }
    }
  }
  simulate(tasks, run, scenario, quiet, threads, done, outcomes, jobs);
  for (std::size_t i = 0; i < rows; ++i) models::apply_advice(run.result.variants[i], outcomes[i]);
}

ScenarioRun run_and_advise(const config::Scenario& scenario, const AppContext& context, const models::ModelParams& params,
                           const std::function<void(std::size_t, std::size_t)>& progress) {
  ScenarioRun run = run_scenario(scenario, params, progress);
  advise(run, scenario, context, params);
  return run;
}

}  // namespace gpuplan::cli

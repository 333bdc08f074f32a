#pragma once
/// \file plan.h
/// `gpuplan plan SCENARIO --deadline 72h [--budget "$5000"] [--providers aws,gcp]`: capacity
/// planning. For every variant of the scenario (strategies x sweep points), every instance
/// type of the catalogs (of the chosen providers) whose GPU the GPU catalog knows, node
/// counts kPlanNodeCounts, and every market (on-demand per region; spot per zone with a spot price),
/// it runs the job level (Monte Carlo on spot) and reports the cheapest plans that finish
/// by the deadline at p90 and the Pareto front of p90 time against p90 dollars.
///
/// Every GPU of the instance trains: the step level simulates one rank of a DDP job over the
/// instance's interconnect and (with several nodes) its network, from the catalog row by
/// config::instance_hardware, the rule of `gpuplan run`; identical ranks are simulated once.
/// Rows that give no network are planned on one node only, rows that cannot be hardware
/// (config::instance_facts problems) are skipped; the notes name both.
///
/// Points are evaluated on `threads` threads (each point writes its own slot, so the output
/// is identical for any thread count), or split across MPI ranks (cli/plan_mpi.h).

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/catalogs.h"
#include "config/scenario.h"

namespace gpuplan::cli {

/// Monte Carlo trials of a spot plan when the scenario asks for at most one: 200, as a spot
/// `gpuplan run` without simulation.trials (config/scenario_validator.cpp).
inline constexpr int kPlanSpotTrials = 200;

/// Node counts the planner tries for every instance type (a row without a Network column:
/// one only). Powers of two up to 8 nodes (64 GPUs of 8-GPU instances).
inline const std::vector<int> kPlanNodeCounts = {1, 2, 4, 8};

struct PlanOptions {
  double deadline_s = 0.0;               ///< > 0
  std::optional<double> budget_usd;      ///< p90 dollars at most
  std::vector<std::string> providers;    ///< empty = all
  unsigned threads = 0;                  ///< 0 = std::thread::hardware_concurrency()
  /// Node counts to try (each >= 1); the bench narrows them to compare with older builds.
  std::vector<int> node_counts = kPlanNodeCounts;
  /// Called on the calling thread while points are evaluated (done, total); may be empty.
  std::function<void(std::size_t, std::size_t)> progress;
};

/// One evaluated plan.
struct PlanPoint {
  std::string strategy;        ///< variant row name
  std::string instance;        ///< provider/type
  std::string gpu;
  std::string region;
  std::string zone;            ///< spot only (the zone's price); empty on-demand
  std::string market;          ///< on_demand | spot
  int nodes = 1;
  int gpus = 1;
  bool fits = true;
  double time_p50_s = 0.0;
  double time_p90_s = 0.0;
  double cost_p50_usd = 0.0;
  double cost_p90_usd = 0.0;
  double expected_preemptions = 0.0;
  double finished_share = 1.0;
  double checkpoint_interval_s = 0.0;
  bool meets_deadline = false; ///< time_p90_s <= deadline (and fits)
  bool within_budget = true;   ///< cost_p90_usd <= budget (when given)
  bool pareto = false;         ///< on the front of (time_p90, cost_p90) among all points that fit
};

/// One unit of work: a point to evaluate (its step-level input is shared by many points).
struct PlanTask {
  std::size_t variant = 0;
  std::size_t step_key = 0;    ///< index of the (variant, instance hardware, nodes) simulation
  const models::InstanceSpec* row = nullptr;
  models::Market market = models::Market::kOnDemand;
  int nodes = 1;
};

struct PlanResult {
  std::string scenario_name;
  double deadline_s = 0.0;
  std::optional<double> budget_usd;
  std::vector<PlanPoint> points;   ///< sorted: p90 dollars, p90 time, then names
  std::vector<std::string> notes;
};

/// The planner's search space and its evaluation, split so that MPI ranks can evaluate
/// disjoint subsets and gather.
class Planner {
 public:
  /// Enumerates the tasks of `scenario` over `catalogs` (throws std::invalid_argument when
  /// no instance matches the providers).
  Planner(const config::Scenario& scenario, const config::Catalogs& catalogs, const PlanOptions& options);

  std::size_t size() const { return tasks_.size(); }

  /// Evaluates the tasks whose index i satisfies i % stride == offset, on options.threads
  /// threads; returns them in index order. Deterministic: a point depends only on its task.
  std::vector<PlanPoint> evaluate(std::size_t offset = 0, std::size_t stride = 1) const;

  /// Sorts `points` (all tasks, any order of evaluation), flags deadline, budget and Pareto
  /// front, and adds the notes.
  PlanResult finish(std::vector<PlanPoint> points) const;

 private:
  struct StepResult {
    bool fits = true;
    double time_s = 0.0;  ///< time to train on all GPUs of the instance x nodes, no checkpoints
  };
  StepResult step_result(std::size_t key) const;
  PlanPoint evaluate_one(const PlanTask& task, const StepResult& step) const;

  const config::Scenario& scenario_;
  const config::Catalogs& catalogs_;
  PlanOptions options_;
  std::vector<PlanTask> tasks_;
  struct StepKey {
    std::size_t variant = 0;
    const models::InstanceSpec* row = nullptr;  ///< representative row of the rows with this hardware
    int nodes = 1;
  };
  std::vector<StepKey> step_keys_;
  int no_network_types_ = 0;  ///< instance types planned on one node only (no network in the catalog)
  std::vector<std::string> skipped_rows_;   ///< rows that cannot be hardware, each with why (notes)
  std::vector<std::string> one_node_rows_;  ///< rows without a network of types whose other rows have one
};

/// `base` on `nodes` nodes of instance `row`, every GPU of the row training with DDP: the
/// hardware by config::instance_hardware (the rule `gpuplan run` uses for cloud.instance).
/// Throws config::InstanceRowError, naming the row, for a row that cannot be used.
models::JobSpec plan_job(const models::JobSpec& base, const models::InstanceSpec& row, int nodes,
                         const config::Catalogs& catalogs);

/// Renders a plan: table (cheapest 10 meeting the deadline, then the Pareto front), markdown,
/// csv (every point), json or html (cli/plan_html.h). Throws std::invalid_argument for an unknown format.
std::string render_plan(const PlanResult& plan, const std::string& format);

/// Serializes points for MPI transfer and back (exact: doubles as hex floats).
std::string serialize_points(const std::vector<PlanPoint>& points);
std::vector<PlanPoint> deserialize_points(const std::string& text);

}  // namespace gpuplan::cli

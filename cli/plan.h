#pragma once
/// \file plan.h
/// `gpuplan plan SCENARIO --deadline 72h [--budget '$5000'] [--providers aws,gcp] [--gpus ...]`: capacity
/// planning that searches parallel layouts and instances together (issue 12 item 6). For
/// every variant of the scenario (strategies x sweep points), every instance type of the
/// catalogs (of the chosen providers) whose GPU the GPU catalog knows, node counts 1, 2, 4,
/// ... (kPlanMaxNodes below says when they stop) and every layout of cli/layout_search.h (written into the
/// variant as config overrides and validated, config::VariantValidator: the scenario parsed
/// once per batch of layouts, not once per layout):
///   1. memory: the per-GPU memory model (models/memory) without the step simulation; a
///      layout that does not fit is never simulated;
///   2. lower bound (plan_lower_bound): compute at the GPUs' dense peak and the gradient
///      exchange over the nodes' network; a candidate is pruned when the bound misses the
///      deadline or is dominated in (time, dollars) by a plan already evaluated;
///   3. the step simulation, once per distinct step problem (instance hardware, nodes,
///      layout: the step key), then the job level on-demand at the type's cheapest region
///      and on spot at its cheapest zone (Young/Daly checkpoints; Monte Carlo) for the
///      fastest layout of each type and node count (every layout there meets the same
///      preemptions, so spot time and dollars grow with the step time), where its bound is
///      not dominated and the nodes are preempted less often than once per restart.
/// Other regions and zones of the same hardware have the same time at a higher price (the
/// preemption rate is the type's), so they are never on the front.
///
/// Node counts are tried in rounds (all types at 1 node, then at 2, ...): pruning reads
/// only the plans of earlier rounds and each round simulates its step problems on
/// `threads` threads into slots by index, so the output is identical for any thread count
/// and any split across MPI ranks (PlanOptions::all_gather).

#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/layout_search.h"
#include "config/catalogs.h"
#include "config/scenario.h"
#include "core/registry.h"
#include "models/workload/workload_family.h"

namespace gpuplan::cli {

/// Monte Carlo trials of a spot plan when the scenario asks for at most one: 200, as a spot
/// `gpuplan run` without simulation.trials (config/scenario_validator.cpp).
inline constexpr int kPlanSpotTrials = 200;

/// The most nodes the planner tries of one instance type (1,024 nodes: 8,192 GPUs of 8-GPU
/// instances); a bound on effort, reached only when nothing meets the deadline sooner.
/// How node counts grow for one instance type: doubling from 1 while the type has a row with
/// a network (up to kPlanMaxNodes). Before a plan of the type meets the deadline at p90, it
/// stops after the first count at which
///   - every fitting layout's gradient exchange alone misses the deadline (more nodes do not
///     shorten it), or its cheapest lower-bound dollars are above the cheapest plan found
///     that meets the deadline, or
///   - no layout is valid (the data-parallel ranks exceed the global batch).
/// From the count that meets it on, more nodes only cost more per work done but may be on the
/// time/dollar front's faster end: it doubles on, at most kPlanDoublingsPastDeadline times,
/// while twice the nodes could bring a plan of the type onto the front of the plans found so
/// far (at best they halve its time at the same dollars: no plan found is as fast as half its
/// time and cheaper) and doubling made the type's fastest plan kPlanGrowthSpeedup times
/// faster than at the count before (or nothing ran there).
inline constexpr int kPlanMaxNodes = 1024;

/// The most doublings of an instance type's nodes past the first count that meets the
/// deadline: 2, up to four times those nodes. A bound on effort (the 70 B plan's search took
/// 1.6x the time to double on to 1,024 nodes, for plans at 5.8x the dollars of the cheapest).
inline constexpr int kPlanDoublingsPastDeadline = 2;

/// The speed-up per doubling of nodes for which the planner keeps doubling an instance type
/// that already meets the deadline: 1.5x, a scaling efficiency of 75 %. A bound on effort
/// (not a model parameter): past it twice the nodes buy less than 1.5x the speed for at least
/// 1.33x the dollars, a point few budgets pick.
inline constexpr double kPlanGrowthSpeedup = 1.5;

/// Upper bound of effort in the step simulations the planner runs (not a model parameter):
/// warm-up and minimum measured steps; the window still grows until the step time is
/// stable (models::StepSimOptions::relative_precision). The planner also stops at those
/// steps where the loader cannot have shaped them (models::StepSimOptions::stop_when_periodic).
inline constexpr int kPlanWarmupSteps = 1;
inline constexpr int kPlanMinSteps = 2;

struct PlanOptions {
  double deadline_s = 0.0;               ///< > 0
  std::optional<double> budget_usd;      ///< p90 dollars at most
  std::vector<std::string> providers;    ///< empty = all
  std::vector<std::string> gpus;         ///< GPU catalog names to keep; empty = all
  unsigned threads = 0;                  ///< 0 = std::thread::hardware_concurrency()
  /// Simulate every candidate that fits in GPU memory (`--exhaustive`): no candidate is pruned
  /// by the lower bound (the deadline or the front dominating it), so every fitting layout of
  /// the instance types and node counts searched gets its on-demand row. Where the default
  /// search finds a plan, the fastest and the cheapest meeting the deadline are the same (the
  /// bound never exceeds the simulated time); the search simulates more.
  bool exhaustive = false;
  /// Called on the calling thread while a round is evaluated (done, total of the round); may be empty.
  std::function<void(std::size_t, std::size_t)> progress;
  /// MPI: this process is rank `rank` of `ranks`; each simulates the step problems i with
  /// i % ranks == rank, and all_gather returns every rank's text concatenated in rank order.
  int rank = 0;
  int ranks = 1;
  std::function<std::string(const std::string&)> all_gather;
};

/// One evaluated plan.
struct PlanPoint {
  std::string strategy;        ///< variant row name (the CSV/JSON `variant`)
  std::string instance;        ///< provider/type
  std::string gpu;
  std::string region;
  std::string zone;            ///< spot only (the zone's price); empty on-demand
  std::string market;          ///< on_demand | spot
  int nodes = 1;
  int gpus = 1;
  std::string data_parallel;   ///< the data-parallel strategy: none | ddp | fsdp/<sharding> | zero-<stage> (the CSV/JSON `strategy`)
  int tensor_parallel = 1;
  bool sequence_parallel = false;  ///< Megatron sequence parallelism (the search's rule: Layout::sequence_parallel)
  bool distributed_optimizer = false;  ///< Megatron's distributed optimizer (Layout::distributed_optimizer)
  int pipeline_parallel = 1;
  /// The pipeline schedule when pipeline_parallel > 1 (models/step/pipeline_schedule.h names):
  /// the planner runs 1F1B or interleaved 1F1B (cli/layout_search.h).
  std::string pipeline_schedule = "1f1b";
  int virtual_stages = 1;  ///< model chunks per stage (interleaved_1f1b: 2 or more)
  int context_parallel = 1;  ///< GPUs each sequence is split over (ring attention; Layout::context_parallel)
  int expert_parallel = 1;  ///< ranks the routed experts are split over (within the data-parallel ranks)
  std::string offload = "none";  ///< CPU offload: none | optimizer | optimizer+parameters (Layout::offload_label)
  int micro_batch = 1;         ///< samples per GPU per micro-step
  int gradient_accumulation = 1;
  std::string recompute;       ///< false | selective | full
  bool fits = true;
  double time_p50_s = 0.0;
  double time_p90_s = 0.0;
  double cost_p50_usd = 0.0;
  double cost_p90_usd = 0.0;
  double expected_preemptions = 0.0;
  /// On demand: mean hardware failures over the run (models/job/hardware_failures.h); on spot
  /// they are among the preemptions (0 here).
  double expected_failures = 0.0;
  double finished_share = 1.0;
  double checkpoint_interval_s = 0.0;
  double bound_time_s = 0.0;   ///< plan_lower_bound's time: never above time_p50_s
  double peak_memory_bytes = 0.0;      ///< the busiest GPU's peak memory (gpuplan run's peak_memory_bytes)
  double memory_capacity_bytes = 0.0;  ///< one GPU's memory
  bool meets_deadline = false; ///< time_p90_s <= deadline (and fits)
  bool within_budget = true;   ///< cost_p90_usd <= budget (when given)
  bool pareto = false;         ///< on the front of (time_p90, cost_p90) among all points that fit
  /// Spot: not evaluated, at most models::kSpotOutOfReachShare of its trials would finish
  /// (models::spot_finish_share_bound); dropped from the search's points and counted.
  bool out_of_reach = false;

  /// Data-parallel replicas: the GPUs over tensor x pipeline x context parallel (the CSV/JSON
  /// `data_parallel`; models::ParallelismSpec::data_parallel_size).
  int data_parallel_degree() const { return gpus / (tensor_parallel * pipeline_parallel * context_parallel); }
};

/// What the search did, for the notes and the bench.
struct PlanCounts {
  std::size_t considered = 0;       ///< (variant, layout, instance hardware, nodes) candidates
  std::size_t invalid = 0;          ///< refused by the scenario's validation
  std::size_t duplicate = 0;        ///< the same job as an earlier variant's candidate
  std::size_t pruned_memory = 0;    ///< do not fit in GPU memory (never simulated)
  std::size_t pruned_bound = 0;     ///< lower bound misses the deadline or is dominated
  std::size_t simulated = 0;        ///< distinct step problems simulated
  std::size_t step_reused = 0;      ///< candidates whose step problem was simulated already
  std::size_t spot_pruned = 0;      ///< spot evaluations skipped: not the fastest layout of its instance and nodes, or dominated
  std::size_t spot_unstable = 0;    ///< spot plans preempted more often than once per restart (not evaluated)
  std::size_t spot_out_of_reach = 0;  ///< spot plans whose trials could not reach a p50 (PlanPoint::out_of_reach)
  std::size_t offload_tried = 0;    ///< candidates with CPU offload (of considered; tried where nothing fits without)
  /// Parallel-size and micro-batch choices not tried: their step needs more than
  /// kPlanMaxAccumulation micro-batches (enumerate_layouts), counted per instance type and nodes.
  std::size_t over_accumulation = 0;
  int max_nodes = 0;                ///< the most nodes tried of any type
  /// The smallest lower bound (plan_lower_bound) of a candidate that fits in memory, seconds;
  /// infinity when none does. A deadline under it cannot be met by any layout tried.
  double best_bound_s = std::numeric_limits<double>::infinity();
};

struct PlanResult {
  std::string scenario_name;
  double deadline_s = 0.0;
  std::optional<double> budget_usd;
  std::vector<PlanPoint> points;   ///< sorted: p90 dollars, p90 time, then names
  PlanCounts counts;
  std::vector<std::string> notes;
  /// Changes to the scenario, as "path: value", that keep less in GPU memory and that the
  /// search does not try, for the advice where nothing fits: the scenario's optimizer with
  /// less state (models::smaller_optimizer_state), optimizer offload to the host where no
  /// variant offloads it. Each applies to at least one variant.
  std::vector<std::string> memory_suggestions;
  /// The global batch every plan keeps (the first variant's: training.batch_size x
  /// gradient_accumulation x its data-parallel GPUs), and whether its samples are sequences.
  long long global_batch_samples = 0;
  bool samples_are_sequences = false;
};

/// The points of a search and its counts.
struct PlanSearch {
  std::vector<PlanPoint> points;
  PlanCounts counts;
  /// Each distinct first message of the validations that refused candidates, with the
  /// number of candidates it refused (the counts add up to PlanCounts::invalid, less the
  /// refusals that came without a message).
  std::map<std::string, std::size_t> refusals;
};

/// Lower bound on the time to train `job` (checkpoints and preemptions only add to it),
/// seconds: its optimizer steps x max(compute, exchange), where compute is the model's
/// training FLOP of a step as its kernels execute them (a causal fused attention op's
/// fused_attention_tile_share of its square) over all GPUs at the dense matmul peak of the precision
/// (models::math_peak_flop_per_s; every kernel runs at most at that peak) and exchange, with
/// several nodes, is what any all-reduce (or reduce-scatter + all-gather) of the trainable
/// parameters' 16-bit gradients moves through each node's network, 2 (R-1)/R x 2 bytes x
/// the parameters a node holds (Patarasuk and Yuan 2009, the bandwidth-optimal all-reduce),
/// over the node's NICs per direction. A model-parallel group of M = TP x PP GPUs that spans
/// nodes (M > G GPUs per node) leaves a node G / M of the parameters and R = N G / M
/// data-parallel replicas to reduce over (none when R = 1); otherwise a node holds whole
/// replicas, reduced inside it first, and R = N.
struct PlanBound {
  double compute_s = 0.0;   ///< steps x compute at peak
  double exchange_s = 0.0;  ///< steps x gradient exchange over the network; 0 on one node
  double time_s() const { return compute_s > exchange_s ? compute_s : exchange_s; }
};
PlanBound plan_lower_bound(const models::JobSpec& job);

/// Total order of points with equal time and dollars: instance, region, zone, market, nodes,
/// variant and layout.
std::string plan_point_key(const PlanPoint& p);

/// Two plan times that agree within this relative tolerance are the same time: the job
/// level of the same layout on two markets can differ in the last bits of a double
/// (1013.0548128679949 s on-demand and 1013.054812868 s spot on p5en.48xlarge), and such
/// noise must not put the dearer plan on the Pareto front or name it the fastest. Every
/// comparison of plan times (mark_pareto, fastest_plan, the search's pruning) goes through
/// same_plan_time and faster_plan_time, which read only this constant.
inline constexpr double kPlanTimeRelativeTolerance = 1e-9;

/// True when `a_s` and `b_s` differ by at most kPlanTimeRelativeTolerance of the larger magnitude.
bool same_plan_time(double a_s, double b_s);
/// True when `a_s` is below `b_s` and not the same plan time (same_plan_time).
bool faster_plan_time(double a_s, double b_s);

/// Flags the points of `points` on the front of (time_p90_s, cost_p90_usd) among those that
/// fit: a point is on it when no other fitting point is at most as slow and as dear and
/// better in one, times that are the same plan time (same_plan_time) counting as equal: of
/// two plans as fast, the cheaper dominates (equal points: the first of `points` order only).
void mark_pareto(std::vector<PlanPoint>& points);

/// The fastest of the points that fit, or nullptr when none fits: among the points whose
/// time_p90_s is the same plan time as the least (same_plan_time), the cheapest at p90
/// (then the first of `points` order), so that noise in the last bits of a time never
/// prefers a dearer plan.
const PlanPoint* fastest_plan(const std::vector<PlanPoint>& points);

/// Rows of the "cheapest plans that meet the deadline" tables (table, markdown, HTML).
inline constexpr std::size_t kPlanTableRows = 10;

/// The rows of the "cheapest plans that meet the deadline" tables: the points that meet the
/// deadline and the budget, in `points` order (cheapest first), one per instance type, node
/// count and market (the first, so the cheapest layout of each: layouts that differ by a
/// minute at the same price would fill the table with one offer), at most `limit`. Pointers
/// into `points`.
std::vector<const PlanPoint*> cheapest_meeting_plans(const std::vector<PlanPoint>& points, std::size_t limit);

/// The planner's search space and its evaluation.
class Planner {
 public:
  /// Collects the instance types of `scenario` over `catalogs` (throws std::invalid_argument
  /// when no instance matches the providers and GPUs).
  Planner(const config::Scenario& scenario, const config::Catalogs& catalogs,
          const core::Registry<models::IWorkloadFamily>& families, const PlanOptions& options);

  /// Runs the search (all rounds of node counts). Deterministic: the same points and counts
  /// for any thread count and any split across ranks.
  PlanSearch evaluate() const;

  /// Sorts the points, flags deadline, budget and Pareto front, and adds the notes. Throws
  /// config::ConfigError (all_refused_error) when validation refused every candidate: there
  /// is nothing to plan, and "no plan meets the deadline" would hide why.
  PlanResult finish(PlanSearch search) const;

 private:
  struct InstanceType {
    std::string name;  ///< provider/type
    int gpus_per_node = 1;
    std::vector<std::vector<const models::InstanceSpec*>> groups;  ///< rows by hardware signature
    bool network = false;  ///< a row gives a network: several nodes possible
  };

  /// The job level of one plan: `job` (the candidate on `row`) in `market`, from the step's
  /// (fits, time to train without checkpoints) and the candidate's lower bound.
  PlanPoint evaluate_point(std::size_t variant, const Layout& layout, const models::InstanceSpec& row,
                           models::Market market, int nodes, models::JobSpec job, const std::pair<bool, double>& step,
                           double bound_s) const;

  const config::Scenario& scenario_;
  const config::Catalogs& catalogs_;
  const core::Registry<models::IWorkloadFamily>& families_;
  PlanOptions options_;
  std::vector<InstanceType> types_;
  std::vector<std::string> skipped_rows_;   ///< rows skipped or planned on one node only, each with why (notes)
  std::vector<std::string> no_network_types_;  ///< instance types (provider/type) planned on one node only: no network in the catalog
};

/// `base` on `nodes` nodes of instance `row`, every GPU of the row training with DDP: the
/// hardware by config::instance_hardware (the rule `gpuplan run` uses for cloud.instance).
/// Throws config::InstanceRowError, naming the row, for a row that cannot be used.
models::JobSpec plan_job(models::JobSpec base, const models::InstanceSpec& row, int nodes,
                         const config::Catalogs& catalogs);

/// plan_job in place: `job` put on `nodes` nodes of `row`, for a caller that reuses one job's
/// storage. Throws as plan_job.
void place_plan_job(models::JobSpec& job, const models::InstanceSpec& row, int nodes, const config::Catalogs& catalogs);

/// Renders a plan: table (the summary with the cheapest plan meeting the deadline and the
/// fastest, the cheapest 10 meeting the deadline, then the Pareto front), markdown,
/// csv (every point), json or html (cli/plan_html.h). Throws std::invalid_argument for an unknown format.
std::string render_plan(const PlanResult& plan, const std::string& format);

}  // namespace gpuplan::cli

#include "config/no_effect_notes.h"

namespace gpuplan::config {

namespace {

/// The keys of `keys` that `map` gives, joined as "a, b and c"; empty when none.
std::string given(const YAML::Node& map, const std::vector<std::string>& keys, const std::string& prefix) {
  std::vector<std::string> found;
  if (map.IsDefined() && map.IsMap()) {
    for (const std::string& k : keys) {
      if (map[k].IsDefined() && !map[k].IsNull()) found.push_back(prefix + k);
    }
  }
  std::string out;
  for (std::size_t i = 0; i < found.size(); ++i) {
    out += (i == 0 ? "" : (i + 1 == found.size() ? " and " : ", ")) + found[i];
  }
  return out;
}

/// "has" or "have" for a list `given` made.
std::string verb(const std::string& list) {
  return list.find(',') != std::string::npos || list.find(" and ") != std::string::npos ? "have" : "has";
}

}  // namespace

std::vector<std::string> no_effect_notes(const YAML::Node& root, const models::JobSpec& job) {
  std::vector<std::string> notes;
  if (job.dataset.synthetic) {
    const std::string dataset =
        given(root["workload"]["dataset"], {"sample_size", "decode_time"}, "workload.dataset.");
    if (!dataset.empty()) {
      notes.push_back("synthetic data: " + dataset + " " + verb(dataset) +
                      " no effect (no sample is read or decoded; batches are made on the GPU)");
    }
    const YAML::Node loader = root["data_loader"];
    if (loader.IsDefined() && loader.IsMap() && loader.size() > 0) {
      std::vector<std::string> keys;
      for (auto it = loader.begin(); it != loader.end(); ++it) keys.push_back(it->first.Scalar());
      const std::string list = given(loader, keys, "data_loader.");
      if (!list.empty()) notes.push_back("synthetic data: " + list + " " + verb(list) + " no effect (no loader runs)");
    }
  }
  const models::ParallelismSpec& p = job.parallelism;
  const int gpus = job.hardware.gpus_per_node * job.hardware.nodes;
  const bool buckets = p.strategy == models::ParallelStrategy::kDdp ||
                       (p.strategy == models::ParallelStrategy::kZero && p.zero_stage < 3);
  if ((gpus == 1 || !buckets) && !given(root["parallelism"], {"bucket_size"}, "").empty()) {
    notes.push_back(std::string("parallelism.bucket_size has no effect: ") +
                    (gpus == 1 ? "one GPU exchanges no gradients"
                               : "this strategy reduces gradients per unit, not in buckets (ddp and zero stages 1-2 "
                                 "use them)"));
  }
  const bool preempted = job.cloud && job.cloud->market == models::Market::kSpot;
  if (!preempted && job.trials > 1 && !given(root["simulation"], {"trials"}, "").empty()) {
    notes.push_back("simulation.trials has no effect: without preemptions (no cloud spot market) every trial is the "
                    "same");
  }
  return notes;
}

}  // namespace gpuplan::config

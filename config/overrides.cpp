#include "config/overrides.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "core/text_distance.h"

namespace gpuplan::config {
namespace {

enum class SchemaKind {
  kScenario,     ///< applies to the whole file, cannot be overridden
  kSection,      ///< a mapping of keys: overrides merge into it
  kLeaf,         ///< a value
  kMappingLeaf,  ///< a value that may also be a mapping (inline model, storage, ...)
};

struct SchemaEntry {
  std::string_view path;
  SchemaKind kind;
};

// The keys of scenario-format.md. The validator (scenario_validator.cpp and the section
// readers) reads exactly these; scenario_loader_test checks that every leaf is read.
constexpr std::array kSchema = {
    SchemaEntry{"format", SchemaKind::kScenario},
    SchemaEntry{"name", SchemaKind::kScenario},
    SchemaEntry{"seed", SchemaKind::kScenario},
    SchemaEntry{"strategies", SchemaKind::kScenario},
    SchemaEntry{"sweep", SchemaKind::kScenario},
    SchemaEntry{"expected", SchemaKind::kScenario},
    SchemaEntry{"workload", SchemaKind::kSection},
    SchemaEntry{"workload.model", SchemaKind::kMappingLeaf},
    SchemaEntry{"workload.dataset", SchemaKind::kSection},
    SchemaEntry{"workload.dataset.samples", SchemaKind::kLeaf},
    SchemaEntry{"workload.dataset.sample_size", SchemaKind::kLeaf},
    SchemaEntry{"workload.dataset.layout", SchemaKind::kLeaf},
    SchemaEntry{"workload.dataset.decode_time", SchemaKind::kLeaf},
    SchemaEntry{"workload.dataset.eval_samples", SchemaKind::kLeaf},
    SchemaEntry{"workload.dataset.eval_every_steps", SchemaKind::kLeaf},
    SchemaEntry{"workload.dataset.eval_first_rank_only", SchemaKind::kLeaf},
    SchemaEntry{"workload.dataset.synthetic", SchemaKind::kLeaf},
    SchemaEntry{"workload.sequence_length", SchemaKind::kLeaf},
    SchemaEntry{"workload.epochs", SchemaKind::kLeaf},
    SchemaEntry{"workload.tokens", SchemaKind::kLeaf},
    SchemaEntry{"training", SchemaKind::kSection},
    SchemaEntry{"training.batch_size", SchemaKind::kLeaf},
    SchemaEntry{"training.gradient_accumulation", SchemaKind::kLeaf},
    SchemaEntry{"training.precision", SchemaKind::kLeaf},
    SchemaEntry{"training.optimizer", SchemaKind::kLeaf},
    SchemaEntry{"training.optimizer_state_precision", SchemaKind::kLeaf},
    SchemaEntry{"training.optimizer_implementation", SchemaKind::kLeaf},
    SchemaEntry{"training.activation_checkpointing", SchemaKind::kMappingLeaf},
    SchemaEntry{"training.activation_checkpointing.every", SchemaKind::kLeaf},
    SchemaEntry{"training.activation_offloading", SchemaKind::kLeaf},
    SchemaEntry{"training.memory_format", SchemaKind::kLeaf},
    SchemaEntry{"training.framework_overhead", SchemaKind::kLeaf},
    SchemaEntry{"training.framework", SchemaKind::kLeaf},
    SchemaEntry{"training.attention", SchemaKind::kLeaf},
    SchemaEntry{"training.causal_mask", SchemaKind::kLeaf},
    SchemaEntry{"training.fine_tuning", SchemaKind::kSection},
    SchemaEntry{"training.fine_tuning.method", SchemaKind::kLeaf},
    SchemaEntry{"training.fine_tuning.rank", SchemaKind::kLeaf},
    SchemaEntry{"training.fine_tuning.alpha", SchemaKind::kLeaf},
    SchemaEntry{"training.fine_tuning.targets", SchemaKind::kLeaf},
    SchemaEntry{"training.fine_tuning.base_precision", SchemaKind::kLeaf},
    SchemaEntry{"training.fine_tuning.double_quantization", SchemaKind::kLeaf},
    SchemaEntry{"training.fine_tuning.dropout", SchemaKind::kLeaf},
    SchemaEntry{"data_loader", SchemaKind::kSection},
    SchemaEntry{"data_loader.num_workers", SchemaKind::kLeaf},
    SchemaEntry{"data_loader.prefetch_factor", SchemaKind::kLeaf},
    SchemaEntry{"data_loader.pin_memory", SchemaKind::kLeaf},
    SchemaEntry{"data_loader.persistent_workers", SchemaKind::kLeaf},
    SchemaEntry{"data_loader.preprocess_on", SchemaKind::kLeaf},
    SchemaEntry{"hardware", SchemaKind::kSection},
    SchemaEntry{"hardware.gpu", SchemaKind::kMappingLeaf},
    SchemaEntry{"hardware.gpu.profile", SchemaKind::kLeaf},
    SchemaEntry{"hardware.gpus_per_node", SchemaKind::kLeaf},
    SchemaEntry{"hardware.nodes", SchemaKind::kLeaf},
    SchemaEntry{"hardware.gpu_interconnect", SchemaKind::kLeaf},
    SchemaEntry{"hardware.gpus_per_pcie_switch", SchemaKind::kLeaf},
    SchemaEntry{"hardware.cpu_cores", SchemaKind::kLeaf},
    SchemaEntry{"hardware.host_memory", SchemaKind::kLeaf},
    SchemaEntry{"hardware.storage", SchemaKind::kMappingLeaf},
    SchemaEntry{"hardware.storage.read_bandwidth", SchemaKind::kLeaf},
    SchemaEntry{"hardware.storage.random_read_bandwidth", SchemaKind::kLeaf},
    SchemaEntry{"hardware.storage.write_bandwidth", SchemaKind::kLeaf},
    SchemaEntry{"hardware.storage.latency", SchemaKind::kLeaf},
    SchemaEntry{"hardware.storage.queue_depth", SchemaKind::kLeaf},
    SchemaEntry{"hardware.network", SchemaKind::kMappingLeaf},
    SchemaEntry{"hardware.network.bandwidth", SchemaKind::kLeaf},
    SchemaEntry{"hardware.network.transport", SchemaKind::kLeaf},
    SchemaEntry{"hardware.network.latency", SchemaKind::kLeaf},
    SchemaEntry{"hardware.network.nics", SchemaKind::kLeaf},
    SchemaEntry{"hardware.gpu_failure_rate", SchemaKind::kLeaf},
    SchemaEntry{"parallelism", SchemaKind::kSection},
    SchemaEntry{"parallelism.strategy", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.bucket_size", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.sharding", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.zero_stage", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.fp8_all_gather", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.distributed_optimizer", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.grad_reduce_in_fp32", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.overlap_param_gather", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.tensor_parallel", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.sequence_parallel", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.async_tensor_parallel", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.pipeline_parallel", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.pipeline_schedule", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.virtual_stages", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.account_for_embedding_in_pipeline_split", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.account_for_loss_in_pipeline_split", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.context_parallel", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.expert_parallel", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.expert_load_imbalance", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.offload", SchemaKind::kSection},
    SchemaEntry{"parallelism.offload.optimizer", SchemaKind::kLeaf},
    SchemaEntry{"parallelism.offload.parameters", SchemaKind::kLeaf},
    SchemaEntry{"checkpointing", SchemaKind::kSection},
    SchemaEntry{"checkpointing.interval", SchemaKind::kLeaf},
    SchemaEntry{"checkpointing.async", SchemaKind::kLeaf},
    SchemaEntry{"checkpointing.destination", SchemaKind::kMappingLeaf},
    SchemaEntry{"checkpointing.destination.write_bandwidth", SchemaKind::kLeaf},
    SchemaEntry{"checkpointing.destination.read_bandwidth", SchemaKind::kLeaf},
    SchemaEntry{"checkpointing.destination.survives_preemption", SchemaKind::kLeaf},
    SchemaEntry{"cloud", SchemaKind::kSection},
    SchemaEntry{"cloud.instance", SchemaKind::kLeaf},
    SchemaEntry{"cloud.region", SchemaKind::kLeaf},
    SchemaEntry{"cloud.zone", SchemaKind::kLeaf},
    SchemaEntry{"cloud.market", SchemaKind::kLeaf},
    SchemaEntry{"cloud.preemption_rate", SchemaKind::kMappingLeaf},
    SchemaEntry{"cloud.preemption_rate.trace", SchemaKind::kLeaf},
    SchemaEntry{"cloud.replacement_wait", SchemaKind::kLeaf},
    SchemaEntry{"on_premises", SchemaKind::kSection},
    SchemaEntry{"on_premises.purchase_price", SchemaKind::kLeaf},
    SchemaEntry{"on_premises.amortization", SchemaKind::kLeaf},
    SchemaEntry{"on_premises.electricity", SchemaKind::kLeaf},
    SchemaEntry{"simulation", SchemaKind::kSection},
    SchemaEntry{"simulation.trials", SchemaKind::kLeaf},
};

constexpr std::string_view kModelPrefix = "workload.model.";

std::optional<SchemaKind> classify(const std::string& path) {
  for (const SchemaEntry& entry : kSchema) {
    if (entry.path == path) {
      return entry.kind;
    }
  }
  // Architecture keys of an inline model depend on its family; the merged tree's
  // validation checks them against the family's parameters.
  if (path.size() > kModelPrefix.size() && path.starts_with(kModelPrefix) &&
      path.find('.', kModelPrefix.size()) == std::string::npos) {
    return SchemaKind::kLeaf;
  }
  return std::nullopt;
}

/// True when `a` and `b` name the same value or one lies inside the other.
bool overlaps(const std::string& a, const std::string& b) {
  const auto inside = [](const std::string& inner, const std::string& outer) {
    return inner.size() > outer.size() && inner.starts_with(outer) && inner[outer.size()] == '.';
  };
  return a == b || inside(a, b) || inside(b, a);
}

std::string line_of(const YAML::Mark& mark) { return std::to_string(mark.line + 1); }

/// The fix for an override path that is no schema path: the nearest whole paths; else the
/// paths whose last key is near `path`'s (`training.zero_stge` -> parallelism.zero_stage: the
/// key misspelt and put under another section); else where the paths are listed.
std::string unknown_path_fix(const std::string& path) {
  const std::vector<std::string> paths = overridable_paths();
  std::vector<std::string> near = core::closest(path, paths);
  if (near.empty()) {
    const auto leaf_of = [](const std::string& p) { return p.substr(p.rfind('.') + 1); };
    std::vector<std::string> leaves;
    for (const std::string& p : paths) leaves.push_back(leaf_of(p));
    for (const std::string& leaf : core::closest(leaf_of(path), leaves)) {
      for (const std::string& p : paths) {
        if (leaf_of(p) == leaf && std::find(near.begin(), near.end(), p) == near.end()) near.push_back(p);
      }
    }
    if (near.size() > 3) near.resize(3);
  }
  if (!near.empty()) return core::did_you_mean(near);
  return "; a strategy or sweep sets schema key paths such as training.batch_size (every one: "
         "`gpuplan schema`, or docs/scenario-format.md)";
}

/// Flattens one override body (a strategy's, or the sweep block) into schema paths.
/// `leaf` is called for every leaf path with its key mark, value and the path of the
/// mapping written around it ("" at the top of the body).
class Flattener {
 public:
  Flattener(ErrorSink& sink, std::string source_prefix, bool sweep)
      : sink_(sink), source_prefix_(std::move(source_prefix)), sweep_(sweep) {}

  template <typename Leaf>
  void walk(const YAML::Node& body, const std::string& prefix, Leaf&& leaf) {
    for (auto it = body.begin(); it != body.end(); ++it) {
      if (!it->first.IsScalar() || it->first.Scalar().empty()) {
        sink_.add("expected a key path such as data_loader.num_workers, found " +
                      describe_node(it->first),
                  it->first.Mark(), source_prefix_);
        continue;
      }
      const std::string key = it->first.Scalar();
      const std::string path = prefix.empty() ? key : prefix + "." + key;
      const std::string source = source_prefix_ + "." + path;
      const YAML::Node value = it->second;
      const std::optional<SchemaKind> kind = classify(path);
      if (!kind) {
        sink_.add("unknown key '" + path + "'", it->first.Mark(), source, unknown_path_fix(path));
        continue;
      }
      switch (*kind) {
        case SchemaKind::kScenario:
          sink_.add("'" + path + "' applies to the whole scenario and cannot be " +
                        (sweep_ ? "swept" : "overridden by a strategy"),
                    it->first.Mark(), source, "; set it once at the top level of the file");
          break;
        case SchemaKind::kSection:
          if (value.IsMap()) {
            walk(value, path, leaf);
          } else if (!sweep_ && (!value.IsDefined() || value.IsNull())) {
            leaf(path, it->first.Mark(), value, prefix);  // removes the whole section
          } else {
            sink_.add(std::string(sweep_ ? "cannot sweep a whole section: " : "expected a mapping of ") +
                          path + (sweep_ ? "" : " keys") + ", found " + describe_node(value),
                      value.IsDefined() && !value.IsNull() ? value.Mark() : it->first.Mark(), source,
                      sweep_ ? "; sweep one of its keys, e.g. " + path + ".<key>: [a, b]"
                             : "; write " + path + ".<key>: <value>");
          }
          break;
        case SchemaKind::kLeaf:
        case SchemaKind::kMappingLeaf:
          leaf(path, it->first.Mark(), value, prefix);
          break;
      }
    }
  }

 private:
  ErrorSink& sink_;
  std::string source_prefix_;
  bool sweep_;
};

}  // namespace

std::vector<SchemaPath> schema_paths() {
  std::vector<SchemaPath> out;
  for (const SchemaEntry& entry : kSchema) {
    out.push_back({std::string(entry.path), entry.kind == SchemaKind::kScenario, entry.kind == SchemaKind::kSection,
                   entry.kind == SchemaKind::kMappingLeaf});
  }
  return out;
}

std::vector<std::string> overridable_paths() {
  std::vector<std::string> out;
  for (const SchemaEntry& entry : kSchema) {
    if (entry.kind == SchemaKind::kLeaf || entry.kind == SchemaKind::kMappingLeaf) {
      out.emplace_back(entry.path);
      if (entry.path == "workload.model") {
        out.push_back(std::string(kModelPrefix) + "<parameter>");
      }
    }
  }
  return out;
}

std::string value_label(const YAML::Node& value) {
  if (!value.IsDefined() || value.IsNull()) {
    return "~";
  }
  if (value.IsScalar()) {
    return value.Scalar();
  }
  YAML::Emitter out;
  out << YAML::Flow << value;
  return out.c_str();
}

std::vector<StrategyOverrides> read_strategies(const YAML::Node& node, ErrorSink& sink) {
  std::vector<StrategyOverrides> strategies;
  if (!node.IsMap()) {
    sink.add("expected a mapping of strategy names to overrides, found " + describe_node(node),
             node.Mark(), "strategies", "; write e.g. strategies: {baseline: {}, amp: {training.precision: fp16_amp}}");
    return strategies;
  }
  if (node.size() == 0) {
    sink.add("strategies lists no strategy", node.Mark(), "strategies",
             "; add one, e.g. baseline: {}, or remove strategies");
    return strategies;
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (!it->first.IsScalar() || it->first.Scalar().empty()) {
      sink.add("expected a strategy name, found " + describe_node(it->first), it->first.Mark(),
               "strategies");
      continue;
    }
    StrategyOverrides strategy;
    strategy.name = it->first.Scalar();
    strategy.mark = it->first.Mark();
    const std::string source_prefix = "strategies." + strategy.name;
    const YAML::Node body = it->second;
    if (body.IsMap()) {
      Flattener flattener(sink, source_prefix, false);
      flattener.walk(body, "", [&](const std::string& path, const YAML::Mark& key_mark, const YAML::Node& value,
                                   const std::string& written_in) {
        for (const Override& earlier : strategy.overrides) {
          if (overlaps(earlier.path, path)) {
            sink.add("strategy '" + strategy.name + "' sets " + path + " twice", key_mark,
                     source_prefix + "." + path,
                     "; the other is " + earlier.path + " on line " + line_of(earlier.key_mark) +
                         ", keep one");
            return;
          }
        }
        strategy.overrides.push_back({path, value, key_mark, source_prefix + "." + path, written_in});
      });
    } else if (body.IsDefined() && !body.IsNull()) {
      sink.add("expected a mapping of overrides, found " + describe_node(body), body.Mark(),
               source_prefix, "; write e.g. " + strategy.name + ": {data_loader.num_workers: 4}, or {} for none");
    }
    strategies.push_back(std::move(strategy));
  }
  return strategies;
}

std::vector<SweepAxis> read_sweep(const YAML::Node& node, ErrorSink& sink) {
  std::vector<SweepAxis> axes;
  if (!node.IsMap()) {
    sink.add("expected a mapping of key paths to lists of values, found " + describe_node(node),
             node.Mark(), "sweep", "; write e.g. sweep: {hardware.gpus_per_node: [1, 2, 4, 8]}");
    return axes;
  }
  Flattener flattener(sink, "sweep", true);
  flattener.walk(node, "", [&](const std::string& path, const YAML::Mark& key_mark, const YAML::Node& list,
                               const std::string& /*written_in: a sweep lists values at their path*/) {
    for (const SweepAxis& earlier : axes) {
      if (overlaps(earlier.path, path)) {
        sink.add("sweep sets " + path + " twice", key_mark, "sweep." + path,
                 "; the other is " + earlier.path + " on line " + line_of(earlier.key_mark) +
                     ", keep one");
        return;
      }
    }
    if (!list.IsSequence() || list.size() == 0) {
      const std::string found = list.IsSequence() ? "an empty list" : describe_node(list);
      sink.add("expected a non-empty list of values, found " + found,
               list.IsDefined() && !list.IsNull() ? list.Mark() : key_mark, "sweep." + path,
               "; write e.g. " + path + ": [a, b]");
      return;
    }
    SweepAxis axis;
    axis.path = path;
    axis.key_mark = key_mark;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YAML::Node value = list[i];
      const std::string label = path + "=" + value_label(value);
      // A repeated value would only give two identical rows.
      const auto repeated = std::find(axis.labels.begin(), axis.labels.end(), label);
      if (repeated != axis.labels.end()) {
        const auto first = static_cast<std::size_t>(repeated - axis.labels.begin());
        sink.add("sweep lists '" + value_label(value) + "' twice", value.Mark(),
                 "sweep." + path + "[" + std::to_string(i) + "]",
                 "; item " + std::to_string(first) + " is the same value, remove one");
        continue;
      }
      axis.values.push_back(
          {path, value, key_mark, "sweep." + path + "[" + std::to_string(i) + "]", ""});
      axis.labels.push_back(label);
    }
    axes.push_back(std::move(axis));
  });
  return axes;
}

void check_strategy_sweep_overlap(const std::vector<StrategyOverrides>& strategies,
                                  const std::vector<SweepAxis>& sweep, ErrorSink& sink) {
  for (const StrategyOverrides& strategy : strategies) {
    for (const Override& o : strategy.overrides) {
      for (const SweepAxis& axis : sweep) {
        if (overlaps(o.path, axis.path)) {
          sink.add("strategy '" + strategy.name + "' sets " + o.path + ", which the sweep also sets",
                   o.key_mark, o.source_path,
                   "; the sweep's " + axis.path + " on line " + line_of(axis.key_mark) +
                       " would replace it in every variant, remove one of them");
        }
      }
    }
  }
}

std::vector<Override> variant_overrides(const YAML::Node& root, const std::string& file, int strategy_index,
                                        const std::vector<int>& sweep_values) {
  ErrorSink ignored(file);
  std::vector<Override> all;
  if (strategy_index >= 0 && root["strategies"]) {
    const std::vector<StrategyOverrides> strategies = read_strategies(root["strategies"], ignored);
    const auto s = static_cast<std::size_t>(strategy_index);
    if (s < strategies.size()) all = strategies[s].overrides;
  }
  if (!sweep_values.empty() && root["sweep"]) {
    const std::vector<SweepAxis> axes = read_sweep(root["sweep"], ignored);
    for (std::size_t a = 0; a < axes.size() && a < sweep_values.size(); ++a) {
      const int v = sweep_values[a];
      if (v >= 0) all.push_back(axes[a].values[static_cast<std::size_t>(v)]);
    }
  }
  return all;
}

std::string canonical_override_key(const std::vector<Override>& overrides) {
  // (path, value text) in writing order; a later write of a path replaces the earlier one.
  std::vector<std::pair<std::string, std::string>> entries;
  for (const Override& o : overrides) {
    YAML::Emitter out;
    out << YAML::Flow;
    if (o.removes()) {
      out << YAML::Null;
    } else {
      out << o.value;
    }
    std::erase_if(entries, [&o](const auto& e) { return e.first == o.path; });
    entries.emplace_back(o.path, out.c_str());
  }
  bool nested = false;
  for (const auto& a : entries) {
    for (const auto& b : entries) nested = nested || b.first.starts_with(a.first + ".");
  }
  if (!nested) std::sort(entries.begin(), entries.end());
  std::string key;
  for (const auto& e : entries) key += e.first + "=" + e.second + ";";
  return key;
}

}  // namespace gpuplan::config

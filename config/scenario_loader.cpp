#include "config/scenario_loader.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "config/applied_overrides.h"
#include "config/overrides.h"
#include "config/scenario_diagnostics.h"
#include "config/scenario_expected.h"
#include "config/scenario_validator.h"
#include "config/yaml_reader.h"

namespace gpuplan::config {
namespace {

/// The errors and the job of one validated tree.
struct Outcome {
  std::vector<ScenarioDiagnostic> diagnostics;
  std::set<std::string> texts;
  std::optional<ValidatedJob> job;
  std::size_t unkept = 0;  ///< errors found beyond those the sink kept
  bool has(const std::string& text) const { return texts.count(text) != 0; }
};

/// Does `path` lie at or under `prefix` (dotted or indexed)?
bool under(const std::string& path, const std::string& prefix) {
  return path == prefix || (path.size() > prefix.size() && path.starts_with(prefix) &&
                            (path[prefix.size()] == '.' || path[prefix.size()] == '['));
}

/// Number of leading dotted components that two key paths share.
std::size_t shared_components(const std::string& a, const std::string& b) {
  std::size_t shared = 0;
  std::size_t i = 0;
  while (i < a.size() && i < b.size()) {
    const std::size_t a_end = std::min(a.find('.', i), a.size());
    const std::size_t b_end = std::min(b.find('.', i), b.size());
    if (a_end != b_end || a.compare(i, a_end - i, b, i, b_end - i) != 0) {
      return shared;
    }
    ++shared;
    i = a_end + 1;
  }
  return shared;
}

/// The override of `overrides` whose path shares the most leading components with
/// `key_path` (the first of equal ones), or `otherwise` when none shares any.
const Override* most_shared(const std::string& key_path, const std::vector<const Override*>& overrides,
                            const Override* otherwise) {
  const Override* found = otherwise;
  std::size_t best = 0;
  for (const Override* o : overrides) {
    const std::size_t shared = shared_components(key_path, o->path);
    if (shared > best) {
      best = shared;
      found = o;
    }
  }
  return found;
}

/// Points the errors of overridden values at the override (STYLE.md C9): their key path
/// becomes the override's (`strategies.<name>.<path>`), and an error at a mapping that an
/// override created (which has no position) moves to that override's key.
void relocate(std::vector<ScenarioDiagnostic>& diagnostics, const std::vector<const Override*>& overrides,
              const ErrorSink& sink) {
  for (ScenarioDiagnostic& d : diagnostics) {
    bool moved = false;
    for (const Override* o : overrides) {
      if (under(d.key_path, o->path)) {
        d.key_path = o->source_path + d.key_path.substr(o->path.size());
        if (o->removes() || d.mark.line == 0) {
          d.mark = sink.to_source_mark(o->key_mark);
        }
        moved = true;
        break;
      }
    }
    if (moved || d.mark.line != 0 || d.mark.file.empty()) {
      continue;
    }
    const Override* nearest = most_shared(d.key_path, overrides, nullptr);
    if (nearest != nullptr) {
      d.mark = sink.to_source_mark(nearest->key_mark);
      if (nearest->source_path.starts_with("strategies.")) {
        // "strategies.<name>." + the path that is missing in that strategy's tree
        const std::string prefix =
            nearest->source_path.substr(0, nearest->source_path.size() - nearest->path.size());
        d.key_path = prefix + d.key_path;
      }
    }
  }
}

/// Points an error that only a variant's `overrides` produce, but that is reported at a key
/// of the base they do not set, at the override that produces it: a cross-field check is
/// reported at the referencing key (STYLE.md C6), so a strategy raising
/// gradient_accumulation gets "global batch ... exceeds the dataset's ... samples" at
/// training.batch_size, whose line in the base is valid. The error moves to the override
/// that shares most leading key components with its key path (training.gradient_accumulation
/// for training.batch_size), else to the only override, else to `fallback` (the strategy's
/// name), at its value (its key when it removes one); its key path becomes that override's
/// (`strategies.<name>.<path>`). Errors already
/// at an override, or without a position, are left as they are.
/// When the base key lies inside a mapping that a strategy writes (`training.fine_tuning:
/// {method: lora}` over a base whose fine_tuning sets base_precision: nf4), the mapping merged
/// into the base's and the base's key stayed: the fix then says so, names where the base
/// sets that key (file:line:column) and to set it in the strategy's mapping too.
void locate_at_cause(ScenarioDiagnostic& d, const std::vector<const Override*>& overrides,
                     const std::pair<YAML::Mark, std::string>& fallback, const ErrorSink& sink) {
  if (d.mark.line == 0 || overrides.empty() || d.key_path.starts_with("strategies.") ||
      d.key_path.starts_with("sweep.")) {
    return;
  }
  const std::string base_at =
      d.mark.file + ":" + std::to_string(d.mark.line) + ":" + std::to_string(d.mark.column);
  const std::string leaf = d.key_path.substr(d.key_path.rfind('.') + 1);
  // A fix that says "remove <key>" of a key only the base sets: a strategy removes it by
  // writing it as null (config/overrides.h).
  const bool fix_removes = d.fix.find("remove " + leaf) != std::string::npos;
  bool merged = false;
  for (const Override* o : overrides) {
    const std::string& mapping = o->written_in;
    if (mapping.empty() || !o->source_path.starts_with("strategies.") || d.key_path.size() <= mapping.size() ||
        !d.key_path.starts_with(mapping) || d.key_path[mapping.size()] != '.') {
      continue;
    }
    const std::string key = d.key_path.substr(mapping.size() + 1);
    d.fix = "; " + d.key_path + " is the base's, set at " + base_at + ": a strategy's " + mapping +
            " merges into the base's mapping, keeping the keys it does not set, so set " + key +
            " in the strategy's " + mapping + " too" +
            (fix_removes ? ", or write " + key + ": null there to remove it" : std::string()) +
            (d.fix.size() > 2 ? " (" + d.fix.substr(2) + ")" : std::string());
    merged = true;
    break;
  }
  const bool from_strategy = std::any_of(overrides.begin(), overrides.end(), [](const Override* o) {
    return o->source_path.starts_with("strategies.");
  });
  if (!merged && fix_removes && from_strategy) {
    d.fix += "; the base sets " + d.key_path + " at " + base_at + ": write " + d.key_path +
             ": null in the strategy to remove it there";
  }
  const Override* cause = most_shared(d.key_path, overrides, overrides.size() == 1 ? overrides.front() : nullptr);
  if (cause != nullptr) {
    d.mark = sink.to_source_mark(cause->removes() ? cause->key_mark : cause->value.Mark());
    d.key_path = cause->source_path;
  } else {
    d.mark = sink.to_source_mark(fallback.first);
    d.key_path = fallback.second;
  }
}

/// Which overrides a validated tree has: a strategy (-1: none) and one value per sweep
/// axis (-1: the base's value).
struct Selection {
  int strategy = -1;
  std::vector<int> values;
  bool operator<(const Selection& other) const {
    return std::tie(strategy, values) < std::tie(other.strategy, other.values);
  }
};

/// Validates the base tree with the overrides of a selection written in, once per selection.
class ValidationCache {
 public:
  /// `root` is the parsed file: each validation writes its overrides into it and takes them
  /// out again (config/applied_overrides.h).
  ValidationCache(YAML::Node root, const std::string& file, const ValidationContext& context,
                  const std::vector<StrategyOverrides>& strategies, const std::vector<SweepAxis>& axes)
      : root_(std::move(root)), file_(file), context_(context), strategies_(strategies), axes_(axes) {}

  /// The most errors one validation found beyond those its sink kept.
  std::size_t most_unkept() const {
    std::size_t most = 0;
    for (const auto& [selection, outcome] : outcomes_) {
      most = std::max(most, outcome.unkept);
    }
    return most;
  }

  const Outcome& get(const Selection& selection) {
    const auto found = outcomes_.find(selection);
    if (found != outcomes_.end()) {
      return found->second;
    }
    std::vector<const Override*> overrides;
    if (selection.strategy >= 0) {
      for (const Override& o : strategies_[static_cast<std::size_t>(selection.strategy)].overrides) {
        overrides.push_back(&o);
      }
    }
    for (std::size_t a = 0; a < selection.values.size(); ++a) {
      if (selection.values[a] >= 0) {
        overrides.push_back(&axes_[a].values[static_cast<std::size_t>(selection.values[a])]);
      }
    }
    return outcomes_.emplace(selection, validate(overrides)).first->second;
  }

 private:
  Outcome validate(const std::vector<const Override*>& overrides) {
    ErrorSink sink(file_);
    Outcome outcome;
    outcome.job = validate_with_overrides(root_, overrides, context_, sink);
    outcome.diagnostics = split_diagnostics(sink.messages(), file_);
    outcome.unkept = sink.count() - sink.messages().size();
    relocate(outcome.diagnostics, overrides, sink);
    for (const ScenarioDiagnostic& d : outcome.diagnostics) {
      outcome.texts.insert(d.text());
    }
    return outcome;
  }

  YAML::Node root_;
  const std::string& file_;
  const ValidationContext& context_;
  const std::vector<StrategyOverrides>& strategies_;
  const std::vector<SweepAxis>& axes_;
  std::map<Selection, Outcome> outcomes_;
};

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += (i == 0 ? "" : separator) + parts[i];
  }
  return out;
}

/// Checks, before anything is expanded, that strategies × sweep points stay within
/// kMaxVariants; records "... make 1,000,000 variants (10 strategies × 100 × 1,000) ..." at
/// the sweep (or the strategies) when not.
bool within_variant_bound(const std::vector<StrategyOverrides>& strategies, const std::vector<SweepAxis>& axes,
                          const MapReader& reader) {
  std::size_t variants = strategies.size();
  std::string product = grouped_thousands(strategies.size()) + (strategies.size() == 1 ? " strategy" : " strategies");
  bool over = variants > kMaxVariants;
  for (const SweepAxis& axis : axes) {
    product += " x " + grouped_thousands(axis.values.size());
    if (!over && axis.values.size() > kMaxVariants / variants) {
      over = true;
    }
    if (!over) {
      variants *= axis.values.size();
    }
  }
  if (!over) {
    return true;
  }
  const std::string where = axes.empty() ? "strategies" : "sweep";
  reader.error(where, "the strategies and sweep make more than " + grouped_thousands(kMaxVariants) +
                          " variants (" + product + ")",
               "; gpuplan loads at most " + grouped_thousands(kMaxVariants) +
                   " variants from one file: sweep fewer values or split the file");
  return false;
}

std::string stem_of(const std::string& file) {
  const std::string stem = std::filesystem::path(file).stem().string();
  return stem.empty() ? file : stem;
}

}  // namespace

Scenario parse_scenario(const std::string& yaml_text, const std::string& file_name, const Catalogs& catalogs,
                        const core::Registry<models::IWorkloadFamily>& families, const LoadOptions& options) {
  const std::string file = file_name.empty() ? std::string("<scenario>") : file_name;
  const YAML::Node root = parse_yaml(yaml_text, file);  // throws on syntax errors and duplicate keys

  // File-level keys.
  ErrorSink top(file);
  if (!root.IsDefined() || root.IsNull()) {
    // Nothing but blank lines and comments (or a lone ~).
    throw ConfigError(format_diagnostic(
        "the file is empty", {file, 1, 1}, "",
        std::string("; a scenario starts with format: ") + kScenarioFormat +
            ", then e.g. workload: {model: gpt2, sequence_length: 1024, tokens: 1e9, dataset: {synthetic: true}}, "
            "training: {batch_size: 8, precision: bf16_amp, optimizer: adamw} and hardware: {gpu: h100-sxm} "
            "(gpuplan init FILE writes a commented one)"));
  }
  MapReader reader(root, "", top);
  top.throw_if_any();  // not a mapping: nothing else can be read
  if (!reader.has("format")) {
    top.add("missing key 'format'", reader.mark(), "format",
            std::string("; add format: ") + kScenarioFormat + " as the first line");
  } else if (const auto format = reader.string("format"); format && *format != kScenarioFormat) {
    // Another version's keys would only produce noise: report this alone.
    reader.error("format", "unsupported format '" + *format + "'",
                 std::string("; expected ") + kScenarioFormat + ", the version this gpuplan reads");
    top.throw_if_any();
  }
  Scenario scenario;
  scenario.path = file_name;
  scenario.text = yaml_text;
  scenario.name = reader.string("name").value_or(stem_of(file));
  const auto seed = reader.integer("seed", 0, std::numeric_limits<std::int64_t>::max());
  scenario.seed = options.seed_override ? *options.seed_override : static_cast<std::uint64_t>(seed.value_or(0));
  scenario.expected = read_expected(reader);

  std::vector<StrategyOverrides> strategies;
  const bool has_strategies = reader.has("strategies");
  if (has_strategies) {
    strategies = read_strategies(reader.raw("strategies"), top);
  }
  if (strategies.empty()) {
    strategies.push_back({"baseline", {}, {}});
  }
  std::vector<SweepAxis> axes;
  if (reader.has("sweep")) {
    axes = read_sweep(reader.raw("sweep"), top);
  }
  check_strategy_sweep_overlap(strategies, axes, top);
  if (!within_variant_bound(strategies, axes, reader)) {
    top.throw_if_any();
  }

  // Sweep points: the Cartesian product, first key slowest.
  std::vector<std::vector<std::size_t>> points(1);
  for (const SweepAxis& axis : axes) {
    std::vector<std::vector<std::size_t>> next;
    for (const auto& point : points) {
      for (std::size_t i = 0; i < axis.values.size(); ++i) {
        next.push_back(point);
        next.back().push_back(i);
      }
    }
    points = std::move(next);
  }

  const ValidationContext context{catalogs, families,
                                  std::filesystem::path(file_name).parent_path().string()};
  ValidationCache cache(root, file, context, strategies, axes);

  std::vector<ScenarioDiagnostic> diagnostics = split_diagnostics(top.messages(), file);
  for (std::size_t s = 0; s < strategies.size(); ++s) {
    const StrategyOverrides& strategy = strategies[s];
    for (const auto& point : points) {
      std::vector<std::string> labels;
      std::vector<std::pair<std::string, std::string>> sweep_settings;
      Selection full_selection{has_strategies ? static_cast<int>(s) : -1, {}};
      for (std::size_t a = 0; a < axes.size(); ++a) {
        labels.push_back(axes[a].labels[point[a]]);
        sweep_settings.emplace_back(axes[a].path, labels.back().substr(std::min(labels.back().size(), axes[a].path.size() + 1)));
        full_selection.values.push_back(static_cast<int>(point[a]));
      }
      const std::string point_label = join(labels, ", ");
      const Outcome& full = cache.get(full_selection);
      for (const ScenarioDiagnostic& d : full.diagnostics) {
        // The smallest set of overrides that produces this error says which variants it
        // belongs to; the label names those that the error's position does not.
        const std::string text = d.text();
        std::vector<Selection> candidates;
        candidates.push_back({-1, std::vector<int>(axes.size(), -1)});
        if (has_strategies) {
          candidates.push_back({static_cast<int>(s), std::vector<int>(axes.size(), -1)});
        }
        for (const int with_strategy : {-1, static_cast<int>(s)}) {
          if (with_strategy >= 0 && !has_strategies) {
            continue;
          }
          for (std::size_t a = 0; a < axes.size(); ++a) {
            Selection one{with_strategy, std::vector<int>(axes.size(), -1)};
            one.values[a] = static_cast<int>(point[a]);
            candidates.push_back(one);
          }
        }
        if (axes.size() > 1) {
          candidates.push_back({-1, full_selection.values});
        }
        candidates.push_back(full_selection);
        for (const Selection& candidate : candidates) {
          if (!cache.get(candidate).has(text)) {
            continue;
          }
          ScenarioDiagnostic located = d;
          std::vector<const Override*> cause;  // the overrides of the smallest selection with the error
          if (candidate.strategy >= 0 && has_strategies) {
            for (const Override& o : strategy.overrides) cause.push_back(&o);
          }
          for (std::size_t a = 0; a < axes.size(); ++a) {
            if (candidate.values[a] >= 0) cause.push_back(&axes[a].values[static_cast<std::size_t>(candidate.values[a])]);
          }
          if (!cause.empty()) {
            // Sweep values alone: the first of them stands for the point.
            const auto fallback = candidate.strategy >= 0 && has_strategies
                                      ? std::make_pair(strategy.mark, "strategies." + strategy.name)
                                      : std::make_pair(cause.front()->key_mark, cause.front()->source_path);
            locate_at_cause(located, cause, fallback, top);
          }
          std::vector<std::string> context_parts;
          if (candidate.strategy >= 0 && has_strategies && !under(located.key_path, "strategies." + strategy.name)) {
            context_parts.push_back("strategy " + strategy.name);
          }
          for (std::size_t a = 0; a < axes.size(); ++a) {
            const int v = candidate.values[a];
            if (v >= 0 && !under(located.key_path, axes[a].values[static_cast<std::size_t>(v)].source_path)) {
              context_parts.push_back(axes[a].labels[static_cast<std::size_t>(v)]);
            }
          }
          if (!context_parts.empty()) {
            located.problem = "[" + join(context_parts, ", ") + "] " + located.problem;
          }
          diagnostics.push_back(std::move(located));
          break;
        }
      }
      if (full.job) {
        Variant variant;
        variant.strategy = strategy.name;
        variant.sweep_point = point_label;
        variant.sweep_settings = sweep_settings;
        variant.job = full.job->job;
        variant.job.scenario_name = scenario.name;
        variant.job.seed = scenario.seed;
        variant.preemption_source = full.job->preemption_source;
        variant.preemption_trace = full.job->preemption_trace;
        variant.duration_key = full.job->duration_key;
        variant.duration_mark = full.job->duration_mark;
        variant.notes = full.job->notes;
        variant.strategy_index = full_selection.strategy;
        variant.sweep_values = full_selection.values;
        scenario.variants.push_back(std::move(variant));
      }
    }
  }
  const std::vector<std::string> messages = sorted_unique_messages(diagnostics);
  if (!messages.empty()) {
    throw ConfigError(messages, messages.size() + cache.most_unkept() + (top.count() - top.messages().size()));
  }
  return scenario;
}

Scenario load_scenario(const std::string& path, const Catalogs& catalogs,
                       const core::Registry<models::IWorkloadFamily>& families, const LoadOptions& options) {
  return parse_scenario(read_text_file(path), path, catalogs, families, options);
}

}  // namespace gpuplan::config

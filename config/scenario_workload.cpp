#include "config/scenario_workload.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "config/architecture_aliases.h"
#include "config/scenario_reading.h"
#include "core/text_distance.h"
#include "models/workload/architecture_reader.h"

namespace gpuplan::config {
namespace {

constexpr double kMaxSamples = 1e15;
/// Steps between evaluation passes: at most 1e9 (no job runs more steps).
constexpr double kMaxEvalEverySteps = 1e9;
constexpr double kMaxEpochs = 1e6;
constexpr double kMaxTokens = 1e18;
constexpr std::int64_t kMaxSequenceLength = 100'000'000;
/// Largest dataset (samples x sample_size) a scenario may describe: 10^18 B (1 EB), about a
/// thousand times the largest public training corpora (petabytes). Past it the times it
/// takes to read leave the engine's range (2^63 ns, sim/sim_time.h) on any storage.
constexpr double kMaxDatasetBytes = 1e18;

const models::ArchitectureParameter* find_parameter(
    const std::vector<models::ArchitectureParameter>& parameters, const std::string& name) {
  for (const models::ArchitectureParameter& p : parameters) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

/// "a whole number from 1 to 9007199254740992", "a number from 0 to 1": what `p` accepts,
/// for messages ("a number of at least 0" when there is no upper bound).
std::string accepted_range(const models::ArchitectureParameter& p) {
  const double top = models::largest_accepted(p);
  const std::string kind = p.integer ? "a whole number" : "a number";
  const std::string low = models::format_architecture_value(p.min_value);
  return std::isfinite(top) ? kind + " from " + low + " to " + models::format_architecture_value(top)
                            : kind + " of at least " + low;
}

/// "; write groups: 1" (the default) or "; write depth: <a whole number of at least 1>": the
/// fix of a value that is not a number at all.
std::string write_number_fix(const models::ArchitectureParameter& p) {
  const std::string value =
      p.default_value ? models::format_architecture_value(*p.default_value) : "<" + accepted_range(p) + ">";
  return "; write " + p.name + ": " + value + ", for example (" + p.summary + ")";
}

/// The alias of `key` written in `section` and not read there, or null.
const ArchitectureAlias* alias_written(const MapReader& section, std::string_view key) {
  for (const ArchitectureAlias& alias : architecture_aliases()) {
    const std::string name(alias.alias);
    if (alias.key == key && section.has(name) && !section.knows(name)) return &alias;
  }
  return nullptr;
}

/// "16" for `alias: 16` in `section`, else "<value>": the value to repeat in a fix.
std::string written_value(MapReader& section, const std::string& key) {
  const YAML::Node node = section.raw(key);
  return node.IsScalar() && !node.Scalar().empty() ? node.Scalar() : "<value>";
}

/// Each alias of one of `parameters` written in `model` (num_hidden_layers: 16): an error
/// naming gpuplan's key with the value, instead of finish()'s "unknown key"; then declared.
void report_aliases_in_model(MapReader& model, const std::vector<models::ArchitectureParameter>& parameters) {
  for (const models::ArchitectureParameter& p : parameters) {
    const ArchitectureAlias* alias = alias_written(model, p.name);
    if (alias == nullptr) continue;
    const std::string name(alias->alias);
    model.error(name, alias_phrase(*alias), "; write " + p.name + ": " + written_value(model, name));
    model.declare({name});
  }
}

/// Reads the architecture keys of an inline model that its family declares, with the
/// checks of ArchitectureReader, so that every bad key is reported (build() stops at the
/// first). Cross-parameter consistency is left to build().
/// Reads the architecture keys written in `model` into `values`; with `from_base` the values
/// already hold a catalog model's (`base:`), so nothing is missing.
void read_inline_parameters(MapReader& model, const std::vector<models::ArchitectureParameter>& parameters,
                            models::ArchitectureValues& values, bool from_base = false) {
  for (const models::ArchitectureParameter& p : parameters) {
    if (!model.has(p.name)) {
      // sequence_length may also come from workload.sequence_length (checked by the caller).
      // An alias (num_hidden_layers for layers) is reported by report_aliases_in_model.
      if (p.required() && p.name != "sequence_length" && !from_base && alias_written(model, p.name) == nullptr) {
        missing_key(model, p.name, "; add " + p.name + ": <value> (" + p.summary + ")");
      }
      continue;
    }
    const YAML::Node node = model.raw(p.name);
    if (node.IsNull()) {
      model.error(p.name, "missing value for '" + p.name + "'",
                  "; write " + p.name + ": <value> (" + p.summary + ") or remove the key");
      continue;
    }
    if (!node.IsScalar()) {
      const std::string fix = p.choices.empty() ? write_number_fix(p)
                                                : "; write " + p.name + ": one of " + fmt::format("{}", fmt::join(p.choices, ", "));
      model.error(p.name,
                  "expected " + std::string(p.choices.empty() ? "a number" : "a name") + " for " + p.name +
                      ", found " + describe_node(node),
                  fix);
      continue;
    }
    const std::string& text = node.Scalar();
    if (!p.choices.empty()) {
      try {
        values[p.name] = models::encode_choice(p, text);
      } catch (const models::WorkloadError& e) {
        const auto [problem, fix] = split_problem_fix(e.what());
        model.error(p.name, problem, fix);
      }
      continue;
    }
    // The range is checked on the double, before any conversion to a count: a whole number
    // past kMaxArchitectureCount (2^53) would round or wrap (9.3e18 became -2^63).
    const std::string expected = accepted_range(p);
    if (const QuotedNumber quoted = quoted_number(node, expected + " for " + p.name); !quoted.problem.empty()) {
      model.error(p.name, quoted.problem, quoted.fix);
      continue;
    }
    const auto fits = [&p](double v) {
      return v >= p.min_value && v <= models::largest_accepted(p) && (!p.integer || v == std::floor(v));
    };
    if (const std::string fix = leading_zero_fix(text, fits, expected); !fix.empty()) {
      model.error(p.name, "expected " + expected + " for " + p.name + ", found '" + text + "'", fix);
      continue;
    }
    double value = 0.0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc{} || ptr != end || !std::isfinite(value)) {
      model.error(p.name, "expected " + expected + " for " + p.name + ", found '" + text + "'", write_number_fix(p));
      continue;
    }
    // Digits past 2^53 round to a double that may pass (2^53 + 1 reads as 2^53): the written
    // whole number is compared too, exactly (long double holds every 64-bit integer).
    std::int64_t digits = 0;
    const auto [digits_end, digits_ec] = std::from_chars(text.data(), end, digits);
    const bool digits_past_top = digits_ec == std::errc{} && digits_end == end &&
                                 static_cast<long double>(digits) > static_cast<long double>(models::largest_accepted(p));
    if (value < p.min_value || value > models::largest_accepted(p) || digits_past_top) {
      model.error(p.name, "out-of-range value " + text, "; expected " + expected);
      continue;
    }
    if (p.integer && value != std::floor(value)) {
      model.error(p.name, p.name + " must be a whole number, got " + text, "; expected " + expected);
      continue;
    }
    values[p.name] = value;
  }
}

/// The model of `workload.model` and where its errors go.
struct ModelInput {
  const models::IWorkloadFamily* family = nullptr;
  std::string family_name;
  models::ArchitectureValues values;
  std::string catalog_name;                     ///< empty for an inline model
  std::optional<double> catalog_sequence_length;
  std::optional<MapReader> inline_reader;       ///< the inline mapping
  std::string defaulted_choices;                ///< "mlp swiglu, tied_embeddings false": not written, no base
};

std::optional<ModelInput> read_model(MapReader& workload, const Catalogs& catalogs,
                                     const core::Registry<models::IWorkloadFamily>& families) {
  ErrorSink& sink = workload.sink();
  const YAML::Node node = workload.raw("model");
  if (!node.IsDefined()) {
    missing_key(workload, "model",
                "; add model: <a catalog name such as resnet50> or an inline "
                "{family: ..., <architecture keys>}");
    return std::nullopt;
  }
  if (node.IsNull()) {
    workload.error("model", "missing value for 'model'",
                   "; write model: <a catalog name such as resnet50> or an inline {family: ...}");
    return std::nullopt;
  }
  ModelInput input;
  if (node.IsScalar()) {
    const std::string name = node.Scalar();
    const ModelEntry* entry = catalogs.models.find(name);
    if (entry == nullptr) {
      workload.error("model", "unknown model '" + name + "'", suggest_model_names(name, catalogs.models.names()));
      return std::nullopt;
    }
    input.family = families.find(entry->family);
    input.family_name = entry->family;
    if (input.family == nullptr) {
      workload.error("model", "model '" + name + "' is of family '" + entry->family +
                                  "', which this build does not know",
                     suggest_names(entry->family, families.names(), "families"));
      return std::nullopt;
    }
    try {
      input.values = architecture_values(*entry, *input.family);
    } catch (const ConfigError& e) {
      for (const std::string& message : e.messages()) {
        sink.add_formatted(message);  // a fault of the model catalog, at its position
      }
      return std::nullopt;
    }
    input.catalog_name = entry->name;
    input.catalog_sequence_length = entry->default_sequence_length;
    return input;
  }
  if (!node.IsMap()) {
    workload.error("model", "expected a catalog model name or an inline mapping, found " + describe_node(node),
                   "; write model: <one catalog name such as resnet50> (gpuplan list models) or model: {family: ..., "
                   "<architecture keys>} (gpuplan list families)");
    return std::nullopt;
  }
  MapReader model(node, workload.path_of("model"), sink);
  const std::size_t errors_before = sink.messages().size();
  // `base: <catalog model>`: start from that model's architecture, every structural choice
  // included (a GPT shape keeps GELU, learned positions and tied embeddings), and change
  // only the keys written.
  const std::optional<std::string> base_name = model.string("base");
  const ModelEntry* base = nullptr;
  if (base_name) {
    base = catalogs.models.find(*base_name);
    if (base == nullptr) {
      model.error("base", "unknown model '" + *base_name + "'",
                  suggest_model_names(*base_name, catalogs.models.names()));
      return std::nullopt;
    }
  }
  const std::optional<std::string> family_name =
      base != nullptr && !model.has("family") ? std::optional<std::string>(base->family)
                                              : model.string("family", Requirement::kRequired);
  if (base != nullptr && family_name && *family_name != base->family) {
    model.error("family", "family " + *family_name + " differs from the family " + base->family + " of base " +
                              base->name,
                "; remove family (the base sets it)");
    return std::nullopt;
  }
  if (family_name) {
    input.family = families.find(*family_name);
    input.family_name = *family_name;
    if (input.family == nullptr) {
      model.error("family", "unknown model family '" + *family_name + "'",
                  suggest_names(*family_name, families.names(), "families"));
    }
  }
  if (input.family == nullptr) {
    return std::nullopt;  // without a family, its keys cannot be checked
  }
  const std::vector<models::ArchitectureParameter> parameters = input.family->parameters();
  if (base != nullptr) {
    try {
      input.values = architecture_values(*base, *input.family);
    } catch (const ConfigError& e) {
      for (const std::string& message : e.messages()) sink.add_formatted(message);
      return std::nullopt;
    }
    input.catalog_sequence_length = base->default_sequence_length;
  }
  read_inline_parameters(model, parameters, input.values, base != nullptr);
  report_aliases_in_model(model, parameters);
  if (base == nullptr) {
    for (const models::ArchitectureParameter& p : parameters) {
      if (p.choices.empty() || model.has(p.name) || !p.default_value) continue;
      const auto index = static_cast<std::size_t>(*p.default_value);
      if (index >= p.choices.size()) continue;
      input.defaulted_choices += (input.defaulted_choices.empty() ? "" : ", ") + p.name + " " + p.choices[index];
    }
  }
  for (const models::ArchitectureParameter& p : parameters) {
    model.declare({p.name});  // so that finish() suggests them for a misspelt key
  }
  model.finish();
  if (sink.messages().size() != errors_before) {
    return std::nullopt;
  }
  input.inline_reader = model;
  return input;
}

/// Reports a WorkloadError of build() at the key it is about (STYLE.md C6).
void report_build_error(const models::WorkloadError& e, MapReader& workload, const ModelInput& input,
                        bool sequence_from_workload) {
  const auto [problem, fix] = split_problem_fix(e.what());
  const std::string& parameter = e.parameter();
  if (parameter == "sequence_length" && sequence_from_workload) {
    workload.error("sequence_length", problem, fix);
    return;
  }
  const std::string path = parameter.empty() ? workload.path_of("model")
                                             : workload.path_of("model") + "." + parameter;
  if (input.inline_reader && !parameter.empty() && input.inline_reader->has(parameter)) {
    input.inline_reader->error(parameter, problem, fix);
    return;
  }
  workload.sink().add(problem, workload.mark_of("model"), path, fix);
}

/// Builds the model of `workload.model` with workload.sequence_length applied; nullptr on an
/// error (recorded). `catalog_sequence_length` gets the catalog model's own length.
std::shared_ptr<const models::Workload> build_workload(MapReader& workload, const Catalogs& catalogs,
                                                       const core::Registry<models::IWorkloadFamily>& families,
                                                       std::vector<std::string>* notes, WorkloadMemo* memo,
                                                       std::optional<double>* catalog_sequence_length) {
  const std::optional<std::int64_t> sequence_length =
      workload.integer("sequence_length", 1, kMaxSequenceLength, Requirement::kOptional, CountSuffix::kBinary);
  std::optional<ModelInput> input = read_model(workload, catalogs, families);
  if (!input) {
    return nullptr;
  }
  if (!input->defaulted_choices.empty() && notes != nullptr) {
    notes->push_back("workload.model: " + input->defaulted_choices + " (the " + input->family_name +
                     " defaults, not written); write them, or base: <a catalog model> to start from its structure");
  }
  const std::vector<models::ArchitectureParameter> parameters = input->family->parameters();
  const models::ArchitectureParameter* sequence_parameter = find_parameter(parameters, "sequence_length");
  const std::string model_name = input->catalog_name.empty() ? "the inline model" : input->catalog_name;
  bool sequence_from_workload = false;
  if (sequence_parameter != nullptr && !input->catalog_name.empty()) {
    *catalog_sequence_length = input->catalog_sequence_length;
  }
  if (sequence_parameter != nullptr) {
    if (workload.has("sequence_length")) {
      if (input->inline_reader && input->inline_reader->has("sequence_length")) {
        workload.error("sequence_length", "sequence_length is given twice",
                       "; the inline model also sets workload.model.sequence_length, keep one");
        return nullptr;
      }
      if (!sequence_length) {
        return nullptr;  // malformed; already reported
      }
      input->values["sequence_length"] = static_cast<double>(*sequence_length);
      sequence_from_workload = true;
      // The catalog's sequence_length is the context the model was trained at: longer runs as
      // written, but is a context extension, not the model's own use.
      const std::optional<double>& own = *catalog_sequence_length;
      if (own && static_cast<double>(*sequence_length) > *own && notes != nullptr) {
        const std::string own_text = models::format_architecture_value(*own);
        notes->push_back(workload.note(
            "sequence_length",
            std::to_string(*sequence_length) + " tokens per sequence, longer than the " + own_text + " " +
                input->catalog_name + " was trained on (its catalog sequence_length)",
            "; lower it to " + own_text + " or less, or keep it to plan a context extension (the model needs "
                "long-context training before it uses the length)"));
      }
    } else if (input->values.count("sequence_length") == 0) {
      if (input->catalog_sequence_length) {
        input->values["sequence_length"] = *input->catalog_sequence_length;
      } else if (sequence_parameter->required()) {
        missing_key(workload, "sequence_length",
                    "; " + model_name + " is a sequence model: add sequence_length: <tokens per "
                    "sample>, e.g. 2048");
        return nullptr;
      }
    }
  } else if (workload.has("sequence_length")) {
    workload.error("sequence_length",
                   model_name + " (family " + input->family_name + ") takes no sequence length",
                   "; remove sequence_length");
    return nullptr;
  }
  try {
    if (memo != nullptr) return memo->built(*input->family, input->values, input->catalog_name);
    models::Workload result = input->family->build(input->values);
    if (!input->catalog_name.empty()) {
      result.name = input->catalog_name;
    }
    return std::make_shared<const models::Workload>(std::move(result));
  } catch (const models::WorkloadError& e) {
    report_build_error(e, workload, *input, sequence_from_workload);
  }
  return nullptr;
}

/// `samples` is required by a job sized in epochs only (`sized_in_epochs`: workload.epochs
/// given, or neither it nor tokens for a model that is not a language model): sized in tokens,
/// the loader sets it from the token budget (read_workload_section); a language model sized in
/// neither is told to add tokens. Where samples is missing, the fix of a `language_model` also
/// names workload.tokens, the way such jobs are usually sized. `synthetic_data` is set to the
/// synthetic key as read, also when the block has other errors (true when the key is written
/// but is not a boolean).
std::optional<models::DatasetSpec> read_dataset(MapReader& dataset, bool sized_in_epochs, bool language_model,
                                                bool& synthetic_data) {
  models::DatasetSpec spec;
  const std::size_t errors_before = dataset.sink().messages().size();
  const std::optional<double> samples = whole_number(dataset, "samples", 1, kMaxSamples);
  if (sized_in_epochs && !dataset.has("samples")) {
    missing_key(dataset, "samples",
                language_model ? "; add samples: <sequences per epoch> (a whole number from 1 to 1e15), or size the "
                                 "job in tokens with workload.tokens: <token budget> in place of epochs"
                               : "; add samples: <samples per epoch> (a whole number from 1 to 1e15)");
  }
  const std::optional<bool> synthetic = dataset.boolean("synthetic");
  // A synthetic key that is not true or false (`yes`) has its own error; read as meant,
  // it adds no missing loader or hardware keys beside it.
  spec.synthetic = value_or(synthetic, dataset.has("synthetic"));
  synthetic_data = spec.synthetic;
  // Synthetic batches are made on the GPU: size and decode time are then ignored.
  const Requirement loading = spec.synthetic ? Requirement::kOptional : Requirement::kRequired;
  const std::optional<double> sample_bytes =
      dataset.quantity("sample_size", core::Dimension::kBytes, Range::kPositive, loading);
  const std::optional<double> decode_time_s =
      dataset.quantity("decode_time", core::Dimension::kSeconds, Range::kNonNegative, loading);
  const std::optional<std::string> layout =
      dataset.choice("layout", models::names_of<models::DatasetLayout>());
  const std::optional<double> eval_samples = whole_number(dataset, "eval_samples", 0, kMaxSamples);
  const std::optional<double> eval_every_steps = whole_number(dataset, "eval_every_steps", 0, kMaxEvalEverySteps);
  const std::optional<bool> eval_first_rank_only = dataset.boolean("eval_first_rank_only");
  // The evaluation keys shape a pass of eval_samples samples: without them they would be
  // ignored (models::job_times runs no pass when eval_samples is 0).
  const bool eval_samples_failed = dataset.has("eval_samples") && !eval_samples;
  if (!eval_samples_failed && value_or(eval_samples, 0.0) == 0.0) {
    for (const auto& [key, given] : {std::pair{"eval_every_steps", eval_every_steps.has_value()},
                                     std::pair{"eval_first_rank_only", eval_first_rank_only.has_value()}}) {
      if (!given) continue;
      dataset.error(key,
                    std::string(key) + " shapes the evaluation passes, but eval_samples is " +
                        (eval_samples ? "0 (no evaluation)" : "missing"),
                    std::string(eval_samples ? "; set" : "; add") +
                        " eval_samples: <validation samples per pass>, e.g. 1000, or remove " + key);
    }
  }
  if (samples && sample_bytes && *samples * *sample_bytes > kMaxDatasetBytes) {
    dataset.error("sample_size",
                  fmt::format("the dataset of {:.3g} samples x {:.3g} B = {:.3g} B exceeds {:.3g} B (1 EB)", *samples,
                              *sample_bytes, *samples * *sample_bytes, kMaxDatasetBytes),
                  "; check the unit of sample_size (bytes per sample, e.g. \"110 KiB\") and samples");
  }
  dataset.finish();
  if (dataset.sink().messages().size() != errors_before) {
    return std::nullopt;
  }
  spec.samples = value_or(samples, 0.0);
  spec.sample_bytes = value_or(sample_bytes, 0.0);
  spec.decode_time_s = value_or(decode_time_s, 0.0);
  spec.layout = layout ? *models::from_name<models::DatasetLayout>(*layout) : models::DatasetLayout::kFiles;
  spec.eval_samples = value_or(eval_samples, 0.0);
  spec.eval_every_steps = value_or(eval_every_steps, 0.0);
  spec.eval_first_rank_only = value_or(eval_first_rank_only, false);
  return spec;
}

/// True when `workload` has an unknown key within two edits of epochs or tokens ("epoch",
/// "token"): its unknown-key error names the key meant, and a missing duration beside it
/// would be the same mistake twice.
bool misspelt_duration_key(const MapReader& workload) {
  for (const std::string& k : workload.written_keys()) {
    if (k == "epochs" || k == "tokens" || workload.knows(k)) continue;
    if (core::edit_distance(k, "epochs") <= 2 || core::edit_distance(k, "tokens") <= 2) return true;
  }
  return false;
}

}  // namespace

WorkloadSection read_workload_section(MapReader& root, const Catalogs& catalogs,
                                      const core::Registry<models::IWorkloadFamily>& families, WorkloadMemo* memo) {
  WorkloadSection section;
  section.reader = root.map("workload", Requirement::kRequired);
  if (!section.reader) {
    return section;
  }
  MapReader& workload = *section.reader;
  ErrorSink& sink = workload.sink();
  section.workload = build_workload(workload, catalogs, families, &section.notes, memo,
                                    &section.catalog_sequence_length);

  if (!workload.has("dataset")) {
    // The generic "a mapping of keys" does not say which: the two kinds of data.
    workload.missing("dataset",
                     "; add dataset: {synthetic: true} (batches made in memory, as benchmarks run), or {samples, "
                     "sample_size, decode_time} for data read from hardware.storage");
    workload.declare({"dataset"});
  } else {
    section.dataset_reader = workload.map("dataset", Requirement::kRequired);
  }
  if (section.dataset_reader) {
    const bool language_model = section.workload && section.workload->is_language_model;
    section.dataset = read_dataset(*section.dataset_reader,
                                   !workload.has("tokens") && (workload.has("epochs") || !language_model),
                                   language_model, section.synthetic_data);
  }

  // Exactly one of epochs and tokens.
  const std::size_t errors_before = sink.messages().size();
  const std::optional<double> epochs = positive_number(workload, "epochs", kMaxEpochs);
  const std::optional<double> tokens = whole_number(workload, "tokens", 1, kMaxTokens);
  const bool has_epochs = workload.has("epochs");
  const bool has_tokens = workload.has("tokens");
  if (has_epochs && has_tokens) {
    workload.error("tokens", "epochs and tokens are both given",
                   "; keep one: epochs for a number of passes over the dataset, tokens for a "
                   "language model's token budget");
  } else if (!has_epochs && !has_tokens && !misspelt_duration_key(workload)) {
    // A language model's job is usually a token budget; other models' a number of epochs.
    if (section.workload && section.workload->is_language_model) {
      missing_key(workload, "tokens", "; add tokens: <token budget> (e.g. 2e11), or epochs: <passes over dataset.samples>");
    } else {
      missing_key(workload, "epochs", "; add epochs: <passes over the dataset> (e.g. 90)");
    }
  } else if (has_tokens && section.workload && !section.workload->is_language_model) {
    workload.error("tokens",
                   "a token budget needs a language model, and " + section.workload->name +
                       " (family " + section.workload->family + ") is not one",
                   "; give epochs instead");
  }
  if (sink.messages().size() == errors_before && (epochs || tokens)) {
    section.duration = models::DurationSpec{value_or(epochs, 0.0), value_or(tokens, 0.0)};
    if (tokens && section.dataset && section.dataset->samples == 0.0 && section.workload) {
      // Sized in tokens without dataset.samples: the dataset is the token budget, one
      // epoch of ceil(tokens / sequence_length) sequences.
      section.dataset->samples = std::ceil(*tokens / section.workload->tokens_per_sample);
    }
  }
  report_architecture_keys(workload, section.workload.get(), families);
  workload.finish();
  return section;
}

namespace {

/// Each alias written in `section` (training.num_layers: 16) of a key of `family` (of any
/// family where the model could not be built): an error naming gpuplan's key, its place in
/// workload.model and the value; then declared. `model_name` is the catalog base, or empty.
void report_aliases_beside_model(MapReader& section, const std::vector<std::string>& written,
                                 const models::IWorkloadFamily* family, const std::string& model_name) {
  std::vector<models::ArchitectureParameter> parameters;
  if (family != nullptr) parameters = family->parameters();
  for (const ArchitectureAlias& alias : architecture_aliases()) {
    const std::string name(alias.alias);
    if (std::find(written.begin(), written.end(), name) == written.end() || section.knows(name)) continue;
    if (family != nullptr && find_parameter(parameters, std::string(alias.key)) == nullptr) continue;
    const std::string value = written_value(section, name);
    if (alias.key == "sequence_length") {
      section.error(name, alias_phrase(alias), "; write workload.sequence_length: " + value);
    } else {
      const std::string base = model_name.empty() ? "" : "base: " + model_name + ", ";
      section.error(name, alias_phrase(alias) + ", an architecture key read inside workload.model",
                    "; write workload.model: {" + base + std::string(alias.key) + ": " + value + "}");
    }
    section.declare({name});
  }
}

}  // namespace

void report_architecture_keys(MapReader& section, const models::Workload* model,
                              const core::Registry<models::IWorkloadFamily>& families) {
  const models::IWorkloadFamily* family = model == nullptr ? nullptr : families.find(model->family);
  // One pass over the keys written: most of the aliases and parameters asked about are absent.
  const std::vector<std::string> written = section.written_keys();
  report_aliases_beside_model(section, written, family,
                              model == nullptr || model->name == "inline" ? "" : model->name);
  if (family == nullptr) return;
  for (const models::ArchitectureParameter& p : family->parameters()) {
    if (section.knows(p.name) || std::find(written.begin(), written.end(), p.name) == written.end()) continue;
    if (p.name == "sequence_length") {
      // Also a key of the workload section, where a scenario writes it for any model.
      section.error(p.name, "'sequence_length' is read in the workload section",
                    "; write workload.sequence_length: <tokens>");
      section.declare({p.name});
      continue;
    }
    const std::string base = model->name == "inline" ? "" : "base: " + model->name + ", ";
    section.error(p.name,
                  "'" + p.name + "' is an architecture key of " + model->family + " models, read inside workload.model",
                  "; write workload.model: {" + base + p.name + ": <value>}");
    section.declare({p.name});
  }
}

}  // namespace gpuplan::config

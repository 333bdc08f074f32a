#include "config/model_catalog.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include "config/catalog_file.h"
#include "config/yaml_reader.h"
#include "core/text_distance.h"

namespace gpuplan::config {
namespace {

const std::vector<std::string> kEntryKeys = {"family", "sequence_length", "summary", "source",
                                             "retrieved"};

bool is_model_name(std::string_view name) {
  if (name.empty() || !std::isalnum(static_cast<unsigned char>(name.front()))) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
  });
}

std::optional<double> to_number(std::string_view text) {
  double value = 0.0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc{} || ptr != end || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<ModelEntry> read_entry(const std::string& name, const YAML::Node& node,
                                     const YAML::Mark& key_mark, ErrorSink& sink) {
  const std::string path = "models." + name;
  const std::size_t errors_before = sink.messages().size();
  if (!is_model_name(name)) {
    sink.add("invalid model name '" + name + "'", key_mark, path,
             "; model names are lower-case letters, digits, '-' and '.', e.g. llama2-7b");
  }
  MapReader r(node, path, sink, key_mark);
  if (!r.valid()) {
    return std::nullopt;
  }
  ModelEntry entry;
  entry.name = name;
  entry.mark = sink.to_source_mark(key_mark);
  entry.family = r.string("family", Requirement::kRequired).value_or("");
  if (auto length = r.number("sequence_length", 1, 1e9)) {
    if (*length != std::floor(*length)) {
      r.error("sequence_length", "expected a whole number of tokens, found " + r.raw("sequence_length").Scalar());
    } else {
      entry.default_sequence_length = *length;
    }
  }
  entry.summary = r.string("summary", Requirement::kRequired).value_or("");
  entry.source = r.string("source", Requirement::kRequired).value_or("");
  entry.retrieved = r.string("retrieved", Requirement::kRequired).value_or("");
  if (!entry.retrieved.empty() && !is_iso_date(entry.retrieved)) {
    r.error("retrieved", "expected a date such as 2026-11-29, found '" + entry.retrieved + "'");
  }
  // Every other key is an architecture parameter of the family.
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
    if (std::find(kEntryKeys.begin(), kEntryKeys.end(), key) != kEntryKeys.end()) {
      continue;
    }
    r.declare({key});
    const std::string key_path = path + "." + key;
    const auto near = core::closest(key, kEntryKeys, 2, 1);
    if (!near.empty()) {
      sink.add("unknown key '" + key + "'", it->first.Mark(), key_path, core::did_you_mean(near));
      continue;
    }
    const YAML::Node value = it->second;
    if (!value.IsScalar() || value.Scalar().empty()) {
      sink.add("expected a number or a name for architecture parameter '" + key + "', found " +
                   describe_node(value),
               value.IsDefined() && !value.IsNull() ? value.Mark() : it->first.Mark(), key_path,
               "; write e.g. " + key + ": 4096");
      continue;
    }
    entry.value_marks[key] = sink.to_source_mark(value.Mark());
    if (auto number = to_number(value.Scalar())) {
      entry.values[key] = *number;
    } else {
      entry.choices[key] = value.Scalar();
    }
  }
  r.finish();
  if (sink.messages().size() != errors_before) {
    return std::nullopt;
  }
  return entry;
}

}  // namespace

ModelCatalog ModelCatalog::load(const std::string& path) { return parse(read_text_file(path), path); }

ModelCatalog ModelCatalog::parse(const std::string& yaml_text, const std::string& file_name) {
  const YAML::Node root = parse_yaml(yaml_text, file_name);
  ErrorSink sink(file_name);
  ModelCatalog catalog;
  read_catalog_entries(root, sink, {"models", "model", "model"},
                       [&](const std::string& name, const YAML::Node& value, const YAML::Mark& key_mark) {
                         if (auto entry = read_entry(name, value, key_mark, sink)) {
                           catalog.entries_.push_back(std::move(*entry));
                         }
                       });
  sink.throw_if_any();
  for (std::size_t i = 0; i < catalog.entries_.size(); ++i) {
    catalog.index_.add_name(catalog.entries_[i].name, i);
  }
  return catalog;
}

const ModelEntry* ModelCatalog::find(std::string_view name) const {
  const auto i = index_.find(name);
  return i ? &entries_[*i] : nullptr;
}

std::vector<std::string> ModelCatalog::suggestions(std::string_view unknown_name) const {
  return core::closest(unknown_name, names());
}

std::vector<std::string> ModelCatalog::names() const { return index_.sorted_names(); }

models::ArchitectureValues architecture_values(const ModelEntry& entry,
                                               const models::IWorkloadFamily& family) {
  models::ArchitectureValues values = entry.values;
  std::vector<std::string> messages;
  const auto parameters = family.parameters();
  for (const auto& choice : entry.choices) {
    // Not a structured binding: the lambda below captures the key, which clang 14 (the fuzz
    // build) refuses for bindings.
    const std::string& key = choice.first;
    const std::string& text = choice.second;
    const auto mark_it = entry.value_marks.find(key);
    const SourceMark mark = mark_it != entry.value_marks.end() ? mark_it->second : entry.mark;
    const std::string key_path = "models." + entry.name + "." + key;
    const auto parameter = std::find_if(parameters.begin(), parameters.end(),
                                        [&](const auto& p) { return p.name == key; });
    if (parameter == parameters.end()) {
      std::vector<std::string> known;
      for (const auto& p : parameters) {
        known.push_back(p.name);
      }
      messages.push_back(format_diagnostic("unknown parameter '" + key + "' of family " + entry.family,
                                           mark, key_path,
                                           core::did_you_mean(core::closest(key, known))));
      continue;
    }
    try {
      values[key] = models::encode_choice(*parameter, text);
    } catch (const models::WorkloadError& e) {
      messages.push_back(format_diagnostic(e.what(), mark, key_path));
    }
  }
  if (!messages.empty()) {
    throw ConfigError(messages);
  }
  return values;
}

}  // namespace gpuplan::config

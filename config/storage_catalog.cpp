#include "config/storage_catalog.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

#include "config/catalog_file.h"
#include "config/yaml_reader.h"
#include "core/text_distance.h"

namespace gpuplan::config {
namespace {

using core::Dimension;


bool is_snake_case(std::string_view name) {
  if (name.empty() || !(name.front() >= 'a' && name.front() <= 'z')) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

struct Entry {
  models::StorageSpec spec;
  std::string summary;
};

std::optional<Entry> read_entry(const std::string& name, const YAML::Node& node,
                                const YAML::Mark& key_mark, ErrorSink& sink) {
  const std::string path = "storage." + name;
  const std::size_t errors_before = sink.messages().size();
  if (!is_snake_case(name)) {
    sink.add("invalid storage class name '" + name + "'", key_mark, path,
             "; storage class names are snake_case, e.g. nvme_ssd");
  }
  MapReader r(node, path, sink, key_mark);
  if (!r.valid()) {
    return std::nullopt;
  }
  Entry entry;
  entry.spec.name = name;
  entry.summary = r.string("summary", Requirement::kRequired).value_or("");
  entry.spec.read_bytes_per_s =
      r.quantity("read_bandwidth", Dimension::kBytesPerSecond, Range::kPositive, Requirement::kRequired)
          .value_or(0.0);
  entry.spec.random_read_bytes_per_s =
      r.quantity("random_read_bandwidth", Dimension::kBytesPerSecond, Range::kPositive).value_or(0.0);
  if (entry.spec.read_bytes_per_s > 0.0 &&
      entry.spec.random_read_bytes_per_s > entry.spec.read_bytes_per_s) {
    r.error("random_read_bandwidth", "random-read bandwidth above the sequential read bandwidth",
            "; small random reads are never faster than sequential ones: check both figures");
  }
  entry.spec.write_bytes_per_s =
      r.quantity("write_bandwidth", Dimension::kBytesPerSecond, Range::kPositive, Requirement::kRequired)
          .value_or(0.0);
  entry.spec.latency_s =
      r.quantity("latency", Dimension::kSeconds, Range::kPositive, Requirement::kRequired).value_or(0.0);
  entry.spec.queue_depth =
      static_cast<int>(r.integer("queue_depth", 1, 65536, Requirement::kRequired).value_or(1));
  entry.spec.source = r.string("source", Requirement::kRequired).value_or("");
  if (r.has("source") && entry.spec.source.empty()) {
    r.error("source", "empty source", "; name the datasheet or documentation page of the figures");
  }
  entry.spec.retrieved = r.string("retrieved", Requirement::kRequired).value_or("");
  if (!entry.spec.retrieved.empty() && !is_iso_date(entry.spec.retrieved)) {
    r.error("retrieved", "expected a date such as 2026-11-29, found '" + entry.spec.retrieved + "'");
  }
  r.finish();
  if (sink.messages().size() != errors_before) {
    return std::nullopt;
  }
  return entry;
}

}  // namespace

StorageCatalog StorageCatalog::load(const std::string& path) {
  return parse(read_text_file(path), path);
}

StorageCatalog StorageCatalog::parse(const std::string& yaml_text, const std::string& file_name) {
  const YAML::Node root = parse_yaml(yaml_text, file_name);
  ErrorSink sink(file_name);
  StorageCatalog catalog;
  read_catalog_entries(root, sink, {"storage", "storage class", "class"},
                       [&](const std::string& name, const YAML::Node& value, const YAML::Mark& key_mark) {
                         if (auto entry = read_entry(name, value, key_mark, sink)) {
                           catalog.specs_.push_back(std::move(entry->spec));
                           catalog.summaries_.push_back(std::move(entry->summary));
                         }
                       });
  sink.throw_if_any();
  catalog.build_index();
  return catalog;
}

StorageCatalog StorageCatalog::from_specs(std::vector<models::StorageSpec> specs) {
  std::vector<NamedEntry> names;
  for (const auto& spec : specs) names.push_back({spec.name, {}});
  const std::vector<std::string> errors = ambiguous_names(names, "storage class", false);
  if (!errors.empty()) {
    throw ConfigError(errors);
  }
  StorageCatalog catalog;
  catalog.summaries_.assign(specs.size(), std::string());
  catalog.specs_ = std::move(specs);
  catalog.build_index();
  return catalog;
}

void StorageCatalog::build_index() {
  index_.clear();
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    index_.add_name(specs_[i].name, i);
  }
}

const models::StorageSpec* StorageCatalog::find(std::string_view name) const {
  const auto i = index_.find(name);
  return i ? &specs_[*i] : nullptr;
}

const std::string& StorageCatalog::summary(std::string_view name) const {
  static const std::string kNone;
  const models::StorageSpec* spec = find(name);
  if (spec == nullptr) {
    return kNone;
  }
  return summaries_[static_cast<std::size_t>(spec - specs_.data())];
}

std::vector<std::string> StorageCatalog::suggestions(std::string_view unknown_name) const {
  return core::closest(unknown_name, names());
}

std::vector<std::string> StorageCatalog::names() const { return index_.sorted_names(); }

}  // namespace gpuplan::config

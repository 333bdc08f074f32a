#include "config/yaml_reader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include "config/input_text.h"
#include "config/overrides.h"
#include "config/yaml_bounds.h"
#include "core/text_distance.h"

namespace gpuplan::config {

void ErrorSink::add(const std::string& problem, const YAML::Mark& mark, const std::string& key_path,
                    const std::string& fix) {
  add_formatted(format_diagnostic(problem, to_source_mark(mark), key_path, fix));
}

void ErrorSink::add_formatted(std::string message) {
  ++count_;
  if (messages_.size() < kMaxKeptErrors) {
    messages_.push_back(std::move(message));
  }
}

void ErrorSink::throw_if_any() const {
  if (count_ != 0) {
    throw ConfigError(messages_, count_);
  }
}

SourceMark ErrorSink::to_source_mark(const YAML::Mark& mark) const {
  if (mark.line < 0) {
    return {file_, 0, 0};
  }
  return {file_, mark.line + 1, mark.column + 1};
}

namespace {

void find_duplicates(const YAML::Node& node, const std::string& path, ErrorSink& sink) {
  if (node.IsMap()) {
    std::map<std::string, int> first_line;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
      const std::string child = path.empty() ? key : path + "." + key;
      const auto [pos, inserted] = first_line.emplace(key, it->first.Mark().line + 1);
      if (!inserted) {
        sink.add("duplicate key '" + key + "'", it->first.Mark(), child,
                 "; the first one is on line " + std::to_string(pos->second) + ", remove one of them");
      }
      find_duplicates(it->second, child, sink);
    }
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      find_duplicates(node[i], path + "[" + std::to_string(i) + "]", sink);
    }
  }
}

}  // namespace

YAML::Node parse_yaml(const std::string& text, const std::string& file) {
  check_input_text(text, file);
  check_yaml_bounds(text, file);
  ErrorSink sink(file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    sink.add("YAML syntax error: " + e.msg, e.mark, "", "; check the indentation and quoting there");
    sink.throw_if_any();
  }
  find_duplicates(root, "", sink);
  sink.throw_if_any();
  return root;
}

YAML::Node load_yaml_file(const std::string& path) { return parse_yaml(read_text_file(path), path); }

std::string describe_node(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a sequence";
  return "'" + node.Scalar() + "'";
}

bool is_quoted_scalar(const YAML::Node& node) { return node.IsScalar() && node.Tag() == "!"; }

QuotedNumber quoted_number(const YAML::Node& node, const std::string& expected) {
  if (!is_quoted_scalar(node)) {
    return {};
  }
  const std::string& text = node.Scalar();
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) {
    return {};
  }
  return {"expected " + expected + ", found the quoted text \"" + text + "\"",
          "; write " + text + " without quotes (quotes make it text in YAML)"};
}

MapReader::MapReader(const YAML::Node& node, std::string key_path, ErrorSink& sink, YAML::Mark mark)
    : node_(node), key_path_(std::move(key_path)), sink_(&sink), mark_(mark) {
  if (node.IsDefined() && !node.IsNull()) {
    mark_ = node.Mark();
  }
  if (!node.IsMap()) {
    valid_ = false;
    sink.add("expected a mapping, found " + describe_node(node), mark_, key_path_,
             "; write the keys of " + (key_path_.empty() ? std::string("the file") : key_path_) +
                 " indented below it");
  }
}

bool MapReader::has(const std::string& key) const { return valid_ && node_[key].IsDefined(); }

std::string MapReader::path_of(const std::string& key) const {
  return key_path_.empty() ? key : key_path_ + "." + key;
}

YAML::Mark MapReader::mark_of(const std::string& key) const {
  if (valid_) {
    const YAML::Node value = node_[key];
    if (value.IsDefined() && !value.IsNull()) {
      return value.Mark();
    }
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == key) {
        return it->first.Mark();
      }
    }
  }
  return mark_;
}

void MapReader::error(const std::string& key, const std::string& problem, const std::string& fix) const {
  sink_->add(problem, mark_of(key), path_of(key), fix);
}

const YAML::Node* MapReader::lookup(const std::string& key, Requirement req, std::string_view expected) {
  known_.push_back(key);
  if (!valid_) {
    return nullptr;
  }
  YAML::Node value = node_[key];
  if (!value.IsDefined()) {
    if (req == Requirement::kRequired) {
      sink_->add("missing key '" + key + "'", mark_, path_of(key),
                 "; add " + key + ": " + std::string(expected));
    }
    return nullptr;
  }
  if (value.IsNull()) {
    sink_->add("missing value for '" + key + "'", mark_of(key), path_of(key),
               "; write " + key + ": " + std::string(expected) + " or remove the key");
    return nullptr;
  }
  held_.push_back(value);
  return &held_.back();
}

std::optional<std::string> MapReader::scalar(const std::string& key, Requirement req,
                                             std::string_view expected) {
  const YAML::Node* value = lookup(key, req, expected);
  if (value == nullptr) {
    return std::nullopt;
  }
  if (!value->IsScalar()) {
    sink_->add("expected " + std::string(expected) + ", found " + describe_node(*value), value->Mark(),
               path_of(key));
    return std::nullopt;
  }
  return value->Scalar();
}

bool MapReader::refused_quoted(const std::string& key, const std::string& expected) const {
  const QuotedNumber quoted = quoted_number(node_[key], expected);
  if (quoted.problem.empty()) {
    return false;
  }
  error(key, quoted.problem, quoted.fix);
  return true;
}

std::optional<std::string> MapReader::string(const std::string& key, Requirement req) {
  return scalar(key, req, "a text value");
}

namespace {
bool in_range(double v, Range range) {
  switch (range) {
    case Range::kAny: return true;
    case Range::kNonNegative: return v >= 0.0;
    case Range::kPositive: return v > 0.0;
  }
  return true;
}
std::string range_words(Range range) {
  switch (range) {
    case Range::kAny: return "any value";
    case Range::kNonNegative: return "zero or more";
    case Range::kPositive: return "more than zero";
  }
  return "";
}
}  // namespace

std::optional<double> MapReader::quantity(const std::string& key, core::Dimension dimension, Range range,
                                          Requirement req) {
  const core::DimensionInfo info = core::describe(dimension);
  const bool vowel = !info.name.empty() && std::string_view("aeiou").find(info.name.front()) != std::string_view::npos;
  const std::string expected = (vowel ? "an " : "a ") + std::string(info.name) + " with its unit, such as " +
                               std::string(info.example);
  auto text = scalar(key, req, expected);
  if (!text) {
    return std::nullopt;
  }
  double value = 0.0;
  try {
    value = core::parse_quantity(*text, dimension);
  } catch (const core::UnitError& e) {
    // The UnitError text is "<problem>; <fix>" or a single sentence.
    const std::string what = e.what();
    const auto semi = what.find("; ");
    if (semi == std::string::npos) {
      error(key, what);
    } else {
      error(key, what.substr(0, semi), what.substr(semi));
    }
    return std::nullopt;
  }
  if (!in_range(value, range)) {
    error(key, "out-of-range " + std::string(info.name) + " '" + *text + "'",
          "; expected " + range_words(range));
    return std::nullopt;
  }
  return value;
}

std::optional<std::int64_t> MapReader::integer(const std::string& key, std::int64_t min_value,
                                               std::int64_t max_value, Requirement req) {
  const std::string expected = "a whole number from " + std::to_string(min_value) + " to " +
                               std::to_string(max_value);
  auto text = scalar(key, req, expected);
  if (!text || refused_quoted(key, expected)) {
    return std::nullopt;
  }
  std::int64_t value = 0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc{} || ptr != end) {
    error(key, "expected " + expected + ", found '" + *text + "'");
    return std::nullopt;
  }
  if (value < min_value || value > max_value) {
    error(key, "out-of-range value " + *text, "; expected " + expected);
    return std::nullopt;
  }
  return value;
}

std::optional<double> MapReader::number(const std::string& key, double min_value, double max_value,
                                        Requirement req) {
  std::ostringstream range_text;
  range_text << "a number from " << min_value << " to " << max_value;
  auto text = scalar(key, req, range_text.str());
  if (!text || refused_quoted(key, range_text.str())) {
    return std::nullopt;
  }
  double value = 0.0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc{} || ptr != end || !std::isfinite(value)) {
    error(key, "expected " + range_text.str() + ", found '" + *text + "'");
    return std::nullopt;
  }
  if (value < min_value || value > max_value) {
    error(key, "out-of-range value " + *text, "; expected " + range_text.str());
    return std::nullopt;
  }
  return value;
}

std::optional<bool> MapReader::boolean(const std::string& key, Requirement req) {
  auto text = scalar(key, req, "true or false");
  if (!text) {
    return std::nullopt;
  }
  if (*text == "true") return true;
  if (*text == "false") return false;
  error(key, "expected true or false, found '" + *text + "'");
  return std::nullopt;
}

std::optional<std::string> MapReader::choice(const std::string& key,
                                             const std::vector<std::string_view>& allowed,
                                             Requirement req, const std::vector<ChoiceAlias>& aliases) {
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    list += (i == 0 ? "" : (i + 1 == allowed.size() ? " or " : ", ")) + std::string(allowed[i]);
  }
  auto text = scalar(key, req, "one of " + list);
  if (!text) {
    return std::nullopt;
  }
  for (std::string_view a : allowed) {
    if (a == *text) {
      return text;
    }
  }
  // Aliases first: "fa3" is 3 edits from "flash3", too far for closest().
  std::string folded;
  for (const char c : *text) {
    if (c != '-' && c != '_' && c != '.' && c != ' ') {
      folded += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  for (const ChoiceAlias& alias : aliases) {
    if (alias.written == folded) {
      error(key, "unknown value '" + *text + "', expected one of " + list,
            core::did_you_mean({std::string(alias.meant)}));
      return std::nullopt;
    }
  }
  std::vector<std::string> candidates(allowed.begin(), allowed.end());
  const auto near = core::closest(*text, candidates);
  error(key, "unknown value '" + *text + "', expected one of " + list, core::did_you_mean(near));
  return std::nullopt;
}

std::optional<MapReader> MapReader::map(const std::string& key, Requirement req) {
  const YAML::Node* value = lookup(key, req, "a mapping of keys");
  if (value == nullptr) {
    return std::nullopt;
  }
  MapReader child(*value, path_of(key), *sink_, value->Mark());
  if (!child.valid()) {
    return std::nullopt;
  }
  return child;
}

YAML::Node MapReader::raw(const std::string& key) {
  known_.push_back(key);
  if (!valid_) {
    return YAML::Node(YAML::NodeType::Undefined);
  }
  return node_[key];
}

void MapReader::declare(const std::vector<std::string>& keys) {
  known_.insert(known_.end(), keys.begin(), keys.end());
}

namespace {

/// The fix of an unknown `key` of the mapping at `key_path` that reads `known`: the closest
/// known key (core::closest); else a known key that `key` ends with after an underscore
/// (peft's lora_alpha is alpha); else, in a section of the scenario schema, the schema paths
/// that end with `key` elsewhere ("did you mean training.fine_tuning?" under hardware).
std::string unknown_key_fix(const std::string& key, const std::string& key_path, const std::vector<std::string>& known) {
  std::vector<std::string> suggestions = core::closest(key, known, 2, 1);
  for (const std::string& k : known) {
    if (suggestions.empty() && k.size() >= 3 && key.size() > k.size() + 1 && key.ends_with("_" + k)) {
      suggestions.push_back(k);
    }
  }
  if (!suggestions.empty() || key_path.empty()) return core::did_you_mean(suggestions);
  const std::vector<SchemaPath> schema = schema_paths();
  const bool scenario_section = std::any_of(schema.begin(), schema.end(), [&key_path](const SchemaPath& p) {
    return p.path == key_path && p.section;
  });
  if (!scenario_section) return "";
  for (const SchemaPath& p : schema) {
    if (!p.file_level && suggestions.size() < 3 && (p.path == key || p.path.ends_with("." + key))) {
      suggestions.push_back(p.path);
    }
  }
  return core::did_you_mean(suggestions);
}

}  // namespace

void MapReader::finish() {
  if (!valid_) {
    return;
  }
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
    bool known = false;
    for (const auto& k : known_) {
      if (k == key) {
        known = true;
        break;
      }
    }
    if (!known) {
      std::vector<std::string> unique;
      for (const auto& k : known_) {
        if (std::find(unique.begin(), unique.end(), k) == unique.end()) unique.push_back(k);
      }
      sink_->add("unknown key '" + key + "'", it->first.Mark(), path_of(key), unknown_key_fix(key, key_path_, unique));
    }
  }
}

}  // namespace gpuplan::config

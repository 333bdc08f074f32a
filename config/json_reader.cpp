#include "config/json_reader.h"

#include <algorithm>
#include <cmath>

#include "config/config_error.h"
#include "config/input_text.h"
#include "core/text_distance.h"

namespace gpuplan::config {

nlohmann::json parse_json_text(const std::string& text, const std::string& file, const std::string& fix) {
  check_input_text(text, file);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::out_of_range& e) {
    // 406: "number overflow parsing '1e400'"; nlohmann gives no position, so the number's
    // first occurrence in the text stands for it.
    std::string number = e.what();
    const std::size_t open = number.find('\'');
    const std::size_t close = number.rfind('\'');
    number = open != std::string::npos && close > open ? number.substr(open + 1, close - open - 1) : "";
    const std::size_t at = number.empty() ? std::string::npos : text.find(number);
    const SourceMark mark = at == std::string::npos ? SourceMark{file, 0, 0} : position_of(text, at, file);
    throw ConfigError(format_diagnostic("number " + (number.empty() ? std::string("") : "'" + number + "' ") +
                                            "outside the range of a double (about 1.8e308)",
                                        mark, "", fix));
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based offset of the last byte read; turn it into line:column.
    SourceMark mark{file, 1, 1};
    const std::size_t end = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    for (std::size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++mark.line;
        mark.column = 1;
      } else {
        ++mark.column;
      }
    }
    // nlohmann's what(): "[json.exception.parse_error.101] parse error at line 3, column 5:
    // syntax error while parsing object - ..."; keep the part after "syntax error".
    std::string reason = e.what();
    if (const std::size_t at = reason.find("syntax error"); at != std::string::npos) {
      reason = reason.substr(at);
    }
    throw ConfigError(format_diagnostic("malformed JSON: " + reason, mark, "", fix));
  }
}

void JsonErrors::add(const std::string& problem, const std::string& key_path, const std::string& fix) {
  messages_.push_back(format_diagnostic(problem, SourceMark{file_, 0, 0}, key_path, fix));
}

void JsonErrors::throw_if_any() const {
  if (!messages_.empty()) {
    throw ConfigError(messages_);
  }
}

std::string describe_json(const nlohmann::json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  return "null";
}

JsonObjectReader::JsonObjectReader(const nlohmann::json& value, std::string key_path, JsonErrors& errors)
    : value_(&value), key_path_(std::move(key_path)), errors_(&errors) {
  if (!value.is_object()) {
    valid_ = false;
    errors_->add("expected an object, found " + describe_json(value), key_path_.empty() ? "top level" : key_path_);
  }
}

bool JsonObjectReader::has(const std::string& key) const { return valid_ && value_->contains(key); }

std::string JsonObjectReader::path_of(const std::string& key) const {
  return key_path_.empty() ? key : key_path_ + "." + key;
}

void JsonObjectReader::declare(const std::vector<std::string>& keys) {
  known_.insert(known_.end(), keys.begin(), keys.end());
}

void JsonObjectReader::error(const std::string& key, const std::string& problem, const std::string& fix) {
  errors_->add(problem, path_of(key), fix);
}

const nlohmann::json* JsonObjectReader::raw(const std::string& key, bool required, const char* expected) {
  known_.push_back(key);
  if (!valid_) {
    return nullptr;
  }
  const auto it = value_->find(key);
  if (it == value_->end()) {
    if (required) {
      errors_->add("missing key '" + key + "'", path_of(key),
                   std::string("; add \"") + key + "\": " + expected);
    }
    return nullptr;
  }
  return &*it;
}

std::optional<std::string> JsonObjectReader::string(const std::string& key, bool required) {
  const nlohmann::json* v = raw(key, required, "a string");
  if (v == nullptr) {
    return std::nullopt;
  }
  if (!v->is_string()) {
    error(key, "expected a string, found " + describe_json(*v));
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::optional<double> JsonObjectReader::number(const std::string& key, bool required, bool positive) {
  const nlohmann::json* v = raw(key, required, positive ? "a number above zero" : "a number");
  if (v == nullptr) {
    return std::nullopt;
  }
  if (!v->is_number()) {
    error(key, "expected a number, found " + describe_json(*v));
    return std::nullopt;
  }
  const double x = v->get<double>();
  if (!std::isfinite(x) || x < 0.0 || (positive && x == 0.0)) {
    error(key, "expected a number " + std::string(positive ? "above zero" : "of zero or more") + ", found " +
                   v->dump());
    return std::nullopt;
  }
  if (x > kMaxJsonNumber) {
    error(key, "out-of-range number " + v->dump() + ": no measured quantity reaches 1e18 in SI units",
          "; produce the file again (cuda_probe -o FILE, gpuplan calibrate)");
    return std::nullopt;
  }
  return x;
}

std::optional<std::int64_t> JsonObjectReader::integer(const std::string& key, bool required, std::int64_t min_value) {
  const nlohmann::json* v = raw(key, required, "an integer");
  if (v == nullptr) {
    return std::nullopt;
  }
  if (!v->is_number_integer() || v->get<std::int64_t>() < min_value) {
    error(key, "expected an integer of at least " + std::to_string(min_value) + ", found " + v->dump());
    return std::nullopt;
  }
  return v->get<std::int64_t>();
}

void JsonObjectReader::finish() {
  if (!valid_) {
    return;
  }
  for (const auto& [key, value] : value_->items()) {
    if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
      errors_->add("unknown key '" + key + "'", path_of(key), core::did_you_mean(core::closest(key, known_)));
    }
  }
}

}  // namespace gpuplan::config

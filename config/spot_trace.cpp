#include "config/spot_trace.h"

#include <nlohmann/json.hpp>

#include "config/config_error.h"
#include "config/yaml_reader.h"

namespace gpuplan::config {

models::AvailabilityTrace read_spot_trace(const std::string& path) {
  return parse_spot_trace(read_text_file(path), path);
}

models::AvailabilityTrace parse_spot_trace(const std::string& json_text, const std::string& file_name) {
  const auto fail = [&](const std::string& problem) {
    throw ConfigError(file_name + ": " + problem +
                       "; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, "
                       "\"data\": [1, 1, 0, ...]}");
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    fail(std::string("not valid JSON (") + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("metadata") || !j["metadata"].is_object() ||
      !j["metadata"].contains("gap_seconds") || !j["metadata"]["gap_seconds"].is_number()) {
    fail("missing metadata.gap_seconds");
  }
  models::AvailabilityTrace t;
  t.source = file_name;
  t.gap_s = j["metadata"]["gap_seconds"].get<double>();
  if (!(t.gap_s > 0.0)) {
    fail("metadata.gap_seconds must be positive");
  }
  if (!j.contains("data") || !j["data"].is_array() || j["data"].empty()) {
    fail("missing or empty data array");
  }
  t.alive.reserve(j["data"].size());
  for (std::size_t i = 0; i < j["data"].size(); ++i) {
    const auto& v = j["data"][i];
    if (!v.is_number_integer() || v.get<long long>() < 0) {
      fail("data[" + std::to_string(i) + "] is not a non-negative integer count");
    }
    t.alive.push_back(static_cast<int>(v.get<long long>()));
  }
  return t;
}

}  // namespace gpuplan::config

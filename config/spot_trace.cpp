#include "config/spot_trace.h"

#include <nlohmann/json.hpp>

#include "config/config_error.h"
#include "config/json_reader.h"
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
  const nlohmann::json j =
      parse_json_text(json_text, file_name,
                      "; expected SkyPilot spot-traces JSON: {\"metadata\": {\"gap_seconds\": 600}, \"data\": [1, 1, 0, ...]}");
  if (!j.is_object() || !j.contains("metadata") || !j["metadata"].is_object() ||
      !j["metadata"].contains("gap_seconds")) {
    fail("missing metadata.gap_seconds");
  }
  if (!j["metadata"]["gap_seconds"].is_number()) {
    fail("metadata.gap_seconds is " + describe_json(j["metadata"]["gap_seconds"]) + ", not a number");
  }
  models::AvailabilityTrace t;
  t.source = file_name;
  t.gap_s = j["metadata"]["gap_seconds"].get<double>();
  if (!(t.gap_s >= kMinSpotTraceGapS && t.gap_s <= kMaxSpotTraceGapS)) {
    fail("metadata.gap_seconds must be from 1 to 10,000,000 (seconds between probes), found " +
         j["metadata"]["gap_seconds"].dump());
  }
  if (!j.contains("data") || !j["data"].is_array() || j["data"].empty()) {
    fail("missing or empty data array");
  }
  t.alive.reserve(j["data"].size());
  for (std::size_t i = 0; i < j["data"].size(); ++i) {
    const auto& v = j["data"][i];
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > kMaxSpotTraceCount) {
      fail("data[" + std::to_string(i) + "] is not a count of instances from 0 to 1,000,000, found " + v.dump());
    }
    t.alive.push_back(static_cast<int>(v.get<long long>()));
  }
  return t;
}

}  // namespace gpuplan::config

// The generated scenario reference (config/scenario_schema_docs.h) against the schema table
// and the readers: every key documented, no stray entry, the integer ranges the ones the
// readers enforce, and docs/scenario-format.md and docs/scenario.schema.json up to date
// (GPUPLAN_UPDATE_GOLDEN=1 rewrites them).
#include "config/scenario_schema_docs.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "config/overrides.h"
#include "config_fixture.h"

namespace gpuplan::config {
namespace {

using namespace testing;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void check_shipped(const std::string& relative, const std::string& generated) {
  const std::string path = std::string(GPUPLAN_SOURCE_DIR) + "/" + relative;
  if (std::getenv("GPUPLAN_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << generated;
  }
  CAPTURE(relative);
  const std::string hint = "out of date: regenerate with GPUPLAN_UPDATE_GOLDEN=1 ./tests/config_tests -ts=config.schema_docs";
  CHECK_MESSAGE(read_file(path) == generated, hint);
}

/// A strategy body that sets `path` to `value`, with the mapping its parent needs.
std::string probe_body(const std::string& path, const std::string& value) {
  if (path.starts_with("hardware.storage.")) {
    return "hardware.storage: {read_bandwidth: \"1 GB/s\", write_bandwidth: \"1 GB/s\", latency: \"1 ms\", " +
           path.substr(17) + ": " + value + "}";
  }
  if (path.starts_with("hardware.network.")) {
    return "hardware.network: {bandwidth: \"100 Gbit/s\", " + path.substr(17) + ": " + value + "}";
  }
  if (path == "workload.sequence_length") {
    return "workload.model: bert-large\n    workload.sequence_length: " + value;
  }
  return path + ": " + value;
}

}  // namespace

TEST_SUITE("config.schema_docs") {
  TEST_CASE("every key of the schema table is documented, in its order, and nothing else is") {
    std::vector<std::string> table;
    for (const SchemaPath& p : schema_paths()) table.push_back(p.path);
    std::vector<std::string> documented;
    for (const KeyDoc& d : key_docs()) documented.emplace_back(d.path);
    CHECK(documented == table);
    for (const KeyDoc& d : key_docs()) {
      CAPTURE(d.path);
      CHECK_FALSE(d.meaning.empty());
      if (d.type == KeyType::kChoice) CHECK((d.choices != nullptr));
      CHECK((d.type == KeyType::kInteger) == (d.min.has_value() && d.max.has_value()));
    }
  }

  TEST_CASE("each integer range is the one its reader enforces (the reader's own error names its bounds)") {
    int probed = 0;
    for (const KeyDoc& d : key_docs()) {
      if (d.type != KeyType::kInteger) continue;
      const std::string path(d.path);
      CAPTURE(path);
      const std::string expected =
          "; expected a whole number from " + std::to_string(*d.min) + " to " + std::to_string(*d.max);
      const bool above = *d.max < INT64_MAX;
      const std::string value = above ? std::to_string(*d.max + 1) : std::to_string(*d.min - 1);
      std::string text;
      if (path == "seed") {
        text = with_replaced(kMinimalScenario, "seed: 42", "seed: " + value);
      } else {
        text = std::string(kMinimalScenario) + "strategies:\n  probe:\n    " + probe_body(path, value) + "\n";
      }
      const std::string error = error_of([&] { parse_text(text); });
      CAPTURE(error);
      CHECK(error.find("out-of-range value " + value) != std::string::npos);
      // In a strategy the key path is "strategies.probe.<path>".
      CHECK(error.find((path == "seed" ? "(" : ".") + path + ")" + expected) != std::string::npos);
      ++probed;
    }
    CHECK(probed == 21);  // pipeline_parallel, virtual_stages, context_parallel and expert_parallel added
  }

  TEST_CASE("choices come from the readers: a wrong name lists exactly the documented ones") {
    for (const KeyDoc& d : key_docs()) {
      if (d.type != KeyType::kChoice || d.path.starts_with("hardware.network.")) continue;
      CAPTURE(d.path);
      const std::string text =
          std::string(kMinimalScenario) + "strategies:\n  probe:\n    " + std::string(d.path) + ": zzz_not_a_name\n";
      const std::string error = error_of([&] { parse_text(text); });
      CAPTURE(error);
      CHECK(error.find("(strategies.probe." + std::string(d.path) + ")") != std::string::npos);
      for (std::string_view name : d.choices()) {
        if (d.path == "hardware.gpu_interconnect") break;  // a long list, shortened in the message
        CHECK(error.find(std::string(name)) != std::string::npos);
      }
    }
  }

  TEST_CASE("docs/scenario-format.md and docs/scenario.schema.json are what the table generates") {
    const std::string markdown = scenario_format_markdown();
    CHECK(markdown.find("| `training.batch_size` | integer | samples | required | 1 to 1000000 |") !=
          std::string::npos);
    CHECK(markdown.find("| `cloud.zone` |") != std::string::npos);
    check_shipped("docs/scenario-format.md", markdown);
    const std::string schema = scenario_json_schema();
    CHECK(schema.find("\"$schema\": \"https://json-schema.org/draft/2020-12/schema\"") != std::string::npos);
    CHECK(schema.find("\"type\": \"integer\",\n          \"minimum\": 1,\n          \"maximum\": 1000000\n") !=
          std::string::npos);
    CHECK(schema.find("\"write_bandwidth\": {") != std::string::npos);
    check_shipped("docs/scenario.schema.json", schema);
  }
}

}  // namespace gpuplan::config

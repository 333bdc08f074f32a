// Whole numbers of an inline model's architecture keys past what a count can hold (a
// tester's report: `kv_heads: 9.3e18` wrapped to -2^63 and hung the divisor search,
// `layers: 1e19` reached the engine as an empty plan, `head_dim: 1e19` silently became
// hidden / heads), and the dataset's evaluation keys without eval_samples. Every one is an
// error at the key, with the whole message asserted.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "config_fixture.h"

namespace gpuplan::config {
namespace {

using testing::Messages;
using testing::scenario_errors;

/// The other keys of a small valid decoder, without `key`.
std::string other_keys(const std::string& key) {
  std::string text;
  for (const char* entry : {"layers: 2", "hidden: 256", "heads: 4", "ffn_hidden: 1024", "vocab: 1000"}) {
    if (std::string(entry).rfind(key + ":", 0) == 0) continue;
    text += std::string(", ") + entry;
  }
  return text;
}

/// A synthetic-data decoder scenario whose inline model starts with `key: value` on line 4.
std::string decoder_with(const std::string& key, const std::string& value) {
  return "format: gpuplan/v1\n"
         "workload:\n"
         "  dataset: {samples: 1000, synthetic: true}\n"
         "  model: {family: transformer_decoder, " +
         key + ": " + value + other_keys(key) +
         "}\n"
         "  sequence_length: 128\n"
         "  epochs: 1\n"
         "training: {batch_size: 8}\n"
         "hardware: {gpu: t4}\n";
}

/// The 1-based column of the value of decoder_with(key, ...) on line 4.
int column_of(const std::string& key) {
  return static_cast<int>(std::string("  model: {family: transformer_decoder, " + key + ": ").size()) + 1;
}

TEST_SUITE("config.inline_model_bounds") {
  TEST_CASE("a count past 2^53 or below its minimum is out of range at the key, before any conversion") {
    // 2^63 = 9223372036854775808 and 1e19 wrapped to -2^63 as long long; 1e30 is past any
    // integer type; -1e19 is below every minimum. 2^53 = 9007199254740992 is the largest
    // whole number a double (ArchitectureValues) holds exactly; 2^53 + 1 rounds to it as a double,
    // so the digits are compared as written.
    for (const std::string key : {"heads", "kv_heads", "ffn_hidden", "vocab"}) {
      for (const std::string value : {"9223372036854775808", "1e19", "1e30", "-1e19", "9.3e18", "9007199254740993"}) {
        CAPTURE(key);
        CAPTURE(value);
        CHECK(scenario_errors(decoder_with(key, value)) ==
              Messages{"out-of-range value " + value + " at s.yaml:4:" + std::to_string(column_of(key)) +
                       " (workload.model." + key + "); expected a whole number from 1 to 9007199254740992"});
      }
    }
  }

  TEST_CASE("the conv-net keys (resnet groups, efficientnet multipliers) are refused at file:line:column with a fix") {
    const auto conv_net = [](const std::string& model) {
      return "format: gpuplan/v1\n"
             "workload:\n"
             "  dataset: {samples: 1000, synthetic: true}\n"
             "  model: " +
             model +
             "\n"
             "  epochs: 1\n"
             "training: {batch_size: 8}\n"
             "hardware: {gpu: t4}\n";
    };
    CHECK(scenario_errors(conv_net("{family: resnet, depth: 50, groups: 2000}")) ==
          Messages{"out-of-range value 2000 at s.yaml:4:46 (workload.model.groups); expected a whole number from 1 to "
                   "1024"});
    CHECK(scenario_errors(conv_net("{family: efficientnet, width_multiplier: [1.2]}")) ==
          Messages{"expected a number for width_multiplier, found a sequence at s.yaml:4:51 "
                   "(workload.model.width_multiplier); write width_multiplier: 1, for example (channel multiplier over "
                   "B0's (Tan & Le 2019, sec. 3.3): B0 1.0, B1 1.0, B2 1.1, B3 1.2, B4 1.4, B5 1.6, B6 1.8, B7 2.0)"});
    CHECK(scenario_errors(conv_net("{family: resnet, depth: 18, groups: 32}")).size() == 1);
    CHECK(scenario_errors(conv_net("{family: resnet, depth: 18, groups: 32}")).front().find(
              "(workload.model.groups); remove groups and width_per_group, or use depth 50, 101 or 152") !=
          std::string::npos);
  }

  TEST_CASE("layers: 1 to 65536 (the op table holds every layer: 1e9 exhausted memory)") {
    for (const std::string value : {"1e19", "9223372036854775808", "1e30", "-1e19", "1e9", "65537", "0"}) {
      CAPTURE(value);
      CHECK(scenario_errors(decoder_with("layers", value)) ==
            Messages{"out-of-range value " + value + " at s.yaml:4:" + std::to_string(column_of("layers")) +
                     " (workload.model.layers); expected a whole number from 1 to 65536"});
    }
  }

  TEST_CASE("head_dim: 0 (hidden / heads) to 65536, with the range as the fix") {
    for (const std::string value : {"1e19", "1e30", "9223372036854775808", "1e15", "65537", "-64"}) {
      CAPTURE(value);
      CHECK(scenario_errors(decoder_with("head_dim", value)) ==
            Messages{"out-of-range value " + value + " at s.yaml:4:" + std::to_string(column_of("head_dim")) +
                     " (workload.model.head_dim); expected a whole number from 0 to 65536"});
    }
    CHECK(scenario_errors(decoder_with("head_dim", "big")) ==
          Messages{"expected a whole number from 0 to 65536 for head_dim, found 'big' at s.yaml:4:" +
                   std::to_string(column_of("head_dim")) +
                   " (workload.model.head_dim); write head_dim: 0, for example (dimensions per attention head; 0 = "
                   "hidden / heads (Gemma 2: 256 with hidden 3584 and 16 heads, the out projection mapping heads x "
                   "head_dim back to hidden))"});
    // A sequence where a number belongs: the same fix (from a helper's trial, 2026-12-07).
    CHECK(scenario_errors(decoder_with("head_dim", "[64]")) ==
          Messages{"expected a number for head_dim, found a sequence at s.yaml:4:" +
                   std::to_string(column_of("head_dim")) +
                   " (workload.model.head_dim); write head_dim: 0, for example (dimensions per attention head; 0 = "
                   "hidden / heads (Gemma 2: 256 with hidden 3584 and 16 heads, the out projection mapping heads x "
                   "head_dim back to hidden))"});
    CHECK(scenario_errors(decoder_with("head_dim", "64.5")) ==
          Messages{"head_dim must be a whole number, got 64.5 at s.yaml:4:" + std::to_string(column_of("head_dim")) +
                   " (workload.model.head_dim); expected a whole number from 0 to 65536"});
    // 65536 itself is accepted (the bound is inclusive).
    CHECK_NOTHROW(testing::parse_text(decoder_with("head_dim", "65536")));
  }

  TEST_CASE("an architecture number with a leading zero is refused as ambiguous, as workload's numbers are") {
    // hidden: 0256 was read as 256; YAML 1.1 reads it as octal 174.
    CHECK(scenario_errors(decoder_with("hidden", "0256")) ==
          Messages{"expected a whole number from 1 to 9007199254740992 for hidden, found '0256' at s.yaml:4:" +
                   std::to_string(column_of("hidden")) +
                   " (workload.model.hidden); write 256 (a leading zero is ambiguous: YAML 1.1 reads 0256 as octal "
                   "174, YAML 1.2 as 256; write numbers without leading zeros)"});
    CHECK(scenario_errors(decoder_with("layers", "070000")) ==
          Messages{"expected a whole number from 1 to 65536 for layers, found '070000' at s.yaml:4:" +
                   std::to_string(column_of("layers")) +
                   " (workload.model.layers); 070000 is 70000, out of range: write a whole number from 1 to 65536 (a "
                   "leading zero is ambiguous: YAML 1.1 reads 070000 as octal 28672, YAML 1.2 as 70000; write numbers "
                   "without leading zeros)"});
    CHECK_NOTHROW(testing::parse_text(decoder_with("hidden", "256")));
  }

  TEST_CASE("a real parameter keeps its own range") {
    CHECK(scenario_errors(decoder_with("dropout", "1.5")) ==
          Messages{"out-of-range value 1.5 at s.yaml:4:" + std::to_string(column_of("dropout")) +
                   " (workload.model.dropout); expected a number from 0 to 1"});
  }
}

}  // namespace
}  // namespace gpuplan::config

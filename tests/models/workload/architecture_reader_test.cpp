#include "models/workload/architecture_reader.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace gpuplan::models {

namespace {

std::vector<ArchitectureParameter> example_parameters() {
  return {
      required_count("layers", "transformer layers"),
      required_count("heads", "attention heads"),
      count_defaulting_to("kv_heads", "key/value heads", "heads"),
      count_with_default("image_size", "pixels", 224, 32),
      choice_parameter("mlp", "feed-forward block", {"gelu", "swiglu"}, 1),
      flag_parameter("bias", "biases", false),
      real_parameter("dropout", "dropout probability", 0.0, 0.0, 1.0),
  };
}

/// The message of the WorkloadError that reading `values` throws, and its parameter.
std::pair<std::string, std::string> error_of(const ArchitectureValues& values) {
  try {
    const ArchitectureReader reader("example", example_parameters(), values);
  } catch (const WorkloadError& error) {
    return {error.parameter(), error.what()};
  }
  return {"", "no error"};
}

}  // namespace

TEST_SUITE("models.workload.architecture_reader") {
  TEST_CASE("defaults fill in, including a default taken from another parameter") {
    const ArchitectureReader reader("example", example_parameters(), {{"layers", 2}, {"heads", 8}});
    CHECK(reader.count("layers") == 2);
    CHECK(reader.count("kv_heads") == 8);  // = heads
    CHECK(reader.value("image_size") == 224.0);
    CHECK(reader.choice("mlp") == 1);  // swiglu
    CHECK_FALSE(reader.flag("bias"));
    CHECK(reader.value("dropout") == 0.0);
    CHECK(reader.values().size() == 7);
  }

  TEST_CASE("given values win over defaults") {
    const ArchitectureReader reader(
        "example", example_parameters(),
        {{"layers", 2}, {"heads", 8}, {"kv_heads", 2}, {"bias", 1}, {"dropout", 0.1}});
    CHECK(reader.count("kv_heads") == 2);
    CHECK(reader.flag("bias"));
    CHECK(reader.value("dropout") == doctest::Approx(0.1));
  }

  TEST_CASE("required() is true only without any default") {
    const std::vector<ArchitectureParameter> parameters = example_parameters();
    CHECK(parameters[0].required());
    CHECK_FALSE(parameters[2].required());  // kv_heads defaults to heads
    CHECK_FALSE(parameters[3].required());
  }

  TEST_CASE("reading an undeclared parameter is a programming error") {
    const ArchitectureReader reader("example", example_parameters(), {{"layers", 2}, {"heads", 8}});
    CHECK_THROWS_AS(reader.value("hidden"), std::logic_error);
  }

  TEST_CASE("error messages name the parameter and say how to fix it") {
    CHECK(error_of({{"heads", 8}}) ==
          std::pair<std::string, std::string>{
              "layers",
              "missing parameter 'layers' of example (transformer layers); add 'layers: <value>' "
              "to the model"});
    CHECK(error_of({{"layers", 2}, {"heads", 8}, {"layer", 3}}) ==
          std::pair<std::string, std::string>{
              "layer", "unknown parameter 'layer' of example; did you mean layers?"});
    CHECK(error_of({{"layers", 2}, {"heads", 8}, {"colour", 3}}) ==
          std::pair<std::string, std::string>{
              "colour",
              "unknown parameter 'colour' of example; accepted parameters: layers, heads, "
              "kv_heads, image_size, mlp, bias, dropout"});
    CHECK(error_of({{"layers", 2.5}, {"heads", 8}}) ==
          std::pair<std::string, std::string>{"layers", "layers must be a whole number, got 2.5"});
    CHECK(error_of({{"layers", 0}, {"heads", 8}}) ==
          std::pair<std::string, std::string>{"layers", "layers must be at least 1, got 0"});
    CHECK(error_of({{"layers", 2}, {"heads", 8}, {"image_size", 16}}) ==
          std::pair<std::string, std::string>{"image_size",
                                              "image_size must be at least 32, got 16"});
    CHECK(error_of({{"layers", 2}, {"heads", 8}, {"dropout", 1.5}}) ==
          std::pair<std::string, std::string>{"dropout", "dropout must be at most 1, got 1.5"});
    CHECK(error_of({{"layers", 2}, {"heads", 8}, {"mlp", 2}}) ==
          std::pair<std::string, std::string>{
              "mlp", "mlp must be one of gelu, swiglu (encoded 0 to 1), got 2"});
  }

  TEST_CASE("encode_choice maps a name to its index or lists the accepted names") {
    const std::vector<ArchitectureParameter> parameters = example_parameters();
    CHECK(encode_choice(parameters[4], "gelu") == 0.0);
    CHECK(encode_choice(parameters[4], "swiglu") == 1.0);
    CHECK(encode_choice(parameters[5], "true") == 1.0);
    try {
      encode_choice(parameters[4], "relu");
      FAIL("no error");
    } catch (const WorkloadError& error) {
      CHECK(error.parameter() == "mlp");
      // relu is two edits from gelu (core::closest's reach): suggested.
      CHECK(std::string(error.what()) == "unknown mlp 'relu'; expected one of gelu, swiglu; did you mean gelu?");
    }
    try {
      encode_choice(parameters[4], "swiglo");
      FAIL("no error");
    } catch (const WorkloadError& error) {
      CHECK(std::string(error.what()) == "unknown mlp 'swiglo'; expected one of gelu, swiglu; did you mean swiglu?");
    }
    try {
      encode_choice(parameters[4], "mixture");
      FAIL("no error");
    } catch (const WorkloadError& error) {
      CHECK(std::string(error.what()) == "unknown mlp 'mixture'; expected one of gelu, swiglu");
    }
    try {
      encode_choice(parameters[0], "many");
      FAIL("no error");
    } catch (const WorkloadError& error) {
      CHECK(std::string(error.what()) == "layers takes a number, not 'many'");
    }
  }

  TEST_CASE("values print without a fraction when whole") {
    CHECK(format_architecture_value(4096.0) == "4096");
    CHECK(format_architecture_value(0.1) == "0.1");
    CHECK(format_architecture_value(-2.0) == "-2");
  }

}  // TEST_SUITE

}  // namespace gpuplan::models

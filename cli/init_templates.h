#pragma once
/// \file init_templates.h
/// The starter scenarios `gpuplan init --template NAME` writes: each a commented, valid
/// `format: gpuplan/v1` file that runs as it is (tests/cli/init_test.cpp loads and runs each).

#include <string>
#include <vector>

namespace gpuplan::cli {

/// One starter scenario.
struct InitTemplate {
  std::string name;     ///< what --template takes: "resnet", "llm"
  std::string summary;  ///< one line for --help
  std::string text;     ///< the scenario file
};

/// Every template, sorted by name; "resnet" is the default (kDefaultInitTemplate).
const std::vector<InitTemplate>& init_templates();

/// The template `gpuplan init` writes without --template.
inline constexpr const char* kDefaultInitTemplate = "resnet";

/// The template called `name`. Throws std::invalid_argument naming the known templates and the
/// command that picks one when there is none of that name.
const InitTemplate& init_template(const std::string& name);

/// The default (ResNet-50 on ImageNet) starter scenario's text.
std::string starter_scenario();

}  // namespace gpuplan::cli

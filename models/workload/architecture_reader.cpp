#include "models/workload/architecture_reader.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

#include "core/text_distance.h"

namespace gpuplan::models {

namespace {

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) {
    out += (out.empty() ? "" : ", ") + word;
  }
  return out;
}

const ArchitectureParameter* find_parameter(const std::vector<ArchitectureParameter>& parameters,
                                            const std::string& name) {
  for (const ArchitectureParameter& parameter : parameters) {
    if (parameter.name == name) {
      return &parameter;
    }
  }
  return nullptr;
}

void check_value(const ArchitectureParameter& parameter, double value) {
  const std::string& name = parameter.name;
  if (!std::isfinite(value)) {
    throw WorkloadError(name,
                        name + " must be a finite number, got " + format_architecture_value(value));
  }
  if (parameter.integer && value != std::floor(value)) {
    throw WorkloadError(name,
                        name + " must be a whole number, got " + format_architecture_value(value));
  }
  if (!parameter.choices.empty()) {
    const double last = static_cast<double>(parameter.choices.size() - 1);
    if (value < 0 || value > last) {
      throw WorkloadError(name, name + " must be one of " + join(parameter.choices) +
                                    " (encoded 0 to " + format_architecture_value(last) +
                                    "), got " + format_architecture_value(value));
    }
    return;
  }
  if (value < parameter.min_value) {
    throw WorkloadError(name, name + " must be at least " +
                                  format_architecture_value(parameter.min_value) + ", got " +
                                  format_architecture_value(value));
  }
  if (value > largest_accepted(parameter)) {
    throw WorkloadError(name, name + " must be at most " +
                                  format_architecture_value(largest_accepted(parameter)) + ", got " +
                                  format_architecture_value(value));
  }
}

}  // namespace

double largest_accepted(const ArchitectureParameter& parameter) {
  if (parameter.max_value) {
    return *parameter.max_value;
  }
  return parameter.integer ? kMaxArchitectureCount : std::numeric_limits<double>::infinity();
}

std::string format_architecture_value(double value) {
  char buffer[64];
  if (std::isfinite(value) && value == std::floor(value) &&
      std::fabs(value) <= std::ldexp(1.0, 53)) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%g", value);
  }
  return buffer;
}

ArchitectureParameter required_count(std::string name, std::string summary) {
  ArchitectureParameter parameter;
  parameter.name = std::move(name);
  parameter.summary = std::move(summary);
  return parameter;
}

ArchitectureParameter count_with_default(std::string name, std::string summary,
                                         double default_value, double min_value) {
  ArchitectureParameter parameter = required_count(std::move(name), std::move(summary));
  parameter.default_value = default_value;
  parameter.min_value = min_value;
  return parameter;
}

ArchitectureParameter count_defaulting_to(std::string name, std::string summary, std::string from) {
  ArchitectureParameter parameter = required_count(std::move(name), std::move(summary));
  parameter.default_from = std::move(from);
  return parameter;
}

ArchitectureParameter choice_parameter(std::string name, std::string summary,
                                       std::vector<std::string> choices,
                                       std::size_t default_index) {
  ArchitectureParameter parameter = required_count(std::move(name), std::move(summary));
  parameter.default_value = static_cast<double>(default_index);
  parameter.min_value = 0;
  parameter.max_value = static_cast<double>(choices.size() - 1);
  parameter.choices = std::move(choices);
  return parameter;
}

ArchitectureParameter flag_parameter(std::string name, std::string summary, bool default_value) {
  return choice_parameter(std::move(name), std::move(summary), {"false", "true"},
                          default_value ? 1 : 0);
}

ArchitectureParameter real_parameter(std::string name, std::string summary, double default_value,
                                     double min_value, double max_value) {
  ArchitectureParameter parameter = required_count(std::move(name), std::move(summary));
  parameter.default_value = default_value;
  parameter.integer = false;
  parameter.min_value = min_value;
  parameter.max_value = max_value;
  return parameter;
}

ArchitectureReader::ArchitectureReader(std::string family,
                                       std::vector<ArchitectureParameter> parameters,
                                       const ArchitectureValues& values)
    : family_(std::move(family)), parameters_(std::move(parameters)) {
  std::vector<std::string> names;
  for (const ArchitectureParameter& parameter : parameters_) {
    names.push_back(parameter.name);
  }
  for (const auto& [key, value] : values) {
    if (find_parameter(parameters_, key) == nullptr) {
      const std::vector<std::string> close = core::closest(key, names);
      const std::string fix =
          close.empty() ? "; accepted parameters: " + join(names) : core::did_you_mean(close);
      throw WorkloadError(key, "unknown parameter '" + key + "' of " + family_ + fix);
    }
  }
  for (const ArchitectureParameter& parameter : parameters_) {
    const auto given = values.find(parameter.name);
    double value = 0.0;
    if (given != values.end()) {
      value = given->second;
    } else if (parameter.default_value) {
      value = *parameter.default_value;
    } else if (!parameter.default_from.empty()) {
      const auto from = resolved_.find(parameter.default_from);
      if (from == resolved_.end()) {
        throw std::logic_error("parameter '" + parameter.name + "' of " + family_ +
                               " defaults to '" + parameter.default_from +
                               "', which is not declared before it");
      }
      value = from->second;
    } else {
      throw WorkloadError(parameter.name, "missing parameter '" + parameter.name + "' of " +
                                              family_ + " (" + parameter.summary + "); add '" +
                                              parameter.name + ": <value>' to the model");
    }
    check_value(parameter, value);
    resolved_[parameter.name] = value;
  }
}

double ArchitectureReader::value(const std::string& name) const {
  const auto it = resolved_.find(name);
  if (it == resolved_.end()) {
    throw std::logic_error("workload family " + family_ + " read undeclared parameter '" + name +
                           "'");
  }
  return it->second;
}

long long ArchitectureReader::count(const std::string& name) const {
  return static_cast<long long>(value(name));
}

std::size_t ArchitectureReader::choice(const std::string& name) const {
  return static_cast<std::size_t>(value(name));
}

bool ArchitectureReader::flag(const std::string& name) const { return value(name) == 1.0; }

}  // namespace gpuplan::models

#include "models/workload/workload_family.h"

#include <utility>

#include "core/text_distance.h"

namespace gpuplan::models {

WorkloadError::WorkloadError(std::string parameter, const std::string& message)
    : std::invalid_argument(message), parameter_(std::move(parameter)) {}

double encode_choice(const ArchitectureParameter& parameter, std::string_view choice) {
  if (parameter.choices.empty()) {
    throw WorkloadError(parameter.name,
                        parameter.name + " takes a number, not '" + std::string(choice) + "'");
  }
  std::string accepted;
  for (std::size_t i = 0; i < parameter.choices.size(); ++i) {
    if (parameter.choices[i] == choice) {
      return static_cast<double>(i);
    }
    accepted += (i == 0 ? "" : ", ") + parameter.choices[i];
  }
  throw WorkloadError(parameter.name, "unknown " + parameter.name + " '" + std::string(choice) +
                                          "'; expected one of " + accepted +
                                          core::did_you_mean(core::closest(choice, parameter.choices)));
}

}  // namespace gpuplan::models

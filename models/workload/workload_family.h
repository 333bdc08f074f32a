#pragma once
/// \file workload_family.h
/// IWorkloadFamily: the extension point that turns a model's architecture parameters
/// (a catalog entry of catalogs/models.yaml, or an inline `model:` of a scenario) into a
/// Workload op table (STYLE.md P1, N2). A scenario's `family:` name selects the entry of
/// a core::Registry<IWorkloadFamily>; register_builtin_workloads() adds the built-ins.

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/registry.h"
#include "models/workload/workload.h"

namespace gpuplan::models {

/// One architecture parameter of a family, as `gpuplan list families` shows it.
///
/// A parameter is required when it has neither `default_value` nor `default_from`.
/// Enumerated parameters list their names in `choices`: the YAML value is one of those
/// names, and ArchitectureValues carries its index (encode_choice() maps a name to it).
/// Booleans are the choices {"false", "true"}, so false is 0 and true is 1.
struct ArchitectureParameter {
  std::string name;                     ///< YAML key, snake_case ("ffn_hidden")
  std::string summary;                  ///< one line for users: what it is, its unit
  std::optional<double> default_value;  ///< nullopt = required, unless default_from is set
  bool integer = true;                  ///< must be a whole number (counts, sizes, choices)
  double min_value = 1;                 ///< smallest accepted value
  std::optional<double> max_value;      ///< largest accepted value, nullopt = unbounded
  /// When default_value is nullopt: the parameter whose value is the default ("heads" for
  /// kv_heads). Empty = no such default.
  std::string default_from;
  std::vector<std::string> choices;  ///< names of an enumerated parameter; index = value

  /// True when build() fails without this parameter.
  bool required() const { return !default_value.has_value() && default_from.empty(); }
};

/// Architecture values by parameter name. Counts are plain numbers; enumerated parameters
/// hold the index of their choice (see ArchitectureParameter).
using ArchitectureValues = std::map<std::string, double>;

/// Thrown by IWorkloadFamily::build() and encode_choice() for a missing, unknown,
/// out-of-range or inconsistent architecture parameter. what() says what is wrong and how
/// to fix it, without a location: config/ adds file:line:column and the key path, for
/// which parameter() names the offending key ("heads"), relative to the model mapping.
class WorkloadError : public std::invalid_argument {
 public:
  WorkloadError(std::string parameter, const std::string& message);
  /// The key the error is about, e.g. "heads".
  const std::string& parameter() const { return parameter_; }

 private:
  std::string parameter_;
};

/// A model family: its parameters and the generator of its op table (STYLE.md P2, P3).
class IWorkloadFamily {
 public:
  virtual ~IWorkloadFamily() = default;
  /// One line for `gpuplan list families`: what the family models and its key assumption.
  virtual std::string summary() const = 0;
  /// The accepted parameters, in the order `explain` prints them.
  virtual std::vector<ArchitectureParameter> parameters() const = 0;
  /// Builds the op table. Fills defaults, then checks required parameters, whole numbers,
  /// ranges, choices and cross-parameter consistency (hidden % heads == 0, ...). Throws
  /// WorkloadError on the first problem; also for a key that parameters() does not list
  /// (callers should check unknown keys first to give a did-you-mean at the right line).
  /// The result's name is "inline" and its family the registry name; callers that built
  /// from a catalog entry overwrite the name.
  virtual Workload build(const ArchitectureValues& values) const = 0;
};

/// The index of `choice` among parameter.choices (the value to put in ArchitectureValues).
/// Throws WorkloadError naming the parameter and listing the accepted names, with the
/// nearest of them as a did-you-mean (core::closest), when `choice` is not one of them, or
/// when the parameter is not enumerated.
double encode_choice(const ArchitectureParameter& parameter, std::string_view choice);

/// Registers the built-in families: "efficientnet", "resnet", "transformer_decoder",
/// "transformer_encoder" and "vit" (models/workload/builtin.cpp; STYLE.md P1).
void register_builtin_workloads(core::Registry<IWorkloadFamily>& registry);

}  // namespace gpuplan::models

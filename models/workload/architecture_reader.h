#pragma once
/// \file architecture_reader.h
/// The strict reader every workload family uses on its ArchitectureValues (STYLE.md P3):
/// it fills defaults, then rejects unknown keys, missing required parameters, fractions
/// where a whole number is expected, values out of range and unknown choice indices, each
/// with a WorkloadError that says how to fix it. Families then read resolved values only.

#include <cstddef>
#include <string>
#include <vector>

#include "models/workload/workload_family.h"

namespace gpuplan::models {

/// A family's parameter values after defaults and validation.
class ArchitectureReader {
 public:
  /// Resolves `values` against `parameters` (in their declared order; a `default_from`
  /// must name an earlier parameter). Throws WorkloadError, checking in this order:
  /// unknown key ("unknown parameter 'hiden' of vit; did you mean hidden?"), missing
  /// required parameter, non-finite value, fraction for an integer parameter, value below
  /// min_value or above max_value, choice index out of range.
  ArchitectureReader(std::string family, std::vector<ArchitectureParameter> parameters,
                     const ArchitectureValues& values);

  /// The resolved value of a declared parameter. Throws std::logic_error for a name that
  /// the family did not declare (a programming error).
  double value(const std::string& name) const;
  /// The resolved value of a declared integer parameter, as a count.
  long long count(const std::string& name) const;
  /// The choice index of an enumerated parameter (0 for the first of its choices).
  std::size_t choice(const std::string& name) const;
  /// A boolean parameter (choices {"false", "true"}): true when its value is 1.
  bool flag(const std::string& name) const;
  /// The family name used in messages.
  const std::string& family() const { return family_; }
  /// All resolved values, defaults included.
  const ArchitectureValues& values() const { return resolved_; }

 private:
  std::string family_;
  std::vector<ArchitectureParameter> parameters_;
  ArchitectureValues resolved_;
};

/// Largest whole number an integer parameter without its own max_value accepts: 2^53, the
/// largest below which a double (ArchitectureValues) holds every whole number exactly, so a
/// count read as a double converts to `long long` without rounding or wrapping (a YAML
/// `kv_heads: 9.3e18` once wrapped to -2^63 and hung the divisor search).
inline constexpr double kMaxArchitectureCount = 9007199254740992.0;

/// The largest value `parameter` accepts: its max_value, else kMaxArchitectureCount for an
/// integer parameter, else +infinity (a real parameter without an upper bound).
double largest_accepted(const ArchitectureParameter& parameter);

/// A value as messages print it: whole numbers without a fraction ("4096"), others in the
/// shortest %g form ("0.1").
std::string format_architecture_value(double value);

/// A required whole-number parameter (no default).
ArchitectureParameter required_count(std::string name, std::string summary);
/// A whole-number parameter with a default and a smallest accepted value.
ArchitectureParameter count_with_default(std::string name, std::string summary,
                                         double default_value, double min_value = 1);
/// A whole-number parameter whose default is the value of the earlier parameter `from`.
ArchitectureParameter count_defaulting_to(std::string name, std::string summary, std::string from);
/// An enumerated parameter; its default is choices[default_index].
ArchitectureParameter choice_parameter(std::string name, std::string summary,
                                       std::vector<std::string> choices, std::size_t default_index);
/// A boolean parameter: the choices {"false", "true"}.
ArchitectureParameter flag_parameter(std::string name, std::string summary, bool default_value);
/// A real-valued parameter in [min_value, max_value] with a default.
ArchitectureParameter real_parameter(std::string name, std::string summary, double default_value,
                                     double min_value, double max_value);

}  // namespace gpuplan::models

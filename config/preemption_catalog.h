#pragma once
/// \file preemption_catalog.h
/// Default spot preemption rates per provider and instance family
/// (catalogs/preemption.yaml, format gpuplan/v1), for `cloud.preemption_rate: catalog`.
/// Each figure carries its source; see the file's header for how they were computed.

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpuplan::config {

/// One resolved default: the per-node rate, the start-up time after a replacement, and where
/// they come from.
struct PreemptionDefault {
  double rate_per_s = 0.0;   ///< per node
  double startup_s = 0.0;
  std::string source;        ///< "aws/p3 (catalogs/preemption.yaml): <source text>"
};

class PreemptionCatalog {
 public:
  /// Reads `path`. Throws ConfigError with every error at file:line:column with its key path.
  static PreemptionCatalog load(const std::string& path);
  /// As load(), from text; `file_name` is used in messages.
  static PreemptionCatalog parse(const std::string& yaml_text, const std::string& file_name);

  /// The default for `provider` and `instance_type`: the family's rate when the family (the
  /// type up to its first '.' or '-') is listed, else the provider's. nullopt when the
  /// provider is not listed (no catalog loaded, or a provider without a spot market).
  std::optional<PreemptionDefault> find(std::string_view provider, std::string_view instance_type) const;

  /// The family of an instance type: "p3.2xlarge" -> "p3", "a2-highgpu-8g" -> "a2".
  static std::string family_of(std::string_view instance_type);

  bool empty() const { return providers_.empty(); }

 private:
  struct Family {
    double rate_per_s = 0.0;
    std::string source;
  };
  struct Provider {
    double rate_per_s = 0.0;
    double startup_s = 0.0;
    std::string source;
    std::map<std::string, Family> families;
  };
  std::string file_;
  std::map<std::string, Provider> providers_;
};

}  // namespace gpuplan::config

#include "config/preemption_catalog.h"

#include <filesystem>
#include <utility>

#include "config/yaml_reader.h"

namespace gpuplan::config {
namespace {

constexpr std::string_view kFormat = "gpuplan/v1";

}  // namespace

PreemptionCatalog PreemptionCatalog::load(const std::string& path) {
  return parse(read_text_file(path), path);
}

PreemptionCatalog PreemptionCatalog::parse(const std::string& yaml_text, const std::string& file_name) {
  const YAML::Node root = parse_yaml(yaml_text, file_name);
  ErrorSink sink(file_name);
  MapReader top(root, "", sink);
  if (auto format = top.string("format", Requirement::kRequired)) {
    if (*format != kFormat) {
      top.error("format", "unsupported format '" + *format + "'",
                "; this version of gpuplan reads format: " + std::string(kFormat));
    }
  }
  PreemptionCatalog catalog;
  const std::filesystem::path file(file_name);
  catalog.file_ = (file.parent_path().filename() / file.filename()).generic_string();  // no machine paths
  auto providers = top.map("providers", Requirement::kRequired);
  top.finish();
  if (providers && providers->valid()) {
    const YAML::Node node = root["providers"];
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string name = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
      auto p = providers->map(name, Requirement::kRequired);
      if (!p || !p->valid()) continue;
      Provider prov;
      prov.rate_per_s =
          p->quantity("rate", core::Dimension::kPerSecond, Range::kNonNegative, Requirement::kRequired).value_or(0.0);
      prov.startup_s =
          p->quantity("startup", core::Dimension::kSeconds, Range::kNonNegative, Requirement::kRequired).value_or(0.0);
      prov.source = p->string("source", Requirement::kRequired).value_or("");
      p->string("retrieved", Requirement::kRequired);
      if (auto families = p->map("families"); families && families->valid()) {
        const YAML::Node fams = it->second["families"];
        for (auto f = fams.begin(); f != fams.end(); ++f) {
          const std::string fam = f->first.IsScalar() ? f->first.Scalar() : std::string("?");
          auto fr = families->map(fam, Requirement::kRequired);
          if (!fr || !fr->valid()) continue;
          Family family;
          family.rate_per_s = fr->quantity("rate", core::Dimension::kPerSecond, Range::kNonNegative,
                                           Requirement::kRequired)
                                  .value_or(0.0);
          family.source = fr->string("source", Requirement::kRequired).value_or("");
          fr->finish();
          prov.families.emplace(fam, std::move(family));
        }
        families->finish();
      }
      p->finish();
      catalog.providers_.emplace(name, std::move(prov));
    }
    providers->finish();
  }
  sink.throw_if_any();
  return catalog;
}

std::string PreemptionCatalog::family_of(std::string_view instance_type) {
  const std::size_t cut = instance_type.find_first_of(".-");
  return std::string(instance_type.substr(0, cut));
}

std::optional<PreemptionDefault> PreemptionCatalog::find(std::string_view provider,
                                                         std::string_view instance_type) const {
  const auto p = providers_.find(std::string(provider));
  if (p == providers_.end()) {
    return std::nullopt;
  }
  PreemptionDefault d;
  d.startup_s = p->second.startup_s;
  const std::string family = family_of(instance_type);
  if (const auto f = p->second.families.find(family); f != p->second.families.end()) {
    d.rate_per_s = f->second.rate_per_s;
    d.source = std::string(provider) + "/" + family + " (" + file_ + "): " + f->second.source;
  } else {
    d.rate_per_s = p->second.rate_per_s;
    d.source = std::string(provider) + " default (" + file_ + "): " + p->second.source;
  }
  return d;
}

}  // namespace gpuplan::config

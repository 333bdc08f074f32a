#include "config/catalog_file.h"

#include <cctype>
#include <string_view>

namespace gpuplan::config {
namespace {
constexpr std::string_view kFormat = "gpuplan/v1";
}  // namespace

void read_catalog_entries(
    const YAML::Node& root, ErrorSink& sink, const CatalogSection& section,
    const std::function<void(const std::string& name, const YAML::Node& value, const YAML::Mark& key_mark)>&
        read_entry) {
  MapReader top(root, "", sink);
  if (auto format = top.string("format", Requirement::kRequired)) {
    if (*format != kFormat) {
      top.error("format", "unsupported format '" + *format + "'",
                "; this version of gpuplan reads format: " + std::string(kFormat));
    }
  }
  const YAML::Node entries = top.raw(section.key);
  if (top.valid() && !top.has(section.key)) {
    top.error(section.key, "missing key '" + section.key + "'",
              "; add " + section.key + ": with one entry per " + section.entry);
  }
  top.finish();
  if (!entries.IsDefined() || entries.IsNull()) {
    return;
  }
  if (!entries.IsMap()) {
    sink.add("expected a mapping of " + section.entry + " names, found " + describe_node(entries), entries.Mark(),
             section.key, "; write " + section.key + ": with one indented entry per " + section.indented);
    return;
  }
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    const std::string name = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
    read_entry(name, it->second, it->first.Mark());
  }
}

bool is_iso_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') {
    return false;
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i != 4 && i != 7 && !std::isdigit(static_cast<unsigned char>(text[i]))) {
      return false;
    }
  }
  const int month = (text[5] - '0') * 10 + (text[6] - '0');
  const int day = (text[8] - '0') * 10 + (text[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

}  // namespace gpuplan::config

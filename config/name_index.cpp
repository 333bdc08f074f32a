#include "config/name_index.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace gpuplan::config {

std::vector<std::string> ambiguous_names(const std::vector<NamedEntry>& entries, const std::string& kind,
                                         bool with_aliases) {
  const std::string rule =
      with_aliases ? "; names and aliases must identify one " + kind + " (case-insensitive)"
                   : "; names must be unique (case-insensitive)";
  std::vector<std::string> errors;
  std::map<std::string, std::string> owner;
  for (const NamedEntry& e : entries) {
    if (e.name.empty()) {
      errors.push_back(kind + " spec without a name; every " + kind + " needs a catalog name");
      continue;
    }
    const auto [it, inserted] = owner.emplace(fold(e.name), e.name);
    if (!inserted) {
      errors.push_back(kind + " name '" + e.name + "' is already used by " + it->second + rule);
    }
  }
  for (const NamedEntry& e : entries) {
    for (const std::string& alias : e.aliases) {
      const auto [it, inserted] = owner.emplace(fold(alias), e.name);
      if (!inserted && it->second != e.name) {
        errors.push_back("alias '" + alias + "' of " + e.name + " is already a name or alias of " + it->second + rule);
      }
    }
  }
  return errors;
}

std::string fold(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

void NameIndex::clear() {
  by_name_.clear();
  by_folded_.clear();
  names_.clear();
}

void NameIndex::add_name(const std::string& name, std::size_t index) {
  by_name_.emplace(name, index);
  by_folded_.emplace(fold(name), index);
  names_.push_back(name);
}

void NameIndex::add_alias(const std::string& alias, std::size_t index) { by_folded_.emplace(fold(alias), index); }

std::optional<std::size_t> NameIndex::find(std::string_view name_or_alias) const {
  if (auto it = by_name_.find(std::string(name_or_alias)); it != by_name_.end()) {
    return it->second;
  }
  if (auto it = by_folded_.find(fold(name_or_alias)); it != by_folded_.end()) {
    return it->second;
  }
  return std::nullopt;
}

std::vector<std::string> NameIndex::sorted_names() const {
  std::vector<std::string> out = names_;
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gpuplan::config

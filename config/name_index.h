#pragma once
/// \file name_index.h
/// Lookup of catalog entries by name: the exact catalog name first, then case-insensitive
/// names and aliases ("A100-SXM4-80GB" -> a100-80gb). Shared by the GPU, storage and model
/// catalogs.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpuplan::config {

/// `text` in lower case (ASCII), for case-insensitive names.
std::string fold(std::string_view text);

/// One catalog entry's names, for ambiguous_names().
struct NamedEntry {
  std::string name;
  std::vector<std::string> aliases;
};

/// What keeps `entries` from being looked up unambiguously, case-insensitively: an empty name,
/// a name used twice, an alias that is already another entry's name or alias. `kind` is the
/// entry's noun in the messages ("GPU", "storage class"); `with_aliases` says whether the
/// catalog has aliases (it only changes the wording). Empty when every name identifies one entry.
std::vector<std::string> ambiguous_names(const std::vector<NamedEntry>& entries, const std::string& kind,
                                         bool with_aliases);

/// Entry indices by name. Adding a name or alias that is already taken keeps the first.
class NameIndex {
 public:
  void clear();
  /// Indexes `name` (exact and case-insensitive) for the entry at `index`.
  void add_name(const std::string& name, std::size_t index);
  /// Indexes `alias` (case-insensitive only) for the entry at `index`.
  void add_alias(const std::string& alias, std::size_t index);
  /// The entry of `name_or_alias`: exact name first, then case-insensitive names and aliases.
  std::optional<std::size_t> find(std::string_view name_or_alias) const;
  /// The names added with add_name(), sorted.
  std::vector<std::string> sorted_names() const;

 private:
  std::unordered_map<std::string, std::size_t> by_name_;
  std::unordered_map<std::string, std::size_t> by_folded_;
  std::vector<std::string> names_;
};

}  // namespace gpuplan::config

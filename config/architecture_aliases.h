#pragma once
// Other programs' names for gpuplan's architecture keys (Hugging Face config.json, nanoGPT,
// Megatron-LM, Meta's Llama params.json), so that a key copied from one of them is answered
// with gpuplan's name instead of a bare "unknown key".

#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::config {

/// One foreign name of an architecture key: `alias` ("num_hidden_layers") is what `source`
/// ("Hugging Face config.json") calls gpuplan's `key` ("layers") of one or more families.
struct ArchitectureAlias {
  std::string_view alias;
  std::string_view key;
  std::string_view source;
};

/// Every alias, in one table (config/architecture_aliases.cpp). An alias is never itself a
/// gpuplan key of any family.
const std::vector<ArchitectureAlias>& architecture_aliases();

/// The phrase "'num_hidden_layers' is the Hugging Face config.json name for layers" used by
/// every message about an alias.
std::string alias_phrase(const ArchitectureAlias& alias);

}  // namespace gpuplan::config
